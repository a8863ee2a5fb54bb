"""docs/RESULTS.md generator (pacoll_report.results) and the consistency of
sim/: claims name experiments and runs that exist, experiments expand, the
platforms match their generator."""
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

from conftest import DATA, load_sim_run, parse_tables

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SIM = os.path.join(ROOT, "sim")

from pacoll_report import bounds, results, units  # noqa: E402


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


def test_sweeps_filter_keeps_only_those_sweeps():
    run = load_sim_run()
    platforms = run.load_platforms()
    exp = run.load_experiment("modern")
    full, _ = run.expand(exp, platforms, None)
    some, _ = run.expand(exp, platforms, None, sweeps={"gather", "mif32"})
    assert some and len(some) < len(full)
    assert {p.coll for p in some} == {"gather", "alltoall", "allgather"}
    assert all(p.coll == "gather" or p.skew.get("mif") == 32 for p in some)
    assert all(p.ranks == 256 for p in some)
    with pytest.raises(run.SimError, match="no sweep named nope"):
        run.expand(exp, platforms, None, sweeps={"gather", "nope"})


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
    # a run that replaces every old row drops the old commands: none of
    # their rows is left (docs/RESULTS.md reads the charges from them)
    full = dict(new, results=[row(1, ["direct", "native:ompi"], 4.0), row(8, ["direct"], 4.0)])
    assert run._merge_published(old, full)["sim"]["commands"] == ["new"]


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


def test_sweep_env_adds_to_defaults_and_every_run_gets_it(tmp_path):
    """A sweep's env adds to the experiment's, and every run of the sweep gets
    it, a peer's too: pacoll-bench's native goes through pacoll's team, whose
    set-up PACOLL_SIM_PUT shapes, so leaving it out of the native runs made
    auto that goes native time differently from native (docs/SIM.md)."""
    run = load_sim_run()
    platforms = run.load_platforms()
    exp = copy.deepcopy(run.load_experiment("ci_small"))
    exp["defaults"]["env"] = {"PACOLL_SIM_PUT": "transfer", "PACOLL_PORTS": "2"}
    for sw in exp["sweeps"]:
        sw["env"] = {"PACOLL_PORTS": "4", "PACOLL_SIM_TESTED": "1"}
    pts, _ = run.expand(exp, platforms, None)
    pac = [p for p in pts if p.runner == "pacoll" or p.runner.startswith(("auto-", "learn-"))]
    peers = [p for p in pts if p.peer]
    assert pac and peers and len(pac) + len(peers) == len(pts)
    for p in pac + peers:
        assert p.env == {"PACOLL_SIM_PUT": "transfer", "PACOLL_PORTS": "4",
                         "PACOLL_SIM_TESTED": "1"}, p.env
        _, env = run.command(p, platforms, "pacoll-bench", str(tmp_path / "raw" / "p.json"))
        assert env["PACOLL_SIM_PUT"] == "transfer" and env["PACOLL_PORTS"] == "4"
        # the learning runs alone learn everywhere
        assert env.get("PACOLL_LEARN") == ("1" if p.runner.startswith("learn-") else None)


# ---- pacoll's auto on top of each peer selector ----------------------------

def test_auto_runs_on_every_peer_selector_and_only_selects_them():
    run = load_sim_run()
    platforms = run.load_platforms()
    exp = run.load_experiment("ci_small")
    pts, _ = run.expand(exp, platforms, None)
    for key_size in {(p.key, p.size) for p in pts}:
        here = {p.runner: p for p in pts if (p.key, p.size) == key_size}
        for peer in run.PEERS:
            a = here[f"auto-{peer}"]
            assert a.algos == ["auto"] and a.selector == peer and a.peer is None
            assert a.id.endswith(f"_auto-{peer}") and a.label == f"auto:{peer}"
            assert here[peer].peer == peer and here[peer].label == f"native:{peer}"
    ids = {p.id for p in pts}
    only, _ = run.expand(exp, platforms, None, only={"auto"})
    assert only and {p.runner for p in only} == {f"auto-{x}" for x in run.PEERS}
    assert {p.id for p in only} <= ids
    one, _ = run.expand(exp, platforms, None, only={"auto:ompi"})
    assert one and {p.runner for p in one} == {"auto-ompi"}
    nat, _ = run.expand(exp, platforms, None, only={"native", "direct"})
    assert {p.runner for p in nat} == {"pacoll", "ompi", "mpich", "mvapich2"}
    # a sweep opts out; "auto" among a sweep's algorithms is not a pacoll algorithm
    exp = copy.deepcopy(exp)
    exp["sweeps"][0]["auto"] = False
    exp["sweeps"][1]["algorithms"]["gather"].append("auto")
    pts, _ = run.expand(exp, platforms, None)
    assert not any(p.selector and not p.peer for p in pts if p.sweep == "flat16")
    assert any(p.runner == "auto-mpich" for p in pts if p.sweep == "v16")
    assert all("auto" not in p.algos for p in pts if p.runner == "pacoll")


