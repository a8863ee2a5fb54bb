#!/usr/bin/env bash
# The soak: pacoll-conform-preload (an unchanged MPI program, pacoll through
# LD_PRELOAD=libpacoll_preload.so) for a given time with every collective,
# every algorithm, every size up to the budget, communicator churn and arrival
# skew, every case checked against PMPI.  Not run in CI (docs/TESTING.md,
# "Conformance sweep and soak").
#
#   scripts/soak.sh --duration 30m [--np 4] [--build DIR] [--seed N]
#                   [--node-size LIST] [--report-every T] [--rss-tol PCT]
#                   [--rss-slack-mb MB] [--linked] [--out DIR] [-- conform options]
#
# It fails on any failed call (a FAIL or HANG line, a non-zero exit) and when
# memory grows after the warm-up:
#   warm-up  the first quarter of the progress lines: by then every kind of
#            communicator has been made and freed many times (--churn 10),
#            every algorithm has run with the largest buffers, so pacoll's
#            per-process state (slots, shared segments, windows, caches) and
#            malloc's retained heap have reached their plateau;
#   limit    the largest per-rank RSS of the last quarter may exceed the
#            warm-up's peak by at most --rss-tol percent (20) plus
#            --rss-slack-mb (16 MB): the allocator's fragmentation noise.
#            Growth that keeps going with time is a leak, and in a 30-minute
#            run (about 10^5-10^6 calls) even 1 KB per call is far above it.
#            The number of mappings (shared segments, windows) may grow by 64,
#            open descriptors by 16.
# Prints the progress lines as they come, then a summary ending in
#   soak: PASS   or   soak: FAIL (<reasons>)
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/env.sh"

duration="" np=4 build="" seed=$(( $(date +%s) % 100000 )) node_size="" report=""
rss_tol=20 rss_slack_mb=16 linked=0 out="" extra=()
usage() { sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) duration="$2"; shift 2 ;;
    --np) np="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --node-size) node_size="$2"; shift 2 ;;
    --report-every) report="$2"; shift 2 ;;
    --rss-tol) rss_tol="$2"; shift 2 ;;
    --rss-slack-mb) rss_slack_mb="$2"; shift 2 ;;
    --linked) linked=1; shift ;;
    --out) out="$2"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) usage ;;
    *) echo "soak: unknown option $1" >&2; usage ;;
  esac
done
[ -n "$duration" ] || { echo "soak: --duration is required (e.g. 30m, 90s, 2h)" >&2; exit 2; }
secs=$(pacoll_duration_secs soak "$duration") || exit 2
if [ -z "$report" ]; then # about 30 progress lines, 5 to 60 s apart
  report=$(( secs / 30 )); [ "$report" -lt 5 ] && report=5; [ "$report" -gt 60 ] && report=60
fi

# the build: the given folder, else build/ci (scripts/test.sh), else build/release
if [ -z "$build" ]; then
  for d in "$here/build/ci" "$here/build/release"; do
    [ -f "$d/CMakeCache.txt" ] && { build=$d; break; }
  done
fi
[ -n "$build" ] && [ -f "$build/CMakeCache.txt" ] || {
  echo "soak: no build folder: configure one (cmake -S $here -B DIR) and pass --build DIR" >&2; exit 2; }
build=$(cd "$build" && pwd)
echo "soak: building pacoll-conform in $build"
cmake --build "$build" -j2 --target pacoll-conform pacoll-conform-preload pacoll_preload \
  >"${TMPDIR:-/tmp}/soak-build.$$.log" 2>&1 || {
  tail -20 "${TMPDIR:-/tmp}/soak-build.$$.log"; echo "soak: FAIL (build)"; exit 1; }
rm -f "${TMPDIR:-/tmp}/soak-build.$$.log"
preload="$build/libpacoll_preload.so"
if [ "$linked" = 1 ]; then
  prog=("$build/tests/conform/pacoll-conform")
else
  # under AddressSanitizer its runtime goes first (as in tests/interpose)
  asan=""
  if grep -q "^PACOLL_ASAN:BOOL=ON" "$build/CMakeCache.txt"; then
    cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
    asan="$("${cc:-cc}" -print-file-name=libasan.so):"
  fi
  prog=(env "LD_PRELOAD=$asan$preload" "$build/tests/conform/pacoll-conform-preload")
fi

