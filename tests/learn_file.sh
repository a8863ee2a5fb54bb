#!/bin/sh
# The learned file (PACOLL_LEARN_FILE, docs/AUTO.md): a first run writes it
# and a second starts settled (PACOLL_VERBOSE says so); a file that is not a
# learned one is refused with a warning, the run's results are right, and
# it is written anew.
#   learn_file.sh roundtrip|garbage FILE command...
mode=$1 file=$2
shift 2
out=$(mktemp)
fail() { cat "$out"; echo "learn_file: FAIL: $1"; rm -f "$out"; exit 1; }
export PACOLL_LEARN=1 PACOLL_LEARN_FILE="$file"
if [ "$mode" = roundtrip ]; then
  rm -f "$file"
  "$@" >"$out" 2>&1 || fail "the first run failed"
  grep -q '"learned"' "$file" || fail "no learned file after the first run"
  grep -q '"choice"' "$file" || fail "the learned file has no entry"
  PACOLL_VERBOSE=1 "$@" >"$out" 2>&1 || fail "the second run failed"
  grep -q "settled from the learned file" "$out" || fail "the second run did not start settled"
  grep -q "learning in place: trying" "$out" && fail "the second run explored again"
else
  for bad in 'garbage{[' '{"learned": [{"ranks": "two"}]}' '{"version": 9, "learned": []}' \
      '{"learned": [{"ranks": 2, "nodes": 1, "ranks_per_node": 2, "collective": "alltoall", "class": 99, "candidates": [], "choice": "x"}]}'; do
    printf '%s' "$bad" >"$file"
    PACOLL_VERBOSE=1 "$@" >"$out" 2>&1 || fail "a run with the file '$bad' failed"
    grep -q "warning: PACOLL_LEARN_FILE=.* is not a learned file" "$out" ||
      fail "no warning for the file '$bad'"
    grep -Eq "check_learn: [0-9]+ checks passed, 0 failed" "$out" || fail "wrong results"
    grep -q '"learned"' "$file" || fail "the file was not written anew after '$bad'"
  done
fi
cat "$out"
rm -f "$out"
echo "learn_file: PASS"