def test_auto_command_is_the_pacoll_environment_under_the_selector(tmp_path):
    """The selector's cfg and every PACOLL_* setting of the sweep; no Bruck
    allgather (it would replace the selector's, which auto may run); costed
    as one pacoll algorithm; its cached result is compared exactly."""
    run = load_sim_run()
    platforms = run.load_platforms()
    exp = copy.deepcopy(run.load_experiment("ci_small"))
    exp["defaults"]["env"] = {"PACOLL_SIM_PUT": "transfer", "PACOLL_EAGER": "2048"}
    pts, _ = run.expand(exp, platforms, None)
    auto = next(p for p in pts if p.runner == "auto-mvapich2")
    pac = next(p for p in pts if p.runner == "pacoll" and p.key == auto.key
               and p.size == auto.size)
    cmd, env = run.command(auto, platforms, "pacoll-bench", str(tmp_path / "raw" / "p.json"))
    _, penv = run.command(pac, platforms, "pacoll-bench", str(tmp_path / "raw" / "q.json"))
    assert env == penv and env["PACOLL_SIM_PUT"] == "transfer"
    assert "--cfg=smpi/coll-selector:mvapich2" in cmd
    assert not any("smpi/allgather" in c for c in cmd)
    assert cmd[cmd.index("--algos") + 1] == "auto"
    assert auto.weight() == pytest.approx(pac.weight() / len(pac.algos))
    old = run.show_command(cmd, env)
    new = old.replace("PACOLL_SIM_COPY_BW=2e+09", "PACOLL_SIM_COPY_BW=1e+09")
    assert new != old and not run.same_command(old, new, auto)


def bench_file(path, names, us, ran=None):
    """A raw pacoll-bench file: one 8 B row per name, avg_us us[i]."""
    d = {"schema": "pacoll-bench/1", "collective": "alltoall", "ranks": 16, "nodes": 4,
         "host": "smpi", "settings": {"algorithms": list(names), "baseline": names[0]},
         "algorithms": [{"name": n, "needs": 0, "source": "MPI library", "summary": "x"}
                        for n in names],
         "wall_seconds": 1.0,
         "results": [{"bytes": 8, "iters": 5, "warmup": 1, "tm_us": 1.0, "algos": [
             {"name": n, "ran": (ran or {}).get(n, n),
              "summary": {k: {"median": u, "min": u, "max": u}
                          for k in ("avg_us", "min_us", "max_us")}}
             for n, u in zip(names, us)]}]}
    path.write_text(json.dumps(d))


def desc_source(d, name):
    return next(a["source"] for a in d["algorithms"] if a["name"] == name)


def test_merge_names_auto_rows_and_keeps_what_auto_ran(tmp_path):
    run = load_sim_run()
    platforms = run.load_platforms()
    exp = run.load_experiment("ci_small")
    pts, _ = run.expand(exp, platforms, None)
    key = pts[0].key
    here = [p for p in pts if p.key == key and p.size == "8"]
    raw = tmp_path / "raw"
    raw.mkdir()
    for p in here:
        p.status, p.command, p.env_set = "ok", ["smpirun"], {}
        if p.runner == "pacoll":
            bench_file(raw / f"{p.id}.json", p.algos, [2.0] * len(p.algos))
        elif p.peer:
            bench_file(raw / f"{p.id}.json", ["native"], [4.0])
        else:
            bench_file(raw / f"{p.id}.json", ["auto"], [3.0], ran={"auto": "leader"})
    files = run.merge(here, str(raw), str(tmp_path / "json"), exp, platforms)
    d = json.load(open(files[0]))
    names = [a["name"] for a in d["results"][0]["algos"]]
    pac = next(p for p in here if p.runner == "pacoll").algos
    autos = [f"auto:{x}" for x in ("mpich", "mvapich2", "ompi")]
    learns = [f"auto-learn:{x}" for x in ("mpich", "mvapich2", "ompi")]
    nats = [f"native:{x}" for x in ("mpich", "mvapich2", "ompi")]
    assert names == d["settings"]["algorithms"] == pac + autos + learns + nats
    assert d["settings"]["baseline"] == "native:mpich"
    by = {a["name"]: a for a in d["results"][0]["algos"]}
    assert all(by[n]["ran"] == "leader" for n in autos + learns)
    assert "PACOLL_LEARN=1" in desc_source(d, "auto-learn:ompi")
    assert all(by[n]["ran"] == n for n in nats)
    assert [a["name"] for a in d["algorithms"]] == names
    desc = {a["name"]: a for a in d["algorithms"]}
    assert "mvapich2" in desc["auto:mvapich2"]["source"] and "auto" not in desc
    # --verify wants an auto row's "ran"
    del by["auto:ompi"]["ran"]
    (tmp_path / "json" / os.path.basename(files[0])).write_text(json.dumps(d))
    (tmp_path / "report").mkdir()
    (tmp_path / "report" / "report.md").write_text("x")
    (tmp_path / "summary.json").write_text(json.dumps({"points": [
        {"id": p.id, "key": p.key, "size": p.size, "runner": p.runner, "algos": p.algos,
         "status": "ok"} for p in here]}))
    probs = run.verify(str(tmp_path))
    assert len(probs) == 1 and "auto:ompi" in probs[0] and "ran" in probs[0], probs


