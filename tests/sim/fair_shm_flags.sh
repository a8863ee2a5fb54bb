#!/bin/sh
# ctest smpi_fair_shm_in_flight: under the fair model a shared-memory flag is
# in flight, not a delay of its writer, and a single-copy write from the
# eager limit up costs a flow like a peer's intra-node rendezvous, not a CPU
# copy, sharing the node's memory link with the node's other writes as the
# peers' flows do (docs/SIM-MODEL.md).
#   fair_shm_flags.sh SMPIRUN PLATFORM HOSTFILE PACOLL_BENCH WORK_DIR \
#                     SHARED_PLATFORM SHARED_HOSTFILE [--cfg ...]
# Four ranks on one host, alltoall, the intra-node latency set to 10 us:
# - 8 B, every copy nearly free: each rank's three flags are seen one
#   latency after they were stored, so a call takes about 10 us.  A writer
#   that slept the latency per flag (the model before) took 30 us; a flag
#   charged nothing, well under 1 us.
# - 16 KB (zero-copy: an advertisement, the write, its done flag), copies at
#   1 MB/s: two latencies, about 20 us.  A write charged as a CPU copy
#   (16 ms per block at that rate) took milliseconds.
# - 64 KB on SHARED_PLATFORM, one host whose intra-node messages share a 1
#   GB/s link (1 us): the twelve writes, 786 KB, take the link 786 us
#   together (890 us with SMPI's default bandwidth factor, 0.94 at 64 KB).
#   A write charged as if it had the link to itself (64 KB in 65 us, the
#   model before) finished the call in 68 us.
# - 8 B again with the symmetric charges at 1 us each (PACOLL_SIM_O,
#   PACOLL_SIM_LAND): a writer pays o per flag (3 us for its three), a reader
#   o + land per flag it sees (6 us), so the call takes 10 + 3 + 2 (the last
#   flag seen) to 10 + 3 + 6 us, where free hand-offs took about 10.
# - 8 KB, below the eager limit, with a 10 us system call per single-copy
#   write (PACOLL_SIM_CMA_CALL): three writes per rank, 30 us more than the
#   about 20 us of their flags.
# - 8 KB between ranks on four hosts, zero-copy transfers
#   (PACOLL_SIM_PUT=transfer), on a host-driven NIC (PACOLL_SIM_HOST_DRIVEN,
#   o = 10 us, copies at 100 MB/s): each rank's three writes cost it
#   3 x (10 + 82) us, about 280 us; without it the call is the network's,
#   tens of us.
# Simulated time is deterministic: the bounds are the model's, not the
# machine's.
set -eu
smpirun=$1 platform=$2 hosts=$3 bench=$4 work=$5 shared=$6 shared_hosts=$7
shift 7
rm -rf "$work"
mkdir -p "$work"
cd "$work"
PACOLL_SIM_FAIR=12288 PACOLL_SIM_SHM_LAT=1e-5 PACOLL_SIM_SHM_BW=1e15 PACOLL_SIM_COPY_BW=1e15 \
  "$smpirun" -np 4 -platform "$platform" -hostfile "$hosts" "$@" --log=root.thresh:error \
  "$bench" alltoall --algos direct --sizes 8 --iters 5 --warmup 1 --quiet --json flags.json
PACOLL_SIM_FAIR=12288 PACOLL_SIM_SHM_LAT=1e-5 PACOLL_SIM_SHM_BW=1e15 PACOLL_SIM_COPY_BW=1e6 \
  "$smpirun" -np 4 -platform "$platform" -hostfile "$hosts" "$@" --log=root.thresh:error \
  "$bench" alltoall --algos direct --sizes 16k --iters 5 --warmup 1 --quiet --json write.json
PACOLL_SIM_FAIR=12288 PACOLL_SIM_SHM_LAT=1e-6 PACOLL_SIM_SHM_BW=1e9 PACOLL_SIM_COPY_BW=1e15 \
  "$smpirun" -np 4 -platform "$shared" -hostfile "$shared_hosts" "$@" --log=root.thresh:error \
  "$bench" alltoall --algos direct --sizes 64k --iters 5 --warmup 1 --quiet --json shared.json
PACOLL_SIM_FAIR=12288 PACOLL_SIM_SHM_LAT=1e-5 PACOLL_SIM_SHM_BW=1e15 PACOLL_SIM_COPY_BW=1e15 \
  PACOLL_SIM_O=1e-6 PACOLL_SIM_LAND=1e-6 \
  "$smpirun" -np 4 -platform "$platform" -hostfile "$hosts" "$@" --log=root.thresh:error \
  "$bench" alltoall --algos direct --sizes 8 --iters 5 --warmup 1 --quiet --json handoff.json
PACOLL_SIM_FAIR=12288 PACOLL_SIM_SHM_LAT=1e-5 PACOLL_SIM_SHM_BW=1e15 PACOLL_SIM_COPY_BW=1e15 \
  PACOLL_SIM_CMA_CALL=1e-5 \
  "$smpirun" -np 4 -platform "$platform" -hostfile "$hosts" "$@" --log=root.thresh:error \
  "$bench" alltoall --algos direct --sizes 8k --iters 5 --warmup 1 --quiet --json cma.json
printf 'node-0:1\nnode-1:1\nnode-2:1\nnode-3:1\n' > spread.hosts
for hd in 0 1; do
  PACOLL_SIM_FAIR=12288 PACOLL_SIM_PUT=transfer PACOLL_SIM_COPY_BW=1e8 PACOLL_SIM_O=1e-5 \
    PACOLL_SIM_HOST_DRIVEN=$hd \
    "$smpirun" -np 4 -platform "$platform" -hostfile spread.hosts "$@" --log=root.thresh:error \
    "$bench" alltoall --algos direct --sizes 8k --iters 5 --warmup 1 --quiet --json onload$hd.json
done
python3 - flags.json write.json shared.json handoff.json cma.json onload0.json onload1.json <<'PY'
import json, sys
def avg(path):
    d = json.load(open(path))
    return d["results"][0]["algos"][0]["summary"]["avg_us"]["median"]
ok = True
for path, what, lo, hi in ((sys.argv[1], "8 B (flags)", 10.0, 15.0),
                           (sys.argv[2], "16 KB (single-copy writes)", 20.0, 30.0),
                           (sys.argv[3], "64 KB (writes sharing a 1 GB/s link)", 786.0, 1000.0),
                           (sys.argv[4], "8 B (o and landing of 1 us)", 15.0, 20.0),
                           (sys.argv[5], "8 KB (10 us system calls)", 50.0, 60.0),
                           (sys.argv[6], "8 KB (offload, hosts)", 0.0, 100.0),
                           (sys.argv[7], "8 KB (host-driven, hosts)", 276.0, 400.0)):
    us = avg(path)
    good = lo <= us < hi
    ok = ok and good
    where = "4 ranks on four hosts" if "hosts" in what else "4 ranks on one host"
    print("smpi_fair_shm_in_flight: alltoall %s, %s: %.2f us (want %g-%g): %s"
          % (what, where, us, lo, hi, "ok" if good else "FAIL"))
print("smpi_fair_shm_in_flight: %s" % ("PASS" if ok else "FAIL"))
sys.exit(0 if ok else 1)
PY
