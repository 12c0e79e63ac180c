#!/usr/bin/env bash
cd /work/wt/napi-node
echo "== vmstat before $(date -u +%T)"; vmstat 1 5
node bench/napi/ab/tasks-ab.mjs "$1" /tmp/ab/cfg.json
echo "== vmstat after $(date -u +%T)"; vmstat 1 5
