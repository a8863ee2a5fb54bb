"""PNG plots with matplotlib's Agg backend (no display needed)."""

from __future__ import annotations

import math
from typing import Dict, List, Optional, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter, NullLocator  # noqa: E402

from .load import METRICS, Group  # noqa: E402
from .table import group_title  # noqa: E402
from .units import size_label  # noqa: E402

DPI = 130
FIGSIZE = (8.0, 5.2)
MARKERS = ["s", "^", "D", "v", "P", "X", "*", "<", ">", "h", "p", "8"]
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
          "#e377c2", "#17becf", "#bcbd22", "#7f7f7f", "#393b79", "#637939"]

RC = {
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 11.5,
    "legend.fontsize": 10,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
    "axes.grid": True,
    "grid.alpha": 0.35,
    "grid.linestyle": ":",
}


class Styles:
    """One color and marker per algorithm name, the same in every plot;
    native is black circles."""

    def __init__(self, names: Sequence[str]):
        self.map: Dict[str, dict] = {}
        i = 0
        for n in names:
            if n in self.map:
                continue
            if n == "native":
                self.map[n] = dict(color="black", marker="o", linestyle="--")
            else:
                self.map[n] = dict(color=COLORS[i % len(COLORS)],
                                   marker=MARKERS[i % len(MARKERS)], linestyle="-")
                i += 1

    def __getitem__(self, name: str) -> dict:
        if name not in self.map:
            self.map[name] = dict(color="gray", marker="x", linestyle="-")
        return self.map[name]


def _num_label(v: float, _pos=None) -> str:
    if v <= 0:
        return ""
    if v >= 1e5 or v < 1e-3:
        e = int(math.floor(math.log10(v) + 1e-9))
        m = v / 10 ** e
        return f"$10^{{{e}}}$" if abs(m - 1) < 1e-6 else f"{m:g}e{e}"
    return f"{v:g}"


def _log_y(ax, lo: float, hi: float) -> None:
    """Log y axis with plain-number labels; minor ticks labelled too when the
    data span few decades (otherwise a narrow range shows one label or none)."""
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(_num_label))
    ratio = hi / max(lo, 1e-300)
    if ratio <= 2.5:
        keep = (2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0)
    elif ratio <= 12:
        keep = (2.0, 3.0, 4.0, 5.0, 6.0, 8.0)
    elif ratio <= 120:
        keep = (2.0, 5.0)
    else:
        keep = ()

    def minor(v, _pos=None):
        if v <= 0:
            return ""
        e = math.floor(math.log10(v) + 1e-9)
        m = round(v / 10 ** e, 6)
        return _num_label(v) if m in keep else ""
    ax.yaxis.set_minor_formatter(FuncFormatter(minor) if keep else NullFormatter())


def _size_x(ax, sizes: Sequence[int]) -> None:
    """Log2 x axis with ticks at the measured sizes (at most ~12 labels)."""
    ax.set_xscale("log", base=2)
    sizes = sorted(set(sizes))
    step = max(1, math.ceil(len(sizes) / 12))
    ticks = sizes[::step]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p=None: size_label(int(round(v)))))
    ax.xaxis.set_minor_locator(NullLocator())
    if len(ticks) > 10:
        plt.setp(ax.get_xticklabels(), rotation=35, ha="right")
    if len(sizes) > 1:
        ax.set_xlim(sizes[0] / 1.3, sizes[-1] * 1.3)


def _title(ax, fig, main: str, sub: str, title: Optional[str]) -> None:
    if title:
        fig.suptitle(title, fontsize=13, fontweight="bold")
    ax.set_title(f"{main}\n{sub}", fontsize=11.5)


def _repeats_note(g: Group) -> str:
    reps = sorted({st.repeats for row in g.data.values() for st in row.values()})
    if not reps or reps == [1]:
        return "1 repeat (no spread)"
    r = "/".join(str(x) for x in reps)
    return f"median of {r} repeats, bars: min–max"


def plot_latency(g: Group, path: str, styles: Styles, metric: str = "avg",
                 title: Optional[str] = None) -> None:
    with plt.rc_context(RC):
        fig, ax = plt.subplots(figsize=FIGSIZE)
        lo, hi = math.inf, 0.0
        for a in g.algorithms:
            xs, ys, el, eh = [], [], [], []
            for size in g.sizes:
                st = g.data[size].get(a)
                if st is None or st.median <= 0:
                    continue
                xs.append(size)
                ys.append(st.median)
                el.append(max(0.0, st.median - st.lo))
                eh.append(max(0.0, st.hi - st.median))
                lo, hi = min(lo, st.lo if st.lo > 0 else st.median), max(hi, st.hi)
            if not xs:
                continue
            sty = styles[a]
            label = a + (" (baseline)" if a == g.baseline and len(g.algorithms) > 1 else "")
            ax.errorbar(xs, ys, yerr=[el, eh], label=label, color=sty["color"],
                        marker=sty["marker"], linestyle=sty["linestyle"], markersize=6,
                        linewidth=1.6, capsize=3, elinewidth=1.1)
        _size_x(ax, g.sizes)
        if hi > 0:
            _log_y(ax, lo, hi)
        ax.set_xlabel("message size per peer (bytes, log scale)")
        ax.set_ylabel(METRICS[metric][1].replace("(µs)", "(µs, log scale)"))
        _title(ax, fig, f"{g.collective}: latency vs message size", f"{_sub(g)}\n{_repeats_note(g)}", title)
        ax.legend(loc="upper left", frameon=True)
        fig.tight_layout()
        fig.savefig(path, dpi=DPI)
        plt.close(fig)


