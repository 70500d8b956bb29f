"""A jury: several judge raters of one rubric, each against the experts side by side, the jury they make, how
often their mistakes coincide, and whether the jury beats its best member.

Every judge stays its own rater (as stored); the jury is derived here, item by item, and never stored:

* the reference is the experts' consensus, as `report --compare` takes it (adjudicated score, else the experts'
  mean, or the PASS/FAIL majority with ties left out; one expert suffices);
* everything is measured on the same items: those the experts rated and every member judged (items judged by
  only some members are counted, not compared), so the members' figures sit side by side;
* the jury's score of an item comes from its members' scores by the rule its scale names (`Scale.jury_rule`):
  the majority for a nominal scale (PASS/FAIL, nominal categories), a tie giving no verdict (left out and
  counted), and the median for an ordered scale (an even jury whose two middle scores differ takes their mean,
  snapped to the nearest scale point for kappa as any group mean is, and counted as a split median);
* a member errs on a score where it is not within the tolerance of the experts' consensus (for PASS/FAIL: a
  different label). For each pair of members: the share of scores both got wrong, what independence would give
  (the product of their error rates) and the excess, each with a cluster bootstrap interval over items (items
  resampled with all their scores; Efron & Tibshirani 1993, ch. 13; Field & Welsh 2007 for clusters), or past
  ``BOOTSTRAP_MAX_ITEMS`` items the infinitesimal jackknife (`stats.linearised`), as every other interval here;
* whether the jury beats its best member (the member with the highest alignment) is the paired comparison of
  `report --compare` (`pair_intervals.paired_changes` and `pooled_change`): the same items, the same resamples.
  Picking the best member on these same items flatters it, so "the jury beats it" errs on the cautious side.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import numpy as np

from judge_tui.analysis.judges import judge_of_each_model
from judge_tui.analysis.pair_intervals import (
    Change,
    change_verdict,
    cluster_share_interval,
    pair_intervals,
    paired_changes,
    pooled_change,
    pooled_interval,
)
from judge_tui.analysis.scores import AlignedPair, RubricRatings, consensus, load, pooled_alignment
from judge_tui.analysis.team import load_team, team_consensus
from judge_tui.formats.numbers import aligned_text
from judge_tui.model.rubrics import Rubric, Scale
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats import agreement as ag
from judge_tui.stats.intervals import (
    BOOTSTRAP_MAX_ITEMS,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    IntervalFigure,
    bootstrap,
    percentile_interval,
    weighted_kappa,
    weighted_share,
)
from judge_tui.stats.linearised import normal_interval, share_influence
from judge_tui.store import Store

# --------------------------------------------------------------------------------------------------
# How a jury combines its members' scores: one function per kind of scale
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdicts:
    """The jury's score of each item (NaN: no verdict) and the items where its rule met a tie."""

    values: np.ndarray
    ties: np.ndarray  # bool per item: a tied majority (no verdict) or a split median (the middle two differ)


def majority(matrix: np.ndarray, scale: Scale) -> Verdicts:
    """The most frequent score among the members (members x items); a tie for the most gives no verdict."""
    values, tied = consensus(matrix, ordered=False, min_raters=1)
    return Verdicts(values, tied)


