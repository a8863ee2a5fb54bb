#!/usr/bin/env python3
"""Checks that src/ keeps its layers (docs/ARCHITECTURE.md, "Layers").

Each folder of src/ may include headers of the folders listed for it below
(and its own); a header may not reach back up, and no chain of includes may
come back to where it started, between folders or inside one.  A subfolder
is a layer of its own (channel/sim: the simulated platform, above the
channel it serves).

    tools/lint/layers.py [SRC_DIR]      exit 0 clean, 1 with the violations
"""
import os
import re
import sys

# Bottom up: what each folder may include besides itself.
BELOW = {
    "base": [],
    "channel": ["base"],
    "channel/sim": ["base", "channel"],
    "core": ["base", "channel"],  # not channel/sim: the platform table is channel's
    "select": ["base", "channel", "core"],
    "engine": ["base", "channel", "core", "select"],
    "alltoall": ["base", "channel", "core", "select", "engine"],
    "alltoallv": ["base", "channel", "core", "select", "engine"],
    "allgather": ["base", "channel", "core", "select", "engine"],
    "gather": ["base", "channel", "core", "select", "engine"],
    "profile": ["base"],
    "api": ["base", "channel", "core", "select", "profile"],
    "interpose": ["base", "core", "api", "profile"],
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def scan(src):
    """{file: [included files]} for every source under src, paths relative to src."""
    graph = {}
    for d, dirs, names in sorted(os.walk(src)):
        dirs.sort()
        if d == src:
            continue
        for name in sorted(names):
            if name.endswith((".c", ".h", ".cpp")):
                rel = os.path.relpath(os.path.join(d, name), src).replace(os.sep, "/")
                with open(os.path.join(d, name), encoding="utf-8") as f:
                    graph[rel] = [i for i in INCLUDE.findall(f.read()) if "/" in i]
    return graph


def violations(graph):
    out = []
    for f, incs in graph.items():
        folder = f.rsplit("/", 1)[0]
        if folder not in BELOW:
            out.append(f"{f}: folder {folder!r} has no place in the layers (tools/lint/layers.py)")
            continue
        for inc in incs:
            target = inc.rsplit("/", 1)[0]
            if inc not in graph:
                out.append(f"{f}: includes {inc}, which is not under src/")
            elif target != folder and target not in BELOW[folder]:
                out.append(f"{f}: includes {inc}: {folder}/ may include only "
                           f"{', '.join(BELOW[folder]) or 'nothing else'}")
    # cycles among headers (a .c file is never included)
    state = {}

    def visit(node, path):
        state[node] = 1
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                out.append("include cycle: " + " -> ".join(path[path.index(nxt):] + [nxt]))
            elif nxt in graph and not state.get(nxt):
                visit(nxt, path + [nxt])
        state[node] = 2

    for node in graph:
        if not state.get(node):
            visit(node, [node])
    return out


def main(argv):
    src = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "src")
    graph = scan(src)
    bad = violations(graph)
    for v in bad:
        print(v)
    folders = sorted({f.rsplit("/", 1)[0] for f in graph})
    print(f"layers: {len(graph)} files in {len(folders)} folders, {len(bad)} violations")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
