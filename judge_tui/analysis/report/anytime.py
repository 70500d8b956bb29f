"""The report's targets decided by rules that stay valid however often they are looked at (analysis/stopping.py
says which and why): computed with the report (`Report.anytime`), so its renderers only draw them."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from judge_tui.analysis.design import TEST_WEIGHTED_SCOPE
from judge_tui.analysis.targets import TargetCheck
from judge_tui.formats.numbers import decimal_text, share_text
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats import agreement as ag
from judge_tui.stats import sequential as sq
from judge_tui.stats.decisions import Decision
from judge_tui.stats.intervals import Interval, z_value

DECIDED = ("met", "not met")
ANYTIME = "valid at any time"
FIXED_N = "valid for this n only"
EXACT_SHARE = "beta mixture (exact)"
ASYMPTOTIC = "asymptotic confidence sequence"
# The targets that are a share of independent items of one class, on the unweighted test split.
_SHARE_KEYS = ("tpr", "tnr")
SHARE_SCOPE = "test split"
# The test split's scopes: its plain items, or (a balanced order) its items weighted within it.
TEST_SCOPES = (SHARE_SCOPE, TEST_WEIGHTED_SCOPE)


@dataclass(frozen=True)
class AnytimeCheck:
    """One target decided by a rule valid at any time, beside the report's fixed-n check."""

    check: TargetCheck
    decision: Decision | None  # None: the figure cannot be computed
    method: str  # EXACT_SHARE or ASYMPTOTIC
    settings: AgreementSettings  # decided at its confidence
    widened: tuple[float, float] | None = None  # the asymptotic sequence at this n (None: not that method, or none)
    held_up: str = ""  # why no rating left in the pool can settle it ("" when one may, or it is decided)

    @cached_property
    def interval(self) -> tuple[float, float] | None:
        """The anytime-valid interval at this n; for a share, found only when asked (the stop check needs only
        the decision)."""
        if self.method == ASYMPTOTIC or self.decision is None:
            return self.widened
        return _share_at(self.check, 0, _alpha(self.settings))[1:]

    @property
    def reading(self) -> str:
        if self.interval is None:
            if self.decision is not None and self.check.n < sq.MIN_ITEMS_ASYMPTOTIC:
                return f"no interval below {sq.MIN_ITEMS_ASYMPTOTIC} items"
            return "no interval"
        low, high = self.interval
        if self.check.percent:
            return f"[{share_text(low)}, {share_text(high)}]"
        return f"[{decimal_text(low, 2)}, {decimal_text(high, 2)}]"


def _alpha(settings: AgreementSettings) -> float:
    return (1.0 - settings.confidence) / 2.0


def is_exact_share(c: TargetCheck) -> bool:
    return c.key in _SHARE_KEYS and c.scope == SHARE_SCOPE


def _value(c: TargetCheck) -> float:
    assert not isinstance(c.estimate, ag.Undefined)  # only defined figures are decided
    return float(c.estimate)


def _share_at(c: TargetCheck, more: float, alpha: float, *, bounds: bool = True) -> tuple[Decision, float, float]:
    """A share's decision and anytime interval (NaN unless ``bounds``), its estimate held over ``more`` further
    items of its class."""
    n = c.n + more
    successes = min(max(_value(c) * n, 0.0), n) if more else float(round(_value(c) * c.n))
    decision = sq.share_decision(successes, n, c.target, alpha=alpha)
    low, high = sq.share_sequence_interval(successes, n, alpha=alpha) if bounds else (math.nan, math.nan)
    return decision, low, high


def _asymptotic_at(c: TargetCheck, more: float, alpha: float) -> tuple[Decision, float, float] | None:
    """A figure's decision on its fixed-n interval widened to the confidence sequence; ``more`` further items
    shrink the interval as 1/sqrt(n), the estimate held. None: too few items for the normal approximation."""
    interval = c.interval
    assert isinstance(interval, Interval)
    n = c.n + more
    if n < sq.MIN_ITEMS_ASYMPTOTIC:
        return None
    estimate, shrink = _value(c), math.sqrt(c.n / n)
    low = estimate - (estimate - interval.low) * shrink
    high = estimate + (interval.high - estimate) * shrink
    # A correlation is widened on Fisher's z; every other interval on its own scale, each side by the same factor
    # (kappa's are built asymmetric already: a posterior, or on log(1 - κ) or sqrt(1 - κ)).
    transform: sq.Transform = "fisher_z" if interval.method.startswith("fisher") else "none"
    bounds = sq.sequence_bounds(estimate, low, high, z_value(interval.confidence), n, transform=transform,
                                alpha=alpha * sq.ASYMPTOTIC_SHARE_OF_ALPHA)
    sign_low = bounds.low > c.target if c.strict else bounds.low >= c.target
    sign_high = bounds.high > c.target if c.strict else bounds.high >= c.target
    decision: Decision = "met" if sign_low else ("not met" if not sign_high else "undecided")
    return decision, bounds.low, bounds.high


