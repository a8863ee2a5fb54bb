#!/bin/sh
# Runs an application (apps/) once per pacoll algorithm of the collectives it
# uses, forced with --algo COLL=NAME, and requires its "verified=yes" line
# each time.  The names come from the application's own --list (pacoll's
# registry), so a new algorithm is covered without touching this file;
# `native` is run too (pacoll's hand-off to the MPI library).
#
# usage: each_algo.sh "APP ARGS..." -- LAUNCHER... APP
#   e.g. each_algo.sh "--n 16" -- mpiexec -n 4 ./ft
# Prints one line per run and "each_algo: PASS (N runs)" or "FAIL".
set -u
args=$1
shift
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "usage: $0 \"ARGS...\" -- LAUNCHER... APP" >&2; exit 2; }
list=$("$@" --list 2>&1) || { echo "$list"; echo "each_algo: FAIL: --list"; exit 1; }
runs=0 failed=0
# one line per collective: "COLL: NAME NAME..."
for coll in $(printf '%s\n' "$list" | sed -n 's/^\([a-z]*\):.*/\1/p'); do
    algos=$(printf '%s\n' "$list" | sed -n "s/^$coll: //p" | head -1)
    [ -n "$algos" ] || { echo "each_algo: FAIL: no algorithms for $coll"; exit 1; }
    for algo in $algos; do
        runs=$((runs + 1))
        # shellcheck disable=SC2086 # ARGS is a word list
        out=$("$@" $args --algo "$coll=$algo" 2>&1)
        rc=$?
        line=$(printf '%s\n' "$out" | grep -E '^app=' | tail -1)
        echo "$coll=$algo: exit $rc: ${line:-no result line}"
        if [ "$rc" -ne 0 ] || ! printf '%s\n' "$line" | grep -q ' verified=yes'; then
            printf '%s\n' "$out" | tail -15
            failed=$((failed + 1))
        fi
    done
done
if [ "$runs" -gt 0 ] && [ "$failed" -eq 0 ]; then
    echo "each_algo: PASS ($runs runs)"
    exit 0
fi
echo "each_algo: FAIL ($failed of $runs runs)"
exit 1
