#!/usr/bin/env bash
# The datatype fuzz's long run: check_dtfuzz (tests/check_dtfuzz.c) in
# batches with fresh seeds for a given time, rotating over rank counts and
# node layouts, every case checked against PMPI_<coll> and
# MPI_Pack/MPI_Unpack.  Not run in CI, which runs a fixed slice
# (docs/TESTING.md, "Datatype fuzz").
#
#   scripts/dtfuzz-soak.sh --duration 30m [--build DIR] [--cases N] [-- check_dtfuzz options]
#
# --build: a configured and built tree (default build/ci, else build/release);
# --cases: cases per batch (5000).  Each batch prints its seed and closing
# lines; a failed batch is kept in full under the output folder and the run
# ends with  "dtfuzz-soak: N cases, F failed batches"  and a non-zero status
# when F > 0.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/env.sh"

duration="" build="" cases=5000 extra=()
usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) duration="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --cases) cases="$2"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) usage ;;
    *) echo "dtfuzz-soak: unknown option $1" >&2; usage ;;
  esac
done
[ -n "$duration" ] || { echo "dtfuzz-soak: --duration is required (e.g. 30m, 90s, 2h)" >&2; exit 2; }
secs=$(pacoll_duration_secs dtfuzz-soak "$duration") || exit 2
if [ -z "$build" ]; then
  for b in "$here/build/ci" "$here/build/release"; do [ -x "$b/tests/check_dtfuzz" ] && build=$b && break; done
fi
prog="$build/tests/check_dtfuzz"
[ -x "$prog" ] || { echo "dtfuzz-soak: no $prog (build the tests first)" >&2; exit 2; }
launcher=$(grep -E '^MPIEXEC_EXECUTABLE:' "$build/CMakeCache.txt" 2>/dev/null | cut -d= -f2)
launcher=${launcher:-mpiexec}
flags=() ompi=0
if grep -qE "Open MPI|OpenRTE" <<<"$("$launcher" --version 2>&1)"; then
  flags=(--oversubscribe --mca osc ^rdma)
  ompi=1
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
out=$(mktemp -d /tmp/dtfuzz-soak.XXXXXX)
# rank counts and virtual nodes, in turn
layouts=("2:" "3:2,1" "4:2" "5:3,2" "6:1,2,3" "7:3,1,2" "8:3,1,4" "4:")
end=$(( $(date +%s) + secs )) batch=0 total=0 failed=0
while [ "$(date +%s)" -lt "$end" ]; do
  l=${layouts[$(( batch % ${#layouts[@]} ))]}
  np=${l%%:*} ns=${l#*:}
  log="$out/batch$batch.log"
  envs=()
  unset PACOLL_NODE_SIZE
  if [ -n "$ns" ]; then
    export PACOLL_NODE_SIZE=$ns
    [ $ompi -eq 1 ] && envs=(-x PACOLL_NODE_SIZE)
  fi
  timeout 1800 "$launcher" -n "$np" "${flags[@]}" "${envs[@]}" "$prog" --cases "$cases" "${extra[@]}" \
    >"$log" 2>&1
  rc=$?
  grep -E "^check_dtfuzz: (seed|[0-9]+ (checks|results))" "$log" | sed "s/^/[np $np nodes ${ns:-one}] /"
  if [ $rc -ne 0 ] || ! grep -qE "checks passed, 0 failed" "$log"; then
    failed=$((failed + 1)); echo "dtfuzz-soak: batch $batch failed (exit $rc): $log"
  else
    rm -f "$log"
  fi
  total=$((total + cases)) batch=$((batch + 1))
done
echo "dtfuzz-soak: $total cases, $failed failed batches"
[ "$failed" -eq 0 ]
