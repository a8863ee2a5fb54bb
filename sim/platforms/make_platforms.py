#!/usr/bin/env python3
"""Writes every simulated platform of sim/ (XML + hostfile) and the manifest
sim/platforms/platforms.json that sim/run reads, from the table below.

    sim/platforms/make_platforms.py          # rewrite them all (idempotent)
    sim/platforms/make_platforms.py --check  # exit 1 if a committed file differs

The table is the one place where a testbed's numbers live: each entry says
what it models, with which numbers, and where they come from (paper section,
vendor figures of the time). Every XML carries the same text as its opening
comment.

Conventions (SimGrid 3.32, /work/shared/SMPI-NOTES.md):
  * Numbers are raw: sim/run passes --cfg=smpi/lat-factor:0:1 and
    --cfg=smpi/bw-factor:0:1 (SMPI's default factors would roughly double the
    latency and take 6-19% off the bandwidth).
  * A route between two nodes crosses two links (the sender's up, the
    receiver's down), so the per-link latency is half the end-to-end one.
  * Intra-node MPI messages (the peers' shared-memory path) go through the
    loopback link (<cluster>, FATPIPE: not shared between pairs) or through a
    SHARED per-node "membus" link (Full routing: contended memory bandwidth).
  * pacoll's own intra-node copies (pc_copy) are not network flows: under SMPI
    the library charges bytes / PACOLL_SIM_COPY_BW of simulated time per copy.
    "copy_bw" below is that value (one core's memcpy bandwidth on the
    testbed's nodes); sim/run puts it in the environment of every run.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FACTORS = "--cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1"
# Per-message MPI start-up (LogGP o), charged as CPU time in the calling
# rank on every send, isend and receive: 0.5 us at any size (the sloavx
# platforms; see their "source").
# SimGrid adds a reverse "ACK" flow (5% of the bytes) to every message; an
# RDMA network has no such traffic, and on a platform whose intra-node route
# is one SHARED link the reverse flow lands on that same link, which makes
# SimGrid 3.32's solver abort ("Cannot saturate more a constraint that has no
# active element") at 256 ranks, whatever maxmin/precision is.
NO_CROSSTRAFFIC = ["--cfg=network/crosstraffic:0"]
STREAM_SCALING = "https://github.com/gregs1104/stream-scaling"
START_UP = {"smpi/os": "0:5e-7:0", "smpi/ois": "0:5e-7:0", "smpi/or": "0:5e-7:0"}

# kind "cluster": one <cluster>, optional props (onload overheads) and
# sharing policy; kind "full": Full routing, per-node NIC link(s) + SHARED
# membus (one or two rails).
PLATFORMS = [
    dict(name="pap_aware_4x4", kind="cluster", nodes=4, cores=4,
         bw="1.5GBps", lat="0.75us", sharing="SPLITDUPLEX",
         loopback_bw="6GBps", loopback_lat="0.25us", copy_bw=2.0e9,
         title="pap-aware paper testbed: 4 nodes x 4 cores, ConnectX DDR InfiniBand",
         source=[
             "pap-aware-alltoall-allgather-rdma, Sect. 5, Table 2: 4 Dell PowerEdge 2850,",
             "two dual-core 2.8 GHz Xeon EM64T each; Mellanox ConnectX DDR HCA (x8 PCIe),",
             "24-port Infiniscale-III switch; MVAPICH 1.0.",
             "Network: ~1.5 us end to end, ~1.5 GB/s per node and direction (ConnectX",
             "DDR MPI figures of 2007-2008): lat 0.75 us per link, SPLITDUPLEX.",
             "Intra-node: loopback 6 GB/s, 0.25 us (the peers' shared-memory path;",
             "kept as in the first showcase runs). pacoll copies: 2 GB/s per core",
             "(a 2005 Xeon with DDR-2 on an 800 MHz FSB).",
             "Copy source (docs/SIM.md, fairness audit), a proxy: a Pentium E2180 on",
             "the same 800 MT/s bus (DDR2-800), STREAM Triad one core 2.74 GB/s (1.37",
             "GB/s copied): %s. It suggests ~1.4 GB/s, not 2." % STREAM_SCALING,
             "No Nocona/E7520 figure: the Dell/Intel E7520 DDR2 paper gives the 6.4 GB/s",
             "peak only: https://docplayer.net/amp/21558446-configuring-ddr2-memory-on-dell-platforms-based-on-the-intel-e7520-and-e7525-chip-sets.html",
             "Also used by scripts/main.sh (which runs it with SMPI's default factors)."]),
    dict(name="ib_8x8", kind="cluster", nodes=8, cores=8,
         bw="1.5GBps", lat="0.75us", sharing="SPLITDUPLEX",
         loopback_bw="6GBps", loopback_lat="0.25us", copy_bw=2.0e9,
         title="8 nodes x 8 cores with the pap-aware testbed's network (showcase, 64 ranks)",
         source=[
             "Not a paper testbed: the pap_aware_4x4 network and nodes, scaled to 8 x 8 so",
             "that scripts/main.sh and the ci_small experiment can run 64 ranks.",
             "Same numbers as pap_aware_4x4: 1.5 us, 1.5 GB/s per node, loopback 6 GB/s."]),
    dict(name="rdma_a_32x2", kind="cluster", nodes=32, cores=2,
         bw="0.9GBps", lat="2.5us", sharing="SHARED",
         loopback_bw="1GBps", loopback_lat="0.4us", copy_bw=1.0e9,
         title="rdma-allgather cluster A: 32 nodes x 2 cores, InfiniBand on PCI-X",
         source=[
             "rdma-allgather-infiniband, Sect. 5: 32 dual Xeon 2.66 GHz nodes (512 KB L2,",
             "2 GB), Mellanox MT23108 (InfiniHost, 4x SDR) on PCI-X 133 MHz, 144-port",
             "MTS 14400 switch; MVAPICH.",
             "Network: PCI-X 64 bit/133 MHz is a half-duplex bus (1.06 GB/s peak), so",
             "one SHARED link per node carries both directions at ~0.9 GB/s (MVAPICH",
             "uni-directional bandwidth on MT23108/PCI-X of the time); ~5 us MPI latency",
             "(2.5 us per link). Intra-node: 1 GB/s, 0.4 us (533 MHz FSB Xeon);",
             "pacoll copies 1 GB/s per core. Copy source, ratio and proxy: a 533 MHz FSB",
             "Xeon gets ~66% of an 800 MHz FSB Xeon's STREAM bandwidth",
             "(https://www.math.cmu.edu/users/florin/bench-32-64/STREAM/index.html), and",
             "an 800 MT/s part copies 1.37 GB/s per core (pap_aware_4x4), so ~0.9 GB/s."]),
    dict(name="rdma_a_512x2", kind="cluster", nodes=512, cores=2,
         bw="0.9GBps", lat="2.5us", sharing="SHARED",
         loopback_bw="1GBps", loopback_lat="0.4us", copy_bw=1.0e9,
         title="cluster A's network and nodes extended to 512 nodes (scaling to 1024 ranks)",
         source=[
             "An extrapolation, not a testbed: rdma_a_32x2 (see there) with 512 nodes so",
             "that the Fig. 7(a) scaling sweep can go past the paper's 64 processes",
             "without oversubscribing nodes. Same numbers: 0.9 GB/s SHARED (PCI-X),",
             "5 us, loopback 1 GB/s."]),
    dict(name="rdma_b_16x2", kind="cluster", nodes=16, cores=2,
         bw="0.97GBps", lat="1.6us", sharing="SPLITDUPLEX",
         loopback_bw="1.5GBps", loopback_lat="0.3us", copy_bw=1.5e9,
         title="rdma-allgather cluster B: 16 nodes x 2 cores, InfiniBand on PCI-Express",
         source=[
             "rdma-allgather-infiniband, Sect. 5: 16 dual Xeon 3.6 GHz EM64T nodes",
             "(1 MB L2, 4 GB), Mellanox MHES18-XT (InfiniHost III Ex, 4x SDR) on PCIe x8.",
             "Network: PCIe is full duplex, so SPLITDUPLEX at the SDR data rate",
             "(~0.97 GB/s per direction), ~3.2 us MPI latency (1.6 us per link).",
             "Intra-node: 1.5 GB/s, 0.3 us (800 MHz FSB); pacoll copies 1.5 GB/s.",
             "Copy source: the 800 MT/s proxy of pap_aware_4x4, 1.37 GB/s copied (+10%)."]),
    dict(name="sloavx_jaguar_64x16", kind="cluster", nodes=64, cores=16,
         bw="5GBps", lat="0.25us", sharing="SPLITDUPLEX",
         loopback_bw="4GBps", loopback_lat="0.2us", copy_bw=3.0e9,
         props=START_UP, fair_o=2.5e-7,
         title="Jaguar-like: 64 nodes x 16 cores, Gemini-class network (flat cluster)",
         source=[
             "sloavx-logarithmic-alltoallv, Sect. V-A: Jaguar (Cray XK6), one 16-core",
             "2.2 GHz Opteron 6274 per node, 32 GB, Gemini interconnect (a 3D torus).",
             "Modelled as a flat, non-blocking cluster: SimGrid's TORUS crashes under",
             "dense all-to-all traffic (SMPI-NOTES), so link sharing inside the torus",
             "is not modelled. Gemini MPI figures: ~1.5 us = 0.5 us start-up in the",
             "sender + 2 x 0.25 us (links) + 0.5 us in the receiver, ~5 GB/s per node",
             "and direction. The start-up S of the paper's Hockney model (Sect. III-B)",
             "is CPU time in the calling rank (smpi/os, ois, or), paid per message",
             "on and off the node: the cost SLOAV's log N rounds save. 0.5 us is a",
             "typical MPI per-message overhead of the time (~2 M messages/s per",
             "core); the paper gives no figure (a bound below). Intra-node: 4 GB/s, 0.2 us; pacoll",
             "copies 3 GB/s per core (Interlagos, DDR3-1600). Copy source, a proxy one",
             "generation older: Opteron 6168/6172 (DDR3-1333), STREAM Triad one thread",
             "5.6/5.0 GB/s, i.e. ~2.5-2.8 GB/s copied (STREAM counts read + written",
             "bytes): %s. Gemini: 0.7-1.4 us hardware" % STREAM_SCALING,
             "latency, >6 GB/s per direction measured, no per-message software cost:",
             "https://www.euroben.nl/reports/web13/xe6.php. Open MPI's 1 B latency on",
             "Gemini is 1.20 us, Cray's ~1.33 us, so o_s + o_r <= 0.5 us: the 0.5 us each",
             "is about twice that bound (docs/SIM.md):",
             "https://paperexplained.cn/articles/paper/detail/f577c1420800b5809db2c915cc225b85d611b8f6.",
             "The fair model (sim/run, model fair) charges o = 0.25 us each, that bound",
             "(fair_o); the published model keeps the 0.5 us it was published with."]),
    dict(name="sloavx_smoky_80x16", kind="cluster", nodes=80, cores=16,
         bw="1.5GBps", lat="0.3us", sharing="SPLITDUPLEX",
         loopback_bw="2GBps", loopback_lat="0.3us", copy_bw=2.0e9,
         props=START_UP,
         title="Smoky: 80 nodes x 16 cores, InfiniBand",
         source=[
             "sloavx-logarithmic-alltoallv, Sect. V-A: Smoky (ORNL), 80 nodes of four",
             "quad-core 2.0 GHz Opterons (32 GB), InfiniBand. The paper gives no link",
             "speed; DDR 4x figures are used: ~1.6 us = 0.5 us start-up in the sender",
             "+ 2 x 0.3 us (links) + 0.5 us in the receiver (per-message CPU time, as",
             "on sloavx_jaguar_64x16), ~1.5 GB/s per node and direction. Intra-node:",
             "2 GB/s, 0.3 us; pacoll copies 2 GB/s. Copy source: four Opteron 8347 HE",
             "(Barcelona 1.9 GHz, DDR2-667), STREAM Triad one thread 2.68 GB/s (~1.34",
             "GB/s copied), 16 threads 14.6 GB/s: %s." % STREAM_SCALING,
             "It suggests ~1.3 GB/s, not 2 (docs/SIM.md). The 0.5 us: Netgauge's LogGP o",
             "on an InfiniBand MVAPICH cluster (ANL Tukey) is 1.05 us per send and 1.08 us",
             "per receive at 8 B, overlapping the latency:",
             "https://github.com/codes-org/codes/blob/074fb9f198c90ba42ddc0f3e14c71bb96107dde6/tests/ng-mpi-tukey.dat"]),
    dict(name="multicore_onload_64x8", kind="cluster", nodes=64, cores=8,
         bw="0.95GBps", lat="0.35us", sharing="SPLITDUPLEX",
         loopback_bw="2GBps", loopback_lat="0.3us", copy_bw=2.0e9,
         props={"smpi/os": "0:3e-7:5e-10;65536:3e-7:0",
                "smpi/ois": "0:3e-7:5e-10;65536:3e-7:0",
                "smpi/or": "0:3e-7:5e-10;65536:3e-7:0"},
         host_driven=True,
         title="multicore slides, onload NIC: 64 nodes x 8 cores, InfiniPath SDR",
         source=[
             "multicore-aware-alltoall slides, Evaluation Framework, cluster A: 64 nodes,",
             "two quad-core 2.33 GHz Xeon 'Clovertown' each (512 cores), QLogic",
             "InfiniPath QLE7140 (SDR, onload: the host CPU drives every message).",
             "Onload = per-message CPU time in the calling rank (smpi/os, ois, or):",
             "0.3 us per message plus 0.5 ns/B (PIO / eager copy at 2 GB/s) below",
             "64 KB, 0.3 us above (DMA rendezvous). The cores of a node pay these in",
             "parallel, so the node's message rate grows with the cores sending (the",
             "slides' point). Wire: ~0.95 GB/s per direction (SDR), 1.3 us MPI latency",
             "= 0.3 (os) + 2 x 0.35 (links) + 0.3 (or). Intra-node: 2 GB/s, 0.3 us;",
             "pacoll copies 2 GB/s per core. Copy (and 0.5 ns/B) source: two Xeon E5405",
             "(Harpertown 2.0 GHz, DDR2-667), STREAM Triad one thread 3.65 GB/s (~1.8",
             "GB/s copied), 8 threads 5.77 GB/s: %s." % STREAM_SCALING,
             "InfiniPath PCIe: host CPU does the protocol, 1.6 us (vendor), ~950 MB/s:",
             "https://www.euroben.nl/reports/web08/infinipath.html. The 0.3 us per",
             "message: QLogic's 30 M messages/s per adapter (its 2010 stack) over 8 cores",
             "is 0.27 us per message per core, a vendor peak, not a measured o:",
             "https://insidehpc.com/2010/05/qlogic-aims-for-the-fences-with-infiniband-fabric-suite/"]),
    dict(name="multicore_offload_64x8", kind="cluster", nodes=64, cores=8,
         bw="1.5GBps", lat="1.5us", sharing="SHARED", limiter="1.5GBps",
         loopback_bw="2GBps", loopback_lat="0.3us", copy_bw=2.0e9,
         title="multicore slides, offload NIC: 64 nodes x 8 cores, InfiniHost III DDR",
         source=[
             "multicore-aware-alltoall slides, cluster A with the Mellanox InfiniHost III",
             "DDR MT25208 (offload: the HCA processes the protocol, one engine per node).",
             "One SHARED link per node (both directions and all 8 cores share 1.5 GB/s)",
             "plus limiter_link 1.5 GB/s: more cores do not add bandwidth or message",
             "rate, the slides' point. ~3 us MPI latency (1.5 us per link), no",
             "per-message CPU overhead. Intra-node: 2 GB/s, 0.3 us; copies 2 GB/s.",
             "Copy source: as multicore_onload_64x8 (stream-scaling, Xeon E5405)."]),
    dict(name="multirail_4x4", kind="full", nodes=4, cores=4, rails=2,
         bw="0.9GBps", lat="1us", mem_bw="1GBps", mem_lat="0.5us", copy_bw=1.0e9,
         title="multirail paper testbed: 4 nodes x 4 cores, dual-rail QsNetII",
         source=[
             "multirail-smp-collectives-qsnet, Sect. 6: 4 Dell PowerEdge 6650, four",
             "1.4 GHz Xeon MP each (400 MHz FSB, 2 GB), two QM500-B QsNetII NICs per node",
             "(64 bit/100 MHz PCI-X slots), two QS8A-AA 8-way switches.",
             "Two SPLITDUPLEX links per node (rail0, rail1), 0.9 GB/s each (Fig. 1",
             "striped bandwidth ~ twice one rail), 2 us latency (Sect. 4: 2 to 2.77 us",
             "for 4 B): 1 us per link. SimGrid routes are static: the rail is chosen",
             "per node pair, rail = (src + dst) % 2; a message is never split across",
             "rails by SimGrid (striping is the sender's business). Intra-node: a",
             "SHARED membus of 1 GB/s, 0.5 us; pacoll copies 1 GB/s per core. Copy",
             "source: a bound only. The 400 MHz bus peaks at 3.2 GB/s, so one CPU copies",
             "at most 1.6 GB/s, four at once 0.4 GB/s each; Sect. 4.2 Fig. 2 measures",
             "memcpy with no rate in the text. No measured figure found."]),
    dict(name="modern_16x64", kind="full", nodes=16, cores=64, rails=1,
         bw="45GBps", lat="0.5us", mem_bw="150GBps", mem_lat="0.15us", copy_bw=150e9 / 64,
         cfg=NO_CROSSTRAFFIC,
         title="a modern cluster: 16 nodes x 64 cores, NDR-class network, contended memory",
         source=[
             "Not a paper testbed: today's scale, for pacoll's own claims.",
             "NDR InfiniBand (400 Gb/s) class: ~1 us end to end (0.5 us per link),",
             "~45 GB/s per node and direction, SPLITDUPLEX, non-blocking fabric.",
             "Nodes: 64 cores sharing one memory system, modelled as a SHARED 'membus'",
             "link per node (150 GB/s, 0.15 us) that all intra-node MPI messages",
             "contend for (a 12-channel DDR5 socket copies ~150 GB/s: each byte is read",
             "and written). pacoll's copies are charged 150/64 = 2.34 GB/s per core:",
             "pc_copy charges time, it is not a flow on the membus, so it gets the",
             "membus's fair share when all 64 cores copy at once, as they do in a",
             "collective's shared-memory phases (with 10 GB/s per core, uncontended,",
             "the node copied at 640 GB/s and pacoll's large-block rows were 4x too fast).",
             "Source of the 150, a per-socket share: Azure HBv4 (EPYC, DDR5) measures STREAM Triad",
             "750-780 GB/s per VM, ~190 GB/s copied per socket over its two sockets:",
             "https://github.com/MicrosoftDocs/azure-docs/blob/main/articles/virtual-machines/hbv4-performance.md",
         "Run without SimGrid's TCP-ACK cross traffic (network/crosstraffic:0, sim/run",
         "passes it): RDMA has none, and with it SimGrid 3.32's solver aborts at 256",
         "ranks (a same-node route's reverse flow lands on the same membus)."]),
    dict(name="modern_64x64", kind="full", nodes=64, cores=64, rails=1,
         bw="45GBps", lat="0.5us", mem_bw="150GBps", mem_lat="0.15us", copy_bw=150e9 / 64,
         cfg=NO_CROSSTRAFFIC,
         title="a modern cluster: 64 nodes x 64 cores, NDR-class network, contended memory",
         source=["modern_16x64 with 64 nodes (same numbers, see there)."]),
]
# The onload cluster with 128 nodes (1024 cores), for 1024-rank application
# runs: the same node, NIC and link, one flat cluster twice as wide.
PLATFORMS.append(dict(
    next(p for p in PLATFORMS if p["name"] == "multicore_onload_64x8"),
    name="multicore_onload_128x8", nodes=128,
    title="multicore slides, onload NIC, scaled out: 128 nodes x 8 cores, InfiniPath SDR",
    source=["multicore_onload_64x8 with 128 nodes (same numbers, see there): the slides'",
            "cluster has 64; this one holds 1024 ranks at its 8 per node."]))


def comment(p):
    lines = [p["title"] + "."] + p["source"] + [
        f"Hostfile: {p['name']}.hosts ({p['cores']} ranks per node, {p['nodes']} nodes).",
        "Factors: raw numbers; run with the options smpi/lat-factor:0:1 and",
        "smpi/bw-factor:0:1 (sim/run passes them).",
        f"pacoll intra-node copies: PACOLL_SIM_COPY_BW={p['copy_bw']:.3g} (bytes/s).",
        "Generated by sim/platforms/make_platforms.py: edit the table there."]
    body = "\n".join("     " + ln for ln in lines)
    assert "--" not in body, "XML comments cannot hold '--'"
    return "<!-- " + body.lstrip() + " -->"


def cluster_xml(p):
    attrs = (f'id="{p["name"]}" prefix="node-" suffix="" radical="0-{p["nodes"] - 1}" '
             f'core="{p["cores"]}" speed="10Gf"\n           bw="{p["bw"]}" lat="{p["lat"]}" '
             f'sharing_policy="{p["sharing"]}"')
    if p.get("limiter"):
        attrs += f' limiter_link="{p["limiter"]}"'
    attrs += f'\n           loopback_bw="{p["loopback_bw"]}" loopback_lat="{p["loopback_lat"]}"'
    props = p.get("props")
    if not props:
        return [f"  <cluster {attrs}/>"]
    out = [f"  <cluster {attrs}>"]
    for k, v in props.items():
        out.append(f'    <prop id="{k}" value="{v}"/>')
    out.append("  </cluster>")
    return out


def full_xml(p):
    n, rails = p["nodes"], p["rails"]
    out = [f'  <zone id="{p["name"]}" routing="Full">']
    for i in range(n):
        out.append(f'    <host id="node-{i}" speed="10Gf" core="{p["cores"]}"/>')
    for i in range(n):
        for r in range(rails):
            lid = f"node-{i}-rail{r}" if rails > 1 else f"node-{i}-nic"
            out.append(f'    <link id="{lid}" bandwidth="{p["bw"]}" latency="{p["lat"]}" '
                       f'sharing_policy="SPLITDUPLEX"/>')
        out.append(f'    <link id="node-{i}-membus" bandwidth="{p["mem_bw"]}" '
                   f'latency="{p["mem_lat"]}" sharing_policy="SHARED"/>')
    for i in range(n):
        for j in range(n):
            if i == j:
                out.append(f'    <route src="node-{i}" dst="node-{i}" symmetrical="NO">'
                           f'<link_ctn id="node-{i}-membus"/></route>')
                continue
            r = (i + j) % rails
            s = f"rail{r}" if rails > 1 else "nic"
            out.append(f'    <route src="node-{i}" dst="node-{j}" symmetrical="NO">'
                       f'<link_ctn id="node-{i}-{s}" direction="UP"/>'
                       f'<link_ctn id="node-{j}-{s}" direction="DOWN"/></route>')
    out.append("  </zone>")
    return out


def render(p):
    head = ["<?xml version='1.0'?>",
            '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
            comment(p), '<platform version="4.1">']
    body = cluster_xml(p) if p["kind"] == "cluster" else full_xml(p)
    xml = "\n".join(head + body + ["</platform>"]) + "\n"
    hosts = "".join(f"node-{i}:{p['cores']}\n" for i in range(p["nodes"]))
    return xml, hosts


UNITS = {"GBps": 1e9, "MBps": 1e6, "us": 1e-6, "ns": 1e-9, "ms": 1e-3}


def number(v):
    """'6GBps' -> 6e9, '0.25us' -> 2.5e-07"""
    for u, f in UNITS.items():
        if v.endswith(u):
            return float(v[:-len(u)]) * f
    raise ValueError(f"no unit in {v!r}")


def manifest():
    m = {}
    for p in PLATFORMS:
        # the peers' intra-node message: loopback (cluster) or membus (full)
        shm_lat, shm_bw = ((p["loopback_lat"], p["loopback_bw"]) if p["kind"] == "cluster"
                           else (p["mem_lat"], p["mem_bw"]))
        m[p["name"]] = {
            "xml": p["name"] + ".xml", "hosts": p["name"] + ".hosts",
            "nodes": p["nodes"], "cores": p["cores"], "copy_bw": p["copy_bw"],
            "shm_lat": number(shm_lat), "shm_bw": number(shm_bw), "props": bool(p.get("props")),
            "cfg": FACTORS.split() + p.get("cfg", []), "title": p["title"], "source": " ".join(p["source"])}
        if "fair_o" in p:  # the fair model's per-message time, where it is not the props'
            m[p["name"]]["fair_o"] = p["fair_o"]
        if p.get("host_driven"):  # the host CPU drives the NIC (onload): pacoll's writes too
            m[p["name"]]["host_driven"] = True
    return json.dumps(m, indent=1) + "\n"


def main(argv):
    check = "--check" in argv
    files = {"platforms.json": manifest()}
    for p in PLATFORMS:
        xml, hosts = render(p)
        files[p["name"] + ".xml"] = xml
        files[p["name"] + ".hosts"] = hosts
    bad = 0
    for fn, text in files.items():
        path = os.path.join(HERE, fn)
        old = None
        if os.path.exists(path):
            with open(path) as f:
                old = f.read()
        if old == text:
            continue
        if check:
            print(f"make_platforms: {fn} differs from the table", file=sys.stderr)
            bad = 1
        else:
            with open(path, "w") as f:
                f.write(text)
            print(f"make_platforms: wrote {fn}")
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
