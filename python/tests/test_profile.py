"""pacoll_report.profile: Table 1 from the arrival profiler's JSON."""
import json

import pytest

from conftest import PYDIR  # noqa: F401  (puts the package on sys.path)
from pacoll_report import profile

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def rows(out):
    """The table rows: lines starting with a collective's name."""
    colls = {"barrier", "bcast", "reduce", "allreduce", "gather", "gatherv", "scatter",
             "scatterv", "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw",
             "reduce_scatter", "reduce_scatter_block", "scan", "exscan"}
    return [l.split() for l in out.splitlines() if l.split() and l.split()[0] in colls]


def test_table_has_every_site_with_its_numbers(data, capsys):
    path = data("profile_c_np4.json")
    assert profile.main([path]) == 0
    out = capsys.readouterr().out
    prof = json.load(open(path))
    got = rows(out)
    assert len(got) == len(prof["sites"])
    for r, s in zip(got, prof["sites"]):
        assert r[0] == s["collective"]
        assert int(r[1]) == s["calls"]
        assert float(r[2]) == pytest.approx(s["avg_bytes"], abs=0.5)
        assert float(r[4]) == pytest.approx(s["avg_dbar_over_T"], rel=1e-3)
        assert float(r[5]) == pytest.approx(s["avg_theta_over_T"], rel=1e-3)
    assert "precision +-" in out


def test_skewed_site_sorts_first_by_theta(data, capsys):
    assert profile.main([data("profile_c_np4.json"), "--sort", "theta"]) == 0
    got = rows(capsys.readouterr().out)
    thetas = [float(r[5]) for r in got]
    assert thetas == sorted(thetas, reverse=True)
    assert got[0][0] in ("allreduce", "alltoall") and "MPI_COMM_WORLD(4)" in got[0][6]


def test_ranks_lines(data, capsys):
    assert profile.main([data("profile_smpi16_bench.json"), "--ranks"]) == 0
    out = capsys.readouterr().out
    delays = [l for l in out.splitlines() if "mean delay behind the first arrival" in l]
    assert len(delays) == 1 and len(delays[0].split(": ")[-1].split()) == 16


def test_not_a_profile(tmp_path, capsys):
    bad = tmp_path / "bench.json"
    bad.write_text(json.dumps({"results": []}))
    assert profile.main([str(bad)]) == 2
    assert "not a pacoll profile" in capsys.readouterr().err
    assert profile.main([str(tmp_path / "missing.json")]) == 2


def test_lines_without_the_object(data):
    prof = profile.load(data("profile_smpi16_bench.json"))
    for s in prof["sites"]:
        s["caller"]["object"] = "/nonexistent/prog"
    assert profile.resolve_lines(prof["sites"]) == {}


def test_plot(data, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    png = tmp_path / "p.png"
    assert profile.main([data("profile_c_np4.json"), "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == PNG_MAGIC
