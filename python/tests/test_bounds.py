"""The lower bounds (pacoll_report.bounds, docs/SIM-MODEL.md "Lower bounds"):
formulas on small cases computed by hand, the platform numbers read from
sim/platforms, the alltoallv counts the benchmark draws, and that no
published time lies below its bound (the RESULTS.md section is tested in
test_results.py)."""
import json
import os

import pytest

from pacoll_report import bounds

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PLATFORMS = os.path.join(ROOT, "sim", "platforms")
PUBLISHED = os.path.join(ROOT, "sim", "published")


def plat(name):
    return bounds.load_platform(PLATFORMS, name)


def test_simgrid_units():
    assert bounds.parse_bw("1.5GBps") == 1.5e9
    assert bounds.parse_bw("0.9GBps") == 0.9e9
    assert bounds.parse_bw("2MiBps") == 2 * 1024 ** 2
    assert bounds.parse_lat("0.75us") == pytest.approx(0.75e-6)
    assert bounds.parse_lat("2ns") == pytest.approx(2e-9)
    with pytest.raises(bounds.BoundError):
        bounds.parse_bw("fast")


def test_platform_numbers_come_from_the_xml_and_the_manifest():
    p = plat("pap_aware_4x4")            # SPLITDUPLEX cluster, 0.75 us per link
    assert (p.up_bw, p.down_bw, p.duplex_bw) == (1.5e9, 1.5e9, bounds.INF)
    assert p.net_lat == pytest.approx(1.5e-6) and p.cross == bounds.CROSS
    assert p.copy_bw == 2e9 and p.mem_bw == bounds.INF and p.rail_of is None
    assert plat("rdma_a_32x2").duplex_bw == 0.9e9                 # SHARED (PCI-X)
    assert plat("multicore_offload_64x8").duplex_bw == 1.5e9      # SHARED + limiter
    m = plat("modern_16x64")             # Full routing, crosstraffic off
    assert (m.up_bw, m.net_lat, m.mem_bw, m.cross) == (45e9, pytest.approx(1e-6), 150e9, 0.0)
    r = plat("multirail_4x4")            # two rails: a node sends on both
    assert r.up_bw == pytest.approx(1.8e9) and r.net_lat == pytest.approx(2e-6)
    assert r.rail_cap == {"rail0": pytest.approx(3.6e9), "rail1": pytest.approx(3.6e9)}
    assert r.rail_of[0][1] == "rail1" and r.rail_of[0][2] == "rail0"


def test_alltoall_by_hand():
    # 16 ranks on 4 x 4, 1 KB: each node sends and receives 4 x 12 x 1024 B;
    # each direction also carries 5% cross traffic of the other
    p = plat("pap_aware_4x4")
    t = bounds.uniform_traffic("alltoall", 16, 4, 1024)
    assert t.node_out == [49152.0] * 4 and t.node_in == [49152.0] * 4
    assert t.last_out == 12 * 1024
    b = bounds.bound(p, t, 4, 0.0)
    assert b.transfer_us == pytest.approx(1.5 + 1.05 * 49152 / 1.5e3)     # 35.906
    assert b.last_us == pytest.approx(1.5 + 12 * 1024 / 1.5e3)             # 9.692
    assert b.bound_us == b.transfer_us and b.term.startswith("NIC")
    # 100 us of skew: the last rank's 12 KB still have to leave its node
    b = bounds.bound(p, t, 4, 100.0, 120.0)
    assert (b.bound_us, b.term) == (pytest.approx(109.692), "skew")
    assert b.after_us == pytest.approx(9.692)     # max(last, transfer - 120)


def test_allgather_on_a_shared_link_by_hand():
    # rdma_a_32x2: 32 ranks on 16 nodes; a node receives 30 blocks and sends
    # its 2 once, both ways over one 0.9 GB/s link (+5% cross traffic)
    p = plat("rdma_a_32x2")
    t = bounds.uniform_traffic("allgather", 32, 16, 32768)
    assert t.node_in == [30 * 32768.0] * 16 and t.node_out == [2 * 32768.0] * 16
    b = bounds.bound(p, t, 2, 0.0)
    assert b.bound_us == pytest.approx(5 + 1.05 * 32 * 32768 / 0.9e3)      # 1228.339
    assert b.term == "NIC both ways"
    assert b.last_us == pytest.approx(5 + 32768 / 0.9e3)


def test_gather_by_hand_and_nothing_certain_after_the_last_arrival():
    p = plat("multirail_4x4")            # root 0's node takes 12 blocks on two rails
    t = bounds.uniform_traffic("gather", 16, 4, 4096)
    assert t.node_in == [12 * 4096.0, 0, 0, 0] and t.last_out == 0
    b = bounds.bound(p, t, 4, 2.0)
    assert b.bound_us == pytest.approx(2 + 12 * 4096 / 1.8e3)              # 29.307
    assert bounds.bound(p, t, 4, 50.0).bound_us == 50.0