def test_publishing_auto_alone_keeps_the_published_rows():
    """sim/run EXP --only auto --publish adds auto rows to the published
    files: pacoll's and the peers' rows, order and baseline stay."""
    run = load_sim_run()

    def row(b, names, us):
        return {"bytes": b, "algos": [{"name": n, "ran": n, "summary": {"avg_us": {"median": us}}}
                                      for n in names]}
    old = {"results": [row(8, ["direct", "native:mpich", "native:ompi"], 5.0),
                       row(64, ["direct", "native:mpich", "native:ompi"], 6.0)],
           "settings": {"algorithms": ["direct", "native:mpich", "native:ompi"],
                        "baseline": "native:mpich"},
           "algorithms": [{"name": "direct"}, {"name": "native:mpich"}, {"name": "native:ompi"}],
           "sim": {"commands": ["old"]}}
    new = {"results": [row(8, ["auto:mpich", "auto:ompi"], 4.0),
                       row(64, ["auto:mpich", "auto:ompi"], 7.0)],
           "settings": {"algorithms": ["auto:mpich", "auto:ompi"], "baseline": "auto:mpich"},
           "algorithms": [{"name": "auto:mpich"}, {"name": "auto:ompi"}],
           "sim": {"commands": ["new"]}}
    m = run._merge_published(old, new)
    order = ["direct", "auto:mpich", "auto:ompi", "native:mpich", "native:ompi"]
    assert m["settings"]["algorithms"] == order
    assert m["settings"]["baseline"] == "native:mpich"
    assert [[a["name"] for a in r["algos"]] for r in m["results"]] == [order, order]
    by = {r["bytes"]: {a["name"]: a["summary"]["avg_us"]["median"] for a in r["algos"]}
          for r in m["results"]}
    assert by[8] == {"direct": 5.0, "native:mpich": 5.0, "native:ompi": 5.0,
                     "auto:mpich": 4.0, "auto:ompi": 4.0}
    assert [a["name"] for a in m["algorithms"]] == order
    assert m["sim"]["commands"] == ["new", "old"]
    # the summary: the other runners' points and notes stay
    s = run._merge_summary(
        {"points": [{"id": "a_pacoll", "seconds": 9.0}],
         "skipped_not_registered": {"alltoall": ["pap_x"]}},
        {"points": [{"id": "a_auto-ompi", "seconds": 1.0}], "only": "auto",
         "skipped_not_registered": {}})
    assert [p["id"] for p in s["points"]] == ["a_pacoll", "a_auto-ompi"]
    assert s["skipped_not_registered"] == {"alltoall": ["pap_x"]}


def with_auto(d, ratios):
    """Adds auto:PEER rows to a published_file: native:PEER / auto:PEER =
    ratios[peer] at every size; auto 'ran' direct."""
    for r in d["results"]:
        by = {a["name"]: a for a in r["algos"]}
        for p, x in ratios.items():
            a = copy.deepcopy(by[f"native:{p}"])
            a["name"], a["ran"] = f"auto:{p}", "direct"
            a["summary"]["avg_us"]["median"] /= x
            r["algos"].append(a)
        d["settings"]["algorithms"] = [a["name"] for a in r["algos"]]
    return d


