# ab.sh ROUNDS A B ...: interleaved browser rounds of the direct route
r=$1; shift
for i in $(seq $r); do for v in "$@"; do echo -n "$v "; timeout 300 node run.mjs $v/out 1 direct 2>&1 | grep -v median; done; done
