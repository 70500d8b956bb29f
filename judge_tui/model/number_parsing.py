"""Numbers written by people and by other programs, read strictly (writing numbers for people is another job:
formats/numbers.py).

Python's float() also takes "0.7_5", "1_000", full-width "１" and "nan"; a careful tool refuses them, since each
usually means a typing slip or a value from the wrong column. A number from a file is a JSON number, or text
of ASCII digits with an optional sign, decimal point and exponent.
"""

from __future__ import annotations

import math
import re

_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)


def parse_number(raw: object) -> float:
    """The finite number ``raw`` stands for; raises ValueError saying what is wrong with it."""
    if isinstance(raw, bool) or raw is None:
        raise ValueError(f"{raw!r} is not a number")
    if isinstance(raw, int | float):
        value = float(raw)
    elif isinstance(raw, str) and _DECIMAL.fullmatch(raw.strip()):
        value = float(raw.strip())
    elif isinstance(raw, str):
        raise ValueError(f"{raw!r} is not a number (write digits 0-9 with an optional decimal point, "
                         "no separators or other characters)")
    else:
        raise ValueError(f"{raw!r} is not a number")
    if not math.isfinite(value):
        raise ValueError(f"{raw!r} is too large a number")
    return value
