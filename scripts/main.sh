#!/usr/bin/env bash
# The main job: install what is missing, build pacoll (release, for real MPI
# and for SimGrid SMPI), and run the showcase benchmark:
#   1. real ranks: pacoll against this machine's Open MPI, 2 ranks side by side;
#   2. a simulated cluster (SMPI): 4 nodes x 4 cores, InfiniBand-DDR-like (the
#      pap-aware paper's testbed), 16 ranks, without and with arrival skew;
#   3. the same network at 64 ranks (8 nodes x 8 cores).
# Every table is printed and saved with its JSON under results/showcase/, and
# pacoll-report turns them into plots and one markdown report there.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
"$here/scripts/install-deps.sh"
. "$here/scripts/env.sh"
jobs=$(nproc 2>/dev/null || echo 2)

echo "==== building (build/release, build/release-smpi)"
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DPACOLL_BUILD_TESTS=OFF >/dev/null
cmake --build build/release -j "$jobs" >/dev/null
cmake -S . -B build/release-smpi -DCMAKE_BUILD_TYPE=Release -DPACOLL_SMPI=ON -DPACOLL_BUILD_TESTS=OFF >/dev/null
cmake --build build/release-smpi -j "$jobs" >/dev/null

out="$here/results/showcase"
mkdir -p "$out"
bench="$here/build/release/pacoll-bench"
sbench="$here/build/release-smpi/pacoll-bench"
plat="$here/sim/platforms/pap_aware_4x4.xml"
hosts="$here/sim/platforms/pap_aware_4x4.hosts"
smpi_cfg=(--cfg=smpi/async-small-thresh:65536 --cfg=maxmin/precision:1e-4 --cfg=smpi/iprobe:1e-8 --cfg=smpi/test:1e-8 --cfg=smpi/grow-injected-times:no
          --cfg=smpi/simulate-computation:no --log=root.thresh:error)
smpi=(smpirun -np 16 -platform "$plat" -hostfile "$hosts" "${smpi_cfg[@]}")

run() { # name, command...
  local name=$1; shift
  echo
  echo "==== $name"
  echo "\$ $*" | tee "$out/$name.txt"
  "$@" --json "$out/$name.json" 2>&1 | tee -a "$out/$name.txt"
}

run real-alltoall mpirun -np 2 "$bench" alltoall --algos native,auto,direct --sizes 8:65536 --repeat 5
run real-allgather mpirun -np 2 "$bench" allgather --algos native,auto,direct --sizes 8:65536 --repeat 5
(cd "$out" && run smpi16-alltoall "${smpi[@]}" "$sbench" alltoall --algos native,direct --sizes 1:4096 --iters 20 --warmup 2)
(cd "$out" && run smpi16-alltoall-mif32 "${smpi[@]}" "$sbench" alltoall --algos native,direct --sizes 1:4096 --iters 20 --warmup 2 --mif 32)
(cd "$out" && run smpi64-alltoall smpirun -np 64 -platform "$here/sim/platforms/ib_8x8.xml" \
   -hostfile "$here/sim/platforms/ib_8x8.hosts" "${smpi_cfg[@]}" "$sbench" alltoall \
   --algos native,direct --sizes 1:1024 --iters 10 --warmup 2)
rm -f "$out"/smpitmp-hostf*

echo
echo "==== report"
py=$(pacoll_python)
PYTHONPATH="$here/python" "$py" -m pacoll_report "$out"/*.json --out "$out/report" \
  --title "pacoll showcase" --quiet
echo
echo "main.sh: tables, JSON, plots (PNG) and report.md are in $out"
echo "         open $out/report/report.md"
