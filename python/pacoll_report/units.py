"""Byte counts (parsing and labels) and times in µs as text: the one place
for them.

pacoll-report's tables and plots, docs/RESULTS.md (results.py) and sim/run
use these. Two of them have two styles, chosen with ``short``: the
report's (the default) and docs/RESULTS.md's (``short=True``), which differ
in what they print; one style for both would change the documents.

Standard library only: sim/run imports this module without matplotlib.
"""

from __future__ import annotations

import re
from typing import Optional

_SIZE = re.compile(r"\s*(\d+)\s*([kKmMgG]?)[bB]?\s*")
_SHIFT = {"": 0, "k": 10, "m": 20, "g": 30}


def parse_size(text) -> int:
    """'64', '1k', '4K', '1M', '2g', '256B', ' 5 kB ' -> bytes (k, M, G are
    binary, as in pacoll-bench --sizes). ValueError for anything else
    ('big', '1.5k', '-1', ''); callers word the message for their input."""
    m = _SIZE.fullmatch(str(text))
    if not m:
        raise ValueError(f"{text!r}: not a byte count")
    return int(m.group(1)) << _SHIFT[m.group(2).lower()]


# style -> (units, largest first; whether other sizes from 1 KiB up are
# printed as a fraction of a KiB)
_SIZE_STYLES = {
    False: ((("GiB", 30), ("MiB", 20), ("KiB", 10)), True),
    True: ((("MB", 20), ("KB", 10)), False),
}


def size_label(n: int, short: bool = False) -> str:
    """A byte count for people.

    Default (pacoll-report: scaling headings, plot ticks): 1 B, 512 B,
    1 KiB, 1.5 KiB, 64 KiB, 1 MiB, 1 GiB.

    short=True (docs/RESULTS.md): a whole number of KB or MB, else bytes:
    512 B, 1 KB, 64 KB, 4 MB, 1024 MB, 1536 B.
    """
    steps, fraction = _SIZE_STYLES[bool(short)]
    for unit, shift in steps:
        if n >= (1 << shift) and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    if fraction and n >= 1024:
        return f"{n / 1024:g} KiB"
    return f"{n} B"


def fmt_us(v: Optional[float], short: bool = False) -> str:
    """A time in µs (the number alone); '-' for None.

    Default (pacoll-report's tables): fixed point, 4 significant digits from
    1 µs up (1234, 123.4, 12.34, 1.234), 3 below (0.123, 0.0456; at most 12
    decimals).

    short=True (docs/RESULTS.md): 3 significant digits below 100 µs, no
    trailing zeros (12.3, 4.5, 10), whole µs from 100 up.
    """
    if v is None:
        return "-"
    if short:
        return f"{v:.3g}" if v < 100 else f"{v:.0f}"
    a = abs(v)
    if a >= 1000:
        return f"{v:.0f}"
    if a >= 100:
        return f"{v:.1f}"
    if a >= 10:
        return f"{v:.2f}"
    if a >= 0.1 or a == 0:
        return f"{v:.3f}"
    d = 3
    while a < 10 ** (-(d - 2)) and d < 12:
        d += 1
    return f"{v:.{d}f}"


__all__ = ["parse_size", "size_label", "fmt_us"]
