"""The report's targets decided on intervals, and what more rating would settle each undecided one.

A target (alignment ≥ 80%, kappa ≥ 0.61 on each judged dimension, r ≥ 0.70 on the overall score, TPR and TNR
> 0.90 on the test split) is met, not met or undecided (stats.decisions.decide); with ``decide_on = "point"`` the
point estimate alone decides, as the bands always have. For an undecided target the plan is an assurance
(stats.assurance): how many more rated items give an 80% chance of settling it, the judge's true value drawn
from what the data allow rather than held at the estimate, and the same for a judge at either end of its
interval; for TPR and TNR, more test items, the share of human PASS or FAIL among them drawn from what the
data allow too (the class of an item is known only once it is rated). Every target also says how likely a
study of its size, with a judge like this one, is to end undecided.
"""

from __future__ import annotations

from dataclasses import dataclass

from judge_tui.analysis.bands import Interpret
from judge_tui.formats.numbers import (
    decimal_text,
    figure_text,
    figure_with_interval,
    plural,
    share_text,
    short_text,
    word_for,
)
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats import agreement as ag
from judge_tui.stats import assurance, decisions
from judge_tui.stats.agreement import Figure
from judge_tui.stats.assurance import AssurancePlan
from judge_tui.stats.decisions import Decision
from judge_tui.stats.intervals import Interval, IntervalFigure

# TPR and TNR are planned in test items, the share of their class among new items read from the test items
# compared so far. Below this many, that share rests on a handful of items and the plan's 80% is a guess: at 12
# items its settle rate strayed to 70% (10% FAIL) and 86% (30% FAIL); from 25, 77–84% in every cell measured
# (benchmarks/bench_decisions_planner.py, docs/benchmarks.md "The planner").
MIN_TEST_ITEMS_TO_PLAN = 25


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
    plan: AssurancePlan | None  # the assurance plan of an undecided target (under either rule)
    more_items: int | None  # the plan in items of the scope (for TPR/TNR, test items, their class drawn too)
    more_of_class: int | None  # TPR/TNR: how many of the more items are expected to be human PASS / FAIL
    class_label: str | None  # "PASS" or "FAIL"
    left: int | None = None  # items of the scope nobody of the compared group has rated yet (None: not known)
    undecided_at_size: float | None = None  # chance a study of this size, with a judge like this, ends undecided
    class_share: float | None = None  # TPR/TNR: the share of the scope's items in the figure's class

    @property
    def goal(self) -> str:
        """The target in words: "alignment ≥ 80%", "TNR > 0.90"."""
        sign = ">" if self.strict else "≥"
        value = share_text(self.target) if self.percent else decimal_text(self.target, 2)
        return f"{self.figure} {sign} {value}"

    @property
    def reading(self) -> str:
        return figure_with_interval(self.estimate, self.interval, percent=self.percent)

    @property
    def undefined_reason(self) -> str | None:
        """Why a target cannot be decided (no decision): the reason its estimate, else its interval, is undefined."""
        if self.decision is not None:
            return None
        for figure in (self.estimate, self.interval):
            if isinstance(figure, ag.Undefined):
                return figure.reason
        return None

    def where(self, count: int | None = None) -> str:
        """"test items", "rated items" ("test item" for one)."""
        return word_for(count or 0, "test item" if self.scope.startswith("test split") else "rated item")

    def in_scope(self, more: int) -> int | None:
        """More items of the figure (for TPR/TNR: of its class) as items of the scope."""
        return more if self.class_share is None else decisions.items_for_class(more, self.class_share)

    def _ends_text(self) -> str:
        """"if the judge's true TNR is at an end of its interval: 40 more at 0.72, 105 more at 0.97"."""
        assert self.plan is not None
        parts = []
        for value, more in zip(self.plan.end_values, self.plan.at_ends, strict=True):
            if more is not None:
                parts.append(f"{more:,} more at {figure_text(value, percent=self.percent)}")
        if not parts:
            return ""
        return f" (if the judge's true {self.figure} is at an end of its interval: {', '.join(parts)})"

    @property
    def too_few_to_plan(self) -> bool:
        """TPR/TNR over fewer compared test items than a plan needs to know its class's share of new items."""
        return self.class_share is not None and too_few_to_plan(self.n, self.class_share)

    def plan_text(self) -> str:
        """The next step for an undecided target, e.g. "about 120 more test items (≈ 30 of them FAIL) give an
        80% chance of settling TNR > 0.90 (…)"; "" when the target is decided."""
        if self.plan is None:
            if self.decision == "undecided" and not isinstance(self.interval, Interval) and too_few(self.interval):
                return (f"{self.interval.reason}; more items, above all of the rarer category, give it an interval "
                        "and a plan")
            if self.decision == "undecided" and self.too_few_to_plan:
                assert self.class_share is not None
                return (f"too few test items to plan {self.goal}: the share of {self.class_label} among new test "
                        f"items is read from the {round(self.n / self.class_share)} compared so far; from "
                        f"{MIN_TEST_ITEMS_TO_PLAN} the report gives a plan")
            return ""
        chance = share_text(self.plan.chance)
        if self.plan.more is None:
            stays = figure_text(self.estimate, percent=self.percent)
            on = stays == figure_text(self.target, percent=self.percent)
            limit = self.in_scope(assurance.PRACTICAL_MORE)
            at_limit = self.plan.chance_at_limit or 0.0
            return (f"no practical number of items settles {self.goal}: its estimate ({stays}) sits "
                    f"{'on' if on else 'close to'} the target, and even {limit:,} more {self.where(limit)} give only a "
                    f"{share_text(at_limit)} chance; it settles only if the judge is clearly above or below"
                    + self._ends_text())
        of_class = (f" (≈ {self.more_of_class:,} of them {self.class_label})"
                    if self.more_of_class is not None and self.class_label else "")
        article = "an" if chance.startswith(("8", "11", "18")) else "a"
        verb = word_for(self.more_items or 0, "gives", "give")
        text = (f"about {self.more_items:,} more {self.where(self.more_items)}{of_class} {verb} {article} {chance} chance of settling "
                f"{self.goal}" + self._ends_text())
        stays = figure_text(self.estimate, percent=self.percent)
        if stays == figure_text(self.target, percent=self.percent):
            text += (f"; its estimate ({stays}) sits on the target, so that chance is the chance that the judge is "
                     "clearly above or below: if it is truly on the target, no number of items settles it")
        if self.left is not None and self.more_items is not None and self.more_items > self.left:
            text += (", and every item is rated already: only new items can settle it" if self.left == 0 else
                     f", and only {self.left} are left unrated: rating them all is unlikely to settle it "
                     "without new items")
        return text