def test_rail_cut_on_two_rails_by_hand():
    # multirail_4x4: rail = (src + dst) % 2, so a pair of nodes of different
    # parity needs a rail-1 route whatever the relays; 8 of the 12 ordered
    # pairs, 16 blocks each
    p = plat("multirail_4x4")
    h = bounds.rail_hops(p, "rail1")
    assert [h[0][j] for j in range(4)] == [0, 1, 0, 1]
    t = bounds.uniform_traffic("alltoall", 16, 4, 1 << 20)
    b = bounds.bound(p, t, 4, 0.0)
    assert b.term == "rail1 (rail cut)"
    assert b.bound_us == pytest.approx(2 + 1.05 * 8 * 16 * (1 << 20) / 3.6e3)   # 39148.8
    # without the cut, the node's two rails together would allow 29362 us
    assert bounds.node_time(p, t.node_out[0], t.node_in[0])[0] * 1e6 < 0.76 * b.bound_us


def test_alltoallv_matrix_by_hand():
    # 4 ranks on 2 nodes (0, 1 | 2, 3)
    c = [[0, 1, 2, 3],
         [4, 0, 5, 6],
         [7, 8, 0, 9],
         [1, 1, 1, 0]]
    t = bounds.matrix_traffic(c, 2)
    assert t.node_out == [2 + 3 + 5 + 6, 7 + 8 + 1 + 1]
    assert t.node_in == [7 + 8 + 1 + 1, 2 + 3 + 5 + 6]
    assert t.last_out == 2        # rank 3 sends 1 + 1 off its node
    assert t.delivered == [1 + 4 + 7 + 8 + 1 + 1, 2 + 3 + 5 + 6 + 9 + 1]
    assert t.intra_block == 9 and t.pairs == [[0, 16], [17, 0]]
    assert bounds.matrix_traffic([[5] * 8 for _ in range(8)], 2).node_out == \
        bounds.uniform_traffic("alltoall", 8, 2, 5).node_out


def test_counts_are_the_benchmarks():
    # values printed by tools/bench's own bench_vdist_count (seed 1)
    assert [bounds.random_count(1, 8, s, d) for s, d in
            [(0, 0), (0, 97), (0, 194), (101, 0)]] == [8, 5, 2, 7]
    assert [bounds.zipf_count(1, 1.2, 64, 256, s, d) for s, d in
            [(84, 33), (249, 118), (163, 165), (201, 90), (0, 0)]] == [64, 27, 17, 12, 0]
    m = bounds.count_matrix({"vdist": "random", "vdist_params": {"seed": 1}}, 64, 8)
    assert m[0][97 % 64] == bounds.random_count(1, 8, 0, 97 % 64)
    assert bounds.count_matrix({"vdist": "file"}, 4, 8) is None


def test_one_node_is_bounded_by_a_copy():
    # sloavx 16 ranks on one Jaguar node: no network; an 8 B block at the
    # faster of loopback (4 GB/s) and a copy (3 GB/s)
    p = plat("sloavx_jaguar_64x16")
    t = bounds.uniform_traffic("alltoall", 16, 1, 8)
    b = bounds.bound(p, t, 16, 0.0)
    assert b.bound_us == pytest.approx(8 / 4e3) and b.last_us == 0


def test_receive_buffers_on_a_shared_membus():
    # modern_16x64, allgather 8 KB, 256 ranks on 4 nodes: each node's 64
    # ranks take 255 blocks each, through the NIC (45 GB/s), the membus
    # (150 GB/s) and 64 cores copying at 150/64 GB/s
    p = plat("modern_16x64")
    b = bounds.bound(p, bounds.uniform_traffic("allgather", 256, 4, 8192), 64, 0.0)
    assert b.term == "receive buffers"
    assert b.bound_us == pytest.approx(64 * 255 * 8192 / (45e3 + 150e3 + 150e3))


@pytest.fixture(scope="module")
def published():
    return list(bounds.published_points(PUBLISHED, PLATFORMS))


def test_every_published_point_is_bounded(published):
    assert len(published) >= 300
    assert [p.key for p in published if p.bound is None] == []


def test_no_published_time_is_below_its_bound(published):
    """Every row of every point, pacoll's and the peers': a time below the
    bound means the bound is wrong."""
    bad = []
    for pt in published:
        run = json.load(open(os.path.join(PUBLISHED, pt.experiment, pt.key + ".json")))
        res = [r for r in run["results"] if r["bytes"] == pt.size][0]
        for a in res["algos"]:
            t = bounds.summary_median(a, bounds.METRIC)
            la = bounds.summary_median(a, bounds.AFTER)
            if t < pt.bound.bound_us * (1 - 1e-6):
                bad.append((pt.key, pt.size, a["name"], "completion", t, pt.bound.bound_us))
            if la < pt.bound.after_us * (1 - 1e-6):
                bad.append((pt.key, pt.size, a["name"], "after", la, pt.bound.after_us))
    assert bad == []


def test_best_times_are_the_fastest_rows(published):
    pt = [p for p in published if p.key == "pap_aware_4x4_alltoall_16r_noskew"
          and p.size == 1 << 20][0]
    assert pt.peer[0].startswith("native:") and not pt.pacoll[0].startswith(("native", "auto"))
    assert pt.fraction("peer") == pytest.approx(1.0, abs=1e-4)    # the peer sits on the bound
    assert pt.near("peer")

