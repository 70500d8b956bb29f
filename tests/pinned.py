"""Pinned outputs compared by what they mean: every character exact, except a figure written at the full precision
of a float, which may differ in its last bits.

Another CPU, maths library or Python (3.12 sums floats with compensation) can compute a figure a last bit apart:
-0.4800761925618408 here is -0.48007619256184075 elsewhere, and 0.9400000000000001 is 0.94. Such a figure is
written by `repr`, with 15 or more significant digits, which nobody writes for people; a rounded figure (0.48, 48%)
does not move with the last bit, so it stays exact, and so does every word, key, space and number of digits.
"""

from __future__ import annotations

import math
import re

# A number as JSON, CSV, Markdown and text write it: digits, an optional fraction, an optional exponent.
_NUMBER = re.compile(r"(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)")
FULL_PRECISION_DIGITS = 15  # a float's repr has 15 to 17 significant digits unless it is a short decimal
REL_TOL = 1e-9
ABS_TOL = 1e-14  # a sum that is zero in exact arithmetic may come out as 1e-17 on one machine and 0.0 on another


def significant_digits(number: str) -> int:
    mantissa = re.split(r"[eE]", number)[0].lstrip("-").replace(".", "")
    return len(mantissa.lstrip("0"))


def same_figure(written: str, pinned: str) -> bool:
    """Whether two number tokens mean the same figure: equal, or one at full precision and within a last-bit
    tolerance of the other."""
    if written == pinned:
        return True
    if max(significant_digits(written), significant_digits(pinned)) < FULL_PRECISION_DIGITS:
        return False
    return math.isclose(float(written), float(pinned), rel_tol=REL_TOL, abs_tol=ABS_TOL)


def differences(written: str, pinned: str, limit: int = 10) -> list[str]:
    """Where ``written`` says something other than ``pinned``, by line (at most ``limit`` places)."""
    found: list[str] = []
    ours, theirs = _NUMBER.split(written), _NUMBER.split(pinned)
    line = 1
    for index, (a, b) in enumerate(zip(ours, theirs, strict=False)):
        is_number = index % 2 == 1  # re.split with one group alternates text, number, text, ...
        if (a != b) if not is_number else not same_figure(a, b):
            first = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
            found.append(f"line {line + b[:first].count(chr(10))}: {a!r} where {b!r} was pinned")
            if len(found) == limit:
                return found
        line += b.count("\n")
    if len(ours) != len(theirs) and len(found) < limit:
        found.append(f"{len(ours) // 2} numbers written where {len(theirs) // 2} were pinned")
    return found


def assert_as_pinned(written: bytes, pinned: bytes, name: str) -> None:
    """Fail saying where ``written`` differs from ``pinned`` beyond a figure's last bits."""
    problems = differences(written.decode("utf-8"), pinned.decode("utf-8"))
    assert not problems, f"{name} differs from its pinned file:\n" + "\n".join(problems)