def test_auto_against_native_section(tmp_path):
    d = published_file(tmp_path, "e", "k")
    n = len(d["results"])
    with_auto(d, {"ompi": 1.25, "mpich": 0.8})
    worst = d["results"][-1]
    for a in worst["algos"]:                 # one slow point for ompi
        if a["name"] == "auto:ompi":
            a["summary"]["avg_us"]["median"] *= 1.25 / 0.5
    (tmp_path / "sim" / "published" / "e" / "k.json").write_text(json.dumps(d))
    root = tree(tmp_path, [CLAIM])
    (tmp_path / "sim" / "RESULTS.template.md").write_text("## Runs\n\n{{RUNS}}\n\n"
                                                          "## Auto\n\n{{AUTO}}\n")
    assert results.main(["--root", root]) == 0
    md = open(os.path.join(root, "docs", "RESULTS.md")).read()
    head, rows = parse_tables(md)["Auto"]
    by = {r[0]: dict(zip(head, r)) for r in rows}
    assert set(by) == {"ompi", "mpich"}
    g = (1.25 ** (n - 1) * 0.5) ** (1 / n)
    assert by["ompi"]["points"] == str(n)
    assert by["ompi"]["native / auto, geometric mean"] == f"{g:.2f}x"
    assert by["ompi"]["worst point"].startswith("0.50x: `e` k, ")
    assert "(auto ran direct)" in by["ompi"]["worst point"]
    assert by["ompi"]["points below 0.97x"] == "1"
    assert by["mpich"]["native / auto, geometric mean"] == "0.80x"
    assert by["mpich"]["points below 0.97x"] == str(n)
    head, rows = parse_tables(md)["Runs"]
    cell = dict(zip(head, rows[0]))[[h for h in head if h.startswith("auto:")][0]]
    assert cell.startswith(f"ompi {g:.2f}x (0.50x at ") and "mpich 0.80x" in cell
    # the best pacoll algorithm is still a forced one, not auto
    assert "auto" not in dict(zip(head, rows[0]))[
        "best pacoll / best peer, smallest and largest size"]


def test_auto_section_without_auto_rows_is_one_line(tmp_path):
    published_file(tmp_path, "e", "k")
    root = tree(tmp_path, [CLAIM])
    (tmp_path / "sim" / "RESULTS.template.md").write_text("{{RUNS}}\n\n{{AUTO}}\n")
    assert results.main(["--root", root]) == 0
    md = open(os.path.join(root, "docs", "RESULTS.md")).read()
    assert "No published run has auto rows yet" in md
    assert "{{AUTO}}" not in md


def test_bounds_section(tmp_path):
    """One point against its bound: the per-point row (bound / time of
    pacoll's best and the best peer; auto is neither) and the summary line."""
    run = {"schema": "pacoll-bench/1", "collective": "alltoall", "ranks": 16, "nodes": 4,
           "host": "pap_aware_4x4", "settings": {"vdist": "uniform"},
           "sim": {"platform": "pap_aware_4x4"},
           "results": [{"bytes": 1024, "algos": [
               {"name": n, "summary": {bounds.METRIC: {"median": t}, bounds.SKEW: {"median": 0.0},
                                       bounds.AFTER: {"median": t}}}
               for n, t in [("direct", 45.0), ("auto:ompi", 36.0), ("native:ompi", 37.0),
                            ("native:mpich", 40.0)]]}]}
    pub = tmp_path / "sim" / "published" / "exp"
    pub.mkdir(parents=True)
    (pub / "pap_aware_4x4_alltoall_16r_noskew.json").write_text(json.dumps(run))
    shutil.copytree(os.path.join(SIM, "platforms"), tmp_path / "sim" / "platforms")
    (tmp_path / "docs").mkdir()
    (tmp_path / "sim" / "claims.json").write_text(json.dumps({"claims": []}))
    (tmp_path / "sim" / "RESULTS.template.md").write_text("# R\n\n## Bounds\n\n{{BOUNDS}}\n")
    out = tmp_path / "out.md"
    assert results.main(["--root", str(tmp_path), "--out", str(out)]) == 0
    text = out.read_text()
    head, rows = parse_tables(text)["Bounds"]     # the last table: every point
    b = 1.5 + 1.05 * 49152 / 1.5e3
    assert rows[0][:2] == ["pap_aware_4x4_alltoall_16r_noskew", "1 KB"]
    assert rows[0][4] == "45 (direct)" and rows[0][5] == f"{b / 45:.3f}"
    assert rows[0][6] == "37 (ompi)" and rows[0][7] == f"{b / 37:.3f}"
    assert "**`exp`**: 1 of 1 bounded points visibly unbeatable" in text
    assert "pacoll's best within 5% at 0." in text