def anytime_check(c: TargetCheck, settings: AgreementSettings, left: int | None = None,
                  class_share: float | None = None) -> AnytimeCheck:
    """Decide one target at any time; with ``left`` (items of its scope not yet compared), say whether rating
    all of them could settle it if its estimate stayed where it is. ``class_share``: for TPR and TNR, the share
    of the compared test items in the figure's class (the items left bring that many of it)."""
    alpha = _alpha(settings)
    exact = is_exact_share(c)
    method = EXACT_SHARE if exact else ASYMPTOTIC
    if c.decision == "undecided" and not isinstance(c.interval, Interval):
        # Too few items for an interval (targets.too_few): more items may settle it. Not the figure's own
        # reason, which speaks of other experts' labels.
        held = ("too few items of each kind for an interval, and every item of the pool is compared: only new "
                "items can settle it" if left == 0 else "")
        return AnytimeCheck(c, "undecided", method, settings, None, held)
    if not ag.is_defined(c.estimate) or not isinstance(c.interval, Interval) or c.decision is None:
        # Not the figure's own reason ("the human labels contain no FAIL"): a rater may read this, and that
        # reason is an aggregate of other experts' labels. The report gives it under "n/a means".
        pool = "the test split" if c.scope in TEST_SCOPES else "the pool"
        held = (f"it cannot be computed on the items compared, and every item of {pool} is compared"
                if left == 0 else "")
        return AnytimeCheck(c, None, method, settings, None, held)
    found = _share_at(c, 0, alpha, bounds=False) if exact else _asymptotic_at(c, 0, alpha)
    decision: Decision = "undecided" if found is None else found[0]
    widened = None if found is None or exact else (found[1], found[2])
    held = ""
    if decision == "undecided" and left is not None:
        # A balanced order's TPR/TNR carry their class's share themselves (analysis/design.reweighted_checks).
        held = _held_up(c, left, alpha, exact, c.class_share if class_share is None else class_share)
    return AnytimeCheck(c, decision, method, settings, widened, held)


def _held_up(c: TargetCheck, left: int, alpha: float, exact: bool, class_share: float | None) -> str:
    """Why the items left cannot settle an undecided target ("" when rating them could)."""
    pool = "the test split" if c.scope in TEST_SCOPES else "the pool"
    if left == 0:
        return f"every item of {pool} is compared: only new items can settle it"
    # Of the items left, only those of the figure's class add to TPR or TNR.
    more = left * (class_share or 0.0) if exact else left * (1.0 if class_share is None else class_share)
    if not exact and c.n + more < sq.MIN_ITEMS_ASYMPTOTIC:
        return f"{pool} holds too few items for it ({c.n + left} at most, {sq.MIN_ITEMS_ASYMPTOTIC} needed)"
    if _value(c) == c.target or more <= 0:
        return "its estimate sits on its target: no number of items settles it unless it moves"
    if _settles(c, more, alpha, exact):
        return ""
    items = "the one item left" if left == 1 else f"the {left} items left"
    if _settles(c, _FAR_MORE * max(more, 1.0), alpha, exact):
        return f"{items} cannot settle it at its current estimate: too few"
    return f"its estimate sits too near its target for {items} to settle it"


# "Many more items than the pool holds": the projection that tells a target near its threshold from a pool too small.
_FAR_MORE = 100.0


def _settles(c: TargetCheck, more: float, alpha: float, exact: bool) -> bool:
    projected = _share_at(c, more, alpha, bounds=False) if exact else _asymptotic_at(c, more, alpha)
    return projected is not None and projected[0] in DECIDED


def decide_at_any_time(checks: Sequence[TargetCheck], settings: AgreementSettings,
                       left: Mapping[str, int] | None = None) -> tuple[AnytimeCheck, ...]:
    """Every target decided by a rule valid at any time (``left``: items not yet compared, by scope, when
    known)."""
    left = left or {}
    tested = sum(c.n for c in checks if is_exact_share(c))  # human PASS + FAIL on the test split
    return tuple(anytime_check(c, settings, left.get(c.scope),
                               c.n / tested if is_exact_share(c) and tested else None)
                 for c in checks)


def items_left_by_scope(checks: Sequence[TargetCheck], counts: Mapping[str, int]) -> dict[str, int]:
    """Items not yet compared, by scope, as far as a report itself knows: the pool's from its counts, the test
    split's from a plan that counted it (analysis/report._with_items_left)."""
    left = {c.scope: max(0, counts["items"] - counts["compared"]) for c in checks if c.scope not in TEST_SCOPES}
    for c in checks:
        if c.scope in TEST_SCOPES and c.left is not None:
            left[c.scope] = c.left
    return left
