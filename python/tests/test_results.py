"""docs/RESULTS.md generator (pacoll_report.results) and the consistency of
sim/: claims name experiments and runs that exist, experiments expand, the
platforms match their generator."""
import copy
import json
import os
import subprocess
import sys
import time

import pytest

from conftest import DATA, load_sim_run, parse_tables

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SIM = os.path.join(ROOT, "sim")

from pacoll_report import results, units  # noqa: E402


def published_file(tmp_path, exp, key, peers=("ompi", "mpich")):
    """A merged sim/run file from test data: direct plus native renamed per peer."""
    with open(os.path.join(DATA, "smpi16_allgather_mif32.json")) as f:
        d = json.load(f)
    for r in d["results"]:
        out = [a for a in r["algos"] if a["name"] != "native"]
        nat = [a for a in r["algos"] if a["name"] == "native"][0]
        for i, p in enumerate(peers):
            a = copy.deepcopy(nat)
            a["name"] = a["ran"] = f"native:{p}"
            a["summary"]["avg_us"]["median"] *= (1 + i)       # ompi the best peer
            out.append(a)
        r["algos"] = out
    d["settings"]["algorithms"] = ["direct"] + [f"native:{p}" for p in peers]
    d["host"] = "pap_aware_4x4"
    d["sim"] = {"platform": "pap_aware_4x4", "experiment": exp}
    dst = tmp_path / "sim" / "published" / exp
    dst.mkdir(parents=True, exist_ok=True)
    (dst / f"{key}.json").write_text(json.dumps(d))
    return d


def times_at(d, size):
    for r in d["results"]:
        if r["bytes"] == size:
            return {a["name"]: a["summary"]["avg_us"]["median"] for a in r["algos"]}
    raise KeyError(size)


def tree(tmp_path, claims):
    (tmp_path / "sim").mkdir(exist_ok=True)
    (tmp_path / "docs").mkdir(exist_ok=True)
    (tmp_path / "sim" / "claims.json").write_text(json.dumps({"claims": claims}))
    (tmp_path / "sim" / "RESULTS.template.md").write_text(
        "# R\n\n## Claims\n\n{{CLAIMS}}\n\n## Runs\n\n{{RUNS}}\n\n## Real\n\nkept\n")
    return str(tmp_path)


CLAIM = {"paper": "p", "figure": "Fig. 1", "claim": "direct vs peers", "paper_ratio": 2.0,
         "experiment": "e", "key": "k", "collective": "allgather", "algorithm": "direct",
         "baseline": "peers", "size": 256, "ranks": 16, "issue": 4, "why": "because"}


def test_row_has_numbers_and_ratio(tmp_path):
    d = published_file(tmp_path, "e", "k")
    root = tree(tmp_path, [CLAIM, dict(CLAIM, algorithm="pap_direct", issue=7,
                                       claim="not landed")])
    assert results.main(["--root", root]) == 0
    md = open(os.path.join(root, "docs", "RESULTS.md")).read()
    head, rows = parse_tables(md)["Claims"]
    assert head == results.CLAIM_HEAD
    t = times_at(d, 256)
    r0 = dict(zip(head, rows[0]))
    assert r0["pacoll (us)"].startswith(units.fmt_us(t["direct"], short=True))
    assert "(ompi)" in r0["best SMPI peer (us)"]
    assert r0["simulated ratio"] == f"{t['native:ompi'] / t['direct']:.2f}x"
    assert r0["paper's number"] == "2.00x"
    assert r0["why they differ"] == "because"
    r1 = dict(zip(head, rows[1]))
    assert r1["pacoll (us)"] == "not yet (issue 7)"
    assert r1["simulated ratio"] == "-"
    assert "(ompi)" in r1["best SMPI peer (us)"]       # the peers are shown anyway
    assert "kept" in md
    runs = parse_tables(md)["Runs"][1]
    assert runs and runs[0][1] == "k"


def test_named_baseline_other_file_and_invert(tmp_path):
    d = published_file(tmp_path, "e", "k")
    published_file(tmp_path, "e", "k2")
    c = dict(CLAIM, algorithm="native:mpich", baseline="native:ompi", baseline_key="k2",
             invert=True)
    root = tree(tmp_path, [c])
    assert results.main(["--root", root]) == 0
    head, rows = parse_tables(open(os.path.join(root, "docs", "RESULTS.md")).read())["Claims"]
    t = times_at(d, 256)
    row = dict(zip(head, rows[0]))
    assert "other run" in row["baseline (us)"]
    assert row["simulated ratio"] == f"{t['native:mpich'] / t['native:ompi']:.2f}x"


