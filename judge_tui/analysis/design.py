"""The sampling design behind the compared ratings, and the figures weighted back to the pool.

The store records how each first rating's item was drawn (rating_draws). When the human group rated in
balanced order, the rare verdicts of the judge are over-sampled on purpose; each compared item then counts
with the weight of its stratum, stratum size in the pool ÷ items rated in it, and every figure below is the
design-weighted one.

Every interval is for the judge on items like these, as import and random order's are, never for the pool:
the pool is a sample of such items and the rated items a stratified sample of the pool (two-phase sampling),
so a figure's uncertainty has the stratified sample's part, without a finite-population correction, and the
pool's own. Shares (TPR, TNR, accuracy, alignment) take the two-phase stratified Jeffreys posterior
(stats.intervals.stratified_share), which is honest at the boundary (no point from a stratum that showed no
miss yet) and, with every item rated, Jeffreys' interval of the plain share; the corrected pass rate draws TPR
and TNR together from it; kappa, AC1 and r a two-phase stratified bootstrap (the pool's strata drawn again,
then each stratum resampled on its own). With every item rated, a balanced order's figures are then the
plain ones with the same width as import order's: what it earns is its allocation, not certainty. Wilson's
interval at Kish's effective sample size was too narrow: with 0-2 misses seen in a stratum weighing 3-5 times,
it covered TNR in 84-92% of simulated studies instead of 95% (docs/benchmarks.md). With import or random
order every weight is 1 and the report's own figures are the design's: nothing is recomputed.

Strata are the judge's verdicts (queue_orders.judge_strata) by the judge the order was stratified by.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from judge_tui.analysis.queue_orders import judge_strata
from judge_tui.analysis.scores import OVERALL_COLUMN, Pairing, agreeing, item_groups
from judge_tui.analysis.targets import TargetCheck, check
from judge_tui.formats.numbers import decimal_text
from judge_tui.model import queue_orders as qo
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats import agreement as ag
from judge_tui.stats import intervals as iv
from judge_tui.stats.agreement import Figure, Undefined
from judge_tui.stats.intervals import Interval, IntervalFigure
from judge_tui.store import Store


@dataclass(frozen=True)
class WeightedFigure:
    key: str  # tpr, tnr, accuracy, alignment_rate, cohen_kappa, ac1, pearson_r
    label: str
    estimate: Figure
    interval: IntervalFigure
    n: float = 0.0  # the effective number of items behind it (Kish, over the items it counts)


@dataclass(frozen=True)
class Design:
    kind: str  # the order the compared ratings were drawn in: import, random, balanced (or assigned)
    judge_rater: str | None  # the judge whose verdicts stratify a balanced order
    drawn: int  # compared items with a recorded draw
    pool: dict[str, int] = field(default_factory=dict)  # stratum -> items of the rubric (split) in it
    rated: dict[str, int] = field(default_factory=dict)  # stratum -> compared items in it
    effective_n: float = 0.0
    figures: tuple[WeightedFigure, ...] = ()  # balanced only: the design-weighted figures
    strata: np.ndarray | None = None  # balanced only: per compared item, its stratum and its weight
    weights: np.ndarray | None = None

    @property
    def weighted(self) -> bool:
        return self.kind == qo.BALANCED


def design_weights(strata: Sequence[str], pool: dict[str, int]) -> np.ndarray:
    """One weight per item: its stratum's size in the pool ÷ the items of that stratum at hand."""
    rated = Counter(strata)
    return np.array([pool.get(s, rated[s]) / rated[s] for s in strata], dtype=np.float64)


