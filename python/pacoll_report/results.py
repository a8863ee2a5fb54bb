"""docs/RESULTS.md from data: the papers' headline claims (sim/claims.json)
against the simulated runs published under sim/published/EXPERIMENT/*.json
(merged pacoll-bench/1 files written by sim/run), inside a template
(sim/RESULTS.template.md) that holds the prose and the real-run sections.

    python3 -m pacoll_report.results            # rewrite docs/RESULTS.md
    python3 -m pacoll_report.results --check    # exit 1 if it is out of date
    sim/results-md                              # the same, from anywhere

Placeholders in the template: {{CLAIMS}} (one row per claim), {{RUNS}}
(one line per published run file), {{AUTO}} (pacoll's auto against native
under each SMPI selector, over every published point that has both),
{{BOUNDS}} (every published point against its lower bound, bounds.py) and
{{MODELS}} (the fair cost model's runs beside the published ones, models.py).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import Dict, Iterator, List, Optional, Tuple

from . import bounds
from . import load
from .load import read_json, summary_median
from .units import fmt_us, size_label

PEER_PREFIX = "native:"
AUTO_PREFIX = "auto:"        # pacoll's auto on top of a selector (sim/run)
LEARN_PREFIX = "auto-learn:"  # the same, learning in place on every shape (sim/run)
SELECTORS = ("ompi", "mpich", "mvapich2")
# an auto point counts as slower than native below this ratio (native / auto):
# simulated times are deterministic, so 3% is a real loss, not noise
AUTO_SLOW = 0.97


class ResultsError(Exception):
    pass


def find_root(start: Optional[str] = None) -> str:
    """The source tree: the first directory upwards holding sim/claims.json
    (from the working directory, then from this file)."""
    for base in (start or os.getcwd(), os.path.dirname(os.path.abspath(__file__))):
        d = os.path.abspath(base)
        while True:
            if os.path.exists(os.path.join(d, "sim", "claims.json")):
                return d
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
    raise ResultsError("cannot find the source tree (sim/claims.json); use --root")


class Published:
    """sim/published/EXPERIMENT/KEY.json, loaded on demand."""

    def __init__(self, root: str):
        self.root = root
        self.cache: Dict[Tuple[str, str], Optional[dict]] = {}

    def file(self, exp: str, key: str) -> Optional[dict]:
        k = (exp, key)
        if k not in self.cache:
            path = os.path.join(self.root, exp, key + ".json")
            self.cache[k] = (read_json(path, "published run", ResultsError)
                             if os.path.exists(path) else None)
        return self.cache[k]

    def times(self, exp: str, key: str, size: int,
              metric: str = "avg_us") -> Optional[Dict[str, float]]:
        """{algorithm: median of metric} at this size, None if not published."""
        d = self.file(exp, key)
        if d is None:
            return None
        for r in d.get("results", []):
            if r.get("bytes") == size:
                out = {}
                for a in r.get("algos", []):
                    v = summary_median(a, metric)
                    if isinstance(v, (int, float)) and v > 0:
                        out[a["name"]] = float(v)
                return out
        return {}


def fmt_ratio(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:.2f}x"


def not_yet(c: dict) -> str:
    issue = c.get("issue")
    if issue is None or issue == 4:
        return f"not yet simulated (`sim/run {c['experiment']}`)"
    return f"not yet (issue {issue})"


# What a claim compares (its "metric", default avg): the average over ranks of
# each rank's time in the call, or, for a rooted collective whose non-roots
# return as soon as their block is sent, the completion: last arrival to last
# exit (the root's gather time after a barrier).
METRICS = {"avg": "avg_us", "completion": "last_arrival_to_last_exit_us"}


def claim_row(c: dict, pub: Published) -> List[str]:
    exp, key, size = c["experiment"], c["key"], int(c["size"])
    algo, base = c["algorithm"], c.get("baseline", "peers")
    metric = METRICS[c.get("metric", "avg")]
    times = pub.times(exp, key, size, metric)
    bkey = c.get("baseline_key", key)
    btimes = times if bkey == key else pub.times(exp, bkey, size, metric)
    mine = (times or {}).get(algo)
    peers = {n: v for n, v in (times or {}).items() if n.startswith(PEER_PREFIX)}
    best_peer = min(peers.items(), key=lambda kv: kv[1]) if peers else None
    if base == "peers":
        bpeers = {n: v for n, v in (btimes or {}).items() if n.startswith(PEER_PREFIX)}
        bname, bval = min(bpeers.items(), key=lambda kv: kv[1]) if bpeers else (None, None)
    else:
        bname, bval = base, (btimes or {}).get(base)

    pacoll = f"{fmt_us(mine, short=True)} ({algo})" if mine is not None else not_yet(c)
    if times is None and mine is None and c.get("issue") not in (None, 4):
        pacoll = not_yet(c)
    baseline = "-"
    if bval is not None:
        baseline = f"{fmt_us(bval, short=True)} ({bname}{', other run' if bkey != key else ''})"
    elif btimes is not None and base != "peers" and base != algo:
        baseline = f"{base}: not yet"
    peer = "-"
    if best_peer:
        peer = f"{fmt_us(best_peer[1], short=True)} ({best_peer[0][len(PEER_PREFIX):]})"
    ratio = None
    if mine is not None and bval is not None:
        ratio = mine / bval if c.get("invert") else bval / mine
    paper = c.get("paper_text") or fmt_ratio(c.get("paper_ratio"))
    run = f"`{exp}`, {c['ranks']} ranks, {size_label(size, short=True)}"
    d = pub.file(exp, key)
    if d is not None and isinstance(d.get("sim"), dict):
        run += f", {d['sim'].get('platform', '')}"
    if metric != METRICS["avg"]:
        run += f"; times: {c['metric']} (last arrival to last exit)"
    return [c["paper"], c["figure"], c["claim"], paper, run, pacoll, baseline, peer,
            fmt_ratio(ratio), c.get("why", "")]


CLAIM_HEAD = ["paper", "figure", "claim", "paper's number", "simulated run", "pacoll (us)",
              "baseline (us)", "best SMPI peer (us)", "simulated ratio", "why they differ"]


def md_table(head: List[str], rows: List[List[str]], right: Tuple[int, ...] = ()) -> str:
    def cell(x):
        return str(x).replace("|", "\\|").replace("\n", " ")
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join("---:" if i in right else "---" for i in range(len(head))) + "|"]
    out += ["| " + " | ".join(cell(x) for x in r) + " |" for r in rows]
    return "\n".join(out)


def claims_table(claims: List[dict], pub: Published) -> str:
    rows = [claim_row(c, pub) for c in claims]
    return md_table(CLAIM_HEAD, rows)


def published_runs(pub_root: str) -> Iterator[Tuple[str, str, dict]]:
    """(experiment, file name, merged run) for every published run file."""
    return load.published_runs(pub_root, ResultsError)


def auto_points(r: dict, sel: str) -> List[Tuple[int, float, str]]:
    """(bytes, native:SEL time / auto:SEL time, what auto ran) at every size
    of a run with both rows (> 1: auto faster)."""
    out = []
    for res in r.get("results", []):
        by = {a.get("name"): a for a in res.get("algos", [])}
        auto, nat = by.get(AUTO_PREFIX + sel), by.get(PEER_PREFIX + sel)
        if auto is None or nat is None:
            continue
        ta, tn = summary_median(auto, "avg_us"), summary_median(nat, "avg_us")
        if isinstance(ta, (int, float)) and isinstance(tn, (int, float)) and ta > 0 and tn > 0:
            out.append((res["bytes"], tn / ta, str(auto.get("ran") or "?")))
    return out


def geomean(xs: List[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def auto_cell(r: dict) -> str:
    """runs_table's auto column: per selector, the geometric mean over sizes
    of native / auto and, when it differs, the worst size."""
    parts = []
    for sel in SELECTORS:
        pts = auto_points(r, sel)
        if not pts:
            continue
        g, worst = geomean([x for _, x, _ in pts]), min(pts, key=lambda p: p[1])
        text = f"{sel} {g:.2f}x"
        if len(pts) > 1 and f"{worst[1]:.2f}" != f"{g:.2f}":
            text += f" ({worst[1]:.2f}x at {size_label(worst[0], short=True)})"
        parts.append(text)
    return "; ".join(parts) or "-"


def auto_table(pub_root: str) -> str:
    """auto:SEL against native:SEL for each selector, over every published
    point (experiment, run, size) that has both."""
    rows, runs = [], list(published_runs(pub_root))
    for sel in SELECTORS:
        pts = [(x, exp, fn[:-5], b, ran) for exp, fn, r in runs
               for b, x, ran in auto_points(r, sel)]
        if not pts:
            continue
        x, exp, key, b, ran = min(pts)
        rows.append([sel, str(len(pts)), f"{geomean([p[0] for p in pts]):.2f}x",
                     f"{x:.2f}x: `{exp}` {key}, {size_label(b, short=True)} (auto ran {ran})",
                     str(sum(1 for p in pts if p[0] < AUTO_SLOW))])
    if not rows:
        return ("_No published run has auto rows yet (`sim/run EXPERIMENT --only auto "
                "--publish`, docs/SIM.md)._")
    return md_table(["selector", "points", "native / auto, geometric mean", "worst point",
                     f"points below {AUTO_SLOW:.2f}x"], rows, right=(1, 2, 4))


def runs_table(pub_root: str) -> str:
    """One row per published file: what ran, pacoll's best against the
    best peer at each end of the size range, and auto against native."""
    rows = []
    if os.path.isdir(pub_root):
        for exp in sorted(os.listdir(pub_root)):
            d = os.path.join(pub_root, exp)
            if not os.path.isdir(d):
                continue
            summ = os.path.join(d, "summary.json")
            wall = skipped = None
            quick = False
            if os.path.exists(summ):
                s = read_json(summ, "summary", ResultsError)
                wall = s.get("points_seconds", s.get("wall_seconds"))
                quick = bool(s.get("quick"))
                skipped = s.get("skipped_not_registered") or {}
            first = len(rows)
            for fn in sorted(os.listdir(d)):
                if not fn.endswith(".json") or fn == "summary.json":
                    continue
                r = read_json(os.path.join(d, fn), "published run", ResultsError)
                algos = r.get("settings", {}).get("algorithms", [])
                # pacoll's forced algorithms (auto has its own column)
                mine = [a for a in algos
                        if not a.startswith((PEER_PREFIX, AUTO_PREFIX, LEARN_PREFIX))]
                ratios = []
                for res in r.get("results", []):
                    t = {a["name"]: summary_median(a, "avg_us") for a in res.get("algos", [])}
                    pv = [v for n, v in t.items() if n.startswith(PEER_PREFIX) and v]
                    mv = [(v, n) for n, v in t.items() if n in mine and v]
                    if pv and mv:
                        best = min(mv)
                        ratios.append((res["bytes"], min(pv) / best[0], best[1]))
                span = ", ".join(f"{size_label(b, short=True)}: {x:.2f}x ({n})"
                                 for b, x, n in (ratios[:1] + ratios[-1:] if len(ratios) > 1
                                                 else ratios))
                sk = ", ".join(f"{c}: {', '.join(v)}" for c, v in sorted((skipped or {}).items())
                               if c == r.get("collective"))
                rows.append([f"`{exp}`", fn[:-5], str(len(r.get("results", []))),
                             ", ".join(algos), span or "-", auto_cell(r), sk or "-"])
            if wall is not None and len(rows) > first:
                rows[first][0] += (f" ({'--quick subset, ' if quick else ''}"
                                   f"{wall / 60:.1f} min of simulation)")
    if not rows:
        return "_No simulated run published yet (`sim/run EXPERIMENT --publish`)._"
    return md_table(["experiment", "run (platform_collective_ranks_skew)", "sizes", "algorithms",
                     "best pacoll / best peer, smallest and largest size",
                     "auto: native / auto per selector, geometric mean over sizes (worst)",
                     "named but not registered"], rows)


def fmt_frac(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:.3f}"


def bound_row(pt: "bounds.Point") -> List[str]:
    """One published point: its bound, and the best times as bound / time."""
    b = pt.bound
    run = [pt.key, size_label(pt.size, short=True)]
    if b is None:
        return run + ["-", f"skipped: {pt.skip}", "-", "-", "-", "-", "-"]

    def best(which):
        v = getattr(pt, which)
        if v is None:
            return "-"
        name = v[0][len(bounds.PEER_PREFIX):] if v[0].startswith(bounds.PEER_PREFIX) else v[0]
        return f"{fmt_us(v[1], short=True)} ({name})"
    after = "0" if b.after_us <= 0 else (
        f"{fmt_us(b.after_us, short=True)}: {fmt_frac(pt.after_fraction('pacoll'))}, "
        f"{fmt_frac(pt.after_fraction('peer'))}")
    return run + [fmt_us(b.bound_us, short=True), b.term, best("pacoll"),
                  fmt_frac(pt.fraction("pacoll")), best("peer"), fmt_frac(pt.fraction("peer")),
                  after]


BOUND_HEAD = ["run", "size", "bound (us)", "decided by", "pacoll's best (us)", "bound / time",
              "best SMPI peer (us)", "bound / time",
              "after the last arrival: bound (us): pacoll, peer bound / time"]


def median(xs: List[float]) -> Optional[float]:
    xs = sorted(xs)
    if not xs:
        return None
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def bounds_section(pub_root: str, platforms_dir: str) -> str:
    """Per experiment: how many points have pacoll's best and the best peer
    within 5% of the bound (the peer there is visibly unbeatable), one line
    saying so, and every point in a folded table."""
    try:
        pts = list(bounds.published_points(pub_root, platforms_dir))
    except bounds.BoundError as e:
        raise ResultsError(str(e)) from None
    if not pts:
        return "_No simulated run published yet (`sim/run EXPERIMENT --publish`)._"
    exps: Dict[str, List[bounds.Point]] = {}
    for pt in pts:
        exps.setdefault(pt.experiment, []).append(pt)
    rows, lines, details = [], [], []
    for exp, ps in exps.items():
        bd = [p for p in ps if p.bound is not None]
        skew = [p for p in bd if p.bound.term == "skew"]
        mine = [p for p in bd if p.near("pacoll")]
        peer = [p for p in bd if p.near("peer")]
        after_near = [p for p in bd if (p.after_fraction("peer") or 0) * bounds.NEAR >= 1]
        med = [median([f for f in (p.fraction(w) for p in bd) if f is not None])
               for w in ("pacoll", "peer")]
        rows.append([f"`{exp}`", str(len(ps)), str(len(bd)), str(len(skew)), str(len(mine)),
                     str(len(peer)), f"{fmt_frac(med[0])}; {fmt_frac(med[1])}",
                     str(len(after_near))])
        peer_skew = sum(1 for p in peer if p.bound.term == "skew")
        line = (f"- **`{exp}`**: {len(peer)} of {len(bd)} bounded points visibly unbeatable "
                f"(the best peer within 5% of the bound")
        line += f"; {peer_skew} of them decided by the arrival skew)" if peer_skew else ")"
        line += f"; pacoll's best within 5% at {len(mine)}."
        if len(bd) < len(ps):
            line += f" {len(ps) - len(bd)} skipped ({ps[[p.bound for p in ps].index(None)].skip})."
        lines.append(line)
        details.append(f"<details><summary><code>{exp}</code>: {len(ps)} points</summary>\n\n"
                       + md_table(BOUND_HEAD, [bound_row(p) for p in ps],
                                  right=(1, 2, 5, 7)) + "\n\n</details>")
    head = ["experiment", "points", "bounded", "decided by the skew",
            "pacoll's best within 5%", "best peer within 5% (visibly unbeatable)",
            "bound / time, median: pacoll; peer", "after the last arrival: best peer within 5%"]
    return "\n\n".join([md_table(head, rows, right=(1, 2, 3, 4, 5, 7)), "\n".join(lines)]
                       + details)


def load_claims(claims_path: str) -> List[dict]:
    """sim/claims.json's claims, each checked for what claim_row reads."""
    claims = read_json(claims_path, "claims", ResultsError)
    if not isinstance(claims, dict) or not isinstance(claims.get("claims"), list):
        raise ResultsError(f"{claims_path}: expected {{\"claims\": [...]}}")
    need = ("paper", "figure", "claim", "experiment", "key", "algorithm", "size", "ranks")
    for i, c in enumerate(claims["claims"]):
        miss = [k for k in need if k not in c]
        if miss:
            raise ResultsError(f"{claims_path}: claims[{i}] lacks {', '.join(miss)}")
        if c.get("metric", "avg") not in METRICS:
            raise ResultsError(f"{claims_path}: claims[{i}]: metric {c['metric']!r} is not one "
                               f"of {', '.join(METRICS)}")
    return claims["claims"]