def _sub(g: Group) -> str:
    return group_title(g).split(", ", 1)[1]


def plot_speedup(g: Group, path: str, styles: Styles, title: Optional[str] = None) -> bool:
    """Speedup of every other algorithm over g.baseline; False if nothing to plot."""
    others = [a for a in g.algorithms if a != g.baseline]
    if not others or g.baseline is None:
        return False
    with plt.rc_context(RC):
        fig, ax = plt.subplots(figsize=FIGSIZE)
        vals: List[float] = []
        for a in others:
            xs, ys = [], []
            for size in g.sizes:
                s = g.speedup(size, a)
                if s is not None and s > 0:
                    xs.append(size)
                    ys.append(s)
            if not xs:
                continue
            vals += ys
            sty = styles[a]
            ax.plot(xs, ys, label=a, color=sty["color"], marker=sty["marker"],
                    linestyle=sty["linestyle"], markersize=6, linewidth=1.6)
        if not vals:
            plt.close(fig)
            return False
        ax.axhline(1.0, color="black", linewidth=1.2, linestyle="--",
                   label=f"{g.baseline} (baseline) = 1")
        _size_x(ax, g.sizes)
        top, bot = max(vals + [1.0]), min(vals + [1.0])
        if top / bot > 20:
            _log_y(ax, bot, top)
            ax.set_ylabel(f"speedup over {g.baseline} (×, log scale)")
        else:
            pad = 0.08 * (top - bot) + 0.05
            ax.set_ylim(max(0.0, bot - pad), top + pad)
            ax.set_ylabel(f"speedup over {g.baseline} (×, > 1 is faster)")
        ax.set_xlabel("message size per peer (bytes, log scale)")
        _title(ax, fig, f"{g.collective}: speedup over {g.baseline}",
               f"{_sub(g)}\nspeedup = {g.baseline} median / algorithm median", title)
        ax.legend(loc="best", frameon=True)
        fig.tight_layout()
        fig.savefig(path, dpi=DPI)
        plt.close(fig)
    return True


def plot_scaling(groups: Sequence[Group], size: int, path: str, styles: Styles,
                 metric: str = "avg", title: Optional[str] = None) -> bool:
    """Latency vs number of ranks at one size, over groups that differ only
    in ranks. False if fewer than two rank counts have that size."""
    gs = sorted((g for g in groups if size in g.data), key=lambda g: g.ranks)
    if len({g.ranks for g in gs}) < 2:
        return False
    algos: List[str] = []
    for g in gs:
        for a in g.algorithms:
            if a not in algos:
                algos.append(a)
    with plt.rc_context(RC):
        fig, ax = plt.subplots(figsize=FIGSIZE)
        lo, hi = math.inf, 0.0
        for a in algos:
            xs, ys, el, eh = [], [], [], []
            for g in gs:
                st = g.data[size].get(a)
                if st is None or st.median <= 0:
                    continue
                xs.append(g.ranks)
                ys.append(st.median)
                el.append(max(0.0, st.median - st.lo))
                eh.append(max(0.0, st.hi - st.median))
                lo, hi = min(lo, st.lo if st.lo > 0 else st.median), max(hi, st.hi)
            if not xs:
                continue
            sty = styles[a]
            ax.errorbar(xs, ys, yerr=[el, eh], label=a, color=sty["color"],
                        marker=sty["marker"], linestyle=sty["linestyle"], markersize=6,
                        linewidth=1.6, capsize=3, elinewidth=1.1)
        ranks = [g.ranks for g in gs]
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(ranks))
        nodes = {g.ranks: g.nodes for g in gs}
        ax.xaxis.set_major_formatter(FuncFormatter(
            lambda v, _p=None: f"{int(round(v))}" + (
                f"\n({nodes[int(round(v))]} node{'s' if nodes[int(round(v))] != 1 else ''})"
                if nodes.get(int(round(v))) else "")))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlim(ranks[0] / 1.25, ranks[-1] * 1.25)
        if hi > 0:
            _log_y(ax, lo, hi)
        ax.set_xlabel("number of processes (ranks, log scale)")
        ax.set_ylabel(METRICS[metric][1].replace("(µs)", "(µs, log scale)"))
        g0 = gs[0]
        _title(ax, fig, f"{g0.collective}: latency vs process count at {size_label(size)} per peer",
               f"{g0.platform}, {g0.setting}\n{_repeats_note(gs[-1])}", title)
        ax.legend(loc="upper left", frameon=True)
        fig.tight_layout()
        fig.savefig(path, dpi=DPI)
        plt.close(fig)
    return True
