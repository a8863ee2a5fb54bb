"""The helpers pacoll-report, docs/RESULTS.md and sim/run share
(pacoll_report.units; load.read_json, load.summary_median): both styles of
the formatters as the documents print them, and sim/run using these very
functions rather than copies."""
import json
import os
import subprocess
import sys

import pytest

from conftest import SIM_RUN, load_sim_run
from pacoll_report import load, results, table, units
from pacoll_report.load import ReportError, read_json, summary_median
from pacoll_report.units import fmt_us, parse_size, size_label


@pytest.mark.parametrize("v, report, short", [
    (None, "-", "-"),
    (0, "0.000", "0"),
    (98765.4, "98765", "98765"),
    (1234.6, "1235", "1235"),
    (123.46, "123.5", "123"),
    (12.346, "12.35", "12.3"),
    (10.0, "10.00", "10"),
    (1.2346, "1.235", "1.23"),
    (0.12346, "0.123", "0.123"),
    (0.012346, "0.0123", "0.0123"),
    (0.00012346, "0.000123", "0.000123"),
    (1e-13, "0.000000000000", "1e-13"),
    (-12.346, "-12.35", "-12.3"),
])
def test_fmt_us_both_styles(v, report, short):
    assert fmt_us(v) == report          # pacoll-report's tables
    assert fmt_us(v, short=True) == short   # docs/RESULTS.md


@pytest.mark.parametrize("n, report, short", [
    (0, "0 B", "0 B"),
    (1, "1 B", "1 B"),
    (1023, "1023 B", "1023 B"),
    (1024, "1 KiB", "1 KB"),
    (1536, "1.5 KiB", "1536 B"),
    (65536, "64 KiB", "64 KB"),
    (1 << 20, "1 MiB", "1 MB"),
    ((1 << 20) + 1024, "1025 KiB", "1025 KB"),
    (3 << 20, "3 MiB", "3 MB"),
    (1 << 30, "1 GiB", "1024 MB"),
])
def test_size_label_both_styles(n, report, short):
    assert size_label(n) == report            # report headings, plot ticks
    assert size_label(n, short=True) == short  # docs/RESULTS.md


@pytest.mark.parametrize("text, n", [
    ("64", 64), (64, 64), ("1k", 1024), ("4K", 4096), ("1M", 1 << 20), ("1MB", 1 << 20),
    ("2g", 2 << 30), ("256B", 256), (" 5 kB ", 5120), ("0", 0),
])
def test_parse_size(text, n):
    assert parse_size(text) == n


@pytest.mark.parametrize("text", ["big", "1.5k", "-1", "", "1 KiB", "1kk", "k"])
def test_parse_size_rejects(text):
    with pytest.raises(ValueError):
        parse_size(text)
    with pytest.raises(ReportError, match=r"^--size .*: expected a byte count such as 64, 1k, 1M$"):
        load.parse_size(text)          # the command line's wording


def test_read_json(tmp_path):
    good = tmp_path / "a.json"
    good.write_text('{"x": [1, 2]}')
    assert read_json(str(good), "claims") == {"x": [1, 2]}
    bad = tmp_path / "b.json"
    bad.write_text('{"x": ')
    with pytest.raises(ReportError, match=r"^claims .*b\.json: not valid JSON: "):
        read_json(str(bad), "claims")

    class Mine(Exception):
        pass
    with pytest.raises(Mine, match=r"^summary .*none\.json: No such file or directory$"):
        read_json(str(tmp_path / "none.json"), "summary", Mine)


def test_summary_median():
    a = {"name": "direct", "summary": {"avg_us": {"median": 3.5, "min": 3.0},
                                       "max_us": None}}
    assert summary_median(a) == 3.5
    assert summary_median(a, "avg_us") == 3.5
    assert summary_median(a, "max_us") is None
    assert summary_median(a, "min_us") is None
    assert summary_median({"name": "x"}) is None
    assert summary_median({"name": "x", "summary": None}) is None


def test_one_copy_of_each():
    """The report, the RESULTS generator and sim/run call the same functions."""
    assert table.fmt_us is units.fmt_us and table.size_label is units.size_label
    assert results.fmt_us is units.fmt_us and results.size_label is units.size_label
    assert results.read_json is load.read_json
    assert not hasattr(results, "size_text") and not hasattr(results, "_load")
    run = load_sim_run()
    assert run.parse_size is units.parse_size
    assert run.read_json is load.read_json and run.summary_median is load.summary_median
    assert not hasattr(run, "load_json")
    assert run.size_bytes("1k:4k") == [1024, 2048, 4096]
    with pytest.raises(run.SimError, match=r"^size 'big': expected e\.g\. 64, 4k, 1M or MIN:MAX$"):
        run.size_bytes("big")
    with pytest.raises(run.SimError, match=r"^experiment .*nosuch\.json: No such file"):
        run.load_experiment("nosuch")


def test_sim_run_finds_the_package_from_anywhere(tmp_path):
    """sim/run imports pacoll_report from its own tree: no PYTHONPATH, run
    from another directory."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([sys.executable, SIM_RUN, "--list"], capture_output=True, text=True,
                       cwd=str(tmp_path), env=env)
    assert r.returncode == 0, r.stderr
    assert "ci_small" in r.stdout and "points" in r.stdout
    (tmp_path / "bad.json").write_text(json.dumps({"sweeps": "x"}))
    r = subprocess.run([sys.executable, SIM_RUN, str(tmp_path / "bad.json"), "--dry-run"],
                       capture_output=True, text=True, cwd=str(tmp_path), env=env)
    assert r.returncode == 2 and "needs a non-empty \"sweeps\" list" in r.stderr


def test_sim_run_results_lock(tmp_path):
    """Two runs cannot write one results directory at once (they would share
    json/ and a point's raw file); the lock goes with its holder."""
    run = load_sim_run()
    held = run.lock_results(str(tmp_path))
    with pytest.raises(run.SimError, match=r"is in use by sim/run pid \d+: wait for that run"):
        run.lock_results(str(tmp_path))
    held.close()
    run.lock_results(str(tmp_path)).close()
