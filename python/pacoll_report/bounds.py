"""A lower bound on every published simulated point (issue 25, item 3): the
completion time no algorithm can beat on that platform's model, from the
platform's own numbers (Hockney / LogGP: a latency and a bandwidth per link)
and the arrival skew the run measured. docs/SIM-MODEL.md ("Lower bounds") gives
every formula and its assumptions; docs/RESULTS.md shows pacoll's best and
the best peer as a fraction of it.

What is bounded is the benchmark's completion time, first arrival to last
exit (`first_arrival_to_last_exit_us`): no byte can move before the first
rank enters, and the last rank's data not before it enters. A rank's own
time in the call (avg_us, max_us) starts at its own arrival and a late rank
may find its data already delivered, so without the per-iteration arrivals
(not in the JSON) it has no bound of this kind.

    python3 -m pacoll_report.bounds [--root DIR]   # one line per point
"""

from __future__ import annotations

import argparse
import heapq
import math
import os
import re
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Tuple

from .load import published_runs, read_json, summary_median

METRIC = "first_arrival_to_last_exit_us"   # the completion time bounded
AFTER = "last_arrival_to_last_exit_us"     # the part of it after the last arrival
SKEW = "imbalance_us"                      # mean of (last arrival - first arrival)
PEER_PREFIX = "native:"
AUTO_PREFIX = "auto:"
LEARN_PREFIX = "auto-learn:"
# "within 5% of the bound": time <= NEAR x bound
NEAR = 1.05
# SimGrid's cross traffic: every flow also loads its reverse route with 5% of
# its rate (NetworkCm02Model::communicate, network/crosstraffic, default on)
CROSS = 0.05
INF = math.inf


class BoundError(Exception):
    pass


# ---- the platform, as SimGrid reads it ----

_SI = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def parse_bw(text: str) -> float:
    """SimGrid bandwidth ('1.5GBps', '0.9GBps', '45GBps') -> bytes/s. SimGrid's
    kBps, MBps, GBps are decimal (1e3, 1e6, 1e9), as PACOLL_SIM_COPY_BW is;
    KiBps, MiBps, GiBps binary."""
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*([kKMGT]?)(i?)Bps\s*", text or "")
    if not m:
        raise BoundError(f"bandwidth {text!r}: expected a number and Bps, kBps, MBps or GBps")
    scale = _SI[m.group(2)]
    if m.group(3):
        scale = 1024.0 ** (1 + "KMGT".index(m.group(2).upper()))
    return float(m.group(1)) * scale


def parse_lat(text: str) -> float:
    """SimGrid latency ('0.75us', '1.5us', '2ns', '1e-6') -> seconds."""
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*(s|ms|us|ns|ps)?\s*", text or "")
    if not m:
        raise BoundError(f"latency {text!r}: expected a number with s, ms, us, ns or ps")
    return float(m.group(1)) * {None: 1.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9,
                                "ps": 1e-12}[m.group(2)]


@dataclass
class Platform:
    """One node's network and memory as the bounds need them (every node of
    a published platform is alike). Bandwidths in bytes/s, latencies in s."""
    name: str
    nodes: int
    up_bw: float          # all bytes leaving a node, over all its links
    down_bw: float        # all bytes entering a node
    duplex_bw: float      # both directions together (SHARED link, limiter); INF if none
    net_lat: float        # the shortest route between two nodes, end to end
    loop_bw: float        # one intra-node MPI message (loopback or membus)
    mem_bw: float         # all intra-node MPI messages of a node together (INF: FATPIPE)
    copy_bw: float        # one core's pacoll copy (PACOLL_SIM_COPY_BW)
    cross: float = CROSS  # 0 when the platform runs with network/crosstraffic:0
    # Full routing with several rails: the rail of each node pair's route
    # and each rail's UP capacity summed over all nodes
    rail_of: Optional[List[List[str]]] = None
    rail_cap: Dict[str, float] = field(default_factory=dict)


