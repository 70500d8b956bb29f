"""What the judge may be used for: the report's first page, computed.

A block for each judge rater and each rubric version it rated in, newest version first, computed from that
version's ratings alone (`RubricRatings.at_version`: every rater's first run under it, the judge's and the
experts'): the decision on each target with its interval and what would settle it (the report's TargetChecks,
with their assurance plans), the alternative annotator test on every judged dimension and the overall score
(stats.alt_test), and the estimate of the pool (stats.prediction_powered): the mean overall score and each
judged dimension's mean by PPI++, and on a PASS/FAIL rubric the pass rate split by the judge's verdict, over
every item the judge rated; on nominal categories a share per category, never a mean of their stored
positions. From them, the uses the evidence supports, in plain words (`uses`): a pool figure is offered only
where its interval is narrower than the experts' alone (`offers_pool`). Beside each target, what it is compared
with: the judge against each expert alone and each pair of experts against each other, by the same rules
(`Against`), and an expert who disagrees with every other one (`Dissent`).

Read while ratings come in (``live``: the judge screen and the lead's summary, while items are left to compare),
the targets are decided by the rules valid at any time (analysis/stopping.py); at the end, and in the report,
by the report's fixed-n rules. An earlier version with too few ratings for the alternative annotator test, or
that no expert rated, is one line (`TooFew`) rather than a block of "undecided".

The pool estimate needs the expert-rated items to be a random sample of the pool: a random queue order is; a
balanced order is a known stratified sample, weighted back with the design's stratum weights; import order,
assigned queues and ratings without a recorded draw are not known to be, and the estimate says so.

`judge_validity` makes the blocks of one report as it stands; `validity_by_version` a block per rubric version
of a judge side; `every_judge_validity` those of the judge of the comparison first, then of every other judge
rater of the rubric (each against the same experts).

The blind rule: the pool estimate is made of items no expert rated, so it is left out when ``judge_only`` is
False (the summary screen), as the corrected pass rate is.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from judge_tui.analysis.judge_certificate import CertificateInForce
from judge_tui.analysis.queue_orders import judge_strata
from judge_tui.analysis.report import OVERALL, Group, NoComparison, Report, ReportError, build_report
from judge_tui.analysis.report.anytime import ANYTIME, FIXED_N
from judge_tui.analysis.scores import (
    OVERALL_COLUMN,
    RubricRatings,
    Scores,
    item_groups,
    key_places,
    load,
    mean_of,
)
from judge_tui.analysis.stopping import anytime_checks, items_left
from judge_tui.analysis.targets import TargetCheck
from judge_tui.formats.numbers import plural
from judge_tui.model import queue_orders as qo
from judge_tui.model.errors import UserError
from judge_tui.model.rubrics import Rubric, RubricError, Scale, rubric_from_definition
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats.agreement import Undefined
from judge_tui.stats.alt_test import (
    DEFAULT_Q,
    MIN_EXPERTS_PER_ITEM,
    MIN_ITEMS_PER_EXPERT,
    ONE_EXPERT,
    AltTest,
    Scoring,
    alternative_annotator_test,
)
from judge_tui.stats.intervals import Interval
from judge_tui.stats.prediction_powered import (
    BY_VERDICT,
    PoolEstimate,
    prediction_powered_mean,
    verdict_stratified_rate,
)
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
class PairCheck:
    """A target's figure between two raters alone: an expert (``first``, the reference) and the judge, or two
    experts, computed by the report's own rules (its interval and fixed-n decision)."""

    first: str
    second: str
    check: TargetCheck


@dataclass(frozen=True)
class Against:
    """A target compared with what: the judge against each expert beside each pair of experts."""

    key: str
    goal: str
    judge: tuple[PairCheck, ...]
    experts: tuple[PairCheck, ...]

    @property
    def met_by_experts(self) -> bool:
        return any(p.check.decision == "met" for p in self.experts)


