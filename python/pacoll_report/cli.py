"""pacoll-report FILE.json [FILE.json ...] --out DIR [--baseline NAME] [--title T]"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Dict, List, Optional

from . import __version__
from .load import (METRICS, ReportError, choose_baselines, group_runs, load_file,
                   parse_size, scaling_key)
from .table import render_report
from .units import size_label

EXIT_OK, EXIT_ENV, EXIT_INPUT = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pacoll-report",
        description="Plots and a markdown table from pacoll-bench --json files. "
                    "Files of the same collective, platform, rank count and skew setting "
                    "are merged; files that differ only in rank count also give "
                    "latency-vs-process-count plots.",
        epilog="Exit status: 0 done, 1 matplotlib missing (see --no-plots), "
               "2 bad command line or input that is not pacoll-bench JSON.")
    p.add_argument("files", nargs="+", metavar="FILE.json", help="pacoll-bench --json output")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="output directory (created): PNGs and report.md")
    p.add_argument("--baseline", metavar="NAME",
                   help="algorithm the speedups divide by (default: native if present, "
                        "else the first algorithm)")
    p.add_argument("--title", metavar="T", help="title of the report and of every plot")
    p.add_argument("--size", metavar="SIZE[,SIZE...]",
                   help="latency-vs-process-count plots only at these sizes "
                        "(bytes per peer, suffixes k/M/G; default: every common size)")
    p.add_argument("--metric", choices=sorted(METRICS), default="avg",
                   help="which pacoll-bench time: avg (default; average over ranks of the "
                        "time in the call), min, max (fastest/slowest rank), "
                        "l2e (last arrival to last exit), f2e (first arrival to last exit)")
    p.add_argument("--no-plots", action="store_true", help="only report.md (no matplotlib needed)")
    p.add_argument("--quiet", action="store_true", help="do not print the report on stdout")
    p.add_argument("--version", action="version", version=f"pacoll-report {__version__}")
    return p


def slug(*parts) -> str:
    s = "_".join(str(p) for p in parts if p not in (None, ""))
    s = s.replace("%", "pct").replace("µ", "u")
    s = re.sub(r"[^A-Za-z0-9._-]+", "-", s).strip("-_").lower()
    return re.sub(r"-{2,}", "-", s)


def _platform_slug(run) -> str:
    eng, host, _lib = run.platform_key
    if eng == "smpi" or host == "smpi":
        return slug("smpi", host) if host not in ("smpi", "?", "") else "smpi"
    return slug(eng or "mpi", host if host != "?" else "")


def run(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    sizes_wanted = None
    if args.size:
        sizes_wanted = [parse_size(x) for x in args.size.split(",") if x.strip()]

    runs = [load_file(f, args.metric) for f in args.files]
    groups = group_runs(runs)
    choose_baselines(groups, args.baseline)

    plots = None
    if not args.no_plots:
        try:
            from . import plots  # noqa: F811  (imports matplotlib)
        except ImportError as e:
            print(f"pacoll-report: matplotlib is needed for the plots ({e}) and is not "
                  f"installed for {sys.executable}: `pip install matplotlib` or "
                  "`apt-get install python3-matplotlib`, or use --no-plots",
                  file=sys.stderr)
            return EXIT_ENV

    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        raise ReportError(f"--out {args.out}: cannot create: {e.strerror or e}") from None

    used: Dict[str, int] = {}

    def unique(name: str) -> str:
        n = used.get(name, 0)
        used[name] = n + 1
        if n == 0:
            return name
        stem, ext = os.path.splitext(name)
        return f"{stem}-{n + 1}{ext}"

    images: Dict[int, Dict[str, str]] = {}
    scaling = []
    written: List[str] = []
    if plots is not None:
        styles = plots.Styles([a for g in groups for a in g.algorithms])
        for i, g in enumerate(groups):
            base = slug(g.collective, _platform_slug(g.runs[0]), f"{g.ranks}ranks", g.setting)
            im = images[i] = {}
            fn = unique(f"latency_{base}.png")
            plots.plot_latency(g, os.path.join(args.out, fn), styles, args.metric, args.title)
            im["latency"] = fn
            fn = unique(f"speedup_{base}.png")
            if plots.plot_speedup(g, os.path.join(args.out, fn), styles, args.title):
                im["speedup"] = fn
            written += im.values()
        # latency vs process count: groups equal but for the rank count
        families: Dict[tuple, list] = {}
        for g in groups:
            families.setdefault(scaling_key(g.runs[0]), []).append(g)
        for fam in families.values():
            if len({g.ranks for g in fam}) < 2:
                continue
            counts: Dict[int, int] = {}
            for g in fam:
                for s in g.sizes:
                    counts[s] = counts.get(s, 0) + 1
            common = sorted(s for s, c in counts.items() if c >= 2)
            if sizes_wanted is not None:
                missing = [s for s in sizes_wanted if s not in common]
                for s in missing:
                    print(f"pacoll-report: warning: --size {s}: not measured at two or more "
                          f"rank counts for {fam[0].collective}, {fam[0].platform}, "
                          f"{fam[0].setting}", file=sys.stderr)
                common = [s for s in sizes_wanted if s in common]
            g0 = fam[0]
            files = []
            for s in common:
                fn = unique(f"scaling_{slug(g0.collective, _platform_slug(g0.runs[0]), g0.setting)}"
                            f"_{s}B.png")
                if plots.plot_scaling(fam, s, os.path.join(args.out, fn), styles,
                                      args.metric, args.title):
                    files.append((s, fn))
                    written.append(fn)
            if files:
                ranks = ", ".join(str(r) for r in sorted({g.ranks for g in fam}))
                scaling.append((f"{g0.collective} vs process count ({ranks} ranks), "
                                f"{g0.platform}, {g0.setting}", files))

    md = render_report(groups, images, scaling, args.metric, args.title, args.files)
    report = os.path.join(args.out, "report.md")
    try:
        with open(report, "w", encoding="utf-8") as f:
            f.write(md)
    except OSError as e:
        raise ReportError(f"{report}: cannot write: {e.strerror or e}") from None
    if not args.quiet:
        sys.stdout.write(md)
    print(f"pacoll-report: wrote {report}" + (f" and {len(written)} PNG file(s)" if written else "")
          + f" ({len(groups)} group(s))", file=sys.stderr)
    return EXIT_OK


def main(argv: Optional[List[str]] = None) -> int:
    try:
        return run(argv)
    except ReportError as e:
        print(f"pacoll-report: error: {e}", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:
        return EXIT_OK


__all__ = ["main", "run", "build_parser", "size_label"]