def cluster_platform(name: str, c: ET.Element, copy_bw: float) -> Platform:
    """A SimGrid <cluster>: each node has one private link (two, UP and DOWN,
    when SPLITDUPLEX) and an optional limiter link crossed both ways; a route
    between nodes crosses the sender's and the receiver's private link. A
    backbone would only add constraints and latency, so it is left out."""
    bw, lat = parse_bw(c.get("bw")), parse_lat(c.get("lat"))
    shared = c.get("sharing_policy", "SPLITDUPLEX") == "SHARED"
    duplex = bw if shared else INF
    if c.get("limiter_link"):
        duplex = min(duplex, parse_bw(c.get("limiter_link")))
    loop_bw = parse_bw(c.get("loopback_bw")) if c.get("loopback_bw") else INF
    first, last = (int(x) for x in c.get("radical", "0-0").split("-"))
    return Platform(name, last - first + 1, up_bw=bw, down_bw=bw, duplex_bw=duplex,
                    net_lat=2 * lat, loop_bw=loop_bw, mem_bw=INF, copy_bw=copy_bw)


def rail_name(host: str, link: str) -> str:
    """'node-3-rail1' of host 'node-3' -> 'rail1' (make_platforms.py's names)."""
    return link[len(host) + 1:] if link.startswith(host + "-") else link


def full_platform(name: str, z: ET.Element, copy_bw: float) -> Platform:
    """A Full-routing zone (sim/platforms: per-node NIC links or rails, and a
    SHARED membus): a node's egress is every link its routes to other nodes
    start on, its ingress every link theirs end on; the same-node route is
    the membus. Links named NODE-RAIL give each route its rail."""
    links = {ln.get("id"): ln for ln in z.iter("link")}
    hosts = [h.get("id") for h in z.iter("host")]
    index = {h: i for i, h in enumerate(hosts)}
    ups: Dict[str, set] = {}
    downs: Dict[str, set] = {}
    lats, loops = [], []
    rail_of = [[""] * len(hosts) for _ in hosts]
    for r in z.iter("route"):
        ids = [ctn.get("id") for ctn in r.iter("link_ctn")]
        src, dst = r.get("src"), r.get("dst")
        if not ids:
            continue
        if src == dst:
            loops.append(ids)
            continue
        ups.setdefault(src, set()).add(ids[0])
        downs.setdefault(dst, set()).add(ids[-1])
        lats.append(sum(parse_lat(links[i].get("latency", "0")) for i in ids))
        rail_of[index[src]][index[dst]] = rail_name(src, ids[0])
    if not lats:
        raise BoundError(f"{name}: no route between two nodes")

    def bw(i):
        return parse_bw(links[i].get("bandwidth"))

    def shared(i):
        return links[i].get("sharing_policy", "SHARED") == "SHARED"

    up = max(sum(bw(i) for i in s) for s in ups.values())
    down = max(sum(bw(i) for i in s) for s in downs.values())
    duplex = INF
    if all(shared(i) for s in list(ups.values()) + list(downs.values()) for i in s):
        duplex = max(sum(bw(i) for i in ups.get(n, set()) | downs.get(n, set()))
                     for n in set(ups) | set(downs))
    loop_bw = max((min(bw(i) for i in ids) for ids in loops), default=INF)
    mem_bw = loop_bw if loops and all(shared(i) for ids in loops for i in ids) else INF
    rails: Dict[str, float] = {}
    for h, s in ups.items():
        for i in s:
            rails[rail_name(h, i)] = rails.get(rail_name(h, i), 0.0) + bw(i)
    multi = len(rails) > 1
    return Platform(name, len(hosts), up_bw=up, down_bw=down, duplex_bw=duplex,
                    net_lat=min(lats), loop_bw=loop_bw, mem_bw=mem_bw, copy_bw=copy_bw,
                    rail_of=rail_of if multi else None, rail_cap=rails if multi else {})


def load_platform(platforms_dir: str, name: str) -> Platform:
    """sim/platforms/NAME.xml (what SimGrid simulates) plus what
    platforms.json adds: the copy bandwidth sim/run gives pacoll and the
    SMPI options (network/crosstraffic:0)."""
    manifest = read_json(os.path.join(platforms_dir, "platforms.json"), "platform manifest",
                         BoundError)
    if name not in manifest:
        raise BoundError(f"platform {name!r} is not in {platforms_dir}/platforms.json")
    m = manifest[name]
    path = os.path.join(platforms_dir, m["xml"])
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        raise BoundError(f"platform {path}: {e}") from None
    c = root.find(".//cluster")
    z = root.find(".//zone")
    if c is not None:
        p = cluster_platform(name, c, float(m["copy_bw"]))
    elif z is not None and z.get("routing") == "Full":
        p = full_platform(name, z, float(m["copy_bw"]))
    else:
        raise BoundError(f"platform {path}: neither a <cluster> nor a Full-routing zone")
    cfg = " ".join(m.get("cfg", []))
    if re.search(r"network/crosstraffic:(0|no|false|off)\b", cfg):
        p.cross = 0.0
    return p


