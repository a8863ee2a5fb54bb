import json
import os
import struct
import subprocess
import sys

import pytest

from conftest import PYDIR, parse_tables
from pacoll_report import cli
from pacoll_report.load import ReportError, load_file, parse_size
from pacoll_report.units import size_label

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def run_cli(args, capsys):
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def expected(js, metric="avg_us"):
    """size -> algorithm -> median of the metric, straight from the JSON."""
    return {r["bytes"]: {a["name"]: a["summary"][metric]["median"] for a in r["algos"]}
            for r in js["results"]}


def close(cell, value):
    """cell (a printed number) equals value to the digits printed."""
    cell = cell.rstrip("*! ").strip()
    decimals = len(cell.split(".")[1]) if "." in cell else 0
    return abs(float(cell) - value) <= 0.5 * 10 ** -decimals + 1e-12


def the_table(md):
    tables = parse_tables(md)
    assert len(tables) == 1, list(tables)
    return next(iter(tables.values()))


def check_png(path, min_bytes=10000):
    assert os.path.isfile(path), path
    with open(path, "rb") as f:
        blob = f.read()
    assert blob[:8] == PNG_MAGIC, path
    assert len(blob) > min_bytes, (path, len(blob))
    assert blob[12:16] == b"IHDR"
    w, h = struct.unpack(">II", blob[16:24])
    assert w >= 600 and h >= 400, (w, h)


# ---------------------------------------------------------------- tables

def test_table_matches_json_real2(tmp_path, capsys, data, load_json):
    js = load_json("real2_alltoall.json")
    code, out, err = run_cli([data("real2_alltoall.json"), "--out", tmp_path, "--no-plots"], capsys)
    assert code == 0, err
    md = (tmp_path / "report.md").read_text()
    assert out == md                       # printed on stdout too
    head, rows = the_table(md)
    assert head == ["bytes per peer", "native avg (us)", "direct avg (us)", "direct speedup"]
    exp = expected(js)
    assert [int(r[0]) for r in rows] == sorted(exp)          # one row per size, in order
    for r in rows:
        e = exp[int(r[0])]
        assert close(r[1], e["native"]) and close(r[2], e["direct"]), r
        assert close(r[3], e["native"] / e["direct"]), r
    # the benchmark computed the same speedup (its baseline is native too)
    for res in js["results"]:
        d = [a for a in res["algos"] if a["name"] == "direct"][0]
        row = [r for r in rows if int(r[0]) == res["bytes"]][0]
        assert close(row[3], d["speedup"])


def test_header_names_what_was_measured(tmp_path, capsys, data, load_json):
    code, out, _ = run_cli([data("smpi16_allgather_mif32.json"), "--out", tmp_path, "--no-plots",
                            "--title", "Sixteen"], capsys)
    assert code == 0
    assert out.startswith("# Sixteen\n")
    assert "## allgather, 16 ranks on 4 nodes" in out
    assert "- collective: `allgather`" in out
    assert "- ranks: 16 on 4 nodes" in out
    assert "- MPI library: SMPI Version 3.32" in out
    assert "- platform/host: smpi" in out
    assert "MIF 32" in out and "- skew: random" in out
    assert "- command:" not in out                      # the file has none
    head, rows = the_table(out)
    assert len(rows) == 9


def test_command_line_shown_when_present(tmp_path, capsys, load_json):
    js = load_json("real2_alltoall.json")
    js["argv"] = ["pacoll-bench", "alltoall", "--algos", "native,direct", "--sizes", "8:1024"]
    p = tmp_path / "with_argv.json"
    p.write_text(json.dumps(js))
    code, out, _ = run_cli([p, "--out", tmp_path / "o", "--no-plots"], capsys)
    assert code == 0
    assert "- command: `pacoll-bench alltoall --algos native,direct --sizes 8:1024`" in out