def sampling_design(store: Store, rubric: Rubric, human_ids: Sequence[str], pairing: Pairing, split: str | None,
                    settings: AgreementSettings, *, rates_only: bool = False) -> Design | None:
    """The design of the compared items' draws, its figures at the settings' tolerance and confidence; None when
    none was recorded (rated before queue orders).
    ``rates_only``: of the weighted figures only TPR and TNR (the test split's design, whose other figures
    no target reads)."""
    draws = {d.item_id: d for d in store.draws(rubric.id, human_ids)}
    if not draws:  # none recorded: the items' ids (a read of every item) are not needed
        return None
    ids = item_groups(store, rubric, "id", pairing.keys, split)
    compared = [draws[i] for i in ids if i in draws]
    if not compared:
        return None
    kinds = Counter(d.kind for d in compared)
    kind = qo.BALANCED if kinds[qo.BALANCED] else kinds.most_common(1)[0][0]
    n = int(pairing.keys.size)
    if kind != qo.BALANCED:
        return Design(kind, None, len(compared), effective_n=float(n))
    judge = Counter(d.judge_rater for d in compared if d.kind == qo.BALANCED).most_common(1)[0][0]
    every = judge_strata(store, rubric, judge)
    in_pool = ({item.id for item in store.iter_items(rubric.id, split)} if split else set(every))
    pool = Counter(s for i, s in every.items() if i in in_pool)
    strata = [every.get(i, qo.UNJUDGED) for i in ids]
    weights = design_weights(strata, pool)
    figures = (pass_fail_rates(rubric, pairing, np.array(strata), weights, pool, settings) if rates_only
               else weighted_figures(rubric, pairing, np.array(strata), weights, pool, settings))
    return Design(kind, judge, len(compared), dict(sorted(pool.items())), dict(sorted(Counter(strata).items())),
                  iv.effective_sample_size(weights), figures, np.array(strata), weights)


def with_corrected_pass_rate(design: Design, pairing: Pairing, observed: float, n_judge_only: int,
                             settings: AgreementSettings) -> Design:
    """Add the corrected pass rate of the judge-only items (Rogan-Gladen) from the weighted TPR and TNR. Its
    interval draws TPR and TNR together from the two-phase stratified posterior (every stratum one judge
    verdict, PASS or FAIL, as a balanced order's strata are) and the judge-only pass rate from its posterior
    (ag.judge_only_pass_rates); a two-phase stratified bootstrap where a stratum mixes the compared judge's
    verdicts (another judge stratified the order)."""
    assert design.strata is not None and design.weights is not None
    a, b = pairing.a.column(OVERALL_COLUMN), pairing.b.column(OVERALL_COLUMN)
    scored = ~np.isnan(a) & ~np.isnan(b)
    human_pass = ag.snap_to_scale(a[scored], ag.BINARY_SCALE)[0] == ag.PASS
    judge_pass = ag.snap_to_scale(b[scored], ag.BINARY_SCALE)[0] == ag.PASS
    rng = np.random.default_rng(iv.DEFAULT_SEED)

    def corrected(w: np.ndarray, resampled: bool = True) -> np.ndarray:
        tpr = iv.weighted_share(w, human_pass & judge_pass, human_pass)
        tnr = iv.weighted_share(w, ~human_pass & ~judge_pass, ~human_pass)
        seen = ag.judge_only_pass_rates(observed, n_judge_only, w.shape[0], rng) if resampled else observed
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(tpr + tnr > 1.0, ag.rogan_gladen(seen, tpr, tnr), np.nan)

    weights, strata = design.weights[scored], design.strata[scored]
    value = float(corrected(weights[None, :], resampled=False)[0])
    label = "corrected pass rate"
    if not np.isfinite(value):
        why = Undefined("TPR + TNR is not above 1 on the weighted figures: the judge's labels cannot be corrected")
        figure = WeightedFigure("corrected_pass_rate", label, why, why)
    else:
        drawn = _stratified_tpr_tnr(design, strata, human_pass, judge_pass)
        if drawn is None:
            replicates = iv.bootstrap(corrected, weights.size, strata=strata, design_weights=weights,
                                      pool=design.pool)
            method = "stratified bootstrap"
        else:
            tpr, tnr = drawn
            seen = ag.judge_only_pass_rates(observed, n_judge_only, tpr.size, rng)
            with np.errstate(invalid="ignore", divide="ignore"):
                replicates = np.where(tpr + tnr > 1.0, ag.rogan_gladen(seen, tpr, tnr), np.nan)
            method = STRATIFIED
        figure = WeightedFigure("corrected_pass_rate", label, value,
                                iv.percentile_interval(replicates, settings.confidence, method=method, low=0.0, high=1.0),
                                float(n_judge_only))
    return replace(design, figures=(*design.figures, figure))