# ---- the bytes a collective must move ----

@dataclass
class Traffic:
    """Bytes that no algorithm can avoid moving (per node of the run), and
    what the last rank to arrive must still send off its node."""
    node_out: List[float]      # bytes that must leave each node
    node_in: List[float]       # bytes that must enter each node
    delivered: List[float]     # bytes that must land in the receive buffers of its ranks
    last_out: float            # off-node bytes of the last rank (the fewest any rank has)
    intra_block: float         # the largest block between two ranks of one node
    pairs: Optional[List[List[float]]] = None   # bytes node i -> j (point-to-point only)


def uniform_traffic(coll: str, P: int, nodes: int, m: int, root: int = 0) -> Traffic:
    """alltoall, allgather, gather (and alltoallv with every count m), P ranks
    on `nodes` nodes, P / nodes each in rank order, m bytes per block."""
    ppn = P // nodes
    off = P - ppn                      # ranks on other nodes
    block = float(m) if ppn > 1 else 0.0
    if coll in ("alltoall", "alltoallv"):
        # every rank's block to every off-node rank is distinct data
        out = [float(ppn * off * m)] * nodes
        pairs = [[0.0 if i == j else float(ppn * ppn * m) for j in range(nodes)]
                 for i in range(nodes)]
        return Traffic(out, list(out), [float(ppn * (P - 1) * m)] * nodes, float(off * m),
                       block, pairs)
    if coll == "allgather":
        # a node needs every other node's blocks once; its own blocks must
        # leave it once (another node may forward them)
        out = [float(ppn * m) if nodes > 1 else 0.0] * nodes
        return Traffic(out, [float(off * m)] * nodes, [float(ppn * (P - 1) * m)] * nodes,
                       float(m) if nodes > 1 else 0.0, block)
    if coll == "gather":
        rn = root // ppn
        out = [0.0 if n == rn else float(ppn * m) for n in range(nodes)]
        inn = [float(off * m) if n == rn else 0.0 for n in range(nodes)]
        dl = [float((P - 1) * m) if n == rn else 0.0 for n in range(nodes)]
        # the last rank may be the root, whose blocks can all be waiting on
        # its node when it arrives (eager sends): nothing must follow it
        return Traffic(out, inn, dl, 0.0, block)
    raise BoundError(f"no bound for collective {coll!r}")


def matrix_traffic(counts: List[List[int]], nodes: int) -> Traffic:
    """alltoallv from its count matrix: counts[s][d] bytes from rank s to d,
    rank r on node r // (P / nodes) (sim/run's hostfiles fill nodes in order)."""
    P = len(counts)
    ppn = P // nodes
    out, inn, dl = [0.0] * nodes, [0.0] * nodes, [0.0] * nodes
    pairs = [[0.0] * nodes for _ in range(nodes)]
    rank_off = [0.0] * P
    block = 0.0
    for s in range(P):
        ns = s // ppn
        row = counts[s]
        for d in range(P):
            c = row[d]
            if not c or s == d:
                continue
            nd = d // ppn
            dl[nd] += c
            if ns != nd:
                out[ns] += c
                inn[nd] += c
                pairs[ns][nd] += c
                rank_off[s] += c
            elif c > block:
                block = float(c)
    return Traffic(out, inn, dl, min(rank_off), block, pairs)


# bench_vdist_count (tools/bench/bench_coll.c), for the matrices the JSON
# names by their law and seed
M64 = (1 << 64) - 1