def test_late_skew_label(tmp_path, capsys, data):
    code, out, _ = run_cli([data("smpi8_alltoall_late25.json"), "--out", tmp_path, "--no-plots"], capsys)
    assert code == 0
    assert "MIF 128, 25% late" in out
    assert "late fraction 0.25" in out


# ---------------------------------------------------------------- baselines

def test_default_baseline_is_native_even_if_file_says_otherwise(tmp_path, capsys, data, load_json):
    js = load_json("smpi8_alltoall_late25.json")
    assert js["settings"]["baseline"] == "direct"       # the run's own baseline
    code, out, _ = run_cli([data("smpi8_alltoall_late25.json"), "--out", tmp_path, "--no-plots"], capsys)
    assert code == 0
    head, rows = the_table(out)
    assert head == ["bytes per peer", "native avg (us)", "direct avg (us)", "direct speedup"]
    exp = expected(js)
    for r in rows:
        e = exp[int(r[0])]
        assert close(r[3], e["native"] / e["direct"])
    assert any(float(r[3]) < 1 for r in rows)             # direct is slower here


def test_baseline_option(tmp_path, capsys, data, load_json):
    js = load_json("real2_alltoall.json")
    code, out, _ = run_cli([data("real2_alltoall.json"), "--out", tmp_path, "--no-plots",
                            "--baseline", "direct"], capsys)
    assert code == 0
    head, rows = the_table(out)
    assert head == ["bytes per peer", "direct avg (us)", "native avg (us)", "native speedup"]
    exp = expected(js)
    for r in rows:
        e = exp[int(r[0])]
        assert close(r[3], e["direct"] / e["native"])
        assert close(r[1], e["direct"])


def test_baseline_defaults_to_first_without_native(tmp_path, capsys, load_json):
    js = load_json("real2_alltoall.json")
    js["settings"]["algorithms"] = ["vendor", "direct"]
    for r in js["results"]:
        for a in r["algos"]:
            if a["name"] == "native":
                a["name"] = a["ran"] = "vendor"
    p = tmp_path / "vendor.json"
    p.write_text(json.dumps(js))
    code, out, _ = run_cli([p, "--out", tmp_path / "o", "--no-plots"], capsys)
    assert code == 0
    head, _ = the_table(out)
    assert head[1:] == ["vendor avg (us)", "direct avg (us)", "direct speedup"]
    assert "- baseline: `vendor`" in out


def test_unknown_baseline_exits_2(tmp_path, capsys, data):
    code, _, err = run_cli([data("real2_alltoall.json"), "--out", tmp_path, "--baseline", "bruck"], capsys)
    assert code == 2
    assert "--baseline bruck" in err and "direct" in err and "native" in err


# ---------------------------------------------------------------- merging

def _split(js, keep_sizes=None, keep_algos=None):
    js = json.loads(json.dumps(js))
    if keep_sizes is not None:
        js["results"] = [r for r in js["results"] if r["bytes"] in keep_sizes]
    if keep_algos is not None:
        js["settings"]["algorithms"] = [a for a in js["settings"]["algorithms"] if a in keep_algos]
        for r in js["results"]:
            r["algos"] = [a for a in r["algos"] if a["name"] in keep_algos]
    return js


def test_merge_files_with_different_sizes_and_algorithms(tmp_path, capsys, load_json):
    js = load_json("real2_alltoall.json")
    sizes = [r["bytes"] for r in js["results"]]
    a = tmp_path / "small.json"
    b = tmp_path / "large_native.json"
    c = tmp_path / "large_direct.json"
    a.write_text(json.dumps(_split(js, keep_sizes=sizes[:4])))
    b.write_text(json.dumps(_split(js, keep_sizes=sizes[4:], keep_algos=["native"])))
    c.write_text(json.dumps(_split(js, keep_sizes=sizes[4:], keep_algos=["direct"])))
    code, out, err = run_cli([a, c, b, "--out", tmp_path / "o", "--no-plots"], capsys)
    assert code == 0, err
    head, rows = the_table(out)                           # one group
    assert head[1:3] == ["native avg (us)", "direct avg (us)"]
    exp = expected(js)
    assert [int(r[0]) for r in rows] == sizes
    for r in rows:
        e = exp[int(r[0])]
        assert close(r[1], e["native"]) and close(r[2], e["direct"])
        assert close(r[3], e["native"] / e["direct"])
    assert "`small.json`, `large_direct.json`, `large_native.json`" in out


