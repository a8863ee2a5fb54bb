#!/usr/bin/env python3
"""Runs an MPI command under the arrival profiler and checks what it wrote.

usage: check_profile.py --json FILE [checks...] -- COMMAND [ARG]...

The command runs with its output shown; the test fails when it exits non-zero,
when FILE is missing or is not JSON, or when a check fails:

  --expect-lines        every "profile-skew: expect COLL COMM N" line the
                        program printed: the sites of COLL on the
                        communicator named COMM add up to N calls
  --require COLL[,..]   each collective has at least one site with calls > 0
  --skewed COLL:US      among COLL's sites on MPI_COMM_WORLD, the one with the
                        largest theta/T has world rank r arriving about r*US
                        microseconds after rank 0 (at least half of it), and
                        its theta/T is at least twice that of the smallest
  --table               rank 0 printed the Table-1 header and one row per site
  --ok REGEX            the program's own success line

It prints "check_profile: PASS" or the failures and "check_profile: FAIL".
"""
import argparse
import json
import os
import re
import subprocess
import sys


def parse_args(argv):
    if "--" not in argv:
        sys.exit("check_profile: missing -- COMMAND")
    cut = argv.index("--")
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", required=True)
    ap.add_argument("--expect-lines", action="store_true")
    ap.add_argument("--require", default="")
    ap.add_argument("--skewed", action="append", default=[])
    ap.add_argument("--table", action="store_true")
    ap.add_argument("--ok")
    args = ap.parse_args(argv[:cut])
    args.command = argv[cut + 1:]
    return args


def check_expect_lines(out, prof, fail):
    wanted = re.findall(r"^profile-skew: expect (\S+) (\S+) (\d+)$", out, re.M)
    if not wanted:
        fail("no 'profile-skew: expect' lines in the output")
    for coll, comm, n in wanted:
        got = sum(s["calls"] for s in prof["sites"]
                  if s["collective"] == coll and s["comm"] == comm)
        if got != int(n):
            fail(f"{coll} on {comm}: {got} calls in the profile, the program made {n}")


def check_skewed(prof, spec, fail):
    coll, us = spec.split(":")
    us = float(us) * 1e-6
    sites = [s for s in prof["sites"]
             if s["collective"] == coll and s["comm"] == "MPI_COMM_WORLD"]
    if len(sites) < 2:
        fail(f"{coll}: {len(sites)} sites on MPI_COMM_WORLD, expected a skewed and a balanced one")
        return
    sites.sort(key=lambda s: s["avg_theta_over_T"])
    low, high = sites[0], sites[-1]
    for r in high["ranks"]:
        if r["mean_delay_s"] < 0.5 * r["world_rank"] * us:
            fail(f"{coll} skewed site: world rank {r['world_rank']} arrives "
                 f"{r['mean_delay_s'] * 1e6:.1f} us after the first, expected about "
                 f"{r['world_rank'] * us * 1e6:.0f} us")
    if high["avg_theta_over_T"] < 2 * low["avg_theta_over_T"]:
        fail(f"{coll}: skewed theta/T {high['avg_theta_over_T']:.3g} is not clearly above "
             f"the balanced {low['avg_theta_over_T']:.3g}")
    print(f"check_profile: {coll} theta/T skewed {high['avg_theta_over_T']:.4g} "
          f"({high['caller']['label']}), balanced {low['avg_theta_over_T']:.4g} "
          f"({low['caller']['label']})")


def check_structure(prof, fail):
    for key in ("clock_sync", "T", "sites", "world_size"):
        if key not in prof:
            fail(f"no '{key}' in the profile")
    if not prof["clock_sync"]["finalize"]["done"]:
        fail("no clock synchronisation at MPI_Finalize")
    if not prof["T"]["buckets"] or prof["T"]["buckets"][0]["T_s"] <= 0:
        fail("T was not measured")
    for s in prof["sites"]:
        where = f"{s['collective']} on {s['comm']} at {s['caller']['label']}"
        if s["calls_mismatch"]:
            fail(f"{where}: the ranks recorded different numbers of calls")
        if len(s["ranks"]) != s["comm_size"]:
            fail(f"{where}: {len(s['ranks'])} rank entries for size {s['comm_size']}")
        if s["avg_theta_s"] < s["avg_dbar_s"] - 1e-12:
            fail(f"{where}: theta below d-bar")
        if not s["caller"]["object"]:
            fail(f"{where}: caller not resolved")


def main(argv):
    args = parse_args(argv)
    if os.path.exists(args.json):
        os.remove(args.json)
    proc = subprocess.run(args.command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, errors="replace")
    out = proc.stdout
    sys.stdout.write(out)
    failures = []
    fail = failures.append
    if proc.returncode != 0:
        fail(f"the command exited with status {proc.returncode}")
    if args.ok and not re.search(args.ok, out, re.M):
        fail(f"no line matches {args.ok!r}")
    try:
        with open(args.json) as f:
            prof = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"cannot read the profile {args.json}: {e}")
        prof = None
    if prof is not None:
        check_structure(prof, fail)
        if args.expect_lines:
            check_expect_lines(out, prof, fail)
        for coll in filter(None, args.require.split(",")):
            if not any(s["collective"] == coll and s["calls"] > 0 for s in prof["sites"]):
                fail(f"no site of {coll} in the profile")
        for spec in args.skewed:
            check_skewed(prof, spec, fail)
        if args.table:
            rows = re.findall(r"^pacoll-profile: (\w+) +\d+ ", out, re.M)
            if "collective" not in out or len(rows) != len(prof["sites"]):
                fail(f"the table has {len(rows)} rows for {len(prof['sites'])} sites")
    for f in failures:
        print(f"check_profile: {f}")
    print("check_profile: " + ("FAIL" if failures else "PASS"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
