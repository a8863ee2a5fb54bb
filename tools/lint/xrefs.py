#!/usr/bin/env python3
"""Checks that every file a comment names exists.

Scans the comments of src/, tests/ and tools/ (C and C++ comments; `#`
comments of Python, shell and CMake files; Python docstrings; the README.md
of every folder under src/, whole) for file names: `name.ext` with a known
extension (`param.[ch]` means both), `dir/name.ext`, and paths under a
top-level folder (`docs/TESTING.md`, `tests/rules/`, `sim/run`, ...).  Each must
exist:

  - a name with a `/` relative to src/, to the commenting file's folder, to
    include/ or to the repository's root;
  - a bare name in the commenting file's folder, in src/ or include/, at the
    root, or anywhere under src/, include/ or the commenting file's own
    top-level folder (`verdict.h` in src/api/ names core/verdict.h).

What a comment says is *in* a file (a function, a section) is not checked.
Names of files that are not pacoll's (MPI's headers, the design notes kept
beside the repository, example output names in usage text) are listed in
ALLOWED below, each with its reason.

    tools/lint/xrefs.py [ROOT]      exit 0 clean, 1 with the stale names
"""
import os
import re
import sys

# Names that are not files of this repository, with why they may appear.
ALLOWED = {
    # MPI's own headers
    "mpi.h": "MPI's C header",
    "mpif.h": "MPI's Fortran include file",
    # the design brief and its notes, kept beside the repository in
    # ../shared/ (docs/ARCHITECTURE.md opens with it)
    "DESIGN.md": "the design brief (../shared/)",
    "SMPI-NOTES.md": "the design brief's SMPI notes (../shared/)",
    # example output files in the usage lines of tools/
    "out.json": "pacoll-bench --json example",
    "rules.json": "pacoll-tune --out/--check example",
    "measured.json": "pacoll-tune --save example",
}

EXT = r"(?:c|h|cpp|py|md|json|sh|cmake|txt|xml|f90|F90|in|supp|csv|\[ch\])"
TOP = r"(?:docs|tests|tools|rules|sim|src|scripts|python|apps|cmake|include)"
# Not part of a longer path or word; not a glob (`src/all*`).
NAME = re.compile(
    r"(?<![\w./*-])("
    r"(?:\.\./)*(?:[\w.-]+/)*[\w.-]*\w\." + EXT +
    r"|" + TOP + r"/[\w./-]*[\w/]"
    r")(?![\w*-])")


def c_comments(text):
    """(line, text) of every /* */ and // comment, skipping string and
    character literals."""
    out, i, n, line = [], 0, len(text), 1
    while i < n:
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text[i] in "\"'":
            q, j = text[i], i + 1
            while j < n and text[j] != q and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            line += text.count("\n", i, j + 1)
            i = j + 1
            continue
        else:
            line += text[i] == "\n"
            i += 1
            continue
        out.append((line, text[i:j]))
        line += text.count("\n", i, j)
        i = j
    return out


def hash_comments(text, python):
    """(line, text) of every `#` comment (not `#!`), and Python docstrings."""
    out = []
    for k, ln in enumerate(text.split("\n"), 1):
        m = re.search(r"(?:^|\s)#(?!!)(.*)", ln)
        if m:
            out.append((k, m.group(1)))
    if python:
        for m in re.finditer(r'"""(.*?)"""', text, re.S):
            out.append((1 + text.count("\n", 0, m.start()), m.group(1)))
    return out


def is_shell_or_python(path, text):
    return text.startswith("#!") and re.match(r"#!.*\b(sh|bash|python3?)\b", text)


def repo_files(root):
    """Every file under root, relative; build trees and hidden folders left out."""
    files = []
    for d, subs, names in os.walk(root):
        subs[:] = sorted(s for s in subs if not s.startswith(".")
                         and not os.path.exists(os.path.join(d, s, "CMakeCache.txt")))
        rel = os.path.relpath(d, root)
        files += [os.path.normpath(os.path.join(rel, n)) for n in sorted(names)]
    return files


def comments_of(root, path):
    full = os.path.join(root, path)
    try:
        with open(full, encoding="utf-8") as f:
            text = f.read()
    except (UnicodeDecodeError, OSError):
        return []
    if path.endswith((".c", ".h", ".cpp")):
        return c_comments(text)
    if path.endswith(".py"):
        return hash_comments(text, True)
    if path.endswith((".sh", ".in", ".cmake")) or os.path.basename(path) == "CMakeLists.txt":
        return hash_comments(text, False)
    if path.startswith("src/") and os.path.basename(path) == "README.md":
        return [(1, text)]
    m = is_shell_or_python(path, text)
    if m:
        return hash_comments(text, m.group(1).startswith("python"))
    return []


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    root = os.path.abspath(root)
    files = repo_files(root)
    present = set(files)
    present |= {os.path.dirname(f) for f in files}
    bases = {}
    for f in files:
        bases.setdefault(os.path.basename(f), set()).add(f.split("/")[0])

    def exists(rel):
        rel = os.path.normpath(rel)
        return rel in present or os.path.exists(os.path.join(root, rel))

    def resolves(name, path):
        here = os.path.dirname(path)
        if "/" in name.rstrip("/"):
            return any(exists(os.path.join(b, name)) for b in ("src", here, "include", "."))
        if any(exists(os.path.join(b, name)) for b in (here, "src", "include", ".")):
            return True
        return bool(bases.get(name, set()) & {"src", "include", path.split("/")[0]})

    scanned = [f for f in files if f.split("/")[0] in ("src", "tests", "tools")]
    bad, refs = [], 0
    for path in scanned:
        for line, text in comments_of(root, path):
            for m in NAME.finditer(text):
                name = m.group(1).rstrip(".")
                if name in ALLOWED:
                    continue
                refs += 1
                alts = [name[:-4] + "c", name[:-4] + "h"] if name.endswith(".[ch]") else [name]
                for alt in alts:
                    if not resolves(alt, path):
                        where = line + text.count("\n", 0, m.start())
                        bad.append(f"{path}:{where}: names {alt}, which is not in the repository")
    for b in bad:
        print(b)
    print(f"xrefs: {len(scanned)} files, {refs} file names in comments, {len(bad)} stale")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
