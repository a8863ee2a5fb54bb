#!/usr/bin/env python3
"""Checks that every PACOLL_* variable the library reads is documented.

Every parameter descriptor (`.env = "PACOLL_..."`, base/param.h) must have a
row in docs/ENV.md's tables (generated from the descriptors by
tools/info/env-md; ctest env_md keeps it current); every other PACOLL_* name
in src/ must appear in README.md or docs/; every variable the tables list
must still be read somewhere in src/ (no stale rows); and every PACOLL_* name src/
reads that is not a descriptor is in core/config.c's `other_names`, the list
the warning about unknown PACOLL_* variables knows besides the descriptors.

    tools/lint/params.py [ROOT]      exit 0 clean, 1 with what is missing
"""
import glob
import os
import re
import sys


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    src = ""
    for path in glob.glob(os.path.join(root, "src", "**", "*.[ch]"), recursive=True):
        with open(path, encoding="utf-8") as f:
            src += f.read()
    declared = set(re.findall(r'\.env\s*=\s*"(PACOLL_[A-Z0-9_]+)"', src))
    named = set(re.findall(r'"(PACOLL_[A-Z0-9_]+)', src))
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    with open(os.path.join(root, "docs", "ENV.md"), encoding="utf-8") as f:
        env = f.read()
    table = set(re.findall(r"^\| `(PACOLL_[A-Z0-9_]+)`", env, re.M))
    docs = readme
    for path in glob.glob(os.path.join(root, "docs", "*.md")):
        with open(path, encoding="utf-8") as f:
            docs += f.read()
    bad = [f"{v}: a parameter with no row in docs/ENV.md (run tools/info/env-md)"
           for v in sorted(declared - table)]
    bad += [f"{v}: read in src/ but named nowhere in README.md or docs/"
            for v in sorted(named - declared) if v not in docs]
    bad += [f"{v}: in docs/ENV.md's tables but read nowhere in src/"
            for v in sorted(table - named)]
    with open(os.path.join(root, "src", "core", "config.c"), encoding="utf-8") as f:
        m = re.search(r"other_names\[\]\s*=\s*\{(.*?)\};", f.read(), re.S)
    others = set(re.findall(r'"(PACOLL_[A-Z0-9_]+)"', m.group(1))) if m else set()
    if not m:
        bad.append("src/core/config.c: no other_names[] list (the unknown-variable warning's)")
    bad += [f"{v}: read in src/ but not in core/config.c's other_names (it would be warned "
            f"about as unknown)" for v in sorted(named - declared - others)]
    for b in bad:
        print(b)
    print(f"params: {len(declared)} declared, {len(named)} named in src/, {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
