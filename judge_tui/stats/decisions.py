"""Deciding a target on an interval.

A target ``figure >= t`` (or ``figure > t`` for a strict target such as TPR > 0.90) is

* **met** when the whole interval clears it (low >= t; low > t for a strict target),
* **not met** when the whole interval falls short (high < t; high <= t for a strict target),
* **undecided** when the interval straddles it, or when fewer than ``MIN_ITEMS_TO_DECIDE`` items stand
  behind it (an interval's approximation is poor on a handful of items: Wilson's interval of 0 out of 1
  already ends below 0.80).

``decide_point`` applies the same target to the point estimate alone, for users who want the literal rule.

How many more items would settle an undecided target of the report is an assurance (``stats.assurance``).
``plan_for_standard_error`` remains the rough guide of the team's progress (alpha among the experts): "if the
estimate stays where it is", the interval shrinking as 1/sqrt(n).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from judge_tui.stats.intervals import Interval

__all__ = [
    "Decision", "Plan", "decide", "decide_point", "items_for_class", "plan_for_standard_error",
]

Decision = Literal["met", "not met", "undecided"]

MIN_ITEMS_TO_DECIDE = 5
# The plan never looks beyond this many items: past it, "more than" is all a study lead needs to know.
PLAN_CAP = 1_000_000


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


@dataclass(frozen=True)
class Plan:
    """More items that would settle an undecided target if the estimate stayed where it is.

    ``more_items`` is None when no number would (the estimate sits on the target) or when more than
    ``PLAN_CAP`` would be needed (``beyond_cap``).
    """

    more_items: int | None
    reason: str
    beyond_cap: bool = False


def plan_for_standard_error(
    estimate: float, interval: Interval, n: int, target: float, *, strict: bool = False
) -> Plan:
    """How many more items until an interval of the same shape clears the target, its width shrinking as 1/sqrt(n).

    The half-width on the side of the target is scaled by sqrt(n / (n + m)); the answer is the smallest m for
    which that side no longer reaches the target.
    """
    if n <= 0:
        return Plan(None, "no item yet: rate some items first")
    if estimate == target:
        return Plan(None, f"the estimate sits on the target ({target:g}); more items at this estimate cannot settle it")
    above = estimate > target
    half = (estimate - interval.low) if above else (interval.high - estimate)
    gap = abs(estimate - target)
    if decide(interval, target, strict=strict, n=n) != "undecided":
        return Plan(0, "already settled")
    # Settled once half·sqrt(n / total) < gap, and never below the fewest items that decide anything.
    needed = max(math.floor(n * (half / gap) ** 2) + 1, MIN_ITEMS_TO_DECIDE)
    if needed > PLAN_CAP:
        return Plan(None, f"more than {PLAN_CAP:,} items would be needed at this estimate", beyond_cap=True)
    more = max(needed - n, 1)
    return Plan(more, f"about {more} more items if the estimate stays at {estimate:.3g}")


def items_for_class(more_of_class: int, class_share: float) -> int | None:
    """Items to rate to meet ``more_of_class`` more of one class (e.g. human FAIL) at its observed share."""
    if class_share <= 0:
        return None
    return math.ceil(more_of_class / class_share)

