#!/bin/sh
# ctest sim_ci_small: the simulated harness end to end on a small experiment.
#   ci_small.sh SOURCE_DIR PACOLL_BENCH WORK_DIR
# Runs `sim/run ci_small` with this build's pacoll-bench (16 and 64 simulated
# ranks, the three SMPI peer selectors, pacoll's auto on each), checks that
# its JSON is complete (every point present, every time positive: sim/run
# --verify; an auto row beside every native one, naming what auto ran), and
# that docs/RESULTS.md's generator runs on the result (written to WORK_DIR,
# the committed docs/RESULTS.md is not touched).
set -eu
src=$1 bench=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
python3 "$src/sim/run" ci_small --bench "$bench" --out "$work/ci_small" -j 2 --force
python3 "$src/sim/run" ci_small --out "$work/ci_small" --verify
python3 "$src/tests/sim/check_auto.py" "$src" "$bench" "$work/ci_small/json"
mkdir -p "$work/published/ci_small"
cp "$work/ci_small/json/"*.json "$work/ci_small/summary.json" "$work/published/ci_small/"
PYTHONPATH="$src/python" python3 -m pacoll_report.results --root "$src" \
  --published "$work/published" --out "$work/RESULTS.md"
grep -q "pap_aware_4x4_alltoall_16r_mif32" "$work/RESULTS.md"
grep -q "not yet" "$work/RESULTS.md"
grep -q "native / auto, geometric mean" "$work/RESULTS.md"
echo "sim_ci_small: PASS"
