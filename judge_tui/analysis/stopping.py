"""Whether the study's questions are settled, decided by rules that stay valid however often they are looked at.

The report's own decisions are fixed-n: each target's 95% interval, read once, at the number of items the study
has. The rating screen looks after every rating and stops at the first decision, which a fixed-n rule cannot
survive (at a threshold it says "met" wrongly in 7–12% of studies instead of 2.5%). So every decision made while
ratings still come in (the stop notice, the "n/m questions settled" count) is made here, by a rule valid at any
time (stats.sequential):

* TPR and TNR on the test split (a share of independent items of one class): the one-sided conjugate beta
  mixture test, exact;
* every other target (alignment, kappa and weighted kappa per dimension, Pearson r, a design-weighted figure,
  a balanced order's TPR and TNR weighted within the test split among them): the asymptotic confidence
  sequence, the fixed-n interval widened to the normal-mixture boundary, as valid as the figure's normal
  approximation.

How targets combine is stated once, in ``analysis.targets.Combined``: each target on its own, at one-sided
(1 - confidence) / 2 per side, 2.5% by default, the same level per target as the fixed-n report's 95% intervals;
with no correction from one target to another.

A study can hold a target that no rating left can settle (a kappa sitting on its threshold, a TNR without a
human FAIL item, a pool rated to its last item): the notice then says which target holds it up and why, instead
of waiting for a decision that will not come. What a rater may be told is only counts and which targets are
held up, never which way any target goes.

The first time the study is found settled, the number of compared ratings is kept in the database
(Store.record_settled): the report says "decided after N ratings".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

from judge_tui.analysis.design import TEST_WEIGHTED_SCOPE
from judge_tui.analysis.report import Group, Report, ReportError, build_report, default_groups
from judge_tui.analysis.targets import TargetCheck
from judge_tui.formats.numbers import decimal_text, share_text
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats import agreement as ag
from judge_tui.stats import sequential as sq
from judge_tui.stats.decisions import Decision
from judge_tui.stats.intervals import Interval, z_value
from judge_tui.store import Store

DECIDED = ("met", "not met")
ANYTIME = "valid at any time"
FIXED_N = "valid for this n only"
EXACT_SHARE = "beta mixture (exact)"
ASYMPTOTIC = "asymptotic confidence sequence"
# The targets that are a share of independent items of one class, on the unweighted test split.
_SHARE_KEYS = ("tpr", "tnr")
_SHARE_SCOPE = "test split"
# The test split's scopes: its plain items, or (a balanced order) its items weighted within it.
_TEST_SCOPES = (_SHARE_SCOPE, TEST_WEIGHTED_SCOPE)


@dataclass(frozen=True)
class AnytimeCheck:
    """One target decided by a rule valid at any time, beside the report's fixed-n check."""

    check: TargetCheck
    decision: Decision | None  # None: the figure cannot be computed
    method: str  # EXACT_SHARE or ASYMPTOTIC
    confidence: float
    widened: tuple[float, float] | None = None  # the asymptotic sequence at this n (None: not that method, or none)
    held_up: str = ""  # why no rating left in the pool can settle it ("" when one may, or it is decided)

    @cached_property
    def interval(self) -> tuple[float, float] | None:
        """The anytime-valid interval at this n; for a share, found only when asked (the stop check needs only
        the decision)."""
        if self.method == ASYMPTOTIC or self.decision is None:
            return self.widened
        return _share_at(self.check, 0, _alpha(self.confidence))[1:]

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


def _alpha(confidence: float) -> float:
    return (1.0 - confidence) / 2.0


def _is_exact_share(c: TargetCheck) -> bool:
    return c.key in _SHARE_KEYS and c.scope == _SHARE_SCOPE


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


def anytime_check(c: TargetCheck, confidence: float, left: int | None = None,
                  class_share: float | None = None) -> AnytimeCheck:
    """Decide one target at any time; with ``left`` (items of its scope not yet compared), say whether rating
    all of them could settle it if its estimate stayed where it is. ``class_share``: for TPR and TNR, the share
    of the compared test items in the figure's class (the items left bring that many of it)."""
    alpha = _alpha(confidence)
    exact = _is_exact_share(c)
    method = EXACT_SHARE if exact else ASYMPTOTIC
    if c.decision == "undecided" and not isinstance(c.interval, Interval):
        # Too few items for an interval (targets.too_few): more items may settle it. Not the figure's own
        # reason, which speaks of other experts' labels.
        held = ("too few items of each kind for an interval, and every item of the pool is compared: only new "
                "items can settle it" if left == 0 else "")
        return AnytimeCheck(c, "undecided", method, confidence, None, held)
    if not ag.is_defined(c.estimate) or not isinstance(c.interval, Interval) or c.decision is None:
        # Not the figure's own reason ("the human labels contain no FAIL"): a rater may read this, and that
        # reason is an aggregate of other experts' labels. The report gives it under "n/a means".
        pool = "the test split" if c.scope in _TEST_SCOPES else "the pool"
        held = (f"it cannot be computed on the items compared, and every item of {pool} is compared"
                if left == 0 else "")
        return AnytimeCheck(c, None, method, confidence, None, held)
    found = _share_at(c, 0, alpha, bounds=False) if exact else _asymptotic_at(c, 0, alpha)
    decision: Decision = "undecided" if found is None else found[0]
    widened = None if found is None or exact else (found[1], found[2])
    held = ""
    if decision == "undecided" and left is not None:
        held = _held_up(c, left, alpha, exact, class_share)
    return AnytimeCheck(c, decision, method, confidence, widened, held)