def test_unpublished_and_check(tmp_path):
    root = tree(tmp_path, [CLAIM, dict(CLAIM, issue=8, algorithm="sloav")])
    out = os.path.join(root, "docs", "RESULTS.md")
    assert results.main(["--root", root, "--check"]) == 1        # not written yet
    assert results.main(["--root", root]) == 0
    assert results.main(["--root", root, "--check"]) == 0
    md = open(out).read()
    assert "not yet simulated (`sim/run e`)" in md
    assert "not yet (issue 8)" in md
    assert "No simulated run published yet" in md


def test_bad_claims(tmp_path, capsys):
    root = tree(tmp_path, [{"paper": "p"}])
    assert results.main(["--root", root]) == 2
    assert "lacks" in capsys.readouterr().err
    root = tree(tmp_path, [dict(CLAIM, metric="fastest")])
    assert results.main(["--root", root]) == 2
    assert "metric 'fastest'" in capsys.readouterr().err


def test_completion_metric_compares_last_arrival_to_last_exit(tmp_path):
    d = published_file(tmp_path, "e", "k")
    for r in d["results"]:                  # completion times unlike the averages
        for i, a in enumerate(r["algos"]):
            a["summary"]["last_arrival_to_last_exit_us"]["median"] = 10.0 * (3 - i)
    (tmp_path / "sim" / "published" / "e" / "k.json").write_text(json.dumps(d))
    root = tree(tmp_path, [dict(CLAIM, metric="completion")])
    assert results.main(["--root", root]) == 0
    head, rows = parse_tables(open(os.path.join(root, "docs", "RESULTS.md")).read())["Claims"]
    row = dict(zip(head, rows[0]))
    at = [r for r in d["results"] if r["bytes"] == 256][0]
    t = {a["name"]: a["summary"]["last_arrival_to_last_exit_us"]["median"] for a in at["algos"]}
    assert row["pacoll (us)"].startswith(units.fmt_us(t["direct"], short=True))
    assert row["simulated ratio"] == f"{min(t['native:ompi'], t['native:mpich']) / t['direct']:.2f}x"
    assert "times: completion" in row["simulated run"]


# ---- the real tree -----------------------------------------------------------

def test_committed_results_md_is_current():
    assert results.main(["--root", ROOT, "--check"]) == 0, \
        "docs/RESULTS.md is out of date: run sim/results-md"