out=${out:-${TMPDIR:-/tmp}/pacoll-soak-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
log="$out/soak.log"
launcher=(mpirun -np "$np")
if grep -q "Open MPI\|OpenRTE" <<<"$(mpirun --version 2>&1)"; then
  launcher+=(--oversubscribe --mca osc ^rdma)
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PACOLL_STATS=1
export PACOLL_TIMEOUT=${PACOLL_TIMEOUT:-60}
[ -n "$node_size" ] && export PACOLL_NODE_SIZE="$node_size"
cmd=("${launcher[@]}" "${prog[@]}" --seed "$seed" --duration "$secs" --skew --churn 10
     --report-every "$report" "${extra[@]}")
echo "soak: np=$np duration=${secs}s seed=$seed report-every=${report}s${node_size:+ PACOLL_NODE_SIZE=$node_size} log=$log"
echo "soak: ${cmd[*]}"
start=$(date +%s)
# the run may not outlast its time by more than 5 minutes (the conform
# watchdog and PACOLL_TIMEOUT catch hangs sooner)
timeout --signal=TERM --kill-after=30 $(( secs + 300 )) "${cmd[@]}" >"$log" 2>&1 &
pid=$!
tail -n +1 -f "$log" --pid=$pid | grep --line-buffered -E "^conform: (progress t=|FAIL|HANG)" | cut -c1-400 &
wait $pid
rc=$?
sleep 1
wall=$(( $(date +%s) - start ))

# ---- the summary, from the progress lines and the final line
awk -v tol="$rss_tol" -v slack="$rss_slack_mb" -v rc="$rc" -v wall="$wall" '
  /^conform: progress t=/ {
    n++
    for (i = 3; i <= NF; i++) { split($i, kv, "="); v[n, kv[1]] = kv[2] }
  }
  /^conform: [0-9]+ cases, / { final = $0; cases = $2; calls = $4; failed = $6 }
  /^conform: (FAIL|HANG)/ { bad++ }
  /^pacoll-stats: regcache/ { regline = $0 }
  END {
    reasons = ""
    if (rc != 0) reasons = reasons sprintf(" exit status %d;", rc)
    if (final == "") reasons = reasons " no final line;"
    if (failed + 0 > 0 || bad > 0) reasons = reasons sprintf(" %d failed calls, %d FAIL/HANG lines;", failed, bad)
    printf "soak: %s cases, %s calls, %s failed, %d s\n", cases == "" ? "?" : cases, calls == "" ? "?" : calls, failed == "" ? "?" : failed, wall
    if (n == 0) {
      reasons = reasons " no progress lines;"
    } else {
      w = int(n / 4); if (w < 1) w = 1
      for (i = 1; i <= n; i++) {
        r = v[i, "rss_max_kB"] + 0
        if (i == 1) first = r
        if (r > max) max = r
        if (i <= w) { if (r > wpeak) wpeak = r; if (v[i, "maps_max"] + 0 > wmaps) wmaps = v[i, "maps_max"] + 0; if (v[i, "fds_max"] + 0 > wfds) wfds = v[i, "fds_max"] + 0 }
        if (i > n - w) { if (r > lpeak) lpeak = r; if (v[i, "maps_max"] + 0 > lmaps) lmaps = v[i, "maps_max"] + 0; if (v[i, "fds_max"] + 0 > lfds) lfds = v[i, "fds_max"] + 0 }
      }
      last = v[n, "rss_max_kB"] + 0
      limit = int(wpeak * (1 + tol / 100) + slack * 1024)
      printf "soak: rss per rank (max over ranks), kB: first %d, last %d, max %d; warm-up (first %d of %d lines) peak %d, last-quarter peak %d, limit %d (+%d%% +%d MB)\n", first, last, max, w, n, wpeak, lpeak, limit, tol, slack
      printf "soak: rss over time, kB:"
      for (i = 1; i <= n; i++) printf " %s@%ss", v[i, "rss_max_kB"], v[i, "t"]
      printf "\n"
      printf "soak: mappings warm-up %d, end %d; open descriptors warm-up %d, end %d\n", wmaps, lmaps, wfds, lfds
      if (n < 4) reasons = reasons sprintf(" only %d progress lines (need 4 to judge memory);", n)
      else {
        if (lpeak > limit) reasons = reasons sprintf(" rss grew after warm-up (%d > %d kB);", lpeak, limit)
        if (lmaps > wmaps + 64) reasons = reasons sprintf(" mappings grew (%d -> %d);", wmaps, lmaps)
        if (lfds > wfds + 16) reasons = reasons sprintf(" descriptors grew (%d -> %d);", wfds, lfds)
      }
    }
    if (regline != "") print "soak: " regline
    if (reasons == "") { print "soak: PASS"; exit 0 }
    sub(/;$/, "", reasons)
    print "soak: FAIL (" substr(reasons, 2) ")"
    exit 1
  }' "$log"
status=$?
if [ $status -ne 0 ]; then # the first failures, else the end of the log
  grep -E "^conform: (FAIL|HANG)" "$log" | head -5 | cut -c1-600 | grep . || tail -5 "$log"
fi
echo "soak: log $log"
exit $status
