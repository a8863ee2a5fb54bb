"""packaging/debian/changelog.py: CHANGELOG.md to Debian's changelog, whose
entries must be strictly newer from bottom to top (lintian's
latest-changelog-entry-without-new-date), also when two releases share a day."""
import email.utils
import gzip
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOL = os.path.join(ROOT, "packaging", "debian", "changelog.py")


def convert(tmp_path, text, version, env=None):
    src = tmp_path / "CHANGELOG.md"
    src.write_text(text)
    out = tmp_path / "changelog.gz"
    r = subprocess.run([sys.executable, TOOL, "--changelog", str(src), "--package", "p",
                        "--version", version, "--maintainer", "M <m@x>", "--out", str(out)],
                       capture_output=True, text=True, env=env)
    return r, (gzip.open(out, "rt").read() if r.returncode == 0 else "")


def stamps(deb):
    return [email.utils.parsedate_to_datetime(l.split("  ", 1)[1])
            for l in deb.splitlines() if l.startswith(" -- ")]


def test_same_day_releases_still_increase(tmp_path):
    md = ("## [Unreleased]\n\n## [1.1.0] - 2026-01-05\n### Fixed\n- b\n\n"
          "## [1.0.1] - 2026-01-05\n### Fixed\n- a\n\n## [1.0.0] - 2026-01-05\n")
    r, deb = convert(tmp_path, md, "1.1.0")
    assert r.returncode == 0, r.stderr
    s = stamps(deb)
    assert len(s) == 3
    assert s[0] > s[1] > s[2]
    assert all(d.date().isoformat() == "2026-01-05" for d in s)
    assert deb.startswith("p (1.1.0) unstable; urgency=medium")
    assert "  * Fixed: b" in deb and "  * Release 1.0.0." in deb


def test_unreleased_takes_source_date_epoch(tmp_path):
    md = "## [2.0.0] - Unreleased\n### Added\n- `x` and [y](http://y)\n\n## [1.0.0] - 2026-01-05\n"
    env = dict(os.environ, SOURCE_DATE_EPOCH="1800000000")
    r, deb = convert(tmp_path, md, "2.0.0", env)
    assert r.returncode == 0, r.stderr
    s = stamps(deb)
    assert s[0].timestamp() == 1800000000 and s[0] > s[1]
    assert "  * Added: x and y" in deb


def test_unknown_version_is_refused(tmp_path):
    r, _ = convert(tmp_path, "## [1.0.0] - 2026-01-05\n", "9.9.9")
    assert r.returncode == 1 and "no section [9.9.9]" in r.stderr
