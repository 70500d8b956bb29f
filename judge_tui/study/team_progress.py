"""The team's progress on its assignment (`judge-tui status`, for the lead): who has done what of their share,
how much of the overlap is rated by two or more experts, and whether that is already enough to tell the team's
agreement.

Agreement is Krippendorff's alpha among the experts, per judged dimension, over the plan's overlap items that
two or more experts have rated so far, with a percentile bootstrap interval over those items (1,000 resamples;
past 5,000 items the infinitesimal jackknife, as in the report: `stats.raters.alpha_interval`, whose method each
dimension names). Against the team's target (`agreement.team_alpha_target`, 0.80 unless
settings.json says otherwise) the interval decides: met (it lies above), not met (below) or undecided (it
straddles the target, or fewer than five items stand behind it). For an undecided dimension, about how many
more overlap items give an 80% chance of settling it (`stats.assurance`, alpha's true value drawn from the
normal law of its interval), and whether the overlap items still to be rated in the plan would cover that.

This is the lead's view: it shows every expert's figures over every item. Nothing here is reachable from the
rating screen. The progress is a typed object (`TeamProgress`); study/status.py draws its tables and its JSON.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from judge_tui.analysis.team import load_team
from judge_tui.formats.numbers import decimal_text, plural, share_text
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.store import Store

# A progress view recomputed at every `status`: half the report's 2,000 resamples halves the time (0.16 s per
# dimension at 2,083 overlap items x 20 experts), and the bounds moved by under 0.001 between seeds there.
RESAMPLES = 1000

if TYPE_CHECKING:
    from judge_tui.stats.decisions import Decision


@dataclass(frozen=True)
class ExpertProgress:
    """One expert's share of the plan: done, skipped, flagged, and the time spent on it."""

    expert: str
    assigned: int
    rated: int
    skipped: int
    flagged: int
    overlap_assigned: int
    overlap_rated: int
    seconds: float  # known active time over the rated items, to the millisecond
    time_unknown: int  # rated items without a recorded time (imported)

    @property
    def remaining(self) -> int:
        return self.assigned - self.rated


@dataclass(frozen=True)
class OverlapCoverage:
    planned: int  # overlap items in the plan
    rated_by_two_or_more: int
    rated_by_all_assigned: int

    @property
    def left(self) -> int:
        """Planned overlap items not yet rated by two experts."""
        return self.planned - self.rated_by_two_or_more


@dataclass(frozen=True)
class DimensionAlpha:
    """The team's alpha on one dimension so far, decided against the target."""

    dimension: str
    items: int  # overlap items rated by two experts or more
    alpha: float | None  # None: no figure (``why`` says why)
    low: float | None
    high: float | None
    method: str | None  # of the interval
    decision: Decision
    more_items: int | None  # undecided: about how many more overlap items settle it (None: no practical number)
    why: str  # why there is no figure, or no number of items; "" otherwise


@dataclass(frozen=True)
class TeamAlpha:
    """Is the overlap already enough to tell the team's agreement? Alpha per dimension against the target."""

    measure: str
    settings: AgreementSettings  # the target (team_alpha_target) and the confidence of every interval
    experts: tuple[str, ...]
    dimensions: tuple[DimensionAlpha, ...]
    enough: bool  # every dimension decided
    verdict: str


@dataclass(frozen=True)
class TeamProgress:
    """The plan in force for a rubric and the team's progress on it."""

    plan: str  # the plan's id
    number: int  # among the rubric's plans
    created_at: str
    seed: int
    overlap: float  # share of the items in the overlap
    overlap_raters: int
    per_expert: int | None
    experts: tuple[ExpertProgress, ...]
    overlap_items: OverlapCoverage
    agreement: TeamAlpha


def team_progress(store: Store, rubric: Rubric, settings: AgreementSettings) -> TeamProgress | None:
    """The plan in force for this rubric and the team's progress on it; None when the rubric has no plan."""
    plan = store.current_plan(rubric.id)
    if plan is None:
        return None
    progress = store.assignment_progress(plan["id"])
    experts = []
    for expert in [*plan["experts"], *sorted(set(progress) - set(plan["experts"]))]:
        p = progress.get(expert, {"assigned": 0, "overlap": 0, "rated": 0, "overlap_rated": 0, "skipped": 0,
                                  "seconds": 0.0, "timed": 0})
        experts.append(ExpertProgress(
            expert, p["assigned"], p["rated"], p["skipped"], store.count_flagged(expert, rubric.id, plan=plan["id"]),
            p["overlap"], p["overlap_rated"], round(p["seconds"], 3), p["rated"] - p["timed"]))
    coverage = OverlapCoverage(*store.overlap_coverage(plan["id"]))
    return TeamProgress(
        plan["id"], plan["number"], plan["created_at"], plan["seed"], plan["overlap"], plan["overlap_raters"],
        plan["per_expert"], tuple(experts), coverage,
        _agreement(store, rubric, plan["id"], settings, coverage.left))


