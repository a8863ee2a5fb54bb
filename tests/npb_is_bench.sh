#!/bin/sh
# npb_is_bench.sh NPB_IS CLASS P -- BENCH-COMMAND...
# Writes NPB IS's alltoallv count matrix of class CLASS for P ranks, then runs
# BENCH-COMMAND with --vdist file:<matrix> appended (a pacoll-bench run).
set -e
is=$1 class=$2 p=$3
shift 4
out="is_${class}_${p}.txt"
"$is" --class "$class" --ranks "$p" --matrix "$out"
exec "$@" --vdist "file:$out"
