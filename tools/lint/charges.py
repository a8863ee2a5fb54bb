#!/usr/bin/env python3
"""Checks that every operation of the transport table has its simulated charge.

Every member of `struct pc_transport` (src/channel/transport.h) but its name
must have a row in docs/SIM.md's table "What each transport operation costs
in a simulation", with every cell filled: what the shipped transports do,
what a simulated run charges, and what the peers pay.

    tools/lint/charges.py [ROOT]      exit 0 clean, 1 with what is missing
"""
import os
import re
import sys

SECTION = "### What each transport operation costs in a simulation"
MEMBER = re.compile(r"^\s*(?:const\s+)?[\w\s\*]+\(\*(\w+)\)\s*\(", re.M)


def members(root):
    text = open(os.path.join(root, "src/channel/transport.h"), encoding="utf-8").read()
    body = text[text.index("struct pc_transport {"):]
    body = body[:body.index("\n};")]
    return MEMBER.findall(body)


def rows(root):
    text = open(os.path.join(root, "docs/SIM.md"), encoding="utf-8").read()
    if SECTION not in text:
        return None
    part = text[text.index(SECTION):]
    nxt = re.search(r"\n#{2,3} ", part[len(SECTION):])
    part = part[: len(SECTION) + nxt.start()] if nxt else part
    out = {}
    for line in part.splitlines():
        m = re.match(r"^\|\s*`(\w+)`\s*\|(.*)\|\s*$", line)
        if m:
            out[m.group(1)] = [c.strip() for c in m.group(2).split("|")]
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    ops = members(root)
    table = rows(root)
    problems = []
    if not ops:
        problems.append("src/channel/transport.h: no operation found in struct pc_transport")
    if table is None:
        problems.append(f"docs/SIM.md: no section '{SECTION[4:]}'")
        table = {}
    for op in ops:
        if op not in table:
            problems.append(f"docs/SIM.md: transport operation '{op}' has no simulated charge")
        elif len(table[op]) != 4 or not all(table[op]):
            problems.append(f"docs/SIM.md: the row of '{op}' needs its four cells filled")
    for op in table:
        if op not in ops:
            problems.append(f"docs/SIM.md: '{op}' is not an operation of struct pc_transport")
    for p in problems:
        print(p)
    print(f"charges: {len(ops)} operations, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
