#!/usr/bin/env bash
# guarded-stock.sh TREE OUT: the stock loader on spindle's thread-guarded bytes, to measure what the
# guards (thread-guards.ts: growth checks before bulk and atomic accesses, the wait wrapper) cost
# the addon's own code with everything else the stock loader's. OUT/tests/napi is TREE's (built,
# `bash tests/napi/setup.sh` run) with rolldown's .wasm replaced by TREE's runtime/dist
# guardThreads() rewrite of it; the rewrite adds no import, so the stock loader instantiates it.
#   bash guarded-stock.sh /work/main /tmp/ab/guarded
#   node mkcfg.mjs /tmp/ab/cfg.json 3 /tmp/ab/base --stock /tmp/ab/guarded --project DIR
set -euo pipefail
tree=$(cd "$1" && pwd); out=$2
[ -f "$tree/runtime/dist/thread-guards.js" ] && [ -d "$tree/tests/napi/stock/node_modules/@rolldown" ] \
  || { echo "guarded-stock.sh: $tree needs a built runtime and the stock packages: cd $tree && (cd runtime && npm run build) && bash tests/napi/setup.sh" >&2; exit 1; }
rm -rf "$out"; mkdir -p "$out/tests"
cp -al "$tree/tests/napi" "$out/tests/napi"
wasm=$(ls "$out"/tests/napi/stock/node_modules/@rolldown/binding-wasm32-wasi/*.wasm32-wasi.wasm)
cp --remove-destination "$wasm" "$wasm.copy" && mv "$wasm.copy" "$wasm" # its own file, not a link to TREE's
node --input-type=module - "$tree/runtime/dist/thread-guards.js" "$wasm" <<'JS'
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const [guards, wasm] = process.argv.slice(2);
const { guardThreads } = await import(pathToFileURL(guards).href);
const { bytes, ...counts } = guardThreads(new Uint8Array(readFileSync(wasm)));
if (counts.unchanged) throw new Error(`the rewrite left the module unchanged: ${counts.unchanged}`);
writeFileSync(wasm, bytes);
console.log(`${wasm}: guarded (${JSON.stringify(counts)})`);
JS
echo "$out"