def median_score(matrix: np.ndarray, scale: Scale) -> Verdicts:
    """The members' median score; with an even number whose two middle scores differ, their mean (a split)."""
    present = ~np.isnan(matrix)
    ordered = np.sort(matrix, axis=0)  # NaN sorts last
    counts = present.sum(axis=0)
    columns = np.arange(matrix.shape[1])
    low = ordered[np.maximum((counts - 1) // 2, 0), columns]
    high = ordered[np.maximum(counts // 2, 0), columns]
    values = np.where(counts > 0, (low + high) / 2.0, np.nan)
    return Verdicts(values, (counts > 0) & (low != high))


Rule = Callable[[np.ndarray, Scale], Verdicts]
# The scale names its rule (`Scale.jury_rule`); a rule is added here only when neither fits a new kind of scale.
RULES: dict[str, Rule] = {"majority": majority, "median": median_score}
RULE_NAMES: dict[Rule, str] = {rule: name for name, rule in RULES.items()}


def rule_for(scale: Scale) -> Rule:
    return RULES[scale.jury_rule]


# --------------------------------------------------------------------------------------------------
# The figures
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CostAndTime:
    """What a judge's calls cost (as recorded when it judged here) and how long a judgment took."""

    calls: int  # 0: no call recorded here (its ratings were imported)
    tokens: int
    dollars: float
    priced: bool  # False: calls were made but no price was known for the model (a local model, a program)
    judgments_timed: int
    mean_seconds: float | None
    total_seconds: float


@dataclass(frozen=True)
class DimensionFigures:
    dimension: str
    pair: AlignedPair  # the experts' consensus against this rater, item by item
    agreement: ag.PairAgreement
    intervals: dict[str, IntervalFigure]  # "alignment", "kappa", "pearson_r"


@dataclass(frozen=True)
class RaterFigures:
    """One judge (or the jury) against the experts on the jury's items."""

    rater: str
    items: int
    alignment: ag.Figure  # over every judged dimension
    alignment_interval: IntervalFigure
    dimensions: tuple[DimensionFigures, ...]
    cost: CostAndTime | None  # None for the jury (its cost is its members')


@dataclass(frozen=True)
class ErrorCorrelation:
    """How often two judges err on the same score, against what independent errors would give."""

    first: str
    second: str
    scores: int  # scores compared (items x judged dimensions)
    items: int
    first_errors: ag.Figure  # share of scores the first got wrong
    second_errors: ag.Figure
    both: ag.Figure  # share both got wrong
    both_interval: IntervalFigure
    independent: ag.Figure  # first_errors x second_errors
    independent_interval: IntervalFigure
    excess: ag.Figure  # both - independent
    excess_interval: IntervalFigure

    @property
    def reading(self) -> str:
        if not isinstance(self.excess_interval, ag.Undefined):
            if self.excess_interval.low > 0:
                return "err together more than chance"
            if self.excess_interval.high < 0:
                return "err together less than chance"
            return "no detectable dependence"
        return "n/a"


@dataclass(frozen=True)
class JuryComparison:
    """The jury against its best member, paired on the items where the jury reached a verdict."""

    best: str
    items: int
    alignment: tuple[ag.Figure, ag.Figure]  # best member, jury
    alignment_change: Change  # jury - best
    dimensions: tuple[tuple[str, int, dict[str, Change], tuple[ag.PairAgreement, ag.PairAgreement]], ...]

    @property
    def verdict(self) -> str:
        found = self.alignment_change.verdict
        if found == "improved":
            return f"the jury beats {self.best}"
        if found == "worse":
            return f"{self.best} beats the jury"
        return "no detectable difference" if found else "n/a"


@dataclass(frozen=True)
class Jury:
    rubric: str
    split: str | None
    members: tuple[str, ...]
    experts: tuple[str, ...]
    rule: str  # "majority" or "median"
    settings: AgreementSettings  # the tolerance and the confidence of every interval it was measured at
    within: float  # how far apart aligned scores may be: Scale.alignment_tolerance of the tolerance
    items: int  # items rated by the experts and judged by every member
    partly_judged: int  # items rated by the experts and judged by some members but not all (left out)
    judges: tuple[RaterFigures, ...]
    jury: RaterFigures
    ties: dict[str, int]  # dimension -> items where the rule met a tie (majority: no verdict; median: split)
    errors: tuple[ErrorCorrelation, ...]
    versus_best: JuryComparison | None
    aligned: str  # what aligned means on the scale, in words (formats.numbers.aligned_text)


# --------------------------------------------------------------------------------------------------
# Members
# --------------------------------------------------------------------------------------------------


def default_members(store: Store, rubric_id: str) -> tuple[str, ...]:
    """One rater per judge (model and rubric): the rater the rule for "the judge" picks of that model
    (judges.judge_of_each_model), so the judge's model sits on the jury as the judge itself."""
    return tuple(sorted(judge_of_each_model(store, rubric_id).values()))


def cost_and_time(store: Store, rubric_id: str, rater_id: str) -> CostAndTime:
    totals = store.judge_call_totals(rater_id)
    tokens = int(totals["input_tokens"] + totals["output_tokens"] + totals["cache_read_tokens"]
                 + totals["cache_write_tokens"])
    dollars = float(totals["cost_usd"])
    timed, seconds = store.first_run_time(rubric_id, rater_id)
    return CostAndTime(int(totals["calls"]), tokens, dollars, dollars > 0 or tokens == 0, timed,
                       seconds / timed if timed else None, seconds)


# --------------------------------------------------------------------------------------------------
# Building the jury
# --------------------------------------------------------------------------------------------------


def bootstrap_together(statistics: Sequence[Callable[[np.ndarray], np.ndarray]], n: int, *,
                       n_boot: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> list[np.ndarray]:
    """Several figures over the same resamples, drawn once: what ``bootstrap`` gives each of them called alone
    with the same (n, n_boot, seed), at the cost of one draw (the draws, not the figures, are the slow part)."""
    found: list[list[np.ndarray]] = [[] for _ in statistics]

    def every(weights: np.ndarray) -> np.ndarray:
        values = [statistic(weights) for statistic in statistics]
        for kept, value in zip(found, values, strict=True):
            kept.append(np.asarray(value, dtype=np.float64))
        return values[0]

    bootstrap(every, n, n_boot=n_boot, seed=seed)
    return [np.concatenate(kept) for kept in found]


def _share_of(hits: np.ndarray, counted: np.ndarray | None = None) -> Callable[[np.ndarray], np.ndarray]:
    return lambda w: weighted_share(w, hits, counted)


def _cluster_share(hits: np.ndarray, counted: np.ndarray, replicates: np.ndarray | None, settings: AgreementSettings,
                   max_bootstrap_items: int = BOOTSTRAP_MAX_ITEMS) -> IntervalFigure:
    """`cluster_share_interval`, its bootstrap taken from ``replicates`` when they were drawn already (the same
    statistic on the same resamples: the same interval)."""
    shares = hits[counted > 0] / counted[counted > 0]
    if (replicates is None or hits.size == 0 or hits.size > max_bootstrap_items or np.all(counted == 1)
            or (shares.size and np.ptp(shares) == 0.0)):
        return cluster_share_interval(hits, counted, settings.confidence, max_bootstrap_items=max_bootstrap_items)
    return percentile_interval(replicates, settings.confidence, method="cluster bootstrap (items)", low=0.0, high=1.0)


def _rater_figures(rater: str, pairs: Sequence[AlignedPair], dimensions: Sequence[str], rubric: Rubric,
                   within: float, settings: AgreementSettings, cost: CostAndTime | None,
                   interval: IntervalFigure | None = None, items: int | None = None) -> RaterFigures:
    found = []
    for dimension, p in zip(dimensions, pairs, strict=True):
        agreement = p.compare(rubric, within)
        found.append(DimensionFigures(dimension, p, agreement, pair_intervals(p, agreement, settings.confidence)))
    if items is None:
        items = int(np.unique(np.concatenate([p.keys for p in pairs])).size) if pairs else 0
    alignment = pooled_alignment(pairs, within, "no item was rated by the experts and judged by every member")
    if isinstance(alignment, ag.Undefined):
        interval = alignment
    elif interval is None:
        interval = pooled_interval(pairs, within, settings.confidence)
    return RaterFigures(rater, items, alignment, interval, tuple(found), cost)


def error_correlation(first: str, second: str, wrong: tuple[np.ndarray, np.ndarray], item_of: np.ndarray,
                      settings: AgreementSettings, *, n_boot: int = DEFAULT_RESAMPLES,
                      seed: int = DEFAULT_SEED, max_bootstrap_items: int = BOOTSTRAP_MAX_ITEMS,
                      drawn: Sequence[np.ndarray] | None = None,
                      grouped: tuple[np.ndarray, int] | None = None) -> ErrorCorrelation:
    """Two judges' errors score by score (``wrong``, booleans), ``item_of`` the item of each score. ``drawn``:
    the resampled shares of the first's errors, the second's and both's, when drawn already (items in sorted
    order, ``n_boot`` resamples of ``seed``); ``grouped``: `_grouped(item_of)` when computed already."""
    a, b = (np.asarray(w, dtype=bool) for w in wrong)
    inverse, n = grouped if grouped is not None else _grouped(item_of)
    per_item = [np.bincount(inverse, x.astype(np.float64), n) for x in (a, b, a & b)]
    counted = np.bincount(inverse, minlength=n).astype(np.float64)
    scores = int(a.size)
    if scores == 0:
        none = ag.Undefined("no score was rated by the experts and judged by both")
        return ErrorCorrelation(first, second, 0, 0, none, none, none, none, none, none, none, none)
    pa, pb, both = (float(x.sum() / counted.sum()) for x in per_item)
    independent = pa * pb
    if not (0.0 < pa < 1.0 and 0.0 < pb < 1.0):
        # Every resample would say the same: no interval rather than a certainty the items cannot give.
        who = first if pa in (0.0, 1.0) else second
        why = ag.Undefined(f"{who} erred on {'every' if (pa if who == first else pb) else 'no'} score compared:"
                           " whether its errors coincide cannot be measured")
        return ErrorCorrelation(first, second, scores, n, pa, pb, both,
                                _cluster_share(per_item[2], counted, drawn[2] if drawn else None, settings,
                                               max_bootstrap_items), independent, why, both - independent, why)
    if n > max_bootstrap_items:
        ga, gb, gboth = (share_influence(x, counted) for x in per_item)
        method = "infinitesimal jackknife (items)"
        both_interval = normal_interval(both, gboth, settings.confidence, method, low=0.0, high=1.0)
        independent_interval = normal_interval(independent, pb * ga + pa * gb, settings.confidence, method, low=0.0,
                                               high=1.0)
        excess_interval = normal_interval(both - independent, gboth - pb * ga - pa * gb, settings.confidence, method)
    else:
        shares = list(drawn) if drawn is not None else bootstrap_together(
            [_share_of(x, counted) for x in per_item], n, n_boot=n_boot, seed=seed)
        both_interval = _cluster_share(per_item[2], counted, shares[2], settings, max_bootstrap_items)
        method = "cluster bootstrap (items)"
        independent_interval = percentile_interval(shares[0] * shares[1], settings.confidence, method=method, low=0.0,
                                                   high=1.0)
        excess_interval = percentile_interval(shares[2] - shares[0] * shares[1], settings.confidence, method=method)
    return ErrorCorrelation(first, second, scores, n, pa, pb, both, both_interval, independent,
                            independent_interval, both - independent, excess_interval)


def build_jury(store: Store, rubric: Rubric, members: Sequence[str] | None = None, *, split: str | None = None,
               settings: AgreementSettings | None = None,
               ratings: RubricRatings | None = None, only_items: set[str] | None = None,
               costs: bool = True, among: Collection[str] | None = None) -> Jury | None:
    """The jury of ``members`` (default: one rater per judge of the rubric), or None when fewer than two
    judges or no experts rated. ``only_items``: the items the viewer may see (the blind rule); ``among``: the
    experts whose consensus is the reference (a report's human group; default every expert)."""
    settings = settings or AgreementSettings()
    if ratings is None:
        ratings = load(store, rubric, split)
    members = tuple(members) if members is not None else default_members(store, rubric.id)
    if len(members) < 2:
        return None
    view = load_team(store, rubric, split=split, ratings=ratings, notes=False, only_items=only_items, among=among)
    if not view.experts or not view.dimensions:
        return None
    rule = rule_for(rubric.scale)
    aligned = aligned_text(rubric.scale, settings.tolerance)
    within = rubric.scale.alignment_tolerance(settings.tolerance)  # nominal categories: an error is another category
    judged = [ratings.first_runs(m) for m in members]
    columns = [rubric.dimension_ids.index(d) for d in view.dimensions]
    reference = {d: team_consensus(view, d, min_raters=1)[0] for d in view.dimensions}
    matrices = {d: np.stack([j.on(view.item_keys, c) for j in judged]) for d, c in zip(view.dimensions, columns,
                                                                                     strict=True)}
    rated = np.zeros(view.item_keys.size, dtype=bool)
    everyone = np.zeros(view.item_keys.size, dtype=bool)
    for d in view.dimensions:
        some = ~np.isnan(reference[d]) & (~np.isnan(matrices[d])).any(axis=0)
        full = ~np.isnan(reference[d]) & (~np.isnan(matrices[d])).all(axis=0)
        rated |= some
        everyone |= full
    member_pairs: list[list[AlignedPair]] = [[] for _ in members]
    jury_pairs: list[AlignedPair] = []
    ties: dict[str, int] = {}
    wrong: list[list[np.ndarray]] = [[] for _ in members]
    item_of: list[np.ndarray] = []
    for d in view.dimensions:
        full = ~np.isnan(reference[d]) & (~np.isnan(matrices[d])).all(axis=0)
        keys, human = view.item_keys[full], reference[d][full]
        for k in range(len(members)):
            p = AlignedPair(keys, human, matrices[d][k, full])
            member_pairs[k].append(p)
            wrong[k].append(~p.aligned(within))
        item_of.append(keys)
        verdicts = rule(matrices[d][:, full], rubric.scale)
        ties[d] = int(np.count_nonzero(verdicts.ties))
        jury_pairs.append(AlignedPair.of(keys, human, verdicts.values))
    dims = view.dimensions
    scores_item = np.concatenate(item_of) if item_of else np.empty(0, np.int64)
    errs = [np.concatenate(w) if w else np.empty(0, bool) for w in wrong]
    pairs = [(i, j) for i in range(len(members)) for j in range(i + 1, len(members))]
    grouped = _grouped(scores_item, view.item_keys)
    drawn = _draw_members(errs, pairs, grouped, settings)  # one draw for all their intervals
    judges = tuple(_rater_figures(m, member_pairs[k], dims, rubric, within, settings,
                                  cost_and_time(store, rubric.id, m) if costs else None,
                                  drawn.alignment[k], grouped[1])
                   for k, m in enumerate(members))
    name = f"jury ({RULE_NAMES.get(rule, 'rule')} of {len(members)})"
    jury = _rater_figures(name, jury_pairs, dims, rubric, within, settings, None)
    errors = tuple(
        error_correlation(members[i], members[j], (errs[i], errs[j]), scores_item, settings,
                          drawn=drawn.errors.get((i, j)), grouped=grouped)
        for i, j in pairs)
    return Jury(rubric.id, split, members, view.experts, RULE_NAMES.get(rule, "rule"), settings, within,
                int(np.count_nonzero(everyone)), int(np.count_nonzero(rated & ~everyone)), judges, jury, ties,
                errors, _versus_best(judges, jury_pairs, rubric, within, settings), aligned)


def _versus_best(judges: Sequence[RaterFigures], jury_pairs: Sequence[AlignedPair], rubric: Rubric,
                 within: float, settings: AgreementSettings) -> JuryComparison | None:
    """The jury against the member with the highest alignment, on the items where the jury gave a verdict."""
    defined = [(float(j.alignment), -k, j) for k, j in enumerate(judges) if not isinstance(j.alignment, ag.Undefined)]
    if not defined:
        return None
    best = max(defined, key=lambda found: found[:2])[2]  # the first of equals
    best_pairs = [f.pair.subset(np.isin(f.pair.keys, j.keys)) for f, j in zip(best.dimensions, jury_pairs,
                                                                            strict=True)]
    compared = [(b.compare(rubric, within), j.compare(rubric, within))
                for b, j in zip(best_pairs, jury_pairs, strict=True)]
    same_items = all(np.array_equal(p.keys, jury_pairs[0].keys) for p in jury_pairs)
    if same_items and 0 < jury_pairs[0].n <= BOOTSTRAP_MAX_ITEMS:
        changes = _shared_changes(best_pairs, jury_pairs, compared, rubric, within, settings)
    else:  # dimensions over different items, or past the bootstrap: report --compare's own, dimension by dimension
        changes = [paired_changes((b, j), c, rubric, within, settings.confidence)
                   for b, j, c in zip(best_pairs, jury_pairs, compared, strict=True)]
    dims = [(f.dimension, b.n, change, c)
            for f, b, change, c in zip(best.dimensions, best_pairs, changes, compared, strict=True)]
    empty = "no item with a jury verdict"
    pooled = (pooled_alignment(best_pairs, within, empty), pooled_alignment(jury_pairs, within, empty))
    keys = np.unique(np.concatenate([p.keys for p in jury_pairs])) if jury_pairs else np.empty(0)
    change = pooled_change((best_pairs, list(jury_pairs)), within, pooled, settings.confidence)
    return JuryComparison(best.rater, int(keys.size), pooled, change, tuple(dims))


def _codes(values: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Each score's nearest scale point, as kappa snaps a mean between points."""
    return np.asarray(np.abs(np.asarray(values, dtype=np.float64)[:, None] - points[None, :]).argmin(axis=1))


def _shared_changes(best: Sequence[AlignedPair], jury: Sequence[AlignedPair],
                    compared: Sequence[tuple[ag.PairAgreement, ag.PairAgreement]], rubric: Rubric, within: float,
                    settings: AgreementSettings) -> list[dict[str, Change]]:
    """report --compare's paired bootstrap of alignment and kappa (`pair_intervals.paired_changes`: the same
    statistics on the same resamples), every dimension's from one draw, as all hold the same items."""
    points = np.asarray(rubric.scale.points, dtype=np.float64)
    k = points.size
    statistics: list[Callable[[np.ndarray], np.ndarray]] = []
    for b, j in zip(best, jury, strict=True):
        hits = (b.aligned(within).astype(np.float64), j.aligned(within).astype(np.float64))
        human, said = _codes(b.a, points), (_codes(b.b, points), _codes(j.b, points))
        statistics += [_alignment_change(*hits), _kappa_change(human, *said, k)]
    with np.errstate(divide="ignore", invalid="ignore"):
        replicates = bootstrap_together(statistics, jury[0].n)
    out = []
    method = "paired bootstrap (items)"
    for index, (first, second) in enumerate(compared):
        found = {}
        for offset, (name, attribute) in enumerate((("alignment", "alignment_rate"), ("kappa", "cohen_kappa"))):
            a, b = getattr(first, attribute), getattr(second, attribute)
            if isinstance(a, ag.Undefined) or isinstance(b, ag.Undefined):
                missing = a if isinstance(a, ag.Undefined) else b
                reason = ag.Undefined(f"one of the two figures is not defined: {missing.reason}")
                found[name] = Change(reason, reason, None)
                continue
            interval = percentile_interval(replicates[2 * index + offset], settings.confidence, method=method, low=-2.0,
                                           high=2.0)
            found[name] = Change(b - a, interval, None if isinstance(interval, ag.Undefined)
                                 else change_verdict(interval))
        out.append(found)
    return out


def _alignment_change(first: np.ndarray, second: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    return lambda w: weighted_share(w, second) - weighted_share(w, first)


def _kappa_change(human: np.ndarray, first: np.ndarray, second: np.ndarray, k: int
                  ) -> Callable[[np.ndarray], np.ndarray]:
    return lambda w: weighted_kappa(w, human, second, k) - weighted_kappa(w, human, first, k)


def _grouped(item_of: np.ndarray, all_keys: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """Each score's item as an index into the sorted items, and how many items. ``all_keys``: every item key
    the scores can have; sorted (items in import order), it gives the same without sorting the scores."""
    if all_keys is not None and all_keys.size and np.all(all_keys[1:] > all_keys[:-1]):
        position = np.searchsorted(all_keys, item_of)
        present = np.zeros(all_keys.size, dtype=bool)
        present[position] = True
        rank = np.cumsum(present) - 1
        return rank[position], int(np.count_nonzero(present))
    items, inverse = np.unique(item_of, return_inverse=True)
    return inverse, int(items.size)


@dataclass(frozen=True)
class _Drawn:
    alignment: list[IntervalFigure]  # each member's alignment interval over every judged dimension
    errors: dict[tuple[int, int], list[np.ndarray]]  # each pair's resampled error shares: first, second, both


def _draw_members(wrong: Sequence[np.ndarray], pairs: Sequence[tuple[int, int]], grouped: tuple[np.ndarray, int],
                  settings: AgreementSettings) -> _Drawn:
    """Every member's alignment interval (`pooled_interval`'s, from the members' errors item by item) and every
    pair's error shares over one bootstrap draw of the jury's items (the draws are what costs); past the
    bootstrap's size no draw, each figure being linearised on its own."""
    inverse, n = grouped
    counted = np.bincount(inverse, minlength=n).astype(np.float64)
    errors = [np.bincount(inverse, w.astype(np.float64), n) for w in wrong]
    hits = [counted - e for e in errors]
    if n == 0 or n > BOOTSTRAP_MAX_ITEMS:
        return _Drawn([_cluster_share(h, counted, None, settings) for h in hits], {})
    both = {(i, j): np.bincount(inverse, (wrong[i] & wrong[j]).astype(np.float64), n) for i, j in pairs}
    statistics = [_share_of(x, counted) for x in (*hits, *errors, *both.values())]
    replicates = bootstrap_together(statistics, n)
    m = len(wrong)
    alignment = [_cluster_share(h, counted, replicates[k], settings) for k, h in enumerate(hits)]
    shares = {pair: [replicates[m + pair[0]], replicates[m + pair[1]], replicates[2 * m + k]]
              for k, pair in enumerate(both)}
    return _Drawn(alignment, shares)