def splitmix64(x: int) -> int:
    """bench_splitmix64's output for state x (the state it leaves is x + golden)."""
    z = (x + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def hash4(a: int, b: int, c: int, d: int) -> int:
    """bench_hash4 (tools/bench/bench.h)."""
    h = splitmix64(a & M64)
    h = splitmix64(h ^ b)
    h = splitmix64(h ^ c)
    return splitmix64(h ^ d)


def random_count(seed: int, m: int, s: int, d: int) -> int:
    """--vdist random: uniform in [0, m], hash(seed, m, s, d) mod (m + 1)."""
    if m == 0:
        return 0
    return hash4(seed, 0x76646973 ^ ((m << 32) & M64), s, d) % (m + 1)


def random_matrix(seed: int, m: int, P: int) -> List[List[int]]:
    """random_count for every pair, sharing hash4's first rounds along a
    row: a million pairs (1024 ranks) in seconds, not tens of seconds."""
    if m == 0:
        return [[0] * P for _ in range(P)]
    h2 = splitmix64(splitmix64(seed & M64) ^ (0x76646973 ^ ((m << 32) & M64)))
    mod, out = m + 1, []
    for s in range(P):
        h3 = splitmix64(h2 ^ s)
        row = []
        for d in range(P):
            z = (h3 ^ d) + 0x9E3779B97F4A7C15 & M64
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 & M64
            z = (z ^ (z >> 27)) * 0x94D049BB133111EB & M64
            row.append((z ^ (z >> 31)) % mod)
        out.append(row)
    return out


def permute(x: int, n: int, key: int, table: Optional[List[List[int]]] = None) -> int:
    """bench_coll.c permute(): a 6-round Feistel bijection of [0, n), cycle-walking.
    table[round][right] may hold the round function (feistel_table)."""
    h = feistel_bits(n)
    mask = (1 << h) - 1
    while True:
        left, right = x >> h, x & mask
        for rnd in range(6):
            f = table[rnd][right] if table else hash4(key, rnd, right, 0x46454953) & mask
            left, right = right, left ^ f
        x = (left << h) | right
        if x < n:
            return x


def feistel_bits(n: int) -> int:
    """permute()'s half-word: the smallest h >= 1 with 2^(2h) >= n."""
    h = 1
    while h < 31 and (1 << (2 * h)) < n:
        h += 1
    return h


def feistel_table(n: int, key: int) -> List[List[int]]:
    """permute()'s round function for every round and half-word (2^h values)."""
    h = feistel_bits(n)
    mask = (1 << h) - 1
    return [[hash4(key, rnd, r, 0x46454953) & mask for r in range(1 << h)] for rnd in range(6)]


def zipf_count(seed: int, expo: float, m: int, P: int, s: int, d: int,
               table: Optional[List[List[int]]] = None) -> int:
    """--vdist zipf: floor(m / k^S), k = 1 + the pair's place in the permutation."""
    k = 1 + permute(s * P + d, P * P, hash4(seed, 0x7A697066, 0, 0), table)
    c = math.floor(m / math.pow(k, expo))
    return m if c >= m else int(c) if c > 0 else 0


def count_matrix(settings: dict, P: int, m: int) -> Optional[List[List[int]]]:
    """The alltoallv counts the run used, where the JSON says enough to
    recompute them (uniform, random, zipf); None for a file matrix."""
    vd = settings.get("vdist") or "uniform"
    params = settings.get("vdist_params") or {}
    seed = int(params.get("seed", settings.get("seed", 1)))
    if vd == "uniform":
        return [[m] * P for _ in range(P)]
    if vd == "random":
        return random_matrix(seed, m, P)
    if vd == "zipf":
        expo = float(params.get("exponent", 1.2))
        table = feistel_table(P * P, hash4(seed, 0x7A697066, 0, 0))
        return [[zipf_count(seed, expo, m, P, s, d, table) for d in range(P)] for s in range(P)]
    return None


# ---- the bound ----

@dataclass
class Bound:
    """The bound of one point and its terms, in microseconds."""
    transfer_us: float      # everything moved after the first arrival
    last_us: float          # what must follow the last arrival
    skew_us: float          # last arrival - first arrival (the smallest any row measured)
    bound_us: float         # max(transfer, skew + last): first arrival to last exit
    term: str               # what decides it: "skew" or the transfer's busiest resource
    after_us: float = 0.0   # max(last, transfer - the largest skew): last arrival to last exit


def node_time(p: Platform, out: float, inn: float) -> Tuple[float, str]:
    """One node's bytes over its NIC after one end-to-end latency: each
    direction at its capacity, plus the cross traffic the other direction's
    flows put on it; both together at the duplex capacity (SHARED link,
    limiter). 0 when nothing crosses the network."""
    if out <= 0 and inn <= 0:
        return 0.0, "none"
    c = p.cross
    t = max(((out + c * inn) / p.up_bw, "NIC out"), ((inn + c * out) / p.down_bw, "NIC in"),
            ((1 + c) * (out + inn) / p.duplex_bw, "NIC both ways"))
    return p.net_lat + t[0], t[1]


def rail_hops(p: Platform, rail: str) -> List[List[int]]:
    """h[i][j]: the fewest routes on `rail` any path of routes from node i to
    node j takes, relaying through any node of the platform (0-1 Dijkstra)."""
    n = p.nodes
    out = []
    for s in range(n):
        dist = [INF] * n
        dist[s] = 0
        heap = [(0, s)]
        while heap:
            dd, u = heapq.heappop(heap)
            if dd > dist[u]:
                continue
            for v in range(n):
                if v != u:
                    nd = dd + (1 if p.rail_of[u][v] == rail else 0)
                    if nd < dist[v]:
                        dist[v] = nd
                        heapq.heappush(heap, (nd, v))
        out.append(dist)
    return out


def rail_time(p: Platform, pairs: List[List[float]]) -> Tuple[float, str]:
    """The rail cut (several rails, static routes): the bytes from node i to
    node j cross at least h[i][j] routes of a rail whatever the relays, so that
    rail's UP links, over all nodes, carry at least sum D h, plus the cross
    traffic each hop puts on the receiver's UP link of the same rail (when
    every pair's two routes share their rail, as (src + dst) % 2 does)."""
    if not p.rail_of or not pairs:
        return 0.0, "none"
    n = len(p.rail_of)
    same = all(p.rail_of[i][j] == p.rail_of[j][i] for i in range(n) for j in range(n))
    c = p.cross if same else 0.0
    best = (0.0, "none")
    for rail, cap in sorted(p.rail_cap.items()):
        h = rail_hops(p, rail)
        load = sum(pairs[i][j] * h[i][j] for i in range(len(pairs)) for j in range(len(pairs))
                   if i != j)
        if load > 0:
            best = max(best, (p.net_lat + (1 + c) * load / cap, f"{rail} (rail cut)"))
    return best


def delivery_time(p: Platform, t: Traffic, ppn: int) -> Tuple[float, str]:
    """A node's receive buffers: every byte in them (but a rank's own block)
    is written by an incoming network flow, an intra-node MPI flow or one of
    the node's cores copying; and the largest intra-node block at the faster
    of one flow and one copy (no latency: pacoll's flags cost nothing)."""
    one = t.intra_block / max(p.loop_bw, p.copy_bw) if t.intra_block > 0 else 0.0
    cap = p.down_bw + p.mem_bw + ppn * p.copy_bw
    agg = max(t.delivered, default=0.0) / cap
    return max((one, "one intra-node block"), (agg, "receive buffers"))


def bound(p: Platform, t: Traffic, ppn: int, skew_us: float,
          skew_max_us: Optional[float] = None) -> Bound:
    """max(transfer, skew + last): after the first arrival every unavoidable
    byte must cross the busiest NIC, rail or node memory; after the last
    arrival at least that rank's off-node bytes must leave its node. The
    part after the last arrival, max(last, transfer - skew), takes the
    largest skew any row measured (skew_max_us), so it holds for every row."""
    parts = [node_time(p, o, i) for o, i in zip(t.node_out, t.node_in)]
    parts += [rail_time(p, t.pairs or []), delivery_time(p, t, ppn)]
    transfer, what = max(parts)
    transfer *= 1e6
    last = (p.net_lat + t.last_out / p.up_bw) * 1e6 if t.last_out > 0 else 0.0
    skew = max(0.0, skew_us)
    after = max(last, transfer - max(skew, skew_max_us if skew_max_us is not None else skew))
    if transfer >= skew + last:
        return Bound(transfer, last, skew, transfer, what, after)
    return Bound(transfer, last, skew, skew + last, "skew", after)


# ---- the published points ----

@dataclass
class Point:
    """One published (run, size): the bound and the best times against it."""
    experiment: str
    key: str
    collective: str
    ranks: int
    ppn: int
    size: int
    bound: Optional[Bound]      # None: skipped (skip says why)
    skip: str
    pacoll: Optional[Tuple[str, float]]   # best of pacoll's algorithms (name, us)
    peer: Optional[Tuple[str, float]]     # best SMPI peer (name, us)
    after: Dict[str, float] = field(default_factory=dict)   # row -> last arrival to last exit (us)

    def fraction(self, which: str) -> Optional[float]:
        """bound / time (1.0: on the bound) for 'pacoll' or 'peer'."""
        best = getattr(self, which)
        if self.bound is None or best is None or best[1] <= 0:
            return None
        return self.bound.bound_us / best[1]

    def after_fraction(self, which: str) -> Optional[float]:
        """bound / time after the last arrival, for the same row; None where
        nothing is certain to follow the last arrival (a bound of 0)."""
        best = getattr(self, which)
        if (self.bound is None or best is None or self.bound.after_us <= 0
                or self.after.get(best[0], 0) <= 0):
            return None
        return self.bound.after_us / self.after[best[0]]

    def near(self, which: str) -> bool:
        """Within 5% of the bound: time <= NEAR x bound."""
        f = self.fraction(which)
        return f is not None and f * NEAR >= 1.0


def best(times: Dict[str, float], pick) -> Optional[Tuple[str, float]]:
    cand = [(v, n) for n, v in times.items() if pick(n)]
    if not cand:
        return None
    v, n = min(cand)
    return n, v


def is_pacoll(name: str) -> bool:
    """pacoll's forced algorithms (auto is its choice among them or native)."""
    return not name.startswith((PEER_PREFIX, AUTO_PREFIX, LEARN_PREFIX)) and name != "native"


def run_points(exp: str, key: str, run: dict, platforms_dir: str,
               cache: Dict[str, Platform]) -> List[Point]:
    """Every size of one published run file."""
    coll, P = run["collective"], int(run["ranks"])
    nodes = int(run.get("nodes") or 1)
    settings = run.get("settings") or {}
    pname = (run.get("sim") or {}).get("platform") or run.get("host")
    if pname not in cache:
        cache[pname] = load_platform(platforms_dir, pname)
    plat = cache[pname]
    ppn = P // nodes
    out = []
    for res in run.get("results", []):
        m = int(res["bytes"])
        times, skews, after = {}, [], {}
        for a in res.get("algos", []):
            t, s = summary_median(a, METRIC), summary_median(a, SKEW)
            if isinstance(t, (int, float)) and t > 0:
                times[a["name"]] = float(t)
                skews.append(float(s) if isinstance(s, (int, float)) else 0.0)
                la = summary_median(a, AFTER)
                if isinstance(la, (int, float)):
                    after[a["name"]] = float(la)
        lo, hi = min(skews, default=0.0), max(skews, default=0.0)
        b, skip = None, ""
        if P % nodes:
            skip = f"{P} ranks on {nodes} nodes is not a whole number per node"
        elif coll == "alltoallv":
            counts = count_matrix(settings, P, m)
            if counts is None:
                skip = f"alltoallv counts `{settings.get('vdist')}` not recorded"
            else:
                b = bound(plat, matrix_traffic(counts, nodes), ppn, lo, hi)
        else:
            b = bound(plat, uniform_traffic(coll, P, nodes, m, int(settings.get("root") or 0)),
                      ppn, lo, hi)
        out.append(Point(exp, key, coll, P, ppn, m, b, skip,
                         best(times, is_pacoll), best(times, lambda n: n.startswith(PEER_PREFIX)),
                         after))
    return out


def published_points(pub_root: str, platforms_dir: str) -> Iterator[Point]:
    """Every published point of PUB_ROOT/*/*.json (sim/published), on the
    platforms of PLATFORMS_DIR (sim/platforms)."""
    cache: Dict[str, Platform] = {}
    for exp, fn, run in published_runs(pub_root, BoundError):
        yield from run_points(exp, fn[:-5], run, platforms_dir, cache)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="pacoll-bounds",
                                 description="The lower bound of every published simulated "
                                             "point, and the best times as a fraction of it.")
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   "..", ".."))
    a = ap.parse_args(argv)
    try:
        root = os.path.abspath(a.root)
        for pt in published_points(os.path.join(root, "sim", "published"),
                                   os.path.join(root, "sim", "platforms")):
            if pt.bound is None:
                print(f"{pt.experiment} {pt.key} {pt.size} B: skipped ({pt.skip})")
                continue
            fr = " ".join(f"{w} {getattr(pt, w)[0]} {getattr(pt, w)[1]:.4g} us "
                          f"({pt.fraction(w):.3f})" for w in ("pacoll", "peer")
                          if getattr(pt, w))
            print(f"{pt.experiment} {pt.key} {pt.size} B: bound {pt.bound.bound_us:.4g} us "
                  f"({pt.bound.term}) {fr}")
    except BoundError as e:
        print(f"pacoll-bounds: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
