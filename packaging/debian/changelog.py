#!/usr/bin/env python3
"""Debian's changelog.gz for the .deb, from CHANGELOG.md (Keep a Changelog).

Each "## [X.Y.Z] - DATE" section up to --version becomes one Debian entry,
each "- " item under a "### Kind" heading one "  * Kind: ..." line, wrapped
at 78 columns. A section dated "Unreleased" gets the build's date
(SOURCE_DATE_EPOCH when set). Debian wants each entry strictly newer than
the one below it, so a section dated the same day as an older one is stamped
a minute after it. Written with gzip's best compression and no
time stamp, as Debian policy 12.7 wants for a native package's changelog.
"""
import argparse
import datetime
import email.utils
import gzip
import os
import re
import sys
import textwrap

SECTION = re.compile(r"^## \[([0-9][^\]]*)\](?:\s*-\s*(.*))?$")


def sections(text):
    """[(version, date, [(kind, item)])], newest first."""
    out, kind, cur = [], "", None
    for line in text.splitlines():
        m = SECTION.match(line)
        if m:
            cur = (m.group(1), (m.group(2) or "").strip(), [])
            out.append(cur)
            kind = ""
        elif cur is None:
            continue
        elif line.startswith("### "):
            kind = line[4:].strip()
        elif line.startswith("- "):
            cur[2].append((kind, line[2:].strip()))
        elif line.startswith("  ") and line.strip() and cur[2]:
            k, item = cur[2][-1]
            cur[2][-1] = (k, item + " " + line.strip())
    return out


def when(date):
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", date):
        return datetime.datetime.strptime(date, "%Y-%m-%d").replace(tzinfo=datetime.timezone.utc)
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", datetime.datetime.now().timestamp()))
    return datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc)


def main():
    ap = argparse.ArgumentParser()
    for a in ("--changelog", "--package", "--version", "--maintainer", "--out"):
        ap.add_argument(a, required=True)
    o = ap.parse_args()
    with open(o.changelog, encoding="utf-8") as f:
        secs = sections(f.read())
    versions = [s[0] for s in secs]
    if o.version not in versions:
        print(f"changelog.py: {o.changelog} has no section [{o.version}]", file=sys.stderr)
        return 1
    chosen = secs[versions.index(o.version):]
    stamps, last = [], None
    for _, date, _ in reversed(chosen):
        d = when(date)
        if last is not None and d <= last:
            d = last + datetime.timedelta(minutes=1)
        stamps.append(d)
        last = d
    stamps.reverse()
    text = ""
    for (version, date, items), d in zip(chosen, stamps):
        text += f"{o.package} ({version}) unstable; urgency=medium\n\n"
        for kind, item in items or [("", "Release " + version + ".")]:
            # markdown's code quotes and links read as plain text
            item = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", item).replace("`", "")
            body = f"{kind}: {item}" if kind else item
            text += textwrap.fill(body, 78, initial_indent="  * ", subsequent_indent="    ",
                                  break_on_hyphens=False) + "\n"
        text += f"\n -- {o.maintainer}  {email.utils.format_datetime(d)}\n\n"
    os.makedirs(os.path.dirname(os.path.abspath(o.out)), exist_ok=True)
    with open(o.out, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as gz:
            gz.write(text.rstrip("\n").encode() + b"\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
