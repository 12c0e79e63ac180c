#!/bin/bash
# One run with an empty cache directory: the cold start (the code cache is written at exit).
d=$(mktemp -d /tmp/spindle-cold-XXXXXX)
SPINDLE_CACHE_DIR=$d exec "$@"