def _held_up(c: TargetCheck, left: int, alpha: float, exact: bool, class_share: float | None) -> str:
    """Why the items left cannot settle an undecided target ("" when rating them could)."""
    pool = "the test split" if c.scope in _TEST_SCOPES else "the pool"
    if left == 0:
        return f"every item of {pool} is compared: only new items can settle it"
    more = left * (class_share or 0.0) if exact else float(left)
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


def anytime_checks(report: Report, left: dict[str, int] | None = None) -> tuple[AnytimeCheck, ...]:
    """Every target of the report decided by a rule valid at any time (``left``: items not yet compared, by
    scope, when known)."""
    left = left or {}
    tested = sum(c.n for c in report.checks if _is_exact_share(c))  # human PASS + FAIL on the test split
    return tuple(anytime_check(c, report.confidence, left.get(c.scope),
                               c.n / tested if _is_exact_share(c) and tested else None)
                 for c in report.checks)


@dataclass(frozen=True)
class Settledness:
    decided: int  # targets met or not met by a rule valid at any time
    targets: int
    ratings: int  # the compared items behind the figures
    held_up: tuple[tuple[str, str], ...] = ()  # (target, why) for each target no rating left can settle
    pool_rated: bool = False  # every item of the targets' scopes is compared

    @property
    def settled(self) -> bool:
        return self.targets > 0 and self.decided == self.targets

    @property
    def as_far_as_the_pool_allows(self) -> bool:
        """Every target is decided or held up, so more ratings of this pool are not expected to change the count.
        Said once some target is decided, or once the pool is rated: a pool too small to decide anything early
        is still worth rating whole, for the report's fixed-n figures at its full size."""
        return (self.targets > 0 and not self.settled and self.decided + len(self.held_up) == self.targets
                and (self.decided > 0 or self.pool_rated))

    def notice(self) -> str:
        """The rating screen's notice (counts and names of targets only, never which way one went)."""
        if self.settled:
            return (f"The study's questions are settled with the {self.ratings} ratings so far (by decisions valid "
                    "at any time); further ratings are optional.")
        reasons = "; ".join(f"{goal}: {why}" for goal, why in self.held_up)
        return (f"The study's questions are settled as far as this pool allows: {self.decided}/{self.targets} "
                f"decided with the {self.ratings} ratings so far, and no rating left can settle the rest "
                f"({reasons}). Further ratings are optional; the lead may add items.")


def settledness_of(report: Report, *, has_test_split: bool = True, left: dict[str, int] | None = None) -> Settledness:
    """Without a test split the test-split targets (TPR, TNR) have nothing to be read from: more ratings
    cannot settle them, so they are not questions of this study."""
    found = [a for a in anytime_checks(report, left) if has_test_split or a.check.scope not in _TEST_SCOPES]
    held = tuple((a.check.goal, a.held_up) for a in found if a.held_up and a.decision not in DECIDED)
    scopes = {a.check.scope for a in found}
    pool_rated = left is not None and all(left.get(scope) == 0 for scope in scopes)
    return Settledness(sum(a.decision in DECIDED for a in found), len(found), report.counts["compared"], held,
                       pool_rated)


def report_items_left(report: Report) -> dict[str, int]:
    """Items not yet compared, by scope, as far as the report itself knows: the pool's from its counts, the test
    split's from a plan that counted it (analysis/report._with_items_left)."""
    left = {c.scope: max(0, report.counts["items"] - report.counts["compared"])
            for c in report.checks if c.scope not in _TEST_SCOPES}
    for c in report.checks:
        if c.scope in _TEST_SCOPES and c.left is not None:
            left[c.scope] = c.left
    return left


def all_decided_at_any_time(report: Report) -> bool:
    """Whether every target of the report is decided by a rule valid at any time."""
    return bool(report.checks) and all(a.decision in DECIDED for a in anytime_checks(report))


def items_left(store: Store, rubric: Rubric, report: Report) -> dict[str, int]:
    """Items of each scope of the report's targets that are not yet compared (rated by both sides)."""
    left = {c.scope: max(0, report.counts["items"] - report.counts["compared"])
            for c in report.checks if c.scope not in _TEST_SCOPES}
    tested = [c.n for c in report.checks if _is_exact_share(c)]
    if tested:
        left[_SHARE_SCOPE] = max(0, store.count_items(rubric.id, "test") - sum(tested))
    for c in report.checks:  # a balanced order's: counted by its design (analysis/design.reweighted_checks)
        if c.scope == TEST_WEIGHTED_SCOPE and c.left is not None:
            left[c.scope] = c.left
    return left


def study_settledness(store: Store, rubric: Rubric, settings: AgreementSettings,
                      *, leave_out: frozenset[str] = frozenset()) -> Settledness | None:
    """Over every expert's ratings but those of `leave_out` (raters who are not part of the study, such as the
    demo's bundled expert) against the report's judge; None while there is nothing to compare. The figures and
    the items left are read from one snapshot of the database."""
    with store.snapshot():
        try:
            human, judge = default_groups(store, rubric.id)
            experts = tuple(rater for rater in human.rater_ids if rater not in leave_out)
            if not experts:
                return None
            report = build_report(store, rubric, human=Group("human", experts), judge=judge, settings=settings,
                                  checks_only=True)
        except ReportError:
            return None
        return settledness_of(report, has_test_split=store.has_items(rubric.id, "test"),
                              left=items_left(store, rubric, report))
