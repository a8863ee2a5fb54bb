"""Two cost models side by side: the published runs of an experiment
(sim/published/EXP/*.json) against the same experiment run under another
model (sim/run EXP --model fair: sim/published-fair/EXP/*.json once
published, else sim/results/EXP-fair/json/*.json), point by point (run
file, size): the best peer against pacoll's best algorithm, and auto against
native per selector, in each model (docs/SIM-MODEL.md).
docs/RESULTS.md's "The fair cost model" section is section() over
sim/published-fair/.

    sim/compare-models pap_aware              # markdown on stdout
    sim/compare-models pap_aware --other DIR  # another run's json/ folder
    sim/compare-models multirail --base-model fair --model fair-copy_bw4e8
                                     # a sensitivity run (sim/run --vary)
                                     # against the published fair model

Ratios are best peer time / best pacoll time (above 1: pacoll faster), of
the average over ranks of the time in the call, as docs/RESULTS.md's tables,
except for gather: its completion (METRIC, ROOTED_METRIC below).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
from typing import Dict, List, Optional, Tuple

from . import bounds
from .load import read_json, summary_median
from .results import (AUTO_PREFIX, LEARN_PREFIX, METRICS, PEER_PREFIX, SELECTORS, Published, ResultsError,
                      claim_row, find_root, geomean, load_claims, md_table)
from .units import size_label

# a point counts as a loss below this ratio (issue 25's "at least 0.97x")
LOSS = 0.97


class ModelsError(Exception):
    pass


# The time compared: the average over ranks of each rank's time in the
# call, except for gather, whose non-roots return as soon as their block is
# sent (a peer's detached send at once, so its mean is the root's time / P):
# there the completion, last arrival to last exit, as the claims compare it.
METRIC, ROOTED_METRIC = "avg_us", METRICS["completion"]


def points(folder: str) -> Dict[Tuple[str, int], Dict[str, float]]:
    """{(run file, bytes): {algorithm: median time}} of one folder."""
    out: Dict[Tuple[str, int], Dict[str, float]] = {}
    if not os.path.isdir(folder):
        raise ModelsError(f"{folder}: no such folder")
    for fn in sorted(os.listdir(folder)):
        if not fn.endswith(".json") or fn == "summary.json":
            continue
        r = read_json(os.path.join(folder, fn), "run", ModelsError)
        metric = ROOTED_METRIC if r.get("collective") == "gather" else METRIC
        for res in r.get("results", []):
            t = {a["name"]: summary_median(a, metric) for a in res.get("algos", [])}
            out[(fn[:-5], res["bytes"])] = {n: v for n, v in t.items()
                                            if isinstance(v, (int, float)) and v > 0}
    return out


def best(t: Dict[str, float], peer: bool) -> Optional[Tuple[float, str]]:
    """(time, name) of the fastest peer (native:X) or pacoll algorithm."""
    c = [(v, n) for n, v in t.items()
         if n.startswith(PEER_PREFIX) == peer and not n.startswith((AUTO_PREFIX, LEARN_PREFIX))]
    return min(c) if c else None


def ratio(t: Dict[str, float]) -> Optional[Tuple[float, str, str]]:
    """best peer / best pacoll, with both names."""
    p, m = best(t, True), best(t, False)
    if not p or not m:
        return None
    return p[0] / m[0], p[1][len(PEER_PREFIX):], m[1]


def compare(pub: Dict, other: Dict) -> Tuple[List[List[str]], List[List[str]]]:
    """The per-point rows and the summary rows."""
    rows, a, b, auto = [], [], [], {s: ([], []) for s in SELECTORS}
    for key in sorted(set(pub) & set(other)):
        ra, rb = ratio(pub[key]), ratio(other[key])
        if not ra or not rb:
            continue
        a.append(ra[0])
        b.append(rb[0])
        for s in SELECTORS:
            for i, t in enumerate((pub[key], other[key])):
                n, x = t.get(PEER_PREFIX + s), t.get(AUTO_PREFIX + s)
                if n and x:
                    auto[s][i].append(n / x)

        def cell(r):
            mark = "**" if r[0] < LOSS else ""
            return f"{mark}{r[0]:.2f}{mark} ({r[2]} / {r[1]})"
        rows.append([key[0], size_label(key[1], short=True), cell(ra), cell(rb),
                     f"{rb[0] / ra[0]:.2f}"])
    if not rows:
        raise ModelsError("no point is in both")
    summary = [["best peer / best pacoll, geometric mean", f"{geomean(a):.2f}x",
                f"{geomean(b):.2f}x"],
               [f"points below {LOSS:.2f}x (of {len(a)})", str(sum(x < LOSS for x in a)),
                str(sum(x < LOSS for x in b))],
               ["worst point", f"{min(a):.2f}x", f"{min(b):.2f}x"]]
    for s in SELECTORS:
        pa, pb = auto[s]
        if pa and pb:
            summary.append([f"native:{s} / auto:{s}, geometric mean (worst)",
                            f"{geomean(pa):.2f}x ({min(pa):.2f}x)",
                            f"{geomean(pb):.2f}x ({min(pb):.2f}x)"])
    return rows, summary


class FolderRuns(Published):
    """Published's reader over one run folder (sim/results/EXP-MODEL/json)
    instead of sim/published/EXP."""

    def __init__(self, exp: str, folder: str):
        super().__init__(os.path.dirname(folder))
        self.exp, self.folder = exp, folder

    def file(self, exp: str, key: str) -> Optional[dict]:
        if exp != self.exp:
            return None
        path = os.path.join(self.folder, key + ".json")
        return read_json(path, "run", ModelsError) if os.path.exists(path) else None


def claims(root: str, exp: str, folder: str) -> List[List[str]]:
    """The papers' claims on this experiment (sim/claims.json), measured in
    both models (docs/RESULTS.md's "simulated ratio")."""
    pub, other = Published(os.path.join(root, "sim", "published")), FolderRuns(exp, folder)
    rows = []
    for c in load_claims(os.path.join(root, "sim", "claims.json")):
        if c["experiment"] != exp:
            continue
        a, b = claim_row(c, pub), claim_row(c, other)
        fair = (f"{b[8]} ({b[5]} / {b[6]})" if other.file(exp, c["key"]) is not None
                else "not run under this model")
        rows.append([a[1], a[2], a[3], f"{a[8]} ({a[5]} / {a[6]})", fair])
    return rows


def fair_losses(near: Dict[Tuple[str, int], "bounds.Point"], pub: Dict,
                other: Dict) -> List[List[str]]:
    """The fair model's points below LOSS, each with the best peer's distance
    to the point's lower bound (near: bounds.py's points of the fair run, by
    run and size): a peer within 5% of it cannot be beaten by more than that
    on this model."""
    rows = []
    for key in sorted(set(pub) & set(other)):
        ra, rb = ratio(pub[key]), ratio(other[key])
        if not ra or not rb or rb[0] >= LOSS:
            continue
        pt = near.get(key)
        f = pt.fraction("peer") if pt else None
        verdict = ("-" if f is None else
                   "yes: unbeatable by more than 5%" if pt.near("peer") else "no")
        rows.append([key[0], size_label(key[1], short=True), f"{ra[0]:.2f}",
                     f"{rb[0]:.2f} ({rb[2]} / {rb[1]})",
                     "-" if f is None else f"{f:.3f}", verdict])
    return rows


# A fair run made with the symmetric per-message charges names their
# settings in its commands (sim/run's fair_platforms).
SYMMETRIC_MARK = "PACOLL_SIM_CMA_CALL="


def charges(folder: str) -> str:
    """Which fair model an experiment's published runs were made under, from
    their recorded commands: the symmetric charges (docs/SIM-MODEL.md), the
    earlier ones, or a mix (some runs republished)."""
    runs = []
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        with open(path) as f:
            cmds = (json.load(f).get("sim") or {}).get("commands") or []
        runs.extend(SYMMETRIC_MARK in c for c in cmds)
    if runs and all(runs):
        return "the symmetric per-message charges"
    if not any(runs):
        return "the earlier charges (before the symmetric per-message ones)"
    return f"{sum(runs)} of {len(runs)} with the symmetric per-message charges, the rest earlier"


def section(root: str) -> str:
    """docs/RESULTS.md's side-by-side section: for every experiment published
    under the fair model (sim/published-fair/EXP), the summary in both
    models, the fair model's remaining losses against their bounds, and the
    papers' claims in both models."""
    fair_root = os.path.join(root, "sim", "published-fair")
    exps = sorted(d for d in os.listdir(fair_root)
                  if os.path.isdir(os.path.join(fair_root, d))) if os.path.isdir(fair_root) else []
    if not exps:
        return ("_Nothing is published under the fair model yet "
                "(`sim/run EXPERIMENT --model fair --publish`)._")
    near: Dict[str, Dict[Tuple[str, int], bounds.Point]] = {}
    for pt in bounds.published_points(fair_root, os.path.join(root, "sim", "platforms")):
        near.setdefault(pt.experiment, {})[(pt.key, pt.size)] = pt
    parts, lines = [], []
    for exp in exps:
        pub = points(os.path.join(root, "sim", "published", exp))
        other = points(os.path.join(fair_root, exp))
        rows, summary = compare(pub, other)
        losses = fair_losses(near.get(exp, {}), pub, other)
        unbeatable = sum(1 for r in losses if r[5].startswith("yes"))
        lines.append(f"- **`{exp}`**: {len(rows)} points in both models; below {LOSS:.2f}x: "
                     f"{summary[1][1]} published, {summary[1][2]} fair, of which {unbeatable} "
                     f"have the best peer within 5% of the bound; fair runs: "
                     f"{charges(os.path.join(fair_root, exp))}.")
        part = [f"### `{exp}`", md_table(["", "published", "fair"], summary, right=(1, 2))]
        if losses:
            part.append(f"Fair points below {LOSS:.2f}x:")
            part.append(md_table(["run", "size", "published", "fair (pacoll / peer)",
                                  "bound / best peer's time", "peer within 5% of the bound"],
                                 losses, right=(2, 4)))
        cl = claims(root, exp, os.path.join(fair_root, exp))
        if cl:
            part.append("The papers' claims on this experiment (pacoll / baseline, us):")
            part.append(md_table(["figure", "claim", "paper", "published", "fair"], cl))
        parts.append("\n\n".join(part))
    return "\n".join(lines) + "\n\n" + "\n\n".join(parts)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="compare-models", description=__doc__.split("\n\n")[0])
    ap.add_argument("experiment")
    ap.add_argument("--root", help="source tree (default: found from here)")
    ap.add_argument("--model", default="fair", help="the other model's name (default fair)")
    ap.add_argument("--other", help="its json folder (default sim/published-MODEL/EXP, "
                                    "else sim/results/EXP-MODEL/json)")
    ap.add_argument("--base-model", default="published",
                    help="the model compared against: 'published' (sim/published/EXP, the "
                         "default) or one published beside it (sim/published-MODEL/EXP)")
    ap.add_argument("--summary", action="store_true", help="only the summary table")
    ap.add_argument("--claims", action="store_true",
                    help="only the papers' claims on this experiment, in both models")
    a = ap.parse_args(argv)
    root = a.root or find_root()
    folder = a.other or os.path.join(root, "sim", f"published-{a.model}", a.experiment)
    if not a.other and not os.path.isdir(folder):
        folder = os.path.join(root, "sim", "results", f"{a.experiment}-{a.model}", "json")
    try:
        if a.claims:
            print(md_table(["figure", "claim", "paper", "published (pacoll / baseline, us)",
                            a.model], claims(root, a.experiment, folder)))
            return 0
        base = "published" + ("" if a.base_model == "published" else "-" + a.base_model)
        pub = points(os.path.join(root, "sim", base, a.experiment))
        other = points(folder)
        rows, summary = compare(pub, other)
    except (ModelsError, ResultsError) as e:
        print(f"compare-models: {e}", file=sys.stderr)
        return 2
    b = a.base_model
    print(md_table(["", b, a.model], summary, right=(1, 2)))
    if not a.summary:
        print()
        print(md_table(["run", "size", f"{b}: best peer / best pacoll (pacoll / peer)",
                        f"{a.model}", f"{a.model} / {b}"], rows, right=(4,)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
