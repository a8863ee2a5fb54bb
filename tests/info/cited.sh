#!/bin/sh
# The rule PACOLL_VERBOSE cites for a call is the rule pacoll-info --rules
# shows under the same number and line (tests/CMakeLists.txt, info_rules_cited):
#   cited.sh INFO BENCH LAUNCH...    (LAUNCH: mpirun -np 2 ...)
set -u
info=$1 bench=$2
shift 2
out=$(PACOLL_VERBOSE=1 "$@" "$bench" alltoall --algos auto --sizes 512:512 --iters 2 --warmup 0 \
      --repeat 1 2>&1) || { echo "$out"; echo "info-cited: FAIL: the run failed"; exit 1; }
cite=$(echo "$out" | sed -n 's/.*: pacoll.s \([a-z_]*\), by rule \([0-9]*\) at line \([0-9]*\) of the built-in selection rules$/\1 \2 \3/p' | head -1)
[ -n "$cite" ] || { echo "$out"; echo "info-cited: FAIL: no rule cited"; exit 1; }
set -- $cite
echo "PACOLL_VERBOSE cites rule $2 at line $3 for $1"
"$info" --rules | grep "^  rule $2 at line $3: alltoall $1 where " ||
    { "$info" --rules; echo "info-cited: FAIL: pacoll-info --rules differs"; exit 1; }
echo "info-cited: PASS"