@dataclass(frozen=True)
class Dissent:
    """An expert who agrees with every other expert less than any two of the others agree with each other."""

    expert: str
    figure: str  # the figure it is read on: "κ of label"
    percent: bool
    with_others: tuple[tuple[str, float], ...]  # (other expert, figure)
    among_others: tuple[float, float]  # the lowest and highest figure between two of the others


@dataclass(frozen=True)
class RubricVersion:
    """A rubric version as the rest of the report names it: its number within the rubric (#1, #2, ...), the
    label in the rubric file, and when it was made."""

    id: int  # rubric_versions.id
    number: int
    label: str
    created_at: str
    content_hash: str = ""


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
    version: RubricVersion | None = None  # the rubric version whose ratings alone this block is computed from
    newest: bool = True  # the newest rubric version this judge rated in
    decided: str = FIXED_N  # how the targets are decided: FIXED_N (the report), or ANYTIME (read while rating)
    against: tuple[Against, ...] = ()  # each target, the judge against each expert beside expert against expert
    dissent: tuple[Dissent, ...] = ()  # experts who disagree with every other one


@dataclass(frozen=True)
class TooFew:
    """A judge's rubric version said in one line rather than a block: an earlier version with too few ratings
    for the alternative annotator test, or a version under which the experts rated none of its items."""

    judge: str
    version: RubricVersion
    position: int  # how many blocks come before it on the page
    judged: int  # items the judge rated under this version
    compared: int  # of them, items the experts rated under it too
    reason: str


@dataclass(frozen=True)
class ValidityPage:
    rubric_id: str
    settings: AgreementSettings  # the test's ε (alt_test_epsilon) and the confidence of every interval
    q: float
    judges: tuple[JudgeValidity, ...]  # one block per judge rater and rubric version, newest version first
    pool_shown: bool
    too_few: tuple[TooFew, ...] = ()  # the versions said in one line, in the order of the judges
    certificate: CertificateInForce | None = None  # the judge's certificate in force (the report's page only)

    @property
    def by_version(self) -> bool:
        """Whether the page holds more than one rubric version (then it says that each block is one's)."""
        seen = {b.version.id for b in self.judges if b.version} | {t.version.id for t in self.too_few}
        return len(seen) > 1


def _columns(report: Report) -> list[tuple[str, str, int]]:
    """(key, name, column) of every judged dimension, then the overall score."""
    ids = report.rubric.dimension_ids
    found = [(r.key, r.name, ids.index(r.key)) for r in report.rows if r.method == "judged"]
    if report.rubric.scale.binary and len(found) == 1:
        found = []  # one PASS/FAIL dimension is the verdict itself: the overall figure says it
    return [*found, (OVERALL, "overall score", OVERALL_COLUMN)]


def alt_test_scoring(scale: Scale) -> Scoring:
    """How the alternative annotator test scores a rating against the other experts', as its authors score each
    kind of scale: by the rubric's declared scale, whatever numbers its scores are stored as. Labels are right or
    wrong (PASS/FAIL and categories, ordered or not: accuracy); numbers are near or far (the 0-1 grids and whole
    numbers: negative RMSE)."""
    return "accuracy" if scale.named else "neg_rmse"


def _numbers(scale: Scale, stored: np.ndarray) -> np.ndarray:
    """Stored scores as the numbers of the scale (3 on a scale of 0 to 6, not 0.5), NaN kept: RMSE and its ties
    are then the authors' to the last bit."""
    distinct, where = np.unique(stored.ravel(), return_inverse=True)  # a few scores, each converted once
    numbers = np.array([scale.value(v) if v == v else np.nan for v in distinct], dtype=float)
    return numbers[where].reshape(stored.shape)


