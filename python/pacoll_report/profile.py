"""Reads a PACOLL_PROFILE file (the arrival profiler's JSON, docs/PROFILE.md).

    python3 -m pacoll_report.profile FILE [--sort calls|theta|dbar|bytes]
                                          [--lines] [--ranks] [--plot OUT.png]

prints the pap-aware paper's Table 1 (collective, number of calls, average
message size, average-case imbalance factor d/T, worst-case theta/T) for every
call site, the clock precision, and with --lines the caller's file:line
(addr2line on the recorded object and offset, when binutils is installed and
the object has debug information).  --ranks adds each rank's mean delay behind
the first arrival for each site.  --plot draws theta/T and d/T per site (needs
matplotlib).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys


class ProfileError(Exception):
    pass


def load(path):
    """The profile as a dict; ProfileError when it is not one."""
    try:
        with open(path) as f:
            prof = json.load(f)
    except (OSError, ValueError) as e:
        raise ProfileError(f"{path}: {e}") from e
    if not isinstance(prof, dict) or prof.get("pacoll_profile") != 1 or "sites" not in prof:
        raise ProfileError(f"{path}: not a pacoll profile (PACOLL_PROFILE output)")
    return prof


def _elf_is_pie_or_shared(path):
    """True for ET_DYN objects (PIE executables, shared libraries): addr2line
    wants the offset then; for ET_EXEC it wants the absolute address."""
    try:
        with open(path, "rb") as f:
            head = f.read(18)
    except OSError:
        return True
    if len(head) < 18 or head[:4] != b"\x7fELF":
        return True
    order = "little" if head[5] == 1 else "big"
    return int.from_bytes(head[16:18], order) == 3


def resolve_lines(sites):
    """caller label -> "file:line (function)" through addr2line, where possible."""
    tool = shutil.which("addr2line")
    out = {}
    if not tool:
        return out
    for s in sites:
        c = s["caller"]
        obj = c.get("object")
        if not obj or not os.path.exists(obj) or c["label"] in out:
            continue
        offset = int(c["offset"], 16)
        if not _elf_is_pie_or_shared(obj):
            offset = int(c["address"], 16)
        # the return address follows the call: look one byte back
        try:
            r = subprocess.run([tool, "-f", "-C", "-e", obj, hex(max(offset - 1, 0))],
                               capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.SubprocessError):
            continue
        lines = r.stdout.split("\n")
        if r.returncode == 0 and len(lines) >= 2 and not lines[1].startswith("??"):
            out[c["label"]] = f"{lines[1].split(' ')[0]} ({lines[0]})"
    return out


SORT_KEYS = {
    "calls": lambda s: -s["calls"],
    "theta": lambda s: -s["avg_theta_over_T"],
    "dbar": lambda s: -s["avg_dbar_over_T"],
    "bytes": lambda s: -s["avg_bytes"],
    "file": lambda s: 0,
}


def table(prof, sort="file", lines=None, ranks=False):
    """Table 1 as text lines."""
    sites = sorted(prof["sites"], key=SORT_KEYS[sort])
    cs = prof["clock_sync"]
    fin, init = cs["finalize"], cs["init"]
    out = [f"{prof['world_size']} ranks; clocks: start-up sync {init['when']}, "
           f"precision +-{max(init['max_bound_s'], fin['max_bound_s']) * 1e6:.3g} us, "
           f"drift {cs['max_drift_ppm']:.3g} ppm"]
    head = (f"{'collective':<20} {'calls':>8} {'avg bytes':>12} {'T(us)':>8} "
            f"{'d/T':>11} {'theta/T':>11}  communicator, caller")
    out += [head, "-" * len(head)]
    for s in sites:
        where = s["caller"]["label"]
        if lines and where in lines:
            where = f"{where} {lines[where]}"
        flag = " [call counts differ]" if s.get("calls_mismatch") else ""
        out.append(f"{s['collective']:<20} {s['calls']:>8} {s['avg_bytes']:>12.0f} "
                   f"{s['T_s'] * 1e6:>8.2f} {s['avg_dbar_over_T']:>11.4g} "
                   f"{s['avg_theta_over_T']:>11.4g}  {s['comm']}({s['comm_size']}) "
                   f"{where}{flag}")
        if ranks:
            delays = " ".join(f"{r['world_rank']}:{r['mean_delay_s'] * 1e6:.1f}"
                              for r in s["ranks"])
            out.append(f"    mean delay behind the first arrival, us (world rank:us): {delays}")
    return out


def plot(prof, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sites = prof["sites"]
    names = [f"{s['collective']}\n{s['comm']} {s['caller']['label']}" for s in sites]
    x = range(len(sites))
    fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(sites) + 2), 4.5))
    ax.bar([i - 0.2 for i in x], [s["avg_dbar_over_T"] for s in sites], 0.4, label="d/T")
    ax.bar([i + 0.2 for i in x], [s["avg_theta_over_T"] for s in sites], 0.4, label="theta/T")
    ax.set_yscale("symlog")
    ax.set_xticks(list(x))
    ax.set_xticklabels(names, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("imbalance factor")
    ax.set_title("arrival imbalance per call site (pap-aware eq. 1-3)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m pacoll_report.profile",
                                 description="Table 1 from a PACOLL_PROFILE file")
    ap.add_argument("file")
    ap.add_argument("--sort", choices=sorted(SORT_KEYS), default="file")
    ap.add_argument("--lines", action="store_true", help="resolve callers with addr2line")
    ap.add_argument("--ranks", action="store_true", help="per-rank mean delays")
    ap.add_argument("--plot", metavar="PNG")
    args = ap.parse_args(argv)
    try:
        prof = load(args.file)
    except ProfileError as e:
        print(f"pacoll_report.profile: {e}", file=sys.stderr)
        return 2
    lines = resolve_lines(prof["sites"]) if args.lines else None
    print("\n".join(table(prof, args.sort, lines, args.ranks)))
    if args.plot:
        plot(prof, args.plot)
        print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