def test_groups_by_ranks_collective_and_skew(tmp_path, capsys, data):
    files = [data(f) for f in ("smpi16_allgather_mif32.json", "real2_alltoall.json",
                               "smpi4_allgather_mif32.json", "smpi8_allgather_mif32.json",
                               "smpi8_alltoall_late25.json")]
    code, out, _ = run_cli(files + ["--out", tmp_path, "--no-plots"], capsys)
    assert code == 0
    tables = parse_tables(out)
    heads = list(tables)
    assert len(heads) == 5
    # a family sorted by rank count
    ag = [h for h in heads if h.startswith("allgather")]
    assert [h.split(", ")[1].split()[0] for h in ag] == ["4", "8", "16"]


# ---------------------------------------------------------------- plots

def test_plots_one_group(tmp_path, capsys, data):
    code, _, err = run_cli([data("real2_alltoall.json"), "--out", tmp_path, "--quiet"], capsys)
    assert code == 0, err
    pngs = sorted(p.name for p in tmp_path.glob("*.png"))
    assert pngs == ["latency_alltoall_openmpi_vm_2ranks_no-skew.png",
                    "speedup_alltoall_openmpi_vm_2ranks_no-skew.png"]
    for p in pngs:
        check_png(tmp_path / p)
    md = (tmp_path / "report.md").read_text()
    for p in pngs:
        assert f"]({p})" in md                            # linked from the report


def test_scaling_plot_across_rank_counts(tmp_path, capsys, data):
    files = [data(f"smpi{n}_allgather_mif32.json") for n in (4, 8, 16)]
    code, _, err = run_cli(files + ["--out", tmp_path, "--quiet", "--size", "64"], capsys)
    assert code == 0, err
    names = {p.name for p in tmp_path.glob("*.png")}
    assert "scaling_allgather_smpi_mif-32_64B.png" in names
    assert not any(n.startswith("scaling_") and n != "scaling_allgather_smpi_mif-32_64B.png"
                   for n in names)
    assert len([n for n in names if n.startswith("latency_")]) == 3
    assert len([n for n in names if n.startswith("speedup_")]) == 3
    for n in names:
        check_png(tmp_path / n)
    md = (tmp_path / "report.md").read_text()
    assert "## allgather vs process count (4, 8, 16 ranks)" in md


def test_no_scaling_plot_for_single_rank_count(tmp_path, capsys, data):
    code, _, _ = run_cli([data("smpi8_allgather_mif32.json"), data("smpi8_alltoall_late25.json"),
                          "--out", tmp_path, "--quiet"], capsys)
    assert code == 0
    assert not list(tmp_path.glob("scaling_*"))


# ---------------------------------------------------------------- bad and odd input

@pytest.mark.parametrize("content,msg", [
    ("this is not json\n", "not pacoll-bench JSON"),
    ("[1, 2, 3]", "not pacoll-bench JSON"),
    ('{"schema": "osu/1", "results": []}', "not pacoll-bench JSON"),
    ('{"collective": "alltoall", "ranks": 2, "results": []}', "not pacoll-bench JSON"),
    ('{"schema": "pacoll-bench/1", "collective": "alltoall", "ranks": 2}', "\"results\""),
    ('{"schema": "pacoll-bench/1", "collective": "alltoall", "ranks": 2, "results": []}',
     "no results"),
])
def test_bad_input_exits_2(tmp_path, capsys, data, content, msg):
    p = tmp_path / "bad.json"
    p.write_text(content)
    code, out, err = run_cli([data("real2_alltoall.json"), p, "--out", tmp_path / "o"], capsys)
    assert code == 2
    assert "bad.json" in err and msg in err, err
    assert not (tmp_path / "o").exists()                  # nothing written


