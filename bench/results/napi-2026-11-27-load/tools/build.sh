#!/usr/bin/env bash
# build.sh NAME DIST: pages of tests/napi/web with DIST as spindle's dist, unminified, into NAME/out
set -euo pipefail
wt=/work/wt/napi-node2
d=/work/scratch/napi-load/bprof/$1
rm -rf "$d"; mkdir -p "$d"
cp -a $wt/tests/napi/web "$d/web"
rm -rf "$d/web/node_modules/spindle/dist"; cp -a "$2" "$d/web/node_modules/spindle/dist"
cat > "$d/web/vite.prof.config.js" <<'EOC'
import base from './vite.config.js';
export default (env) => { const c = base(env); c.build = { ...c.build, minify: false }; return c; };
EOC
for mode in stock spindle; do
  out=$d/out/$([ $mode = stock ] && echo stock || echo on-spindle)
  (cd "$d/web" && node node_modules/vite/bin/vite.js build --config vite.prof.config.js --mode $mode --outDir "$out" --emptyOutDir --logLevel error)
  mkdir -p "$out/project"; cp -a /work/scratch/napi-load/project/. "$out/project/"
  (cd /work/scratch/napi-load/project && find . -type f | sed 's#^\./##' | node -e "const l=require('fs').readFileSync(0,'utf8').trim().split('\n'); require('fs').writeFileSync('$out/project/list.json', JSON.stringify(l))")
done
echo "$d/out"