def _replacement(report: Report, expert_runs: Sequence[Scores], judge_runs: Scores,
                 settings: AgreementSettings) -> tuple[Replacement, ...]:
    keys = key_places(np.concatenate([s.keys for s in (*expert_runs, judge_runs)]))[0]
    tables = [s.rows_on(keys) for s in expert_runs]
    judge_table = judge_runs.rows_on(keys)
    scale = report.rubric.scale
    scoring = alt_test_scoring(scale)
    found = []
    for key, name, column in _columns(report):
        experts = np.vstack([t[:, column] for t in tables]) if tables else np.empty((0, keys.size))
        test = alternative_annotator_test(_numbers(scale, experts), _numbers(scale, judge_table[:, column]),
                                          report.human.rater_ids, scoring=scoring,
                                          epsilon=settings.alt_test_epsilon, q=DEFAULT_Q)
        found.append(Replacement(key, name, test))
    return tuple(found)


def _pool_design(store: Store, report: Report, judge: str, labelled: np.ndarray, unlabelled: np.ndarray
                 ) -> tuple[np.ndarray | None, np.ndarray | None, str | None]:
    """Each rated and judge-only item's stratum of a balanced order's stratified draw (None for a random one),
    and a note when the rated items are not known to be a random sample of the pool."""
    design = report.design
    if design is None:
        return None, None, "draw not recorded; valid only if the rated items are a random sample"
    if design.kind == qo.RANDOM:
        return None, None, None
    if design.kind != qo.BALANCED or design.judge_rater is None:
        rule = {qo.IMPORT: "in import order", qo.ASSIGNED: "from assigned queues"}.get(design.kind, design.kind)
        return None, None, (f"rated {rule}, not at random; valid only if that order is unrelated to quality "
                            "(queue_order random avoids this)")
    # A balanced order: strata from the stratifying judge's verdicts over the whole pool.
    ids_labelled = item_groups(store, report.rubric, "id", labelled, report.split)
    ids_unlabelled = item_groups(store, report.rubric, "id", unlabelled, report.split)
    every = judge_strata(store, report.rubric, design.judge_rater)
    strata_l = np.array([every.get(i, qo.UNJUDGED) for i in ids_labelled], dtype=str)
    strata_u = np.array([every.get(i, qo.UNJUDGED) for i in ids_unlabelled], dtype=str)
    note = None if judge == design.judge_rater else (
        f"weighted by the strata of judge {design.judge_rater}, which drew the balanced order")
    return strata_l, strata_u, note