def test_missing_file_exits_2(tmp_path, capsys):
    code, _, err = run_cli([tmp_path / "nope.json", "--out", tmp_path / "o"], capsys)
    assert code == 2 and "nope.json" in err and "cannot read" in err


def test_bad_input_as_a_program(tmp_path, data):
    """The real exit status and message of `python3 -m pacoll_report`."""
    p = tmp_path / "notes.json"
    p.write_text("hello")
    env = dict(os.environ, PYTHONPATH=PYDIR)
    r = subprocess.run([sys.executable, "-m", "pacoll_report", str(p), "--out", str(tmp_path / "o")],
                       capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert r.returncode == 2
    assert "pacoll-report: error:" in r.stderr and "notes.json" in r.stderr
    assert "not pacoll-bench JSON" in r.stderr


def test_uninstalled_module_runs(tmp_path, data, load_json):
    env = dict(os.environ, PYTHONPATH=PYDIR)
    r = subprocess.run([sys.executable, "-m", "pacoll_report", data("smpi8_alltoall_late25.json"),
                        "--out", str(tmp_path / "o"), "--no-plots"],
                       capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    head, rows = the_table(r.stdout)
    assert len(rows) == len(load_json("smpi8_alltoall_late25.json")["results"])


def test_missing_optional_fields(tmp_path, capsys, load_json):
    js = load_json("real2_alltoall.json")
    for k in ("mpi", "host", "nodes", "clock", "settings", "algorithms", "pacoll_version",
              "check_errors", "wall_seconds"):
        js.pop(k)
    for r in js["results"]:
        for a in r["algos"]:
            del a["summary"], a["ran"], a["speedup"]      # only the repeats remain
    p = tmp_path / "bare.json"
    p.write_text(json.dumps(js))
    code, out, err = run_cli([p, "--out", tmp_path / "o", "--quiet"], capsys)
    assert code == 0, err
    md = (tmp_path / "o" / "report.md").read_text()
    head, rows = the_table(md)
    exp = expected(load_json("real2_alltoall.json"))      # median of 2 repeats = summary median
    for r in rows:
        assert close(r[1], exp[int(r[0])]["native"]) and close(r[2], exp[int(r[0])]["direct"])
    assert len(list((tmp_path / "o").glob("*.png"))) == 2


def test_null_values_are_skipped(tmp_path, capsys, load_json):
    js = load_json("real2_alltoall.json")
    a = js["results"][0]["algos"][1]
    a["summary"]["avg_us"] = {"median": None, "min": None, "max": None}
    for rep in a["repeats"]:
        rep["avg_us"] = None
    p = tmp_path / "nulls.json"
    p.write_text(json.dumps(js))
    code, out, _ = run_cli([p, "--out", tmp_path / "o", "--no-plots"], capsys)
    assert code == 0
    _, rows = the_table(out)
    assert rows[0][2] == "-" and rows[0][3] == "-"


def test_unterminated_file_of_an_aborted_run(tmp_path, capsys, data, load_json):
    text = open(data("real2_alltoall.json")).read()
    js = load_json("real2_alltoall.json")
    # cut inside the 4th result
    starts = [i for i in range(len(text)) if text.startswith('"bytes"', i)]
    p = tmp_path / "cut.json"
    p.write_text(text[:starts[3] + 40])
    code, out, err = run_cli([p, "--out", tmp_path / "o", "--no-plots"], capsys)
    assert code == 0, err
    assert "unterminated" in err and "3 complete" in err
    _, rows = the_table(out)
    assert [int(r[0]) for r in rows] == [r["bytes"] for r in js["results"][:3]]
    # cut before any result: an error
    p.write_text(text[:starts[0] - 5])
    code, _, err = run_cli([p, "--out", tmp_path / "o2", "--no-plots"], capsys)
    assert code == 2 and "cut off" in err


def test_metric_option(tmp_path, capsys, data, load_json):
    js = load_json("smpi8_alltoall_late25.json")
    code, out, _ = run_cli([data("smpi8_alltoall_late25.json"), "--out", tmp_path, "--no-plots",
                            "--metric", "l2e"], capsys)
    assert code == 0
    head, rows = the_table(out)
    assert head[1] == "native L->exit (us)"
    exp = expected(js, "last_arrival_to_last_exit_us")
    for r in rows:
        assert close(r[1], exp[int(r[0])]["native"])


def test_parse_size():
    assert parse_size("64") == 64 and parse_size("1k") == 1024 and parse_size("1MB") == 1 << 20
    with pytest.raises(ReportError):
        parse_size("big")


def test_load_file_api(data):
    run = load_file(data("smpi16_allgather_mif32.json"))
    assert run.collective == "allgather" and run.ranks == 16 and run.nodes == 4
    assert run.algorithms == ["native", "direct"]
    assert sorted(run.data) == [1, 2, 4, 8, 16, 32, 64, 128, 256]


def test_fallback_and_check_errors_are_marked(tmp_path, capsys, load_json):
    js = load_json("real2_alltoall.json")
    js["results"][1]["algos"][1]["ran"] = "native"       # pacoll handed direct to native
    js["results"][2]["algos"][1]["check_errors"] = 5
    js["check_errors"] = 5
    p = tmp_path / "marks.json"
    p.write_text(json.dumps(js))
    code, out, _ = run_cli([p, "--out", tmp_path / "o", "--no-plots"], capsys)
    assert code == 0
    _, rows = the_table(out)
    assert rows[1][2].endswith("*") and not rows[0][2].endswith("*")
    assert rows[2][2].endswith("!")
    assert "direct -> native" in out and "--check found 5 wrong bytes" in out
    exp = expected(js)
    assert close(rows[1][2], exp[int(rows[1][0])]["direct"])


def test_late_ranks_label(tmp_path, capsys, load_json):
    js = load_json("smpi8_alltoall_late25.json")
    js["settings"].update(skew="late_ranks", late_fraction=None, late_ranks=[0, 3, 4, 5])
    p = tmp_path / "lr.json"
    p.write_text(json.dumps(js))
    code, out, _ = run_cli([p, "--out", tmp_path / "o", "--no-plots"], capsys)
    assert code == 0
    assert "MIF 128, ranks 0,3-5 late" in out


def test_auto_rows_say_what_auto_ran_and_are_not_fallbacks(tmp_path, capsys, load_json):
    """An auto row's 'ran' is auto's choice ('auto', or 'auto:ompi' from
    sim/run), listed under the table, never a '*' fallback."""
    js = load_json("real2_alltoall.json")
    sizes = [r["bytes"] for r in js["results"]]
    for i, r in enumerate(js["results"]):
        for name in ("auto", "auto:ompi"):
            a = json.loads(json.dumps(r["algos"][1]))
            a["name"], a["ran"] = name, "native" if i < 2 else "direct"
            r["algos"].append(a)
    js["settings"]["algorithms"] += ["auto", "auto:ompi"]
    p = tmp_path / "auto.json"
    p.write_text(json.dumps(js))
    code, out, _ = run_cli([p, "--out", tmp_path / "o", "--no-plots"], capsys)
    assert code == 0
    head, rows = the_table(out)
    for col in ("auto avg (us)", "auto:ompi avg (us)"):
        assert not any(r[head.index(col)].endswith("*") for r in rows)
    assert "could not run" not in out
    lab = size_label
    assert (f"What auto ran: `auto`, `auto:ompi`: native at {lab(sizes[0])}-{lab(sizes[1])}, "
            f"direct at {lab(sizes[2])}-{lab(sizes[-1])}.") in out