@dataclass(frozen=True)
class Combined:
    """How several targets combine: the one statement of it, for the fixed-n verdict and for the decisions
    valid at any time alike. Each target is decided on its own at the report's level; nothing is corrected
    across targets, and the chance that at least one of k decisions is wrong is bounded by the sum of their
    error rates (Bonferroni)."""

    targets: int  # decided targets (a figure that cannot be computed has no decision)
    settings: AgreementSettings  # each target's interval at its confidence, decided as its decide_on says

    @property
    def wrong_at_most(self) -> float:
        """The chance that at least one decision is wrong, at most (Bonferroni): the sum of the error rates."""
        return min(1.0, self.targets * (1.0 - self.settings.confidence))

    @property
    def study_confidence(self) -> float:
        """The level at which each interval would keep the whole study's chance of any wrong decision at
        1 - confidence (Bonferroni)."""
        return 1.0 - (1.0 - self.settings.confidence) / max(1, self.targets)

    @property
    def one_sided(self) -> float:
        """Each side's error rate: a wrong "met" (or a wrong "not met") in at most this share of studies."""
        return (1.0 - self.settings.confidence) / 2.0

    def text(self) -> str:
        """The fixed-n verdict's statement."""
        if self.settings.decide_on == "point":
            return (f"The {plural(self.targets, 'target')} {word_for(self.targets, 'is', 'are')} decided on the point"
                    f" {word_for(self.targets, 'estimate')} alone (agreement.decide_on = "
                    f"\"point\"): no error rate is claimed for {word_for(self.targets, 'it', 'any of them')}.")
        each, wrong = share_text(self.settings.confidence), share_text(1 - self.settings.confidence)
        if self.targets <= 1:
            return (f"The target is decided on its own {each} interval, valid for this number of items only: it is "
                    f"wrong at most {wrong} of the time.")
        return (f"Each of the {self.targets} targets is decided on its own {each} interval, valid for this number of "
                f"items only: each decision alone is wrong at most {wrong} of the time, and the "
                f"chance that at least one of the {self.targets} is wrong can reach {share_text(self.wrong_at_most)} "
                f"(Bonferroni). For {each} on the study as a whole, set agreement.confidence to "
                f"{short_text(self.study_confidence, 4)}.")

    def anytime_text(self) -> str:
        """The statement beside the decisions valid at any time (and the stop notice's)."""
        alpha = self.one_sided
        return (f"Each target is decided on its own at one-sided {share_text(alpha, 1)} per side: for each target, a wrong "
                f"\"met\" (or a wrong \"not met\") in at most {share_text(alpha, 1)} of studies however often the figures are "
                "looked at. Nothing is corrected across targets: over k targets the chance that at least one "
                f"decision is wrong is at most k × {share_text(alpha, 1)}.")


def combination(settings: AgreementSettings) -> str:
    """How targets decided at any time combine, at the report's level (``Combined.anytime_text``)."""
    return Combined(0, settings).anytime_text()


