#!/usr/bin/env bash
# napi runs of the landed code (7a31886) in the built clone: the real project, then the generated one (Node 20, 26).
cd "${TREE:?a built clone}"
run() { local name=$1; shift; echo "== $name $(date -u +%T)"; vmstat 1 3 | tail -1; node runtime/dist/cli.js bench --only napi "$@" --out "${OUT:-.}"/napi-2026-11-28-$name > "${OUT:-.}"/$name.log 2>&1; echo "rc=$? $(date -u +%T)"; vmstat 1 3 | tail -1; grep -i "goal\|not met" "${OUT:-.}"/napi-2026-11-28-$name/summary.md | grep -v "not measured" | head -20; }
run final11-real --runs 7 --param napi.project=big --param napi.engines=none --param napi.jobs=rolldown
run final11 --runs 7 --param napi.engines=none --param napi.jobs=rolldown
echo "== done $(date -u +%T)"
