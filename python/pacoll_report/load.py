"""Reading pacoll-bench JSON files (schema "pacoll-bench/1", docs/BENCH.md)
and merging them into groups: one group per (collective, platform, ranks,
skew setting)."""

from __future__ import annotations

import json
import os
import re
import shlex
import statistics
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from . import units

SCHEMA_PREFIX = "pacoll-bench/"
SCHEMA_KNOWN = "pacoll-bench/1"

# --metric name -> (JSON key, axis label, short label for table headers)
METRICS = {
    "avg": ("avg_us", "time in the call, average over ranks (µs)", "avg"),
    "min": ("min_us", "time in the call, fastest rank (µs)", "min"),
    "max": ("max_us", "time in the call, slowest rank (µs)", "max"),
    "l2e": ("last_arrival_to_last_exit_us", "last arrival to last exit (µs)", "L->exit"),
    "f2e": ("first_arrival_to_last_exit_us", "first arrival to last exit (µs)", "F->exit"),
}


class ReportError(Exception):
    """Bad input: the command line exits with status 2 and this message."""


def warn(msg: str) -> None:
    print(f"pacoll-report: warning: {msg}", file=sys.stderr)


def read_json(path: str, what: str, error: type = ReportError):
    """A whole JSON file (a sim/ manifest, experiment, claims, summary or a
    published run), as json.load gives it; error("WHAT PATH: why") when it
    cannot be read or is not JSON."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise error(f"{what} {path}: {e.strerror or e}") from None
    except json.JSONDecodeError as e:
        raise error(f"{what} {path}: not valid JSON: {e}") from None


def published_runs(pub_root: str, error: type = ReportError):
    """(experiment, file name, run) for every published run file,
    PUB_ROOT/EXPERIMENT/*.json but summary.json, in sorted order (sim/published:
    what docs/RESULTS.md and the lower bounds are made from)."""
    if not os.path.isdir(pub_root):
        return
    for exp in sorted(os.listdir(pub_root)):
        d = os.path.join(pub_root, exp)
        if not os.path.isdir(d):
            continue
        for fn in sorted(os.listdir(d)):
            if fn.endswith(".json") and fn != "summary.json":
                yield exp, fn, read_json(os.path.join(d, fn), "published run", error)


def summary_median(algo: dict, key: str = "avg_us"):
    """The median of KEY in one algorithm entry of a pacoll-bench result
    ({"name": ..., "summary": {KEY: {"median": ...}}}) as the file has it,
    None where it is missing. load_file's Stat reads more (the repeats);
    this is the raw value that sim/run and docs/RESULTS.md use."""
    return ((algo.get("summary") or {}).get(key) or {}).get("median")


@dataclass
class Stat:
    """One (size, algorithm) point: the metric over the repeats."""
    median: float
    lo: float
    hi: float
    repeats: int
    ran: Optional[str] = None
    check_errors: int = 0
    source: str = ""          # file it came from
    name: str = ""            # algorithm asked for

    @property
    def auto(self) -> bool:
        """pacoll's own choice ('auto', or 'auto:PEER' and 'auto-learn:PEER'
        from sim/run): 'ran' names what it chose, not a fallback, and it is
        never one of pacoll's forced algorithms."""
        return self.name == "auto" or self.name.startswith(("auto:", "auto-learn:"))

    @property
    def fallback(self) -> bool:
        """pacoll handed the forced algorithm to another one ('ran' differs)."""
        return bool(self.ran) and self.ran != self.name and not self.auto


@dataclass
class Run:
    """One pacoll-bench JSON file."""
    path: str
    collective: str
    ranks: int
    nodes: Optional[int]
    host: str
    mpi_engine: str
    mpi_library: str          # first line of MPI_Get_library_version
    clock: Optional[str]
    settings: dict
    setting: str              # human label of the skew setting (+ non-default data options)
    command: Optional[str]
    pacoll_version: Optional[str]
    algorithms: List[str]     # in the file's order
    data: Dict[int, Dict[str, Stat]]
    check_errors: int = 0

    @property
    def platform_key(self) -> Tuple[str, str, str]:
        return (self.mpi_engine, self.host, self.mpi_library)

    @property
    def platform(self) -> str:
        return platform_label(self.mpi_engine, self.host, self.mpi_library)

    @property
    def name(self) -> str:
        return os.path.basename(self.path)


def short_library(lib: str) -> str:
    """'Open MPI v4.1.4, package: ...' -> 'Open MPI v4.1.4';
    'SMPI Version 3.32. Copyright ...' -> 'SMPI Version 3.32'."""
    lib = (lib or "").strip().splitlines()[0] if (lib or "").strip() else ""
    lib = re.split(r",\s|\.\s", lib, maxsplit=1)[0]
    return re.sub(r"\s+", " ", lib).strip()


def platform_label(engine: str, host: str, library: str) -> str:
    lib = short_library(library) or engine or "unknown MPI"
    if engine == "smpi" or host == "smpi":
        # sim/run names the simulated platform in "host"
        if host and host not in ("smpi", "?"):
            return f"{lib} (simulated {host})"
        return f"{lib} (simulated)"
    if host and host != "?":
        return f"{lib} on {host}"
    return lib


def _num(x) -> Optional[float]:
    if isinstance(x, bool) or x is None:
        return None
    if isinstance(x, (int, float)):
        return float(x)
    return None


def _fmt_g(x) -> str:
    return f"{x:g}" if isinstance(x, (int, float)) else str(x)


def _compact_ranks(ranks) -> str:
    try:
        rs = sorted(int(r) for r in ranks)
    except (TypeError, ValueError):
        return str(ranks)
    out, i = [], 0
    while i < len(rs):
        j = i
        while j + 1 < len(rs) and rs[j + 1] == rs[j] + 1:
            j += 1
        out.append(str(rs[i]) if i == j else f"{rs[i]}-{rs[j]}")
        i = j + 1
    return ",".join(out)


def setting_label(collective: str, s: dict) -> str:
    """'no skew', 'MIF 32', 'MIF 128, 25% late', 'MIF 128, ranks 3 late',
    plus the options that change what is measured (vdist, root, no-reuse, check)."""
    if not s:
        return "skew not recorded"
    skew = s.get("skew")
    mif = s.get("mif")
    if skew in (None, "none") and not mif:
        label = "no skew" if skew == "none" else "skew not recorded"
    elif skew == "random" or (skew is None and mif):
        label = f"MIF {_fmt_g(mif)}"
    elif skew == "late_fraction":
        lf = s.get("late_fraction")
        frac = f"{lf * 100:g}%" if isinstance(lf, (int, float)) else "some"
        label = f"MIF {_fmt_g(mif)}, {frac} late"
    elif skew == "late_ranks":
        label = f"MIF {_fmt_g(mif)}, ranks {_compact_ranks(s.get('late_ranks') or [])} late"
    else:
        label = f"skew {skew}" + (f", MIF {_fmt_g(mif)}" if mif else "")
    return ", ".join([label] + setting_options(collective, s))


def setting_options(collective: str, s: dict) -> List[str]:
    """The pacoll-bench options besides the skew that change what is measured."""
    extras = []
    if s.get("vdist") not in (None, "uniform"):
        extras.append(f"vdist {s['vdist']}")
    if collective == "gather" and s.get("root") not in (None, 0):
        extras.append(f"root {s['root']}")
    if s.get("no_reuse"):
        extras.append("--no-reuse")
    if s.get("check"):
        extras.append("--check")
    return extras


def skew_description(s: dict) -> str:
    """Longer form for the report header."""
    if not s:
        return "not recorded"
    skew = s.get("skew")
    mif = s.get("mif")
    seed = s.get("seed")
    tail = f" (seed {seed})" if seed is not None else ""
    if skew == "none" and not mif:
        return "none (barrier, then call)"
    if skew == "random":
        return f"random: each rank's delay uniform in [0, {_fmt_g(mif)} T(m)] (MIF {_fmt_g(mif)}){tail}"
    if skew == "late_fraction":
        lf = s.get("late_fraction")
        return f"late fraction {_fmt_g(lf)} of the ranks, {_fmt_g(mif)} T(m) late (MIF {_fmt_g(mif)}){tail}"
    if skew == "late_ranks":
        return (f"ranks {_compact_ranks(s.get('late_ranks') or [])} always {_fmt_g(mif)} T(m) late "
                f"(MIF {_fmt_g(mif)}){tail}")
    return f"{skew}, MIF {_fmt_g(mif)}{tail}"


def command_of(d: dict) -> Optional[str]:
    """The command line, if the file records it (several spellings accepted)."""
    for key in ("command_line", "command", "cmdline", "argv"):
        v = d.get(key)
        if isinstance(v, str) and v.strip():
            return v.strip()
        if isinstance(v, list) and v and all(isinstance(a, str) for a in v):
            return shlex.join(v)
    return None


def _parse_text(path: str, text: str) -> dict:
    """json.loads, or the complete part of a file an aborted run left
    unterminated (the benchmark writes it size by size)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        err = e
    if SCHEMA_PREFIX not in text[:400]:
        raise ReportError(f"{path}: not pacoll-bench JSON (not valid JSON: {err})")
    m = re.search(r'"results"\s*:\s*\[', text)
    if not m:
        raise ReportError(f"{path}: pacoll-bench JSON cut off before any result "
                          f"(aborted run?): {err}")
    head = text[:m.start()].rstrip()
    if not head.endswith(","):
        raise ReportError(f"{path}: not valid JSON: {err}")
    try:
        d = json.loads(head + ' "results": []}')
    except json.JSONDecodeError:
        raise ReportError(f"{path}: not valid JSON: {err}") from None
    dec = json.JSONDecoder()
    pos = m.end()
    results = []
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            break
        try:
            obj, pos = dec.raw_decode(text, pos)
        except json.JSONDecodeError:
            break
        results.append(obj)
    if not results:
        raise ReportError(f"{path}: pacoll-bench JSON cut off before any complete result "
                          f"(aborted run?)")
    warn(f"{path}: file is unterminated (aborted run?); using its "
         f"{len(results)} complete size(s)")
    d["results"] = results
    return d


def _stat_from(path: str, where: str, a: dict, key: str) -> Optional[Stat]:
    summ = a.get("summary")
    reps = a.get("repeats")
    vals = []
    if isinstance(reps, list):
        for r in reps:
            v = _num(r.get(key)) if isinstance(r, dict) else None
            if v is not None:
                vals.append(v)
    med = lo = hi = None
    if isinstance(summ, dict) and isinstance(summ.get(key), dict):
        s = summ[key]
        med, lo, hi = _num(s.get("median")), _num(s.get("min")), _num(s.get("max"))
    elif isinstance(summ, dict) and _num(summ.get(key)) is not None:
        med = _num(summ.get(key))
    if med is None and vals:
        med = statistics.median(vals)
    if med is None:
        if summ is None and reps is None:
            raise ReportError(f"{path}: {where}: neither 'summary' nor 'repeats': "
                              f"not pacoll-bench JSON")
        return None          # null in the file: the value does not exist
    if lo is None:
        lo = min(vals) if vals else med
    if hi is None:
        hi = max(vals) if vals else med
    nrep = len(reps) if isinstance(reps, list) else 1
    ce = a.get("check_errors")
    return Stat(median=med, lo=lo, hi=hi, repeats=nrep,
                ran=a.get("ran") if isinstance(a.get("ran"), str) else None,
                check_errors=ce if isinstance(ce, int) else 0,
                source=os.path.basename(path), name=a.get("name", ""))


def load_file(path: str, metric: str = "avg") -> Run:
    """Read one pacoll-bench JSON file; ReportError if it is not one."""
    key = METRICS[metric][0]
    try:
        with open(path, "r", encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise ReportError(f"{path}: cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise ReportError(f"{path}: not pacoll-bench JSON (not text)") from None
    d = _parse_text(path, text)
    if not isinstance(d, dict):
        raise ReportError(f"{path}: not pacoll-bench JSON (top level is not an object)")
    schema = d.get("schema")
    if not isinstance(schema, str) or not schema.startswith(SCHEMA_PREFIX):
        raise ReportError(f"{path}: not pacoll-bench JSON (\"schema\" is {schema!r}, "
                          f"expected \"{SCHEMA_KNOWN}\")")
    if schema != SCHEMA_KNOWN:
        warn(f"{path}: schema {schema!r}, this tool knows {SCHEMA_KNOWN!r}; reading it as that")
    coll = d.get("collective")
    ranks = d.get("ranks")
    results = d.get("results")
    if not isinstance(coll, str) or not coll:
        raise ReportError(f"{path}: pacoll-bench JSON without \"collective\"")
    if not isinstance(ranks, int) or isinstance(ranks, bool) or ranks < 1:
        raise ReportError(f"{path}: pacoll-bench JSON without a valid \"ranks\"")
    if not isinstance(results, list):
        raise ReportError(f"{path}: pacoll-bench JSON without a \"results\" list")

    settings = d.get("settings") if isinstance(d.get("settings"), dict) else {}
    mpi = d.get("mpi") if isinstance(d.get("mpi"), dict) else {}
    order: List[str] = []
    for n in settings.get("algorithms") or []:
        if isinstance(n, str) and n not in order:
            order.append(n)
    data: Dict[int, Dict[str, Stat]] = {}
    for i, r in enumerate(results):
        if not isinstance(r, dict):
            raise ReportError(f"{path}: results[{i}] is not an object")
        size = r.get("bytes")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise ReportError(f"{path}: results[{i}] has no integer \"bytes\"")
        algos = r.get("algos")
        if not isinstance(algos, list):
            raise ReportError(f"{path}: results[{i}] has no \"algos\" list")
        row = data.setdefault(size, {})
        for j, a in enumerate(algos):
            if not isinstance(a, dict) or not isinstance(a.get("name"), str):
                raise ReportError(f"{path}: results[{i}].algos[{j}] has no \"name\"")
            st = _stat_from(path, f"results[{i}].algos[{j}]", a, key)
            if a["name"] not in order:
                order.append(a["name"])
            if st is not None:
                row[a["name"]] = st
    if not data:
        raise ReportError(f"{path}: pacoll-bench JSON with no results")
    nodes = d.get("nodes")
    ce = d.get("check_errors")
    return Run(
        path=path, collective=coll, ranks=ranks,
        nodes=nodes if isinstance(nodes, int) and not isinstance(nodes, bool) else None,
        host=d.get("host") if isinstance(d.get("host"), str) else "?",
        mpi_engine=mpi.get("engine") if isinstance(mpi.get("engine"), str) else "",
        mpi_library=mpi.get("library") if isinstance(mpi.get("library"), str) else "",
        clock=d.get("clock") if isinstance(d.get("clock"), str) else None,
        settings=settings, setting=setting_label(coll, settings),
        command=command_of(d),
        pacoll_version=d.get("pacoll_version") if isinstance(d.get("pacoll_version"), str) else None,
        algorithms=order, data=data,
        check_errors=ce if isinstance(ce, int) else 0)


@dataclass
class Group:
    """Runs of one collective on one platform with the same ranks and skew
    setting, merged: one latency plot, one speedup plot, one table."""
    collective: str
    platform: str
    ranks: int
    setting: str
    runs: List[Run] = field(default_factory=list)
    algorithms: List[str] = field(default_factory=list)
    data: Dict[int, Dict[str, Stat]] = field(default_factory=dict)
    baseline: Optional[str] = None

    @property
    def sizes(self) -> List[int]:
        return sorted(self.data)

    @property
    def nodes(self) -> Optional[int]:
        ns = {r.nodes for r in self.runs if r.nodes is not None}
        return ns.pop() if len(ns) == 1 else None

    def speedup(self, size: int, algo: str) -> Optional[float]:
        row = self.data.get(size, {})
        if self.baseline not in row or algo not in row or row[algo].median <= 0:
            return None
        return row[self.baseline].median / row[algo].median


def group_key(run: Run):
    return (run.collective, run.platform_key, run.ranks, run.setting)


def scaling_key(run: Run):
    return (run.collective, run.platform_key, run.setting)


def group_runs(runs: List[Run]) -> List[Group]:
    """Merge runs into groups, in order of first appearance. A (size,
    algorithm) present in two files of one group: the later file wins."""
    groups: Dict[tuple, Group] = {}
    for run in runs:
        k = group_key(run)
        g = groups.get(k)
        if g is None:
            g = groups[k] = Group(run.collective, run.platform, run.ranks, run.setting)
        g.runs.append(run)
        for a in run.algorithms:
            if a not in g.algorithms:
                g.algorithms.append(a)
        for size, row in run.data.items():
            grow = g.data.setdefault(size, {})
            for a, st in row.items():
                if a in grow:
                    warn(f"{a} at {size} B is in both {grow[a].source} and {st.source} "
                         f"({run.collective}, {run.ranks} ranks, {run.setting}); "
                         f"using {st.source}")
                grow[a] = st
    # drop algorithms without a single value (all null)
    for g in groups.values():
        present = {a for row in g.data.values() for a in row}
        g.algorithms = [a for a in g.algorithms if a in present]
    # families (same but for the rank count) together, in order of first
    # appearance; within a family by rank count
    first: Dict[tuple, int] = {}
    for i, g in enumerate(groups.values()):
        first.setdefault(scaling_key(g.runs[0]), i)
    return sorted(groups.values(), key=lambda g: (first[scaling_key(g.runs[0])], g.ranks))


def choose_baselines(groups: List[Group], wanted: Optional[str]) -> None:
    """--baseline NAME where the group has it; else native; else the first
    algorithm. ReportError if NAME is in no group."""
    if wanted is not None and not any(wanted in g.algorithms for g in groups):
        names = sorted({a for g in groups for a in g.algorithms})
        raise ReportError(f"--baseline {wanted}: no such algorithm in the input "
                          f"(algorithms: {', '.join(names)})")
    for g in groups:
        if wanted is not None and wanted in g.algorithms:
            g.baseline = wanted
        else:
            if wanted is not None:
                warn(f"--baseline {wanted}: not in {g.collective}, {g.ranks} ranks, "
                     f"{g.setting}; using the default there")
            g.baseline = "native" if "native" in g.algorithms else (
                g.algorithms[0] if g.algorithms else None)
        if g.baseline is not None:      # baseline first in tables and legends
            g.algorithms.remove(g.baseline)
            g.algorithms.insert(0, g.baseline)


def parse_size(text: str) -> int:
    """'64', '1k', '1M', '256B' -> bytes (as pacoll-bench --sizes); ReportError
    naming --size otherwise (units.parse_size with the command line's words)."""
    try:
        return units.parse_size(text)
    except ValueError:
        raise ReportError(f"--size {text!r}: expected a byte count such as 64, 1k, 1M") from None
