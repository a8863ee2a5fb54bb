"""The markdown report: one section per group, a header naming what was
measured, and a table (size, each algorithm's latency, speedups)."""

from __future__ import annotations

import os
from typing import Dict, List, Optional, Sequence

from .load import METRICS, Group, setting_options, skew_description, short_library
from .units import fmt_us, size_label


def fmt_speedup(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:.2f}"


def _join_distinct(values) -> str:
    out: List[str] = []
    for v in values:
        if v is not None and str(v) not in out:
            out.append(str(v))
    return " / ".join(out) if out else "?"


def group_title(g: Group) -> str:
    nodes = g.nodes
    where = f"{g.ranks} ranks" + (f" on {nodes} node{'s' if nodes != 1 else ''}" if nodes else "")
    return f"{g.collective}, {where}, {g.platform}, {g.setting}"


def header_lines(g: Group) -> List[str]:
    runs = g.runs
    s0 = runs[0].settings
    lines = [
        f"- collective: `{g.collective}`",
        f"- ranks: {g.ranks}" + (f" on {g.nodes} node{'s' if g.nodes != 1 else ''}" if g.nodes else ""),
        f"- MPI library: {_join_distinct(r.mpi_library or r.mpi_engine or None for r in runs)}",
        f"- platform/host: {_join_distinct(r.host for r in runs)}"
        + (f" (clock: {_join_distinct(r.clock for r in runs)})" if any(r.clock for r in runs) else ""),
        f"- skew: {skew_description(s0)}",
    ]
    extras = setting_options(g.collective, s0)
    if extras:
        lines.append(f"- options: {', '.join(extras)}")
    it = _join_distinct(r.settings.get("iters") for r in runs)
    wu = _join_distinct(r.settings.get("warmup") for r in runs)
    rp = _join_distinct(r.settings.get("repeat") for r in runs)
    bench = []
    if it != "?":
        bench.append(f"{it} timed iterations")
    if wu != "?":
        bench.append(f"{wu} warm-up")
    if rp != "?":
        bench.append("1 repeat" if rp == "1" else f"{rp} repeats, median shown")
    pv = _join_distinct(r.pacoll_version for r in runs)
    if pv != "?":
        bench.append(f"pacoll {pv}")
    if bench:
        lines.append(f"- benchmark: {'; '.join(bench)}")
    cmds = [r.command for r in runs if r.command]
    for c in dict.fromkeys(cmds):
        lines.append(f"- command: `{c}`")
    lines.append(f"- files: {', '.join('`' + r.name + '`' for r in runs)}")
    lines.append(f"- baseline: `{g.baseline}`")
    bad = sum(r.check_errors for r in runs)
    if bad:
        lines.append(f"- **--check found {bad} wrong bytes**")
    return lines


def group_table(g: Group, metric: str = "avg") -> str:
    """The markdown table of one group."""
    short = METRICS[metric][2]
    others = [a for a in g.algorithms if a != g.baseline]
    head = ["bytes per peer"] + [f"{a} {short} (us)" for a in g.algorithms]
    head += [f"{a} speedup" for a in others]
    rows = ["| " + " | ".join(head) + " |", "|" + "---:|" * len(head)]
    notes = set()
    for size in g.sizes:
        row = g.data[size]
        cells = [str(size)]
        for a in g.algorithms:
            st = row.get(a)
            if st is None:
                cells.append("-")
                continue
            c = fmt_us(st.median)
            if st.fallback:
                c += "*"
                notes.add("fallback")
            if st.check_errors:
                c += " !"
                notes.add("check")
            cells.append(c)
        for a in others:
            cells.append(fmt_speedup(g.speedup(size, a)))
        rows.append("| " + " | ".join(cells) + " |")
    out = "\n".join(rows)
    if "fallback" in notes:
        ran = sorted({f"{a} -> {st.ran}" for row in g.data.values()
                      for a, st in row.items() if st.fallback})
        out += ("\n\n`*` pacoll could not run the algorithm at that size and ran another "
                f"one ({', '.join(ran)}).")
    if "check" in notes:
        out += "\n\n`!` `--check` found wrong results in that block."
    chose = auto_choices(g)
    if chose:
        out += "\n\nWhat auto ran: " + "; ".join(chose) + "."
    return out


def auto_choices(g: Group) -> List[str]:
    """'`auto:ompi`, `auto:mpich`: direct at 8 B-2 KiB, native at 4 KiB':
    the algorithm each auto row ran (its 'ran'), over runs of consecutive
    sizes; rows that chose alike share one entry."""
    by: Dict[str, List[str]] = {}
    for a in g.algorithms:
        spans: List[list] = []           # [ran, first size, last size]
        for size in g.sizes:
            st = g.data[size].get(a)
            if st is None or not st.auto or not st.ran:
                continue
            if spans and spans[-1][0] == st.ran:
                spans[-1][2] = size
            else:
                spans.append([st.ran, size, size])
        if spans:
            text = ", ".join(f"{r} at {size_label(lo)}" + (f"-{size_label(hi)}" if hi != lo else "")
                             for r, lo, hi in spans)
            by.setdefault(text, []).append(f"`{a}`")
    return [f"{', '.join(names)}: {text}" for text, names in by.items()]


def render_report(groups: Sequence[Group], images: Dict[int, Dict[str, str]],
                  scaling: Sequence[tuple], metric: str = "avg",
                  title: Optional[str] = None, files: Sequence[str] = ()) -> str:
    """The whole report.md. images: group index -> {"latency": file,
    "speedup": file}; scaling: (heading, [(size, file)]) entries."""
    key, axis, _ = METRICS[metric]
    out = [f"# {title}" if title else "# pacoll-bench report", ""]
    out.append(f"From {', '.join('`' + os.path.basename(f) + '`' for f in files)}. "
               f"Times in microseconds: `{key}` of pacoll-bench, {axis.split(' (')[0]}; "
               "median over the repeats. Speedup = baseline time / algorithm time "
               "(> 1: faster than the baseline).")
    out.append("")
    for i, g in enumerate(groups):
        out.append(f"## {group_title(g)}")
        out.append("")
        out.extend(header_lines(g))
        out.append("")
        out.append(group_table(g, metric))
        out.append("")
        im = images.get(i, {})
        for kind in ("latency", "speedup"):
            if kind in im:
                out.append(f"![{kind}: {group_title(g)}]({im[kind]})")
        if im:
            out.append("")
    for heading, files_ in scaling:
        out.append(f"## {heading}")
        out.append("")
        for size, fn in files_:
            out.append(f"![{size_label(size)} per peer]({fn})")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


__all__ = ["fmt_us", "fmt_speedup", "size_label", "group_table", "render_report",
           "group_title", "short_library"]
