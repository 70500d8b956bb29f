"""What the judge may be used for: the report's first page, computed.

For each judge rater of the comparison (under the newest rubric version it rated in, as every figure of the
report): the decision on each target with its interval and what would settle it (the report's TargetChecks,
with their assurance plans), the alternative annotator test on every judged dimension and the overall score
(stats.alt_test), and the prediction-powered estimate of the pool (stats.prediction_powered): the mean overall
score, each judged dimension's mean and, on a PASS/FAIL rubric, the pass rate over every item the judge rated.
From them, the uses the evidence supports, in plain words (`uses`).

The pool estimate needs the expert-rated items to be a random sample of the pool: a random queue order is; a
balanced order is a known stratified sample, weighted back with the design's stratum weights; import order,
assigned queues and ratings without a recorded draw are not known to be, and the estimate says so.

`every_judge_validity` adds a block for each other judge rater of the rubric (each against the same experts,
under the newest rubric version it rated in), after the judge of the comparison.

The blind rule: the pool estimate is made of items no expert rated, so it is left out when ``judge_only`` is
False (the summary screen), as the corrected pass rate is.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from judge_tui.analysis.queue_orders import judge_strata
from judge_tui.analysis.report import OVERALL, Group, NoComparison, Report, build_report
from judge_tui.analysis.scores import OVERALL_COLUMN, RubricRatings, Scores, item_groups, mean_of
from judge_tui.analysis.targets import TargetCheck
from judge_tui.model import queue_orders as qo
from judge_tui.model.errors import UserError
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats.agreement import Undefined
from judge_tui.stats.alt_test import (
    DEFAULT_Q,
    MIN_EXPERTS_PER_ITEM,
    MIN_ITEMS_PER_EXPERT,
    AltTest,
    Scoring,
    alternative_annotator_test,
)
from judge_tui.stats.prediction_powered import PoolEstimate, prediction_powered_mean
from judge_tui.store import Store

PASS_RATE = "pass_rate"
OVERLAP_ADVICE = (f"rate more items in common: `judge-tui assign` with an overlap of at least "
                  f"{MIN_EXPERTS_PER_ITEM} experts per item, until each expert shares {MIN_ITEMS_PER_EXPERT} "
                  f"items with the judge and another expert")


@dataclass(frozen=True)
class Replacement:
    """The alternative annotator test on one figure (a judged dimension, or the overall score)."""

    key: str
    name: str
    test: AltTest


@dataclass(frozen=True)
class PoolFigure:
    """A pool mean (a dimension's, the overall score's, or the pass rate) by prediction-powered inference."""

    key: str
    name: str
    estimate: PoolEstimate | Undefined


@dataclass(frozen=True)
class JudgeValidity:
    judge: str
    rubric_version: int | None  # the version's number within its rubric (1, 2, ...); None when unknown
    experts: tuple[str, ...]
    targets: tuple[TargetCheck, ...]
    replacement: tuple[Replacement, ...]
    pool: tuple[PoolFigure, ...]  # empty when left out (blind rule) or nothing to estimate
    pool_note: str | None  # how the rated items were drawn, when that limits the pool estimate
    uses: tuple[str, ...]  # plain-word sentences: what the evidence supports, and what it does not
    settle: tuple[str, ...]  # what would settle what is undecided


@dataclass(frozen=True)
class ValidityPage:
    rubric_id: str
    epsilon: float
    q: float
    confidence: float
    judges: tuple[JudgeValidity, ...]
    pool_shown: bool


def _columns(report: Report) -> list[tuple[str, str, int]]:
    """(key, name, column) of every judged dimension, then the overall score."""
    ids = report.rubric.dimension_ids
    found = [(r.key, r.name, ids.index(r.key)) for r in report.rows if r.method == "judged"]
    if report.rubric.scale.kind == "pass_fail" and len(found) == 1:
        found = []  # one PASS/FAIL dimension is the verdict itself: the overall figure says it
    return [*found, (OVERALL, "overall score", OVERALL_COLUMN)]


def _replacement(report: Report, expert_runs: Sequence[Scores], judge_runs: Scores,
                 settings: AgreementSettings) -> tuple[Replacement, ...]:
    keys = np.unique(np.concatenate([s.keys for s in (*expert_runs, judge_runs)]))
    tables = [s.rows_on(keys) for s in expert_runs]
    judge_table = judge_runs.rows_on(keys)
    # Labels are right or wrong (PASS/FAIL, named categories); graded scores are near or far (the authors' choice).
    scoring: Scoring = "accuracy" if report.rubric.scale.kind in ("pass_fail", "categories") else "neg_rmse"
    found = []
    for key, name, column in _columns(report):
        experts = np.vstack([t[:, column] for t in tables]) if tables else np.empty((0, keys.size))
        test = alternative_annotator_test(experts, judge_table[:, column], report.human.rater_ids, scoring=scoring,
                                          epsilon=settings.alt_test_epsilon, q=DEFAULT_Q)
        found.append(Replacement(key, name, test))
    return tuple(found)


def _pool_weights(store: Store, report: Report, judge: str, labelled: np.ndarray, unlabelled: np.ndarray
                  ) -> tuple[np.ndarray | None, np.ndarray | None, str | None]:
    """Design weights for a balanced order's stratified draw (None for a random one), and a note when the
    rated items are not known to be a random sample of the pool."""
    design = report.design
    if design is None:
        return None, None, "draw not recorded; valid only if the rated items are a random sample"
    if design.kind == qo.RANDOM:
        return None, None, None
    if design.kind != qo.BALANCED or design.judge_rater is None:
        rule = {qo.IMPORT: "in import order", qo.ASSIGNED: "from assigned queues"}.get(design.kind, design.kind)
        return None, None, (f"rated {rule}, not at random; valid only if that order is unrelated to quality "
                            "(queue_order random avoids this)")
    # A balanced order: stratum weights from the stratifying judge's verdicts over the whole pool.
    ids_labelled = item_groups(store, report.rubric, "id", labelled, report.split)
    ids_unlabelled = item_groups(store, report.rubric, "id", unlabelled, report.split)
    every = judge_strata(store, report.rubric, design.judge_rater)
    strata_l = [every.get(i, qo.UNJUDGED) for i in ids_labelled]
    strata_u = [every.get(i, qo.UNJUDGED) for i in ids_unlabelled]
    pool = Counter(strata_l) + Counter(strata_u)
    rated, left = Counter(strata_l), Counter(strata_u)
    weights = np.array([pool[s] / rated[s] for s in strata_l])
    unlabelled_weights = np.array([pool[s] / left[s] for s in strata_u])
    note = None if judge == design.judge_rater else (
        f"weighted by the strata of judge {design.judge_rater}, which drew the balanced order")
    return weights, unlabelled_weights, note


def _pool(store: Store, report: Report, expert_runs: Sequence[Scores], judge_runs: Scores, judge: str
          ) -> tuple[tuple[PoolFigure, ...], str | None]:
    consensus = mean_of(list(expert_runs), len(report.rubric.dimension_ids))
    rated = np.isin(judge_runs.keys, consensus.keys)
    labelled, unlabelled = judge_runs.keys[rated], judge_runs.keys[~rated]
    weights, unlabelled_weights, note = _pool_weights(store, report, judge, labelled, unlabelled)
    pass_fail = report.rubric.scale.kind == "pass_fail"
    found = []
    for key, name, column in _columns(report):
        if pass_fail and key == OVERALL:
            key, name = PASS_RATE, "pass rate"
        elif key == OVERALL:
            name = "mean overall score"
        labels = consensus.on(labelled, column)
        predictions = judge_runs.on(labelled, column)
        both = ~np.isnan(labels) & ~np.isnan(predictions)
        others = judge_runs.on(unlabelled, column)
        alone = ~np.isnan(others)
        estimate: PoolEstimate | Undefined
        if both.sum() < 3 or alone.sum() < 1:
            estimate = Undefined(f"needs 3 items rated by both and 1 by the judge alone ({int(both.sum())} and "
                                 f"{int(alone.sum())})")
        else:
            estimate = prediction_powered_mean(
                labels[both], predictions[both], others[alone], confidence=report.confidence,
                weights=None if weights is None else weights[both],
                unlabelled_weights=None if unlabelled_weights is None else unlabelled_weights[alone])
        found.append(PoolFigure(key, name, estimate))
    return tuple(found), note


def uses(report: Report, targets: Sequence[TargetCheck], replacement: Sequence[Replacement],
         pool: Sequence[PoolFigure]) -> tuple[str, ...]:
    """What the evidence supports, in plain words: "may replace an expert on clarity", "may not …"."""
    said: list[str] = []
    passed = [r.name for r in replacement if r.test.passed]
    failed = [r.name for r in replacement if r.test.passed is False]
    unknown = [r.name for r in replacement if r.test.passed is None]
    if passed:
        said.append(f"may replace an expert on {', '.join(passed)}")
    if failed:
        said.append(f"may not replace an expert on {', '.join(failed)}")
    if unknown:
        said.append(f"replacing an expert on {', '.join(unknown)}: not tested, too few shared items")
    estimated = [p for p in pool if not isinstance(p.estimate, Undefined)]
    if estimated and len(estimated) == len(pool):
        said.append("may estimate the pool's " + ("pass rate and means" if any(p.key == PASS_RATE for p in pool)
                                                 else "means") + ", corrected by the experts' ratings")
    elif estimated:
        said.append(f"may estimate the pool's {', '.join(p.name for p in estimated)}, corrected by the experts")
    individual = ("decide individual items' PASS/FAIL" if report.rubric.scale.kind == "pass_fail"
                  else "score individual items")
    decided = [c for c in targets if c.decision is not None]
    missed = [c.figure for c in decided if c.decision == "not met"]
    open_ = [c.figure for c in decided if c.decision == "undecided"]
    if missed:
        said.append(f"may not {individual}: {_listed(missed)} not met")
    elif open_:
        said.append(f"may not yet {individual}: {_listed(open_)} undecided")
    elif decided:
        said.append(f"may {individual}: every target met")
    return tuple(said)


def _listed(figures: Sequence[str]) -> str:
    return ", ".join(figures) if len(figures) <= 2 else f"{figures[0]} and {len(figures) - 1} more targets"


def _settle(targets: Sequence[TargetCheck], replacement: Sequence[Replacement]) -> tuple[str, ...]:
    found = [c.plan_text() for c in targets if c.decision == "undecided" and c.plan_text()]
    if any(r.test.passed is None for r in replacement):
        found.append(f"the alternative annotator test: {OVERLAP_ADVICE}")
    return tuple(found)


def _version_number(store: Store, report: Report, ratings: RubricRatings, judge: str) -> int | None:
    mine = ratings.versions[(ratings.rater == ratings.rater_ids.index(judge)) & (ratings.repeats == 0)]
    if mine.size == 0:
        return None
    newest = int(mine.max())
    numbers = {int(r["id"]): int(r["number"]) for r in store.rubric_versions(report.rubric.id)}
    return numbers.get(newest)


def judge_validity(store: Store, report: Report, ratings: RubricRatings, settings: AgreementSettings, *,
                   judge_only: bool = True) -> ValidityPage:
    """The validity page of a report: one entry per judge rater of the comparison."""
    expert_runs = [ratings.first_runs(e) for e in report.human.rater_ids]
    judges = []
    for judge in report.judge.rater_ids:
        judge_runs = ratings.first_runs(judge)
        replacement = _replacement(report, expert_runs, judge_runs, settings)
        pool, note = _pool(store, report, expert_runs, judge_runs, judge) if judge_only else ((), None)
        targets = report.checks
        judges.append(JudgeValidity(judge, _version_number(store, report, ratings, judge), report.human.rater_ids,
                                    targets, replacement, pool, note, uses(report, targets, replacement, pool),
                                    _settle(targets, replacement)))
    return ValidityPage(report.rubric.id, settings.alt_test_epsilon, DEFAULT_Q, report.confidence, tuple(judges),
                        judge_only)


def every_judge_validity(store: Store, report: Report, ratings: RubricRatings, settings: AgreementSettings, *,
                         judge_only: bool = True) -> ValidityPage:
    """The page of the report's judge first, then a block for every other judge rater of the rubric (each
    against the report's experts), the newest rubric version first, then the most ratings."""
    page = judge_validity(store, report, ratings, settings, judge_only=judge_only)
    if not all(ratings.kinds.get(r) == "judge" for r in report.judge.rater_ids):
        return page  # a comparison of experts (--raters A,B): no judge to add to
    others = [r for r in ratings.raters_of_kind("judge") if r not in report.judge.rater_ids]
    others.sort(key=lambda r: (-(_version_number(store, report, ratings, r) or 0), -ratings.rating_counts(r), r))
    blocks = list(page.judges)
    for judge in others:
        try:
            theirs = build_report(store, report.rubric, human=report.human, judge=Group("judge", (judge,)),
                                  split=report.split, settings=settings, ratings=ratings, judge_only=judge_only)
        except (NoComparison, UserError):
            continue  # this judge rated none of the items the experts rated
        blocks += judge_validity(store, theirs, ratings, settings, judge_only=judge_only).judges
    return dataclasses.replace(page, judges=tuple(blocks))