def test_fair_model_charges_both_sides_the_same_copies(tmp_path):
    """--model fair: every platform gets the eager copy options at its copy
    bandwidth and the eager limit, and pacoll's runs and the peers' alike
    get PACOLL_SIM_FAIR; a platform whose host props override --cfg runs on
    a copy of its XML whose props keep its per-message time and add the
    copies; the results go to EXP-fair, and --publish to sim/published-fair."""
    run = load_sim_run()
    platforms = run.fair_platforms(run.load_platforms())
    p = platforms["pap_aware_4x4"]
    # the copy-out at 2 GB/s, and seeing the message land (no o here)
    assert "--cfg=smpi/or:0:1e-07:5e-10" in p["cfg"]
    assert "--cfg=smpi/ois:0:0:5e-10;12287:0:0" in p["cfg"]
    assert "--cfg=smpi/send-is-detached-thresh:12288" in p["cfg"]
    # one barrier for every run, whatever the selector
    assert "--cfg=smpi/barrier:ompi_recursivedoubling" in p["cfg"]
    assert p["env"]["PACOLL_SIM_FAIR"] == "12288"
    assert float(p["env"]["PACOLL_SIM_SHM_LAT"]) == 0.25e-6
    # pacoll pays per hand-off what the peers pay per message
    assert (p["env"]["PACOLL_SIM_O"], float(p["env"]["PACOLL_SIM_LAND"])) == ("0", 1e-7)
    assert float(p["env"]["PACOLL_SIM_CMA_CALL"]) == run.FAIR_CMA_CALL > 0
    assert "PACOLL_SIM_HOST_DRIVEN" not in p["env"]
    assert "--cfg=smpi/or:0:1e-07:1e-09" in platforms["multirail_4x4"]["cfg"]
    # where a platform has o, o is the receive's CPU cost, landing included
    jag, onl = platforms["sloavx_jaguar_64x16"], platforms["multicore_onload_64x8"]
    assert (jag["env"]["PACOLL_SIM_O"], jag["env"]["PACOLL_SIM_LAND"]) == ("2.5e-07", "0")
    assert onl["env"]["PACOLL_SIM_O"] == "3e-7" and onl["env"]["PACOLL_SIM_HOST_DRIVEN"] == "1"
    assert "PACOLL_SIM_HOST_DRIVEN" not in platforms["multicore_offload_64x8"]["env"]
    # a sensitivity run of the landing cost
    assert "--cfg=smpi/or:0:3e-07:5e-10" in \
        run.fair_platforms(run.load_platforms(), {"land": 3e-7})["pap_aware_4x4"]["cfg"]

    def cmd(platform, peer, env=None, plats=platforms):
        pt = run.Point(runner="pacoll" if not peer else "peer", algos=["direct"], peer=peer,
                       platform=platform, coll="alltoall", ranks=16, skew={}, rpn=None,
                       size="1k", args=[], env=env or {}, iters=1, warmup=0, repeat=1, seed=1,
                       budget="1M", pp_peer=1, timeout=None, sweep="t")
        return run.command(pt, plats, "/x/pacoll-bench", str(tmp_path / "raw" / "p.json"))
    for peer in (None, "mpich"):
        c, env = cmd("pap_aware_4x4", peer)
        assert env["PACOLL_SIM_FAIR"] == "12288" and "--cfg=smpi/or:0:1e-07:5e-10" in c
        # the eager limit given last, after sim/run's base options
        assert c.index("--cfg=smpi/async-small-thresh:12288") > \
            c.index("--cfg=smpi/async-small-thresh:65536")
        assert "--cfg=smpi/barrier:ompi_recursivedoubling" in c
        # a tested receive injects 1 ns, given after the base 10 ns, and only
        # in runs that test (pacoll's and the peers' of such a sweep alike)
        assert not any(x.startswith("--cfg=smpi/test:1e-9") for x in c)
        c, _ = cmd("pap_aware_4x4", peer, {"PACOLL_SIM_TESTED": "1"})
        assert c.index("--cfg=smpi/test:1e-9") > c.index("--cfg=smpi/test:1e-8")
        # the published model keeps 10 ns
        c, _ = cmd("pap_aware_4x4", peer, {"PACOLL_SIM_TESTED": "1"}, run.load_platforms())
        assert "--cfg=smpi/test:1e-9" not in c and "--cfg=smpi/test:1e-8" in c
    # Jaguar: the fair model's own o (fair_o), not the props' 0.5 us
    for name, o in (("sloavx_jaguar_64x16", "2.5e-07"), ("multicore_onload_64x8", "3e-7")):
        c, env = cmd(name, None)
        xml = c[c.index("-platform") + 1]
        assert os.path.dirname(xml) == str(tmp_path / "platforms")
        assert re.fullmatch(re.escape(name) + r"\.fair-[0-9a-f]{12}\.xml", os.path.basename(xml))
        assert not any(x.startswith("--cfg=smpi/o") for x in c)
        s = f"{1 / platforms[name]['copy_bw']:.6g}"
        text = open(xml).read()
        assert f'<prop id="smpi/ois" value="0:{o}:{s};12287:{o}:0"/>' in text
        assert f'<prop id="smpi/or" value="0:{o}:{s}"/>' in text
        # the rest of the platform is the published one
        pub = open(os.path.join(SIM, "platforms", name + ".xml")).read()
        assert re.sub(r'<prop [^>]*>', '', text) == re.sub(r'<prop [^>]*>', '', pub)
    assert "fair_props" not in platforms["pap_aware_4x4"]
    # published apart from the published model's runs
    out = tmp_path / "run"
    os.makedirs(out / "json")
    (out / "json" / "k.json").write_text('{"results": []}')
    sim = run.SIM
    try:
        run.SIM = str(tmp_path / "sim")
        run.publish("x", str(out), "fair")
    finally:
        run.SIM = sim
    assert os.listdir(tmp_path / "sim") == ["published-fair"]
    assert os.path.exists(tmp_path / "sim" / "published-fair" / "x" / "k.json")
    r = subprocess.run([sys.executable, os.path.join(SIM, "run"), "ci_small", "--model", "fair",
                        "--dry-run", "--only", "direct", "--bench", "/nonexistent/pacoll-bench"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "/results/ci_small-fair/raw/" in r.stdout and "PACOLL_SIM_FAIR=12288" in r.stdout


def test_fair_model_vary_changes_both_sides_and_is_never_published(tmp_path):
    """--vary (a sensitivity run) replaces the copy bandwidth and the
    per-message time o of the fair model for pacoll and the peers alike, in
    the --cfg options and in a props platform's XML, writes to its own
    results folder and refuses the published model and --publish."""
    run = load_sim_run()
    vary = run.parse_vary(["copy_bw=4e8,o=2.5e-7"])
    assert vary == {"copy_bw": 4e8, "o": 2.5e-7}
    platforms = run.fair_platforms(run.load_platforms(), vary)
    assert platforms["multirail_4x4"]["copy_bw"] == 4e8
    assert "--cfg=smpi/or:0:2.5e-07:2.5e-09" in platforms["multirail_4x4"]["cfg"]
    assert platforms["sloavx_jaguar_64x16"]["fair_props"]["smpi/or"] == "0:2.5e-07:2.5e-09"
    # the fair XML's name follows its costs: a cached result of other costs is not reused
    xmls = set()
    for plats in (platforms, run.fair_platforms(run.load_platforms())):
        xmls.add(run.fair_xml(plats["sloavx_jaguar_64x16"], str(tmp_path / "platforms")))
    assert len(xmls) == 2 and all(os.path.exists(x) for x in xmls)
    for peer in (None, "mpich"):
        pt = run.Point(runner="pacoll" if not peer else "peer", algos=["direct"], peer=peer,
                       platform="multirail_4x4", coll="alltoall", ranks=16, skew={}, rpn=None,
                       size="1k", args=[], env={}, iters=1, warmup=0, repeat=1, seed=1,
                       budget="1M", pp_peer=1, timeout=None, sweep="t")
        c, env = run.command(pt, platforms, "/x/pacoll-bench", str(tmp_path / "raw" / "p.json"))
        assert env["PACOLL_SIM_COPY_BW"] == "4e+08"
        assert "--cfg=smpi/os:0:2.5e-07:2.5e-09;12287:2.5e-07:0" in c
    # without --vary nothing moves
    assert run.fair_platforms(run.load_platforms(), {})["multirail_4x4"]["copy_bw"] == 1e9
    for bad in ("x=1", "o", "o=abc", "copy_bw=0", "o=-1"):
        with pytest.raises(run.SimError):
            run.parse_vary([bad])
    base = [sys.executable, os.path.join(SIM, "run"), "ci_small", "--dry-run", "--only", "direct",
            "--bench", "/nonexistent/pacoll-bench"]
    r = subprocess.run(base + ["--model", "fair", "--vary", "o=1e-7"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "/results/ci_small-fair-o1e-7/" in r.stdout
    assert run.vary_slug({"o": 2.5e-7, "copy_bw": 1.6e9}) == "copy_bw1.6e9-o2.5e-7"
    for extra in (["--vary", "o=1e-7"], ["--model", "fair", "--vary", "o=1e-7", "--publish"]):
        r = subprocess.run(base + extra, capture_output=True, text=True)
        assert r.returncode == 2 and "--vary" in r.stderr


def test_compare_models_ratios_and_losses(tmp_path):
    from pacoll_report import models

    def run_file(folder, times):
        os.makedirs(folder, exist_ok=True)
        res = [{"bytes": b, "algos": [{"name": n, "summary": {"avg_us": {"median": v}}}
                                      for n, v in t.items()]} for b, t in times.items()]
        with open(os.path.join(folder, "x_alltoall_16r.json"), "w") as f:
            json.dump({"results": res}, f)
    pub, fair = str(tmp_path / "pub"), str(tmp_path / "fair")
    run_file(pub, {8: {"direct": 10.0, "native:ompi": 9.0, "native:mpich": 12.0,
                       "auto:ompi": 9.0},
                   64: {"direct": 20.0, "bruck": 10.0, "native:ompi": 30.0}})
    run_file(fair, {8: {"direct": 10.0, "native:ompi": 11.0, "native:mpich": 12.0,
                        "auto:ompi": 10.0},
                    64: {"direct": 20.0, "bruck": 10.0, "native:ompi": 30.0}})
    rows, summary = models.compare(models.points(pub), models.points(fair))
    assert rows[0][:2] == ["x_alltoall_16r", "8 B"]
    assert rows[0][2] == "**0.90** (direct / ompi)" and rows[0][3] == "1.10 (direct / ompi)"
    assert rows[1][2] == rows[1][3] == "3.00 (bruck / ompi)"
    by = {r[0]: r[1:] for r in summary}
    assert by["points below 0.97x (of 2)"] == ["1", "0"]
    assert by["worst point"] == ["0.90x", "1.10x"]
    assert by["native:ompi / auto:ompi, geometric mean (worst)"] == ["1.00x (1.00x)",
                                                                      "1.10x (1.10x)"]


def test_compare_models_base_model_reads_the_fair_files(tmp_path, capsys):
    """--base-model fair compares a sensitivity run (--other) with
    sim/published-fair/EXP, not with the published model, and says so in
    its headers."""
    from pacoll_report import models

    def run_file(folder, direct):
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "x_alltoall_16r.json"), "w") as f:
            json.dump({"results": [{"bytes": 8, "algos": [
                {"name": "direct", "summary": {"avg_us": {"median": direct}}},
                {"name": "native:ompi", "summary": {"avg_us": {"median": 10.0}}}]}]}, f)
    run_file(tmp_path / "sim" / "published" / "e", 20.0)
    run_file(tmp_path / "sim" / "published-fair" / "e", 8.0)
    run_file(tmp_path / "vary", 5.0)
    assert models.main(["e", "--root", str(tmp_path), "--base-model", "fair", "--model", "v",
                        "--other", str(tmp_path / "vary")]) == 0
    out = capsys.readouterr().out
    assert "|  | fair | v |" in out
    assert "| worst point | 1.25x | 2.00x |" in out
    assert "fair: best peer / best pacoll" in out and "| v / fair |" in out


def test_models_section_sets_fair_losses_against_their_bounds(tmp_path):
    """docs/RESULTS.md's fair-model section: an experiment published under
    sim/published-fair/ gets both models' summary, and every fair point below
    0.97x is listed with its best peer's bound / time from bounds.py."""
    from pacoll_report import models
    root = tmp_path
    name = "multirail_4x4_alltoall_16r_noskew.json"
    src = os.path.join(SIM, "published", "multirail", name)
    for d in ("published", "published-fair"):
        os.makedirs(root / "sim" / d / "multirail")
    shutil.copy(src, root / "sim" / "published" / "multirail" / name)
    shutil.copytree(os.path.join(SIM, "platforms"), root / "sim" / "platforms")
    claim = {"paper": "p", "figure": "f", "claim": "c", "experiment": "multirail",
             "algorithm": "direct", "size": 4096, "ranks": 16}
    (root / "sim" / "claims.json").write_text(json.dumps({"claims": [
        dict(claim, key=name[:-5]), dict(claim, key="multirail_4x4_gather_16r_noskew")]}))
    run = json.load(open(src))
    # the fair copy: every pacoll algorithm 3x slower at 4 KB, unchanged elsewhere
    for res in run["results"]:
        for a in res["algos"]:
            if res["bytes"] == 4096 and not a["name"].startswith(("native:", "auto:")):
                a["summary"]["avg_us"]["median"] *= 3
    with open(root / "sim" / "published-fair" / "multirail" / name, "w") as f:
        json.dump(run, f)
    text = models.section(str(root))
    pub = models.points(os.path.join(SIM, "published", "multirail"))
    before = sum(1 for k, t in pub.items() if k[0] == name[:-5] and models.ratio(t)[0] < 0.97)
    losses = [ln for ln in text.splitlines() if ln.startswith("| multirail_4x4_alltoall_16r")]
    assert "4 KB" in "".join(losses)
    peer = {p.size: p for p in bounds.published_points(os.path.join(root, "sim", "published"),
                                                       os.path.join(root, "sim", "platforms"))}
    row = [ln for ln in losses if "| 4 KB |" in ln][0]
    assert f"| {peer[4096].fraction('peer'):.3f} |" in row
    assert ("yes" in row) == peer[4096].near("peer")
    after = before + (models.ratio(pub[(name[:-5], 4096)])[0] >= 0.97)
    assert f"below 0.97x: {before} published, {after} fair" in text
    assert len(losses) == after
    # the claims in both models: the fair run's own times, or said missing
    claims = [ln for ln in text.splitlines() if ln.startswith("| f | c |")]
    slow = units.fmt_us(pub[(name[:-5], 4096)]["direct"] * 3, short=True)
    assert f"({slow} (direct) / " in claims[0].split("|")[5]
    assert claims[1].split("|")[5].strip() == "not run under this model"


def test_fair_xml_written_by_several_points_at_once(tmp_path):
    """sim/run -j N: points of one props platform write its fair XML at the
    same moment; each finds it whole (a shared temporary name lost the race)."""
    import threading
    run = load_sim_run()
    p = run.fair_platforms(run.load_platforms())["multicore_onload_64x8"]
    paths, errors = [], []

    def write():
        try:
            paths.append(run.fair_xml(p, str(tmp_path)))
        except OSError as e:
            errors.append(e)
    threads = [threading.Thread(target=write) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(set(paths)) == 1
    assert os.listdir(tmp_path) == [os.path.basename(paths[0])]


def test_models_charges_read_from_the_runs_commands(tmp_path):
    """The fair section says per experiment whether its runs carry the
    symmetric per-message charges, from the commands each run recorded."""
    from pacoll_report import models
    sym = "PACOLL_SIM_CMA_CALL=1.1e-06 PACOLL_SIM_FAIR=12288 smpirun"
    old = "PACOLL_SIM_FAIR=12288 smpirun"
    for name, cmds in (("all", [sym, sym]), ("none", [old]), ("some", [sym, old, old])):
        os.makedirs(tmp_path / name)
        with open(tmp_path / name / "r.json", "w") as f:
            json.dump({"sim": {"commands": cmds}}, f)
    assert models.charges(str(tmp_path / "all")) == "the symmetric per-message charges"
    assert models.charges(str(tmp_path / "none")).startswith("the earlier charges")
    assert models.charges(str(tmp_path / "some")) == \
        "1 of 3 with the symmetric per-message charges, the rest earlier"


def test_compare_models_times_gather_by_its_completion(tmp_path):
    """A gather's peer returns from its non-roots at once, so its mean over
    ranks hides the root: the models compare gather on its completion (last
    arrival to last exit) and every other collective on the mean."""
    from pacoll_report import models

    def algo(name, avg, done):
        return {"name": name, "summary": {"avg_us": {"median": avg},
                                          "last_arrival_to_last_exit_us": {"median": done}}}
    for coll in ("gather", "alltoall"):
        d = tmp_path / coll
        os.makedirs(d)
        with open(d / "x.json", "w") as f:
            json.dump({"collective": coll, "results": [{"bytes": 8, "algos": [
                algo("direct", 10.0, 20.0), algo("native:mvapich2", 1.0, 40.0)]}]}, f)
    assert models.ratio(models.points(str(tmp_path / "gather"))[("x", 8)])[0] == 2.0
    assert models.ratio(models.points(str(tmp_path / "alltoall"))[("x", 8)])[0] == 0.1


def test_learning_rows_are_never_pacolls_forced_algorithm():
    # sim/run's auto-learn:PEER rows are pacoll's choice, as auto:PEER are:
    # never the "best pacoll algorithm" of a point, nor a fallback
    from pacoll_report import bounds, models
    from pacoll_report.load import Stat
    t = {"native:ompi": 10.0, "direct": 8.0, "auto:ompi": 7.0, "auto-learn:ompi": 5.0}
    assert models.best(t, False) == (8.0, "direct")
    assert bounds.is_pacoll("direct") and not bounds.is_pacoll("auto-learn:ompi")
    s = Stat.__new__(Stat)
    s.name, s.ran = "auto-learn:ompi", "native"
    assert s.auto and not s.fallback
