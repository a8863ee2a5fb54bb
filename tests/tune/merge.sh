#!/bin/sh
# pacoll-tune merges the measurements of several job sizes into one rules
# file (tests/CMakeLists.txt, tune_merge): a file and a directory, each
# after its own --from; each shape gets its own rules, and pacoll-info
# finds each shape's rule in the one file.
#   merge.sh TUNE INFO SRCDIR OUTDIR
set -u
tune=$1 info=$2 src=$3 dir=$4
rm -rf "$dir" && mkdir -p "$dir" || exit 1
fail() { echo "tune-merge: FAIL: $*"; exit 1; }
"$tune" --quiet --from "$src/two_ranks.json" --from "$src/more" --out "$dir/rules.json" \
    --floor 0.01 || fail "pacoll-tune exited with $?"
cat "$dir/rules.json"
grep -q '"min_bytes": 8, "max_bytes": 8, "min_ranks": 2, "max_ranks": 2.*measured on nodeA' "$dir/rules.json" ||
    fail "no rule for 2 ranks"
grep -q '"min_bytes": 16, "max_bytes": 16, "min_ranks": 4, "max_ranks": 4.*measured on nodeB' "$dir/rules.json" ||
    fail "no rule for 4 ranks"
grep -q 'more/four_ranks.json' "$dir/rules.json" || fail "the directory's file is not a source"
"$info" --rules-file "$dir/rules.json" --ranks 2 --colls alltoall --sizes 8:16 > "$dir/two.txt" || fail "pacoll-info"
"$info" --rules-file "$dir/rules.json" --ranks 4 --nodes 2 --colls alltoall --sizes 8:16 > "$dir/four.txt" || fail "pacoll-info"
cat "$dir/two.txt" "$dir/four.txt"
grep -Eq "alltoall +8 - 8 +B +direct +rule 1" "$dir/two.txt" || fail "2 ranks, 8 B: not rule 1"
grep -Eq "alltoall +16 - 16 +B +direct +rule 2" "$dir/four.txt" || fail "4 ranks, 16 B: not rule 2"
echo "tune-merge: PASS"
