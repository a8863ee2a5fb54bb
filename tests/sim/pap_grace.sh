#!/bin/sh
# ctest smpi_pap_grace: pap_direct's default grace (how long the first
# unsent peer in Direct order is waited for before it is skipped) is two
# network latencies of the cost model, 4 us, at every block size, and a
# longer hold is slower under skew (docs/PAP.md, "Grace").
#   pap_grace.sh SMPIRUN PLATFORM HOSTFILE PACOLL_BENCH WORK_DIR [--cfg ...]
# 16 ranks on 4 x 4, alltoall of 16 KB blocks (zero-copy), MIF 32:
# - the default and PACOLL_PAP_GRACE_US=4 give the same simulated time;
# - PACOLL_PAP_GRACE_US=15, what the old default (four modelled block
#   times) gave at 16 KB, is slower: the hold waited for peers that were
#   really late (809.7 against 794.5 us when written).
# Simulated time is deterministic: the comparison is the model's.
set -eu
smpirun=$1 platform=$2 hosts=$3 bench=$4 work=$5
shift 5
rm -rf "$work"
mkdir -p "$work"
cd "$work"
run() { # run OUT [VAR=VALUE]
  out=$1
  shift
  env "$@" PACOLL_SIM_TESTED=1 PACOLL_SIM_PUT=transfer \
    "$smpirun" -np 16 -platform "$platform" -hostfile "$hosts" $cfg --log=root.thresh:error \
    "$bench" alltoall --algos pap_direct --sizes 16k --mif 32 --iters 10 --warmup 1 --seed 1 \
    --pp-peer 4 --quiet --json "$out"
}
cfg="$*"
run default.json
run g4.json PACOLL_PAP_GRACE_US=4
run g15.json PACOLL_PAP_GRACE_US=15
python3 - default.json g4.json g15.json <<'PY'
import json, sys
def avg(path):
    d = json.load(open(path))
    return d["results"][0]["algos"][0]["summary"]["avg_us"]["median"]
dflt, g4, g15 = (avg(p) for p in sys.argv[1:4])
same = dflt == g4
slower = g15 > dflt
print("smpi_pap_grace: default %.3f us, grace 4 us %.3f: %s" % (dflt, g4, "same" if same else "FAIL"))
print("smpi_pap_grace: grace 15 us %.3f: %s" % (g15, "slower" if slower else "FAIL, not slower"))
ok = same and slower
print("smpi_pap_grace: %s" % ("PASS" if ok else "FAIL"))
sys.exit(0 if ok else 1)
PY
