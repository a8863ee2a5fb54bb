#!/usr/bin/env python3
"""check_auto.py SOURCE_DIR PACOLL_BENCH JSON_DIR (ctest sim_ci_small).

Every size of every merged file sim/run wrote has, for each peer selector,
an auto:PEER and an auto-learn:PEER row (PACOLL_LEARN=1) beside its
native:PEER row, and each auto row's "ran" names an algorithm this build
registers for the collective, or native."""
import glob
import importlib.machinery
import importlib.util
import json
import os
import sys


def main(src, bench, jdir):
    loader = importlib.machinery.SourceFileLoader("sim_run", os.path.join(src, "sim", "run"))
    run = importlib.util.module_from_spec(importlib.util.spec_from_loader("sim_run", loader))
    loader.exec_module(run)
    registered = run.registered_algorithms(bench, run.load_platforms())
    n = 0
    for fn in sorted(glob.glob(os.path.join(jdir, "*.json"))):
        with open(fn) as f:
            d = json.load(f)
        ok = set(registered.get(d["collective"], [])) | {"native"}
        for r in d["results"]:
            by = {a["name"]: a for a in r["algos"]}
            for p in run.PEERS:
                for row in ("auto:" + p, "auto-learn:" + p):
                    a = by.get(row)
                    if a is None or "native:" + p not in by:
                        sys.exit(f"check_auto: {fn}: {r['bytes']} B: no {row} beside "
                                 f"native:{p} (rows: {', '.join(sorted(by))})")
                    # what ran last: learning may name the candidate of its last call
                    if a.get("ran") not in ok:
                        sys.exit(f"check_auto: {fn}: {r['bytes']} B: {row} ran "
                                 f"{a.get('ran')!r}, not one of {', '.join(sorted(ok))}")
                    n += 1
    if not n:
        sys.exit(f"check_auto: no merged JSON in {jdir}")
    print(f"check_auto: {n} auto and auto-learn rows, each beside its native row, each ran a "
          f"registered "
          f"algorithm")


if __name__ == "__main__":
    main(*sys.argv[1:4])
