#!/bin/sh
# pacoll-tune's round trip on a real run (tests/CMakeLists.txt, tune_*):
#   1. measure on NP ranks, write rules and the measurements;
#   2. the rules parse (pacoll's own parser, through --check) and auto runs,
#      at every size and mode, exactly the algorithm the rules name;
#   3. the saved measurements give the same rules again (--from --compare).
# Times on a shared host are noise; what is asserted is not.
#   roundtrip.sh TUNE DIR LAUNCH...    (LAUNCH: mpirun -np 2 ...)
set -u
tune=$1 dir=$2
shift 2
rm -rf "$dir" && mkdir -p "$dir" || exit 1
opts="--colls alltoall,alltoallv,gather --sizes 8:4096 --repeat 3 --quiet"
fail() { echo "tune-roundtrip: FAIL: $*"; exit 1; }
"$@" "$tune" $opts --out "$dir/rules.json" --save "$dir/measured.json" ||
    fail "pacoll-tune exited with $?"
grep -q '"provenance": {"command": "mpirun -np' "$dir/rules.json" || fail "no provenance"
for k in '"mpi": "[^"(]' '"host": "' '"date": "20' '"margin": 1.05'; do
    grep -q "$k" "$dir/rules.json" || fail "provenance lacks $k"
done
"$@" "$tune" $opts --check "$dir/rules.json" > "$dir/check.txt" 2>&1
rc=$?
cat "$dir/check.txt"
[ $rc -eq 0 ] || fail "--check exited with $rc"
grep -q "0 where auto ran another algorithm" "$dir/check.txt" || fail "auto ran another algorithm"
# the two kinds of point below the floor are told apart, and the ratio is named
grep -q "^coll .* native/auto .* verdict$" "$dir/check.txt" || fail "no native/auto column"
grep -Eq "where pacoll's rule lost \(native/auto < 0.97\), [0-9]+ passed through to the MPI library below" \
    "$dir/check.txt" || fail "--check does not separate losses from pass-through"
grep -Eq " (ok|pass-through, within noise|pacoll's rule lost)$" "$dir/check.txt" || fail "no verdicts"
! grep -q " slower$" "$dir/check.txt" || fail "a verdict says slower"
"$tune" --quiet --from "$dir/measured.json" --out "$dir/again.json" --compare "$dir/rules.json" \
    --floor 0.01 || fail "the saved measurements do not give the same rules"
echo "tune-roundtrip: PASS"