def test_platforms_match_their_generator():
    r = subprocess.run([sys.executable, os.path.join(SIM, "platforms", "make_platforms.py"),
                        "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_every_claim_names_a_point_of_its_experiment():
    run = load_sim_run()
    platforms = run.load_platforms()
    with open(os.path.join(SIM, "claims.json")) as f:
        claims = json.load(f)["claims"]
    keys = {}          # experiment -> key -> (ranks, sizes)
    for name in run.experiment_names():
        pts, _ = run.expand(run.load_experiment(name), platforms, None)
        k = keys[name] = {}
        for p in pts:
            ranks, sizes = k.setdefault(p.key, (p.ranks, set()))
            sizes.update(run.size_bytes(p.size))
    for c in claims:
        assert c["experiment"] in keys, c
        for k in (c["key"], c.get("baseline_key", c["key"])):
            assert k in keys[c["experiment"]], (c["claim"], k)
            ranks, sizes = keys[c["experiment"]][k]
            assert c["size"] in sizes, (c["claim"], k, sorted(sizes))
        assert keys[c["experiment"]][c["key"]][0] == c["ranks"], c["claim"]


def test_experiments_expand_and_quick_is_smaller():
    run = load_sim_run()
    platforms = run.load_platforms()
    names = run.experiment_names()
    for need in ("ci_small", "pap_aware", "rdma_allgather", "sloavx", "multicore",
                 "multirail", "modern"):
        assert need in names
    for name in names:
        exp = run.load_experiment(name)
        full, _ = run.expand(exp, platforms, None)
        quick, _ = run.expand(exp, platforms, None, quick=True)
        assert full and quick and len(quick) <= len(full), name
        for p in full:
            assert p.ranks <= platforms[p.platform]["nodes"] * platforms[p.platform]["cores"], \
                (name, p.id)
    ci, _ = run.expand(run.load_experiment("ci_small"), platforms, None)
    assert max(p.ranks for p in ci) <= 64


def test_skipped_algorithms_are_notes_not_errors():
    run = load_sim_run()
    platforms = run.load_platforms()
    exp = run.load_experiment("ci_small")
    pts, skipped = run.expand(exp, platforms, {"alltoall": ["native", "direct"],
                                               "allgather": ["native", "direct"],
                                               "gather": ["native", "direct"],
                                               "alltoallv": ["native", "direct"]})
    assert "bruck" in skipped["alltoall"] and "sloav" in skipped["alltoallv"]
    assert all(p.algos == ["direct"] for p in pts if p.runner == "pacoll")
    only, _ = run.expand(exp, platforms, None, only={"direct", "ompi"})
    assert {p.runner for p in only} == {"pacoll", "ompi"}


def test_dry_run_prints_commands():
    r = subprocess.run([sys.executable, os.path.join(SIM, "run"), "ci_small", "--dry-run",
                        "--only", "direct,mpich", "--bench", "/nonexistent/pacoll-bench"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("[")]
    assert lines and all("smpirun" in ln and "PACOLL_SIM_COPY_BW=" in ln for ln in lines)
    assert any("--cfg=smpi/coll-selector:mpich" in ln for ln in lines)
    assert any("--cfg=smpi/lat-factor:0:1" in ln for ln in lines)


def test_large_shared_buffers_get_one_mapping_each():
    """256 ranks x 1 MB allgather with --sim-shared-buffers: 256 mappings of
    1 MB per receive buffer exceed vm.max_map_count (SMPI aborted); the
    command then sets the block to the whole buffer; small points keep
    SMPI's default, so their cached commands stay valid."""
    run = load_sim_run()
    platforms = run.load_platforms()
    plat = next(iter(sorted(platforms)))

    def cmd(coll, ranks, size, args):
        pt = run.Point(runner="pacoll", algos=["bruck"], peer=None, platform=plat, coll=coll,
                       ranks=ranks, skew={}, rpn=None, size=size, args=args, env={}, iters=1,
                       warmup=0, repeat=1, seed=1, budget="1M", pp_peer=1, timeout=None,
                       sweep="t")
        c, _ = run.command(pt, platforms, "/x/pacoll-bench", "/tmp/x/raw/p.json")
        return [x for x in c if "shared-malloc-blocksize" in x], c

    big, c = cmd("allgather", 256, "1M", ["--sim-shared-buffers"])
    assert big == ["--cfg=smpi/shared-malloc-blocksize:268435456"]
    assert c.index(big[0]) < c.index("/x/pacoll-bench")      # an smpirun option
    assert cmd("alltoall", 256, "512k", ["--sim-shared-buffers"])[0] == \
        ["--cfg=smpi/shared-malloc-blocksize:134217728"]
    assert cmd("alltoall", 256, "64k", ["--sim-shared-buffers"])[0] == []
    assert cmd("allgather", 1024, "32k", ["--sim-shared-buffers"])[0] == []
    assert cmd("allgather", 256, "1M", [])[0] == []


def test_a_copy_bandwidth_change_reruns_pacoll_points_only():
    run = load_sim_run()

    class P:
        pass
    peer, ours = P(), P()
    peer.peer, ours.peer = "mpich", None
    old = "PACOLL_SIM_COPY_BW=1e+10 PACOLL_SIM_TESTED=1 smpirun -np 4 x --cfg=smpi/coll-selector:mpich"
    new = old.replace("1e+10", "2.34375e+09")
    assert run.same_command(old, new, peer)
    assert not run.same_command(old, new, ours)
    assert not run.same_command(old, new.replace("-np 4", "-np 8"), peer)
    assert run.same_command(old, old, ours)


def test_ranks_filter_keeps_only_those_rank_counts():
    run = load_sim_run()
    platforms = run.load_platforms()
    exp = run.load_experiment("sloavx")
    full, _ = run.expand(exp, platforms, None)
    some, _ = run.expand(exp, platforms, None, ranks={16, 256})
    assert some and {p.ranks for p in some} == {16, 256}
    assert len(some) < len(full)
    # direct is simulated up to 128 ranks only: it joins the 16-rank points
    assert any("direct" in p.algos for p in some if p.ranks == 16 and p.runner == "pacoll")
    assert not any("direct" in p.algos for p in some if p.ranks == 256)


def test_publish_merges_into_what_is_published():
    run = load_sim_run()

    def row(b, names, us):
        return {"bytes": b, "algos": [{"name": n, "summary": {"avg_us": {"median": us}}}
                                      for n in names]}
    old = {"results": [row(1, ["direct", "native:ompi"], 5.0), row(8, ["direct"], 6.0)],
           "settings": {"algorithms": ["direct", "native:ompi"]},
           "algorithms": [{"name": "direct"}], "sim": {"commands": ["old"]}}
    new = {"results": [row(8, ["direct", "sloav"], 7.0), row(64, ["sloav"], 9.0)],
           "settings": {"algorithms": ["direct", "sloav"]},
           "algorithms": [{"name": "sloav"}], "sim": {"commands": ["new"]}}
    m = run._merge_published(old, new)
    by = {r["bytes"]: {a["name"]: a["summary"]["avg_us"]["median"] for a in r["algos"]}
          for r in m["results"]}
    assert sorted(by) == [1, 8, 64]                       # old sizes stay
    assert by[8] == {"direct": 7.0, "sloav": 7.0}          # the new run wins a size it measured
    assert by[1] == {"direct": 5.0, "native:ompi": 5.0}
    assert m["settings"]["algorithms"] == ["direct", "sloav", "native:ompi"]
    assert (m["settings"]["min_size"], m["settings"]["max_size"]) == (1, 64)
    assert {a["name"] for a in m["algorithms"]} == {"direct", "sloav"}
    assert m["sim"]["commands"] == ["new", "old"]


def test_publish_keeps_the_summary_of_other_rank_counts():
    run = load_sim_run()
    old = {"points": [{"id": "a_512", "seconds": 10.0}, {"id": "b_512", "seconds": 5.0}],
           "points_seconds": 15.0, "json": ["a.json", "b.json"]}
    new = {"points": [{"id": "b_512", "seconds": 7.0}, {"id": "c_256", "seconds": 1.0}],
           "points_seconds": 8.0, "json": ["c.json", "b.json"]}
    m = run._merge_summary(old, new)
    assert [p["id"] for p in m["points"]] == ["a_512", "b_512", "c_256"]
    assert [p["seconds"] for p in m["points"]] == [10.0, 7.0, 1.0]   # the new run's b wins
    assert m["points_seconds"] == 18.0
    assert m["json"] == ["a.json", "b.json", "c.json"]


def test_a_point_that_times_out_leaves_no_simulation_behind(tmp_path):
    # smpirun is a shell script: a timeout must kill the simulation under it
    run = load_sim_run()
    pidfile = tmp_path / "child.pid"
    rc, err = run._run_point(["sh", "-c", f"sleep 60 & echo $! > {pidfile}; wait"],
                             str(tmp_path), dict(os.environ), 1)
    assert rc is None and "timed out" in err
    child = int(pidfile.read_text())
    for _ in range(50):                       # reaped by init shortly after the kill
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        raise AssertionError(f"pid {child} survived the timeout")


def test_sweep_env_adds_to_defaults_and_peers_skip_channel_settings(tmp_path):
    """A sweep's env adds to the experiment's; PACOLL_SIM_PUT (read by pacoll's
    channel only) stays out of a peer's command, so its points are reused."""
    run = load_sim_run()
    platforms = run.load_platforms()
    exp = copy.deepcopy(run.load_experiment("ci_small"))
    exp["defaults"]["env"] = {"PACOLL_SIM_PUT": "transfer", "PACOLL_PORTS": "2"}
    for sw in exp["sweeps"]:
        sw["env"] = {"PACOLL_PORTS": "4", "PACOLL_SIM_TESTED": "1"}
    pts, _ = run.expand(exp, platforms, None)
    pac = [p for p in pts if p.runner == "pacoll"]
    peers = [p for p in pts if p.runner != "pacoll"]
    assert pac and peers
    for p in pac:
        assert p.env == {"PACOLL_SIM_PUT": "transfer", "PACOLL_PORTS": "4",
                         "PACOLL_SIM_TESTED": "1"}, p.env
        _, env = run.command(p, platforms, "pacoll-bench", str(tmp_path / "raw" / "p.json"))
        assert env["PACOLL_SIM_PUT"] == "transfer"
    for p in peers:
        _, env = run.command(p, platforms, "pacoll-bench", str(tmp_path / "raw" / "p.json"))
        assert "PACOLL_SIM_PUT" not in env and env["PACOLL_PORTS"] == "4"