def _model(estimate: float, interval: Interval, n: int, target: float, strict: bool, settings: AgreementSettings,
           share: tuple[int, int] | None, correlation: bool) -> assurance.Figure:
    """The figure as the assurance sees it: a Wilson share counted exactly, else a normal estimate whose
    spread is read off the report's own interval (Fisher's z for a correlation)."""
    if share is not None:
        return assurance.ShareFigure(share[0], share[1], target, strict, settings.confidence)
    return assurance.NormalFigure.from_interval(estimate, interval.low, interval.high, n, target,
                                                confidence=settings.confidence, fisher=correlation)


def check(key: str, figure: str, scope: str, estimate: Figure, interval: IntervalFigure, n: int, target: float, *,
          settings: AgreementSettings, strict: bool = False, percent: bool = False,
          share: tuple[int, int] | None = None, class_share: float | None = None,
          class_label: str | None = None, correlation: bool = False, plan: bool = True) -> TargetCheck:
    """Decide one target and plan for it.

    ``share`` = (successes, n) for a Wilson-interval share, planned exactly; otherwise the assurance treats the
    estimate as normal with the spread of its interval (``correlation``: on Fisher's z scale).
    ``class_share``: for TPR/TNR, the share of the scope's items in the figure's class, which turns more items
    of the class into more items of the scope. ``plan=False`` decides only (no plan, no chance of "undecided").
    """
    if ag.is_defined(estimate) and too_few(interval):
        # The figure is there but its table is too thin for an interval that covers: undecided, as any target
        # more items may settle, never "cannot be decided" (which a stop notice would pass over).
        return TargetCheck(key, figure, scope, estimate, interval, n, target, strict, percent, "undecided",
                           decisions.decide_point(estimate, target, strict=strict), None, None, None, class_label,
                           class_share=class_share)
    if not ag.is_defined(estimate) or not isinstance(interval, Interval):
        return TargetCheck(key, figure, scope, estimate, interval, n, target, strict, percent, None, None, None,
                           None, None, class_label, class_share=class_share)
    decision = decisions.decide(interval, target, strict=strict, n=n)
    point = decisions.decide_point(estimate, target, strict=strict)
    found = more = of_class = at_size = None
    if n > 0 and plan:
        model: assurance.Figure = _model(estimate, interval, n, target, strict, settings, share, correlation)
        at_size = model.undecided_at_size()
        if decision == "undecided" and not (class_share is not None and too_few_to_plan(n, class_share)):
            limit = assurance.PRACTICAL_MORE
            if class_share is not None and isinstance(model, assurance.ShareFigure):
                # Planned in items of the scope, as the plan is worded: the class of an item added is not known
                # until it is rated.
                model = assurance.ScopedShareFigure(model, n, round(n / class_share))
                limit = decisions.items_for_class(limit, class_share) or limit
            found = assurance.plan(model, ends=(interval.low, interval.high), limit=limit)
            more = found.more
            if more is not None and class_share is not None:
                of_class = round(more * class_share)
    return TargetCheck(key, figure, scope, estimate, interval, n, target, strict, percent, decision, point, found,
                       more, of_class, class_label, undecided_at_size=at_size, class_share=class_share)


def too_few_to_plan(n: int, class_share: float) -> bool:
    """Whether TPR or TNR over ``n`` items of its class, ``class_share`` of the compared test items, rests on
    too few test items for a plan (MIN_TEST_ITEMS_TO_PLAN)."""
    return class_share > 0 and round(n / class_share) < MIN_TEST_ITEMS_TO_PLAN


def too_few(interval: IntervalFigure) -> bool:
    """Whether an interval is withheld because the items are too few for one that covers (kappa's
    ``intervals.kappa_too_few``), as opposed to a figure that cannot be computed at all."""
    return not isinstance(interval, Interval) and interval.reason.startswith("too few items")


def ruling(c: TargetCheck, settings: AgreementSettings) -> Decision | None:
    return c.point_decision if settings.decide_on == "point" else c.decision


def band_span(interval: IntervalFigure, interpret: Interpret, settings: AgreementSettings) -> str:
    """"between minor drift and well calibrated" when the interval's ends fall in different bands, else ""."""
    if not isinstance(interval, Interval):
        return ""
    low, high = interpret(interval.low, settings), interpret(interval.high, settings)
    return "" if low.label == high.label else f"between {low.label} and {high.label}"


def verdict_words(c: TargetCheck, settings: AgreementSettings) -> str:
    """"met", "not met", "undecided: rate more items (…)" for a sentence of the verdict."""
    decision = ruling(c, settings)
    if decision is None:
        return "cannot be decided"
    if decision != "undecided":
        text: str = decision
        if settings.decide_on == "point" and c.decision != decision:
            text += f" on the point estimate (the interval leaves it {c.decision})"
        return text
    if c.plan is not None and c.plan.more is None:  # "add items" would contradict it
        return f"undecided: {c.plan_text()}"
    few = c.n < decisions.MIN_ITEMS_TO_DECIDE
    more = "add items to the study" if c.left == 0 else "rate more items"
    text = f"undecided: {more}" + (f" (only {c.n} so far)" if few else "")
    plan = c.plan_text()
    return f"{text}; {plan}" if plan else text
