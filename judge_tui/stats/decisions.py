"""Deciding a target on an interval.

A target ``figure >= t`` (or ``figure > t`` for a strict target such as TPR > 0.90) is

* **met** when the whole interval clears it (low >= t; low > t for a strict target),
* **not met** when the whole interval falls short (high < t; high <= t for a strict target),
* **undecided** when the interval straddles it, or when fewer than ``MIN_ITEMS_TO_DECIDE`` items stand
  behind it (an interval's approximation is poor on a handful of items: Wilson's interval of 0 out of 1
  already ends below 0.80).

``decide_point`` applies the same target to the point estimate alone, for users who want the literal rule.

How many more items would settle an undecided target is an assurance (``stats.assurance``).
"""

from __future__ import annotations

import math
from typing import Literal

from judge_tui.stats.intervals import Interval

__all__ = [
    "Decision", "decide", "decide_point", "items_for_class",
]

Decision = Literal["met", "not met", "undecided"]

MIN_ITEMS_TO_DECIDE = 5


def _clears(value: float, target: float, strict: bool) -> bool:
    return value > target if strict else value >= target


def decide(interval: Interval, target: float, *, strict: bool = False, n: int | None = None) -> Decision:
    """Met, not met or undecided for ``figure >= target`` (``> target`` when strict) on an interval of n items."""
    if n is not None and n < MIN_ITEMS_TO_DECIDE:
        return "undecided"
    if _clears(interval.low, target, strict):
        return "met"
    if not _clears(interval.high, target, strict):
        return "not met"
    return "undecided"


def decide_point(value: float, target: float, *, strict: bool = False) -> Decision:
    """The same target read off the point estimate alone."""
    return "met" if _clears(value, target, strict) else "not met"


def items_for_class(more_of_class: int, class_share: float) -> int | None:
    """Items to rate to meet ``more_of_class`` more of one class (e.g. human FAIL) at its observed share."""
    if class_share <= 0:
        return None
    return math.ceil(more_of_class / class_share)