def _design_weights(strata: np.ndarray, unlabelled_strata: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each item's weight in a stratified draw: its stratum's size in the pool over its count among them."""
    pool = Counter(strata.tolist()) + Counter(unlabelled_strata.tolist())
    rated, left = Counter(strata.tolist()), Counter(unlabelled_strata.tolist())
    return (np.array([pool[s] / rated[s] for s in strata.tolist()]),
            np.array([pool[s] / left[s] for s in unlabelled_strata.tolist()]))


def _verdicts(*scores: np.ndarray) -> bool:
    """Whether every score is PASS (1) or FAIL (0): a PASS/FAIL rubric's overall score of several dimensions
    is their weighted mean, which is not a verdict."""
    return all(bool(np.all(np.isin(s, (0.0, 1.0)))) for s in scores)


def _is_category(scores: Scores, point: float) -> Scores:
    """1 where the score is the category at ``point``, 0 where another, NaN where unscored."""
    def hit(values: np.ndarray) -> np.ndarray:
        return np.where(np.isnan(values), np.nan, np.isclose(values, point, rtol=0.0, atol=1e-9).astype(float))
    return Scores(scores.keys, hit(scores.scores), hit(scores.overall))


def _pool_figures(report: Report, expert_runs: Sequence[Scores], consensus: Scores, judge_runs: Scores
                  ) -> list[tuple[str, str, Scores, Scores, int]]:
    """Each figure of the pool estimate: (key, name, the experts' figure per item, the judge's, column). A mean
    per judged dimension and of the overall score (on PASS/FAIL, the pass rate); on nominal categories, whose
    stored positions are names, never a mean: the share of each category (the experts' figure of an item is
    the share of them who named it), per judged dimension (the overall is the one dimension's category).
    ``consensus``: the experts' mean per item (mean_of), made once for every column."""
    rubric = report.rubric
    found = []
    for key, name, column in _columns(report):
        if rubric.scale.nominal:
            if key == OVERALL and len(_columns(report)) > 1:
                continue  # the overall is the one judged dimension's category, said above
            for category, point in zip(rubric.scale.categories, rubric.scale.points, strict=True):
                experts = mean_of([_is_category(s, point) for s in expert_runs], len(rubric.dimension_ids))
                found.append((f"{key}={category}", f"{name}: {category}", experts, _is_category(judge_runs, point),
                              column))
            continue
        if rubric.scale.binary and key == OVERALL:
            key, name = PASS_RATE, "pass rate"
        elif key == OVERALL:
            name = "mean overall score"
        found.append((key, name, consensus, judge_runs, column))
    return found


def _pool(store: Store, report: Report, expert_runs: Sequence[Scores], judge_runs: Scores, judge: str
          ) -> tuple[tuple[PoolFigure, ...], str | None]:
    consensus = mean_of(list(expert_runs), len(report.rubric.dimension_ids))
    rated = np.isin(judge_runs.keys, consensus.keys)
    labelled, unlabelled = judge_runs.keys[rated], judge_runs.keys[~rated]
    strata, unlabelled_strata, note = _pool_design(store, report, judge, labelled, unlabelled)
    pass_fail = report.rubric.scale.binary
    points = report.rubric.scale.points
    # A category's share lies in [0, 1]; a mean, within the scale's points.
    bounds = (0.0, 1.0) if report.rubric.scale.nominal else (min(points), max(points))
    found = []
    for key, name, experts, judged, column in _pool_figures(report, expert_runs, consensus, judge_runs):
        labels = experts.on(labelled, column)
        predictions = judged.on(labelled, column)
        both = ~np.isnan(labels) & ~np.isnan(predictions)
        others = judged.on(unlabelled, column)
        alone = ~np.isnan(others)
        estimate: PoolEstimate | Undefined
        if both.sum() < 3 or alone.sum() < 1:
            estimate = Undefined(f"needs 3 items rated by both and 1 by the judge alone ({int(both.sum())} and "
                                 f"{int(alone.sum())})")
        elif pass_fail and _verdicts(predictions[both], others[alone]):  # split by the judge's verdict
            estimate = verdict_stratified_rate(
                labels[both], predictions[both], others[alone], confidence=report.settings.confidence,
                strata=None if strata is None else strata[both],
                unlabelled_strata=None if unlabelled_strata is None else unlabelled_strata[alone])
        else:
            weights = unlabelled_weights = None
            if strata is not None and unlabelled_strata is not None:
                weights, unlabelled_weights = _design_weights(strata[both], unlabelled_strata[alone])
            estimate = prediction_powered_mean(
                labels[both], predictions[both], others[alone], confidence=report.settings.confidence,
                weights=weights, unlabelled_weights=unlabelled_weights, bounds=bounds)
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
        why = ("one expert only" if all(r.test.untested == ONE_EXPERT for r in replacement if r.test.passed is None)
               else "too few shared items")
        said.append(f"replacing an expert on {', '.join(unknown)}: not tested, {why}")
    said += _pool_uses(pool, nominal=report.rubric.scale.nominal)
    individual = ("decide individual items' PASS/FAIL" if report.rubric.scale.binary
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


def offers_pool(estimate: PoolEstimate) -> bool:
    """Whether the page offers the corrected pool figure rather than the experts alone.

    A pass rate split by the judge's verdict: whenever the judge gave both verdicts over the pool. Its interval
    covers in every cell measured and is narrower than the experts' alone on average in each
    (benchmarks/bench_pool_estimate.py); choosing, study by study, whichever interval came out narrower would
    pick the experts' precisely when their sample looks surest, and that choice covered less than either
    interval alone (88.5% at 90% PASS and 25 rated items). Where it errs on the wide side (above 97%: judges
    that rarely err, or err one way only) no rule measured does better: the experts alone where the rated items
    show fewer than two disagreements fell below 93% in 3 cells and stayed above 97% in 12, and smaller priors or
    the shortest interval fell below 93% elsewhere. A judge with one verdict for every item splits
    nothing: the two figures are then one.
    A PPI++ mean: where its interval is the narrower (λ is tuned to make it so; at 0 it is the experts' mean).
    """
    if estimate.method == BY_VERDICT:
        return 0.0 < estimate.judge_only < 1.0
    return estimate.narrower_by > 0


def _pool_uses(pool: Sequence[PoolFigure], *, nominal: bool = False) -> list[str]:
    """Which pool figures to take from the judge corrected by the experts, and which from the experts alone
    (`offers_pool`); on nominal categories they are shares, never means."""
    said = []
    helps = [p for p in pool if isinstance(p.estimate, PoolEstimate) and offers_pool(p.estimate)]
    no_help = [p.name for p in pool if isinstance(p.estimate, PoolEstimate) and not offers_pool(p.estimate)]
    if helps and len(helps) == len(pool):
        rate, means = any(p.key == PASS_RATE for p in pool), any(p.key != PASS_RATE for p in pool)
        what = ("category shares" if nominal  # names, never averaged
                else "pass rate and means" if rate and means else "pass rate" if rate else "means")
        said.append(f"may estimate the pool's {what}, corrected by the experts' ratings")
    elif helps:
        said.append(f"may estimate the pool's {', '.join(p.name for p in helps)}, corrected by the experts")
    if no_help:
        said.append(f"for the pool's {', '.join(no_help)}, use the experts alone: the judge's ratings do not "
                    "narrow the interval")  # by verdict: one verdict for every item, so the two are one figure
    return said


def _listed(figures: Sequence[str]) -> str:
    return ", ".join(figures) if len(figures) <= 2 else f"{figures[0]} and {len(figures) - 1} more targets"


def _settle(targets: Sequence[TargetCheck], replacement: Sequence[Replacement]) -> tuple[str, ...]:
    found = [c.plan_text() for c in targets if c.decision == "undecided" and c.plan_text()]
    if any(r.test.passed is None for r in replacement):
        found.append(f"the alternative annotator test: {OVERLAP_ADVICE}")
    return tuple(found)


def _pair_checks(store: Store, report: Report, ratings: RubricRatings, settings: AgreementSettings,
                 first: str, second: str) -> dict[str, PairCheck]:
    """The report's targets between two raters alone, by key (none when they share no item)."""
    try:
        alone = build_report(store, report.rubric, human=Group("human", (first,)), judge=Group("judge", (second,)),
                             split=report.split, settings=settings, ratings=ratings, judge_only=False,
                             checks_only=True, plans=False)
    except (ReportError, UserError):
        return {}
    return {c.key: PairCheck(first, second, c) for c in alone.checks}


def _expert_pairs(store: Store, report: Report, ratings: RubricRatings, settings: AgreementSettings
                  ) -> list[dict[str, PairCheck]]:
    experts = report.human.rater_ids
    return [_pair_checks(store, report, ratings, settings, a, b)
            for i, a in enumerate(experts) for b in experts[i + 1:]]


def _against(store: Store, report: Report, ratings: RubricRatings, settings: AgreementSettings, judge: str,
             targets: Sequence[TargetCheck], pairs: Sequence[dict[str, PairCheck]]) -> tuple[Against, ...]:
    """Each target the page decides: the judge against each expert alone beside each pair of experts."""
    if len(report.human.rater_ids) < 2:
        return ()  # one expert: nobody to compare them with
    alone = [_pair_checks(store, report, ratings, settings, e, judge) for e in report.human.rater_ids]
    found = []
    for c in targets:
        judged = tuple(a[c.key] for a in alone if c.key in a and a[c.key].check.decision is not None)
        among = tuple(p[c.key] for p in pairs if c.key in p and p[c.key].check.decision is not None)
        if among:
            found.append(Against(c.key, c.goal, judged, among))
    return tuple(found)


def _dissent(report: Report, pairs: Sequence[dict[str, PairCheck]]) -> tuple[Dissent, ...]:
    """Experts who agree with every other expert clearly less than any two of the others agree with each other:
    each of their figures' intervals below every figure between two others, and each of those figures'
    intervals above every one of theirs (read on the first κ target, else alignment; needs three experts)."""
    experts = report.human.rater_ids
    key = next((c.key for c in report.checks if c.key.startswith("kappa:")), "alignment")
    checks = {(p[key].first, p[key].second): p[key].check for p in pairs
              if key in p and isinstance(p[key].check.estimate, float) and isinstance(p[key].check.interval, Interval)}
    if len(experts) < 3 or len(checks) < 3:
        return ()
    found = []
    for e in experts:
        mine = {(b if a == e else a): c for (a, b), c in checks.items() if e in (a, b)}
        others = [c for (a, b), c in checks.items() if e not in (a, b)]
        if len(mine) < len(experts) - 1 or not others:
            continue
        highs = [c.interval.high for c in mine.values() if isinstance(c.interval, Interval)]
        lows = [c.interval.low for c in others if isinstance(c.interval, Interval)]
        values = {name: float(c.estimate) for name, c in mine.items() if isinstance(c.estimate, float)}
        among = [float(c.estimate) for c in others if isinstance(c.estimate, float)]
        if max(highs) < min(among) and max(values.values()) < min(lows):
            figure = next(c for c in report.checks if c.key == key)
            found.append(Dissent(e, figure.figure, figure.percent, tuple(values.items()), (min(among), max(among))))
    return tuple(found)


def decided_at_any_time(report: Report, left: dict[str, int] | None = None) -> tuple[TargetCheck, ...]:
    """The report's targets as a page read while ratings come in shows them: each decided by the rule valid at
    any time (analysis/stopping.py), with that rule's interval; a plan only where the fixed-n rule is undecided
    too (what it asks for settles the report read once at the end)."""
    found = []
    for a in anytime_checks(report, left):
        c = a.check
        if a.decision is None or not isinstance(c.interval, Interval):
            found.append(c)  # nothing to decide on: the figure's own reason stands
            continue
        interval = (Undefined(a.reading) if a.interval is None
                    else Interval(a.interval[0], a.interval[1], ANYTIME, c.interval.confidence))
        keep_plan = a.decision == "undecided" and c.decision == "undecided"
        found.append(dataclasses.replace(c, interval=interval, decision=a.decision,
                                         plan=c.plan if keep_plan else None,
                                         more_items=c.more_items if keep_plan else None,
                                         more_of_class=c.more_of_class if keep_plan else None))
    return tuple(found)


def ratings_coming_in(store: Store, report: Report) -> bool:
    """Whether items of some target's scope are still to be compared: a page read now is read while ratings come
    in, so it decides at any time; once every item is compared the study's size is fixed and the report's
    fixed-n decisions hold."""
    return any(n > 0 for n in items_left(store, report.rubric, report).values())


def _version_number(store: Store, report: Report, ratings: RubricRatings, judge: str) -> int | None:
    mine = ratings.versions_of(judge)  # newest first, in the store's order of versions (never by row id)
    if not mine:
        return None
    newest = mine[0]
    numbers = {int(r["id"]): int(r["number"]) for r in store.rubric_versions(report.rubric.id)}
    return numbers.get(newest)


def judge_validity(store: Store, report: Report, ratings: RubricRatings, settings: AgreementSettings, *,
                   judge_only: bool = True, live: bool = False) -> ValidityPage:
    """The validity page of a report: one entry per judge rater of the comparison. ``live``: read while ratings
    come in (the judge and summary screens), so the targets are decided by the rules valid at any time."""
    expert_runs = [ratings.first_runs(e) for e in report.human.rater_ids]
    judges = []
    targets = decided_at_any_time(report, items_left(store, report.rubric, report)) if live else report.checks
    pairs = _expert_pairs(store, report, ratings, settings)
    dissent = _dissent(report, pairs)
    for judge in report.judge.rater_ids:
        judge_runs = ratings.first_runs(judge)
        replacement = _replacement(report, expert_runs, judge_runs, settings)
        pool, note = _pool(store, report, expert_runs, judge_runs, judge) if judge_only else ((), None)
        judges.append(JudgeValidity(judge, _version_number(store, report, ratings, judge), report.human.rater_ids,
                                    targets, replacement, pool, note, uses(report, targets, replacement, pool),
                                    _settle(targets, replacement), decided=ANYTIME if live else FIXED_N,
                                    against=_against(store, report, ratings, settings, judge, targets, pairs),
                                    dissent=dissent))
    return ValidityPage(report.rubric.id, settings, DEFAULT_Q, tuple(judges),
                        judge_only)


def _versions(store: Store, rubric_id: str) -> dict[int, RubricVersion]:
    return {int(r["id"]): RubricVersion(int(r["id"]), int(r["number"]), str(r["version"] or ""),
                                        str(r["created_at"] or ""), str(r["content_hash"] or ""))
            for r in store.rubric_versions(rubric_id)}


def _under(store: Store, report: Report, ratings: RubricRatings, version: RubricVersion
           ) -> tuple[Rubric, RubricRatings]:
    """The version's own definition (its dimensions, scale and overall score may differ from the one in force)
    and its ratings alone, read under that definition when its dimensions differ."""
    rubric = report.rubric
    if version.content_hash and version.content_hash != rubric.content_hash:
        try:
            definition = store.rubric_definition(version.id)
            if definition is not None:
                rubric = rubric_from_definition(definition, f"{store.path} (rubric {rubric.id} #{version.number})")
        except RubricError:
            pass  # recorded by a judge-tui that wrote it differently: the definition in force reads its scores
    if rubric.dimension_ids == ratings.rubric.dimension_ids:
        return rubric, ratings.at_version(version.id)
    # Its scores are under other dimension ids: read them again, on the same items (the blind rule's, if any).
    again = load(store, rubric, ratings.split)
    return rubric, again.restricted_to(np.unique(ratings.item_keys)).at_version(version.id)


def _too_few(block: JudgeValidity) -> str | None:
    """Why an earlier version's block is one line: the alternative annotator test ran on no figure (too few
    items shared by the judge and each expert). The line keeps the decisions the targets did reach."""
    if not block.replacement or any(r.test.passed is not None for r in block.replacement):
        return None
    first = block.replacement[0].test
    if first.untested == ONE_EXPERT:
        said = [f"replacing an expert not tested: {ONE_EXPERT}"]
    else:
        most = max((n for r in block.replacement for _, n in r.test.too_few_items), default=0)
        said = [f"too few to test replacing an expert ({most} per expert, needs {first.min_items_per_expert})"]
    for decision in ("met", "not met"):
        figures = [c.figure for c in block.targets if c.decision == decision]
        if figures:
            said.append(f"{', '.join(figures)} {decision}")
    undecided = sum(c.decision == "undecided" for c in block.targets)
    if undecided:
        said.append(f"{plural(undecided, 'target')} undecided")
    return "; ".join(said)


def validity_by_version(store: Store, report: Report, ratings: RubricRatings, settings: AgreementSettings, *,
                        sides: Sequence[Group] | None = None, judge_only: bool = True,
                        live: bool = False) -> ValidityPage:
    """A block for each judge side (default: the report's judge group) and each rubric version it rated in,
    newest first, each computed from that version's ratings alone: every rater's first run under it (the
    judge's and the experts'), its own targets, alternative annotator test and pool estimate. An earlier version
    with too few ratings for the alternative annotator test, or that no expert rated, is one line (`TooFew`)."""
    known = _versions(store, report.rubric.id)
    blocks: list[JudgeValidity] = []
    too_few: list[TooFew] = []
    read: dict[int, tuple[Rubric, RubricRatings]] = {}  # each version's definition and ratings, read once
    for side in sides if sides is not None else (report.judge,):
        ids = sorted({v for r in side.rater_ids for v in ratings.versions_of(r)},
                     key=lambda v: -(known[v].number if v in known else 0))
        whole = True  # the side's first block is always whole, even if it decides nothing
        for version_id in ids:
            version = known.get(version_id, RubricVersion(version_id, 0, "", ""))
            if version_id not in read:
                read[version_id] = _under(store, report, ratings, version)
            made = _version_blocks(store, report, ratings, settings, side, version, read[version_id],
                                   newest=version_id == ids[0], whole=whole, judge_only=judge_only, live=live)
            if isinstance(made, TooFew):
                too_few.append(dataclasses.replace(made, position=len(blocks)))
            else:
                blocks += made
                whole = False
    return ValidityPage(report.rubric.id, settings, DEFAULT_Q, tuple(blocks),
                        judge_only, tuple(too_few))


def _version_blocks(store: Store, report: Report, ratings: RubricRatings, settings: AgreementSettings,
                    side: Group, version: RubricVersion, read: tuple[Rubric, RubricRatings], *, newest: bool,
                    whole: bool, judge_only: bool, live: bool) -> tuple[JudgeValidity, ...] | TooFew:
    """The blocks of one judge side under one rubric version (``read``: its definition and ratings alone), or
    the line that says why there are none (``whole``: never a line for too few ratings)."""
    rubric, at = read
    judged = key_places(np.concatenate([at.first_runs(r).keys for r in side.rater_ids]))[0]
    experts = tuple(e for e in report.human.rater_ids if at.rating_counts(e) > 0)
    shared = key_places(np.concatenate([np.empty(0, np.int64), *(at.first_runs(e).keys for e in experts)]))[0]
    compared = int(np.count_nonzero(np.isin(judged, shared)))
    name = ", ".join(side.rater_ids)
    if compared == 0:
        return TooFew(name, version, 0, int(judged.size), 0,
                      "no expert rated them under it (the figures after this page compare across versions)")
    # Every rating is of this version, read under the definition in force: the report's own figures are its.
    if (rubric is report.rubric and side == report.judge and experts == report.human.rater_ids
            and bool(np.all(ratings.versions == version.id))):
        theirs = report
    else:
        try:
            theirs = build_report(store, rubric, human=Group(report.human.role, experts), judge=side,
                                  split=report.split, settings=settings, ratings=at, judge_only=judge_only,
                                  checks_only=True, plans=True)
        except (NoComparison, UserError) as exc:
            return TooFew(name, version, 0, int(judged.size), compared, str(exc))
    made = tuple(dataclasses.replace(b, rubric_version=version.number or None, version=version, newest=newest)
                 for b in judge_validity(store, theirs, at, settings, judge_only=judge_only, live=live).judges)
    reason = None if whole or len(made) != 1 else _too_few(made[0])
    return made if reason is None else TooFew(name, version, 0, int(judged.size), compared, reason)


def every_judge_validity(store: Store, report: Report, ratings: RubricRatings, settings: AgreementSettings, *,
                         judge_only: bool = True) -> ValidityPage:
    """The report's judge first, then every other judge rater of the rubric (each against the report's
    experts, the newest rubric version first, then the most ratings); for each, a block per rubric version
    (validity_by_version)."""
    sides = [report.judge]
    if all(ratings.kinds.get(r) == "judge" for r in report.judge.rater_ids):  # not a comparison of experts
        others = [r for r in ratings.raters_of_kind("judge") if r not in report.judge.rater_ids]
        others.sort(key=lambda r: (-(_version_number(store, report, ratings, r) or 0), -ratings.rating_counts(r),
                                   r))
        sides += [Group("judge", (r,)) for r in others]
    return validity_by_version(store, report, ratings, settings, sides=sides, judge_only=judge_only)