def render(root: str, claims_path: str, pub_root: str, template_path: str) -> str:
    claims = load_claims(claims_path)
    try:
        with open(template_path, encoding="utf-8") as f:
            tpl = f.read()
    except OSError as e:
        raise ResultsError(f"template {template_path}: {e.strerror or e}") from None
    pub = Published(pub_root)
    out = tpl.replace("{{CLAIMS}}", claims_table(claims, pub))
    out = out.replace("{{RUNS}}", runs_table(pub_root))
    out = out.replace("{{AUTO}}", auto_table(pub_root))
    if "{{BOUNDS}}" in out:
        out = out.replace("{{BOUNDS}}", bounds_section(
            pub_root, os.path.join(root, "sim", "platforms")))
    if "{{MODELS}}" in out:
        from . import models  # models reads this module's tables: imported here, not above
        try:
            out = out.replace("{{MODELS}}", models.section(root))
        except (models.ModelsError, bounds.BoundError) as e:
            raise ResultsError(str(e)) from None
    return out


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="pacoll-results",
                                 description="Regenerate docs/RESULTS.md from sim/claims.json "
                                             "and the published simulated runs.")
    ap.add_argument("--root", help="source tree (default: found from here)")
    ap.add_argument("--claims", help="default ROOT/sim/claims.json")
    ap.add_argument("--published", help="default ROOT/sim/published")
    ap.add_argument("--template", help="default ROOT/sim/RESULTS.template.md")
    ap.add_argument("--out", help="default ROOT/docs/RESULTS.md; '-' for stdout")
    ap.add_argument("--check", action="store_true",
                    help="do not write; exit 1 if the output file is out of date")
    a = ap.parse_args(argv)
    try:
        root = os.path.abspath(a.root) if a.root else find_root()
        claims = a.claims or os.path.join(root, "sim", "claims.json")
        pub = a.published or os.path.join(root, "sim", "published")
        tpl = a.template or os.path.join(root, "sim", "RESULTS.template.md")
        out = a.out or os.path.join(root, "docs", "RESULTS.md")
        text = render(root, claims, pub, tpl)
    except ResultsError as e:
        print(f"pacoll-results: error: {e}", file=sys.stderr)
        return 2
    if out == "-":
        sys.stdout.write(text)
        return 0
    if a.check:
        try:
            with open(out, encoding="utf-8") as f:
                same = f.read() == text
        except OSError:
            same = False
        if not same:
            print(f"pacoll-results: {out} is out of date (run sim/results-md)", file=sys.stderr)
            return 1
        return 0
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"pacoll-results: wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