def _agreement(store: Store, rubric: Rubric, plan_id: str, settings: AgreementSettings,
               overlap_left: int) -> TeamAlpha:
    import numpy as np

    from judge_tui.stats import assurance
    from judge_tui.stats.agreement import Undefined
    from judge_tui.stats.decisions import MIN_ITEMS_TO_DECIDE, decide
    from judge_tui.stats.raters import alpha_interval

    view = load_team(store, rubric, only_items=store.overlap_item_ids(plan_id), notes=False)
    level: Literal["ordinal", "nominal"] = "ordinal" if rubric.scale.ordered else "nominal"
    points = np.asarray(rubric.scale.points, dtype=np.float64)
    dimensions = []
    for dimension in view.dimensions:
        matrix = view.expert_scores[dimension]
        units = int(np.count_nonzero((~np.isnan(matrix)).sum(axis=0) >= 2))
        found = (alpha_interval(matrix, level, points, settings.confidence, n_boot=RESAMPLES) if len(view.experts) >= 2
                 else Undefined("alpha needs ratings by at least two experts"))
        interval = found if isinstance(found, Undefined) else found[1]
        if isinstance(found, Undefined) or isinstance(interval, Undefined):
            undefined = found if isinstance(found, Undefined) else interval
            assert isinstance(undefined, Undefined)
            dimensions.append(DimensionAlpha(dimension, units, None, None, None, None, "undecided", None,
                                             undefined.reason))
            continue
        value = found[0]
        decision = decide(interval, settings.team_alpha_target, n=units)
        more_items, why = None, ""
        if units < MIN_ITEMS_TO_DECIDE:  # an interval over a handful of items says little
            more_items = MIN_ITEMS_TO_DECIDE - units
            why = f"at least {MIN_ITEMS_TO_DECIDE} items rated by two experts are needed to decide"
        elif decision == "undecided":
            figure = assurance.NormalFigure.from_interval(value, interval.low, interval.high, units,
                                                          settings.team_alpha_target,
                                                          confidence=settings.confidence)
            plan = assurance.plan(figure, ends=(interval.low, interval.high))
            more_items = plan.more
            why = "" if plan.more is not None else (
                f"no practical number of overlap items settles it: alpha ({decimal_text(value, 2)}) sits "
                f"close to the target, "
                f"and even {assurance.PRACTICAL_MORE:,} more give only a "
                f"{share_text(plan.chance_at_limit or 0)} chance")
        dimensions.append(DimensionAlpha(dimension, units, value, interval.low, interval.high, interval.method,
                                         decision, more_items, why))
    decided = bool(dimensions) and all(d.decision != "undecided" for d in dimensions)
    needed = [d.more_items for d in dimensions if d.decision == "undecided"]
    fewest = min((d.items for d in dimensions), default=0)
    if decided:
        verdict = "enough: every dimension's interval is decided against the target"
    elif fewest < MIN_ITEMS_TO_DECIDE:
        verdict = (f"not yet: {plural(fewest, 'overlap item')} rated by two or more experts so far, and at least "
                   f"{MIN_ITEMS_TO_DECIDE} are needed before an interval can decide")
    elif any(n is None for n in needed):
        why = next(d.why for d in dimensions if d.decision == "undecided" and d.more_items is None)
        verdict = f"not yet: {why}"
    else:
        most = max(n for n in needed if n is not None)
        if most <= overlap_left:
            verdict = (f"not yet: about {most} more overlap items give an 80% chance of settling it; "
                       f"{overlap_left} planned overlap items are not yet rated by two experts")
        else:
            verdict = (f"not yet, and the plan may fall short: about {most} more overlap items give an 80% "
                       f"chance of settling it, and {overlap_left} are left in the plan (re-assign with a larger "
                       "--overlap to add more)")
    return TeamAlpha(f"Krippendorff's alpha ({level})", settings, tuple(view.experts), tuple(dimensions),
                     decided, verdict)