def _stratified_tpr_tnr(design: Design, strata: np.ndarray, human_pass: np.ndarray, judge_pass: np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray] | None:
    """Draws of the judge's TPR and TNR together, or None unless every stratum is one judge verdict."""
    pool = {name: size for name, size in design.pool.items() if name != qo.UNJUDGED}
    if set(pool) - {"PASS", "FAIL"} or any(
            np.any(judge_pass[strata == name] != (name == "PASS")) for name in np.unique(strata)):
        return None
    either = [(0.0, 1.0), (1.0, 1.0)]  # (human PASS, item) of an item of the stratum
    totals = iv.stratified_totals(strata, human_pass, np.ones(human_pass.size), pool,
                                  categories={name: either for name in pool})
    none = np.zeros((iv.STRATIFIED_DRAWS, 2))
    passed, failed = totals.get("PASS", none), totals.get("FAIL", none)  # by the judge
    true_pass, false_fail = passed[:, 0], failed[:, 0]
    false_pass, true_fail = passed[:, 1] - passed[:, 0], failed[:, 1] - failed[:, 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        return true_pass / (true_pass + false_fail), true_fail / (true_fail + false_pass)


def _figure(key: str, label: str, statistic: iv.WeightedStatistic, weights: np.ndarray, strata: np.ndarray,
            pool: dict[str, int], settings: AgreementSettings) -> WeightedFigure:
    value = float(statistic(weights[None, :])[0])
    if not np.isfinite(value):
        why = Undefined("not defined on the compared items")
        return WeightedFigure(key, label, why, why)
    replicates = iv.bootstrap(statistic, weights.size, strata=strata, design_weights=weights, pool=pool)
    interval = iv.percentile_interval(replicates, settings.confidence, method=STRATIFIED_BOOTSTRAP)
    if isinstance(interval, Interval) and interval.high - interval.low < 1e-12:
        # Every resample the same (r = 1 on items on one line): a point would claim certainty about the judge.
        interval = Undefined(f"no interval: every resample of the compared items gives "
                             f"{decimal_text(value, 3)}; items that "
                             "differ more will give one")
    return WeightedFigure(key, label, value, interval, iv.effective_sample_size(weights))


STRATIFIED = "stratified Jeffreys (two-phase)"
STRATIFIED_BOOTSTRAP = "stratified bootstrap (two-phase)"


def weighted_share_figure(key: str, label: str, hits: np.ndarray, counted: np.ndarray, weights: np.ndarray,
                          strata: np.ndarray, pool: dict[str, int], settings: AgreementSettings,
                          categories: dict[str, list[tuple[float, float]]] | None = None) -> WeightedFigure:
    """A design-weighted share (TPR, TNR, accuracy, alignment) with the two-phase stratified Jeffreys interval
    (a percentile bootstrap of a share that is all hits in a few items would claim certainty). Its n is the
    design's effective number of scores, share·(1 − share) ÷ its two-phase variance (Kish's where the share
    is 0 or 1 and that has no variance to read)."""
    hits, counted = np.asarray(hits, dtype=np.float64), np.asarray(counted, dtype=np.float64)
    mass = weights @ counted
    if mass <= 0:
        why = Undefined("no compared item is counted in it")
        return WeightedFigure(key, label, why, why)
    value = float(weights @ hits / mass)
    judged = {name: size for name, size in pool.items() if name != qo.UNJUDGED}  # never compared items
    variance = iv.two_phase_variance(strata, hits, counted, judged)
    if 0.0 < value < 1.0 and variance > 0:
        n = value * (1.0 - value) / variance
    else:  # Kish's n over the scores counted (an item counting c scores weighs c times)
        n = float(mass**2 / ((weights * counted) ** 2 / np.maximum(counted, 1)).sum())
    draws = iv.stratified_share(strata, hits, counted, judged, categories=categories)
    interval = iv.percentile_interval(draws, settings.confidence, method=STRATIFIED, low=0.0, high=1.0)
    return WeightedFigure(key, label, value, interval, n)


def _all_agreed(kappa: WeightedFigure, ac1: WeightedFigure, codes: np.ndarray, weights: np.ndarray, k: int,
                settings: AgreementSettings) -> tuple[WeightedFigure, WeightedFigure]:
    """Kappa's and AC1's intervals when every compared item agreed: Wilson's for the agreement at the effective
    sample size, chance agreement held fixed (as the report's own kappa interval does)."""
    share = np.bincount(codes, weights=weights, minlength=k) / weights.sum()  # both raters' share, the same
    n = iv.effective_sample_size(weights)
    found = []
    for figure, chance in ((kappa, float((share * share).sum())), (ac1, float((share * (1 - share)).sum() / (k - 1)))):
        if chance < 1.0 and ag.is_defined(figure.estimate):
            figure = replace(figure, interval=iv.chance_held_interval(1.0, chance, n, settings.confidence), n=n)
        found.append(figure)
    return found[0], found[1]


def _codes(scores: np.ndarray, points: Sequence[float]) -> np.ndarray:
    return np.searchsorted(points, ag.snap_to_scale(scores, points)[0])


def _kappa_and_ac1(key: str, label: str, ca: np.ndarray, cb: np.ndarray, k: int, w: np.ndarray, s: np.ndarray,
                   pool: dict[str, int], settings: AgreementSettings) -> tuple[WeightedFigure, WeightedFigure]:
    kappa = _figure(key, f"κ{label}", lambda v: iv.weighted_kappa(v, ca, cb, k), w, s, pool, settings)
    ac1 = _figure(key.replace("cohen_kappa", "ac1"), f"AC1{label}", lambda v: iv.weighted_ac1(v, ca, cb, k), w, s,
                  pool, settings)
    if np.all(ca == cb):  # every item agreed: every resample is 1, which would claim certainty
        kappa, ac1 = _all_agreed(kappa, ac1, ca, w, k, settings)
    return kappa, ac1


def _dimension_kappas(rubric: Rubric, pairing: Pairing, strata: np.ndarray, weights: np.ndarray,
                      pool: dict[str, int], settings: AgreementSettings) -> list[WeightedFigure]:
    """Each judged dimension's kappa (the report's kappa targets, one per dimension), design-weighted, on
    the items where both sides scored it; keyed as the targets are (kappa:<dimension>)."""
    points = rubric.scale.points
    found: list[WeightedFigure] = []
    if rubric.overall == "label" and len(rubric.judged_dimensions) == 1:
        return found  # the overall label is that dimension's score: its kappa is the overall one
    for dimension in rubric.judged_dimensions:
        index = rubric.dimension_ids.index(dimension.id)
        a, b = pairing.a.scores[:, index], pairing.b.scores[:, index]
        both = ~np.isnan(a) & ~np.isnan(b)
        if not both.any():
            continue
        kappa, _ = _kappa_and_ac1("cohen_kappa", "", _codes(a[both], points), _codes(b[both], points), len(points),
                                  weights[both], strata[both], pool, settings)
        found.append(replace(kappa, key=f"kappa:{dimension.id}", label=f"κ of {dimension.id}"))
    return found


def weighted_figures(rubric: Rubric, pairing: Pairing, strata: np.ndarray, weights: np.ndarray, pool: dict[str, int],
                     settings: AgreementSettings) -> tuple[WeightedFigure, ...]:
    """The overall score's figures, each item weighted by its stratum (and the judged dimensions' pooled
    alignment), on the items where both sides scored the overall score."""
    figures = []
    judged = [rubric.dimension_ids.index(d.id) for d in rubric.judged_dimensions]
    a_all, b_all = pairing.a.scores[:, judged], pairing.b.scores[:, judged]
    both = ~np.isnan(a_all) & ~np.isnan(b_all)
    # Per item, its aligned scores and its scores compared (an item is a cluster of dimension scores).
    hits = (agreeing(rubric.scale, a_all, b_all, settings.tolerance) & both).sum(axis=1)
    counted = both.sum(axis=1)
    figures.append(weighted_share_figure("alignment_rate", "alignment", hits, counted, weights, strata, pool,
                                         settings))
    figures += _dimension_kappas(rubric, pairing, strata, weights, pool, settings)
    a, b = pairing.a.column(OVERALL_COLUMN), pairing.b.column(OVERALL_COLUMN)
    scored = ~np.isnan(a) & ~np.isnan(b)
    a, b, w, s = a[scored], b[scored], weights[scored], strata[scored]
    if not a.size:
        return tuple(figures)
    if rubric.overall == "label":
        points = rubric.scale.points
        ca, cb = _codes(a, points), _codes(b, points)
        figures += _kappa_and_ac1("cohen_kappa", "", ca, cb, len(points), w, s, pool, settings)
        if rubric.scale.binary:
            human_pass, judge_pass = ca == 1, cb == 1
            figures += [
                *_rates(human_pass, judge_pass, w, s, pool, settings),
                weighted_share_figure("accuracy", "accuracy", human_pass == judge_pass, np.ones(w.size), w, s, pool,
                                      settings, qo.PASS_FAIL_CATEGORIES["accuracy"]),
            ]
    else:
        figures.append(_figure("pearson_r", f"r of the {rubric.overall_name}",
                               lambda v: iv.weighted_pearson(v, a, b), w, s, pool, settings))
    return tuple(figures)


def _rates(human_pass: np.ndarray, judge_pass: np.ndarray, weights: np.ndarray, strata: np.ndarray,
           pool: dict[str, int], settings: AgreementSettings) -> list[WeightedFigure]:
    return [weighted_share_figure("tpr", "TPR", human_pass & judge_pass, human_pass, weights, strata, pool,
                                  settings, qo.PASS_FAIL_CATEGORIES["tpr"]),
            weighted_share_figure("tnr", "TNR", ~human_pass & ~judge_pass, ~human_pass, weights, strata, pool,
                                  settings, qo.PASS_FAIL_CATEGORIES["tnr"])]


def pass_fail_rates(rubric: Rubric, pairing: Pairing, strata: np.ndarray, weights: np.ndarray, pool: dict[str, int],
                    settings: AgreementSettings) -> tuple[WeightedFigure, ...]:
    """The design-weighted TPR and TNR of a PASS/FAIL rubric's overall label (nothing for another rubric)."""
    if rubric.overall != "label" or not rubric.scale.binary:
        return ()
    a, b = pairing.a.column(OVERALL_COLUMN), pairing.b.column(OVERALL_COLUMN)
    scored = ~np.isnan(a) & ~np.isnan(b)
    if not scored.any():
        return ()
    points = rubric.scale.points
    human_pass, judge_pass = _codes(a[scored], points) == 1, _codes(b[scored], points) == 1
    return tuple(_rates(human_pass, judge_pass, weights[scored], strata[scored], pool, settings))


WEIGHTED_SCOPE = "all compared items, design-weighted"
# TPR and TNR, decided on the test split alone and weighted within it by its own verdict groups.
TEST_WEIGHTED_SCOPE = "test split, design-weighted"
_TEST_KEYS = ("tpr", "tnr")


def deciding_n(n: float, rated: dict[str, int], pool: dict[str, int]) -> int:
    """The items a weighted figure's decision stands on: its effective n, but no more than the fewest rated in
    any verdict group of the pool not yet rated whole. With a group barely seen (one or two of its items), a
    stratified interval rests on a guess at that group, and a study that stops at the first decision would
    stop on it: like any figure over fewer than MIN_ITEMS_TO_DECIDE items, it stays undecided."""
    partial = [rated.get(s, 0) for s, size in pool.items() if s != qo.UNJUDGED and rated.get(s, 0) < size]
    return min(round(n), *partial) if partial else round(n)


def reweighted_checks(checks: Sequence[TargetCheck], design: Design, rubric: Rubric, settings: AgreementSettings,
                      tested: Design | None = None) -> list[TargetCheck]:
    """The report's targets decided on the design-weighted figures where there is one (a balanced order's
    unweighted figures lean towards the over-sampled verdicts, so a decision must not rest on them). TPR and
    TNR are the test split's targets: they are read from ``tested``, the test split's own design (its compared
    items weighted by their verdict groups in the test split), never from the figures over every compared
    item; without a balanced draw among the test items their plain test-split check stands."""
    weighted = {f.key: f for f in design.figures}
    tested_figures = {f.key: f for f in tested.figures} if tested is not None and tested.weighted else {}
    figure_of = {"alignment": "alignment_rate", "tpr": "tpr", "tnr": "tnr", "pearson": "pearson_r"}
    judged = rubric.judged_dimensions
    if rubric.overall == "label" and len(judged) == 1:  # the overall label is that dimension's score
        figure_of[f"kappa:{judged[0].id}"] = "cohen_kappa"
    out = []
    for c in checks:
        on_test = c.key in _TEST_KEYS
        source = tested if on_test else design
        found = (tested_figures if on_test else weighted).get(figure_of.get(c.key, c.key))  # kappa:<dim> as is
        if found is None or source is None:
            out.append(c)
            continue
        unrated = max(0, sum(source.pool.values()) - sum(source.rated.values()))
        decided = check(c.key, c.figure, TEST_WEIGHTED_SCOPE if on_test else WEIGHTED_SCOPE, found.estimate,
                        found.interval, deciding_n(found.n, source.rated, source.pool), c.target,
                        strict=c.strict, percent=c.percent, settings=settings, class_label=c.class_label,
                        class_share=c.class_share)
        if on_test or decided.more_items is not None:  # its plan says so when rating the rest cannot settle it
            decided = replace(decided, left=unrated)
        out.append(decided)
    return out
