#!/usr/bin/env python3
"""Release consistency: one version, a licence, no links out of the repository.

- the CMake project version (the one place it is set) is the Python
  package's (python/pyproject.toml, pacoll_report.__version__) and has a
  section in CHANGELOG.md;
- LICENSE is BSD-3-Clause and pyproject says so;
- README.md and docs/*.md link nothing outside the repository (../shared/,
  /work/).
Prints each problem and "release: N problems".
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
problems = []
cmake = (root / "CMakeLists.txt").read_text()
m = re.search(r"project\(pacoll VERSION ([0-9]+\.[0-9]+\.[0-9]+)", cmake)
version = m.group(1) if m else None
if not version:
    problems.append("CMakeLists.txt: no project(pacoll VERSION X.Y.Z)")
py = (root / "python/pyproject.toml").read_text()
m = re.search(r'^version = "([^"]+)"', py, re.M)
if not m or m.group(1) != version:
    problems.append(f"python/pyproject.toml: version {m and m.group(1)}, CMake says {version}")
if not re.search(r'^license = \{text = "BSD-3-Clause"\}', py, re.M):
    problems.append("python/pyproject.toml: license is not BSD-3-Clause")
init = (root / "python/pacoll_report/__init__.py").read_text()
m = re.search(r'^__version__ = "([^"]+)"', init, re.M)
if not m or m.group(1) != version:
    problems.append(f"pacoll_report.__version__ {m and m.group(1)}, CMake says {version}")
changelog = (root / "CHANGELOG.md").read_text()
if not re.search(r"^## \[" + re.escape(version or "?") + r"\]", changelog, re.M):
    problems.append(f"CHANGELOG.md: no section [{version}]")
lic = (root / "LICENSE").read_text()
if not lic.startswith("BSD 3-Clause License") or "the pacoll authors" not in lic:
    problems.append("LICENSE: not BSD-3-Clause of the pacoll authors")
for f in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
    for n, line in enumerate(f.read_text().splitlines(), 1):
        if re.search(r"\.\./shared/|/work/", line):
            problems.append(f"{f.relative_to(root)}:{n}: names a file outside the repository: {line.strip()}")
for p in problems:
    print(p)
print(f"release: {len(problems)} problems (version {version})")
sys.exit(1 if problems else 0)
