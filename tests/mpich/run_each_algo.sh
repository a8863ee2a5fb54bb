#!/bin/sh
# Runs check_colls once per pacoll algorithm of some collectives (never
# `native`, the MPI library's own, nor `auto`, which the built-in rules send
# to the MPI library at this shape), with the same extra arguments each time:
# the MPICH configuration's struct-type in-place runs (tests/mpich/CMakeLists.txt).
# The algorithm names come from `check_colls --list`, so a new algorithm is
# covered without touching this file.
#
# usage: run_each_algo.sh "COLL..." "CHECK_COLLS ARGS..." -- LAUNCHER... CHECK_COLLS
#   e.g. run_each_algo.sh "alltoall alltoallv" "--pairs 5 --seed 4" -- mpiexec -n 4 ./check_colls
# Prints each run's summary and "run_each_algo: PASS" (N runs) or "FAIL".
set -u
colls=$1 args=$2
shift 2
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "usage: $0 \"COLL...\" \"ARGS...\" -- LAUNCHER... CHECK_COLLS" >&2; exit 2; }
list=$("$@" --list 2>&1) || { echo "$list"; echo "run_each_algo: FAIL: --list"; exit 1; }
runs=0 failed=0
for coll in $colls; do
    algos=$(printf '%s\n' "$list" | sed -n "s/^$coll: //p" | head -1)
    [ -n "$algos" ] || { echo "run_each_algo: FAIL: no algorithms for $coll"; exit 1; }
    for algo in $algos; do
        case $algo in native|auto) continue ;; esac
        runs=$((runs + 1))
        # shellcheck disable=SC2086 # ARGS is a word list
        out=$("$@" --coll "$coll" --algo "$algo" $args 2>&1)
        rc=$?
        summary=$(printf '%s\n' "$out" | grep -E '^check_colls: [0-9]+ checks passed' | tail -1)
        echo "$coll $algo: ${summary:-no summary} (exit $rc)"
        if [ "$rc" -ne 0 ] || ! printf '%s\n' "$summary" | grep -q ' 0 failed'; then
            printf '%s\n' "$out" | tail -20
            failed=$((failed + 1))
        fi
    done
done
if [ "$failed" -eq 0 ]; then
    echo "run_each_algo: PASS ($runs runs)"
    exit 0
fi
echo "run_each_algo: FAIL ($failed of $runs runs)"
exit 1
