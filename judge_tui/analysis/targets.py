"""The report's targets decided on intervals, and what more rating would settle each undecided one.

A target (alignment ≥ 80%, kappa ≥ 0.61 on each judged dimension, r ≥ 0.70 on the overall score, TPR and TNR
> 0.90 on the test split) is met, not met or undecided (stats.decisions.decide); with ``decide_on = "point"`` the
point estimate alone decides, as the bands always have. For an undecided target the plan says about how many more
rated items would settle it if the estimate stayed where it is (stats.decisions): for TPR and TNR, more human PASS
or FAIL items, converted to items at the observed share of that class.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from judge_tui.analysis.figure_format import figure_text, figure_with_interval
from judge_tui.stats import agreement as ag
from judge_tui.stats import decisions
from judge_tui.stats.agreement import Figure, Interpretation, Thresholds
from judge_tui.stats.decisions import Decision, Plan
from judge_tui.stats.intervals import Interval, IntervalFigure

DecideOn = Literal["interval", "point"]


@dataclass(frozen=True)
class TargetCheck:
    """One target read off one figure: the estimate, its interval, the decision and the plan."""

    key: str  # "alignment", "kappa:<dimension>", "pearson", "tpr", "tnr"
    figure: str  # how the figure is named in sentences: "alignment", "κ of clarity", "TNR"
    scope: str
    estimate: Figure
    interval: IntervalFigure
    n: int  # items (for TPR/TNR: items of the class) behind the figure
    target: float
    strict: bool
    percent: bool
    decision: Decision | None  # None when the figure cannot be computed
    point_decision: Decision | None
    plan: Plan | None  # for an undecided target (under either rule)
    more_items: int | None  # the plan in items of the scope (for TPR/TNR converted from the class)
    more_of_class: int | None  # TPR/TNR: how many of the more items would be human PASS / FAIL
    class_label: str | None  # "PASS" or "FAIL"
    left: int | None = None  # items of the scope nobody of the compared group has rated yet (None: not known)

    @property
    def goal(self) -> str:
        """The target in words: "alignment ≥ 80%", "TNR > 0.90"."""
        sign = ">" if self.strict else "≥"
        value = f"{self.target:.0%}" if self.percent else f"{self.target:.2f}"
        return f"{self.figure} {sign} {value}"

    @property
    def reading(self) -> str:
        return figure_with_interval(self.estimate, self.interval, percent=self.percent)

    def plan_text(self) -> str:
        """The next step for an undecided target, e.g. "about 40 more test items (≈ 10 of them FAIL) would
        settle TNR > 0.90 if it stays at 0.93"; "" when the target is decided."""
        if self.plan is None:
            return ""
        stays = figure_text(self.estimate, percent=self.percent)
        if self.plan.more_items is None:
            if self.plan.beyond_cap:
                return f"more than a million more items would be needed to settle {self.goal} at {stays}"
            if "sits on the target" in self.plan.reason:
                return f"{self.figure} sits on the target ({stays}): more data at this estimate cannot settle it"
            return self.plan.reason
        where = "test items" if self.scope == "test split" else "rated items"
        of_class = (f" (≈ {self.more_of_class} of them {self.class_label})"
                    if self.more_of_class is not None and self.class_label else "")
        outcome = "met" if ag.is_defined(self.estimate) and self.estimate > self.target else "not met"
        text = (f"about {self.more_items} more {where}{of_class} would settle {self.goal} ({outcome}) "
                f"if it stays at {stays}")
        if self.left is not None and self.more_items is not None and self.more_items > self.left:
            text += (", and every item is rated already: only new items can settle it" if self.left == 0 else
                     f", and only {self.left} are left unrated: rating them all cannot settle it without new items")
        return text


def check(key: str, figure: str, scope: str, estimate: Figure, interval: IntervalFigure, n: int, target: float, *,
          strict: bool = False, percent: bool = False, confidence: float = 0.95,
          share: tuple[int, int] | None = None, class_share: float | None = None,
          class_label: str | None = None) -> TargetCheck:
    """Decide one target and plan for it.

    ``share`` = (successes, n) for a Wilson-interval share, planned exactly; otherwise the plan shrinks the
    interval as 1/sqrt(n). ``class_share``: for TPR/TNR, the share of the scope's items in the figure's class,
    which turns more items of the class into more items of the scope.
    """
    if not ag.is_defined(estimate) or not isinstance(interval, Interval):
        return TargetCheck(key, figure, scope, estimate, interval, n, target, strict, percent, None, None, None,
                           None, None, class_label)
    decision = decisions.decide(interval, target, strict=strict, n=n)
    point = decisions.decide_point(estimate, target, strict=strict)
    plan = more = of_class = None
    if decision == "undecided":
        if share is not None:
            plan = decisions.plan_for_share(share[0], share[1], target, strict=strict, confidence=confidence)
        else:
            plan = decisions.plan_for_standard_error(estimate, interval, n, target, strict=strict)
        if plan.more_items is not None:
            if class_share is not None:
                of_class = plan.more_items
                more = decisions.items_for_class(plan.more_items, class_share)
            else:
                more = plan.more_items
    return TargetCheck(key, figure, scope, estimate, interval, n, target, strict, percent, decision, point, plan,
                       more, of_class, class_label)


def ruling(c: TargetCheck, decide_on: DecideOn) -> Decision | None:
    return c.point_decision if decide_on == "point" else c.decision


def band_span(interval: IntervalFigure, interpret: Callable[[Figure, Thresholds], Interpretation],
              thresholds: Thresholds) -> str:
    """"between minor drift and well calibrated" when the interval's ends fall in different bands, else ""."""
    if not isinstance(interval, Interval):
        return ""
    low, high = interpret(interval.low, thresholds), interpret(interval.high, thresholds)
    return "" if low.label == high.label else f"between {low.label} and {high.label}"


def verdict_words(c: TargetCheck, decide_on: DecideOn) -> str:
    """"met", "not met", "undecided: rate more items (…)" for a sentence of the verdict."""
    decision = ruling(c, decide_on)
    if decision is None:
        return "cannot be decided"
    if decision != "undecided":
        text: str = decision
        if decide_on == "point" and c.decision != decision:
            text += f" on the point estimate (the interval leaves it {c.decision})"
        return text
    few = c.n < decisions.MIN_ITEMS_TO_DECIDE
    more = "add items to the study" if c.left == 0 else "rate more items"
    text = f"undecided: {more}" + (f" (only {c.n} so far)" if few else "")
    plan = c.plan_text()
    return f"{text}; {plan}" if plan else text
