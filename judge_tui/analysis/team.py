"""Agreement among several experts, and between them and the judge.

The store gives a rater x item x dimension view of one rubric (`load_team`); everything after that is
arithmetic on arrays through the agreement engine:

* Krippendorff's alpha per judged dimension among the experts (ordinal for ordered scales, nominal for
  PASS/FAIL; and at the nominal and interval levels beside it), Fleiss' kappa, and for every pair of experts
  Cohen's kappa and Gwet's AC1 (AC2 with quadratic weights on ordered scales);
* each expert against the judge and against the consensus (alignment within the tolerance, kappa, Pearson r);
* the experts' consensus against the judge. The consensus of an item is the lead's adjudicated score where
  there is one, otherwise the mean of the experts' scores (ordered scales) or the majority label (PASS/FAIL,
  nominal categories) over the experts who rated it, when at least two did. A tie has no majority: the item is
  left out of the consensus (and counted as a tie) until someone adjudicates it.

Who counts as an expert: every human rater except the adjudicated "consensus" rater. That rater is a human
rater of its own (so its ratings merge, export and show like anyone's) but it is derived from the experts,
so it never enters alpha, the kappa matrix or the per-expert rows; it only replaces the computed consensus.
Drift re-ratings (repeat 1) are left out: each expert's first rating is their rating.

Every figure carries an interval (analysis/pair_intervals.py and the statistics engine choose the method).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from judge_tui.analysis.pair_intervals import pair_intervals, pooled_interval
from judge_tui.analysis.scores import AlignedPair, RubricRatings, agreeing, consensus, load, pooled_alignment
from judge_tui.formats.numbers import aligned_text
from judge_tui.model.records import CONSENSUS_RATER
from judge_tui.model.rubrics import Rubric, Scale
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats import agreement as ag
from judge_tui.stats.chance import GwetAC, gwet_ac
from judge_tui.stats.intervals import IntervalFigure, kappa_interval
from judge_tui.stats.raters import (
    FleissKappa,
    GwetAgreement,
    Level,
    alpha_intervals,
    fleiss_kappa,
    gwet_ac_raters,
    unit_category_counts,
)
from judge_tui.store import Store


@dataclass(frozen=True)
class TeamView:
    """One rubric's ratings as arrays: experts x items per judged dimension, NaN where a rating is missing."""

    rubric: Rubric
    item_ids: tuple[str, ...]
    item_keys: np.ndarray  # the items' keys, in the same order
    experts: tuple[str, ...]
    expert_scores: dict[str, np.ndarray]  # dimension -> (experts, items)
    adjudicated: dict[str, np.ndarray]  # dimension -> (items,)
    judge: str | None
    judge_scores: dict[str, np.ndarray]  # dimension -> (items,)
    notes: dict[tuple[str, str], str] = field(default_factory=dict)  # (expert, item) -> note

    @property
    def dimensions(self) -> tuple[str, ...]:
        return tuple(d.id for d in self.rubric.judged_dimensions)


def is_expert(rater_id: str, kind: str) -> bool:
    return kind == "human" and rater_id != CONSENSUS_RATER


def names_no_expert(ratings: RubricRatings, among: Collection[str] | None) -> bool:
    """Whether a report's human group (``among``, as `--raters` chose it) names no expert at all: two judges
    compared with each other, or the adjudicated consensus against a judge. The experts are then the only reference
    there is, so a section that leans from the experts takes every one of them (and says so)."""
    return among is not None and not any(is_expert(r, "human") and r in among for r in ratings.raters_of_kind("human"))


def experts_rating(ratings: RubricRatings, keys: np.ndarray, among: Collection[str] | None = None) -> tuple[str, ...]:
    """The experts with a first rating of one of ``keys``; with ``among`` (a report's human group), only those of
    them: the experts a section compares when the report names its raters (`--raters`); every expert when it names
    none (names_no_expert)."""
    if names_no_expert(ratings, among):
        among = None
    return tuple(r for r in ratings.raters_of_kind("human")
                 if is_expert(r, "human") and (among is None or r in among)
                 and np.isin(ratings.first_runs(r).keys, keys).any())


def load_team(store: Store, rubric: Rubric, *, split: str | None = None, judge: str | None = None,
              only_items: set[str] | None = None, ratings: RubricRatings | None = None,
              notes: bool = True, among: Collection[str] | None = None) -> TeamView:
    """The view of `rubric`'s items (optionally one split, or only some items). The judge is `judge`, else
    the judge rater with the most first-run ratings of this rubric (the first in id order wins a tie).
    `ratings`: the split's ratings (scores.load) when the caller has read them already; `notes`: also read
    the experts' notes (the adjudication screen shows them; the report does not); `among`: only these raters
    are the experts (experts_rating)."""
    if ratings is None:
        ratings = load(store, rubric, split)
    keys, item_ids = store.item_keys_in_order(rubric.id, split)
    if only_items is not None:
        inside = np.array([i in only_items for i in item_ids], dtype=bool)
        keys, item_ids = keys[inside], [i for i in item_ids if i in only_items]
    experts = experts_rating(ratings, keys, among)
    if judge is None:
        counts = {j: ratings.rating_counts(j) for j in ratings.raters_of_kind("judge")}
        judge = max(counts, key=lambda j: counts[j]) if counts else None
    dims = [d.id for d in rubric.judged_dimensions]
    columns = [rubric.dimension_ids.index(d) for d in dims]
    # A judge named among the experts (or the consensus) fills their row, not the judge's (as it always has).
    judge_rater = judge if judge not in (*experts, CONSENSUS_RATER) else None
    scores = ratings.first_run_matrix([*experts, CONSENSUS_RATER, judge_rater], keys)  # raters x items x dims
    expert_scores = {d: scores[:len(experts), :, c] for d, c in zip(dims, columns, strict=True)}
    adjudicated = {d: scores[len(experts), :, c] for d, c in zip(dims, columns, strict=True)}
    judge_scores = {d: scores[len(experts) + 1, :, c] for d, c in zip(dims, columns, strict=True)}
    found = store.first_run_notes(rubric.id, split) if notes else {}
    return TeamView(rubric, tuple(item_ids), keys, experts, expert_scores, adjudicated, judge, judge_scores, found)


# --------------------------------------------------------------------------- pure functions on arrays


def spread_exceeds(scale: Scale, matrix: np.ndarray, settings: AgreementSettings) -> np.ndarray:
    """Per item: True where at least two raters' scores do not align (scores.agreeing): on a nominal scale,
    where they name different categories."""
    matrix = np.asarray(matrix, dtype=np.float64)
    present = ~np.isnan(matrix)
    enough = present.sum(axis=0) >= 2
    high = np.where(present, matrix, -np.inf).max(axis=0)
    low = np.where(present, matrix, np.inf).min(axis=0)
    exceeds: np.ndarray = enough & ~agreeing(scale, low, high, settings.tolerance)
    return exceeds


# --------------------------------------------------------------------------- the team figures


ALPHA_LEVELS: tuple[Level, ...] = ("nominal", "ordinal", "interval")


@dataclass(frozen=True)
class ExpertPair:
    """Two experts over the items both rated on one dimension."""

    experts: tuple[str, str]
    n: int
    kappa: ag.Figure
    kappa_interval: IntervalFigure
    ac1: GwetAC | ag.Undefined
    ac2: GwetAC | ag.Undefined  # quadratic weights; Undefined on a scale without order


@dataclass(frozen=True)
class DimensionTeam:
    dimension: str
    alpha: ag.Figure
    alpha_level: str
    kappa: tuple[tuple[ag.Figure, ...], ...]  # experts x experts
    experts_vs_judge: dict[str, ag.PairAgreement]
    consensus_vs_judge: ag.PairAgreement
    consensus_items: int  # items with a consensus
    adjudicated_items: int
    ties: int  # PASS/FAIL items left out for want of a majority
    paired: dict[str, AlignedPair]  # expert (and "consensus") -> their scores and the judge's, item by item
    alpha_levels: dict[str, tuple[ag.Figure, IntervalFigure]]  # level -> alpha and its interval
    fleiss: FleissKappa | ag.Undefined
    ac1: GwetAgreement | ag.Undefined  # among all the experts
    ac2: GwetAgreement | ag.Undefined  # quadratic weights; Undefined on a scale without order
    expert_pairs: tuple[ExpertPair, ...]  # every pair of experts, in the order of the kappa matrix
    experts_vs_consensus: dict[str, ag.PairAgreement]  # against the other experts' consensus
    intervals: dict[str, dict[str, IntervalFigure]]  # "judge:<expert>", "judge:consensus", "consensus:<expert>"


@dataclass(frozen=True)
class TeamAgreement:
    rubric: str
    experts: tuple[str, ...]
    judge: str | None
    items: int
    settings: AgreementSettings  # the tolerance and the confidence the figures were computed at
    dimensions: tuple[DimensionTeam, ...]
    pooled_vs_judge: dict[str, ag.Figure]  # expert (and "consensus") -> alignment over every judged dimension
    pooled_intervals: dict[str, IntervalFigure]  # the same, its cluster interval
    aligned: str  # what aligned means on the scale, in words (formats.numbers.aligned_text)
    nominal: bool = False  # categories declared nominal: the consensus is the majority category, not a mean

    @property
    def has_team(self) -> bool:
        return len(self.experts) >= 2


def team_consensus(view: TeamView, dimension: str, min_raters: int = 2,
                   leave_out: int | None = None) -> tuple[np.ndarray, int]:
    """The consensus scores of one dimension (adjudicated scores first) and how many PASS/FAIL ties remain.
    With leave_out (an expert's row), the consensus of the other experts, one of them sufficing: an expert
    compared with a consensus holding their own score would be partly compared with themselves."""
    matrix = view.expert_scores[dimension]
    if leave_out is not None:
        matrix, min_raters = np.delete(matrix, leave_out, axis=0), 1
    computed, tied = consensus(matrix, view.rubric.scale.ordered, min_raters)
    adjudicated = view.adjudicated[dimension]
    done = ~np.isnan(adjudicated)
    return np.where(done, adjudicated, computed), int(np.count_nonzero(tied & ~done))


def _alpha_levels(matrix: np.ndarray, points: tuple[float, ...], ordered: bool, enough: bool,
                  settings: AgreementSettings, counts: np.ndarray) -> dict[str, tuple[ag.Figure, IntervalFigure]]:
    """Alpha at each level; ``counts``: the matrix's unit_category_counts."""
    found: dict[Level, tuple[float, IntervalFigure] | ag.Undefined]
    if not enough:
        found = dict.fromkeys(ALPHA_LEVELS, ag.Undefined("alpha needs at least two experts"))
    else:
        levels = [level for level in ALPHA_LEVELS if level == "nominal" or ordered]
        found = {**dict.fromkeys(ALPHA_LEVELS, ag.Undefined("the scale's categories have no order")),
                 **alpha_intervals(matrix, levels, np.asarray(points), settings.confidence, counts=counts)}
    return {level: (f, f) if isinstance(f, ag.Undefined) else f for level, f in found.items()}


def _expert_pairs(view: TeamView, matrix: np.ndarray, kappa: tuple[tuple[ag.Figure, ...], ...],
                  settings: AgreementSettings) -> tuple[ExpertPair, ...]:
    points = view.rubric.scale.points
    out = []
    for i, j in combinations(range(len(view.experts)), 2):
        both = ~np.isnan(matrix[i]) & ~np.isnan(matrix[j])
        a, _ = ag.snap_to_scale(matrix[i, both], points)
        b, _ = ag.snap_to_scale(matrix[j, both], points)
        table = ag.confusion_matrix(a, b, points)
        n = int(np.count_nonzero(both))
        value = kappa[i][j]
        kappa_ci = value if isinstance(value, ag.Undefined) else kappa_interval(table, None, settings.confidence)
        ac2 = (gwet_ac(table, "quadratic", settings.confidence) if view.rubric.scale.ordered
               else ag.Undefined("AC2 weighs near misses on an ordered scale; this scale has no order"))
        out.append(ExpertPair((view.experts[i], view.experts[j]), n, kappa[i][j], kappa_ci,
                              gwet_ac(table, None, settings.confidence), ac2))
    return tuple(out)


def team_agreement(view: TeamView, settings: AgreementSettings | None = None) -> TeamAgreement:
    settings = settings or AgreementSettings()
    rubric = view.rubric
    points, ordered = rubric.scale.points, rubric.scale.ordered
    level: ag.AlphaLevel = "ordinal" if ordered else "nominal"
    enough = len(view.experts) >= 2
    dims = []
    pooled: dict[str, list[AlignedPair]] = {name: [] for name in (*view.experts, CONSENSUS_RATER)}
    for d in view.dimensions:
        matrix = view.expert_scores[d]
        judge = view.judge_scores[d]
        kappa = ag.pairwise_kappa(matrix, points) if view.experts else ()
        values, ties = team_consensus(view, d)
        paired = {e: AlignedPair.of(view.item_keys, matrix[i], judge) for i, e in enumerate(view.experts)}
        paired[CONSENSUS_RATER] = AlignedPair.of(view.item_keys, values, judge)
        vs_judge = {name: p.compare(rubric, settings.tolerance) for name, p in paired.items()}
        against = {e: AlignedPair.of(view.item_keys, team_consensus(view, d, leave_out=i)[0], matrix[i])
                   for i, e in enumerate(view.experts)}
        vs_consensus = {e: p.compare(rubric, settings.tolerance) for e, p in against.items()}
        intervals = {f"judge:{name}": pair_intervals(paired[name], p, settings.confidence) for name, p in vs_judge.items()}
        intervals |= {f"consensus:{e}": pair_intervals(against[e], p, settings.confidence) for e, p in vs_consensus.items()}
        counts = unit_category_counts(matrix, np.asarray(points))  # one table for alpha, Fleiss' kappa and AC1/AC2
        levels = _alpha_levels(matrix, points, ordered, enough, settings, counts)
        dims.append(DimensionTeam(
            dimension=d, alpha=levels[level][0], alpha_level=level, kappa=kappa,
            experts_vs_judge={e: vs_judge[e] for e in view.experts},
            consensus_vs_judge=vs_judge[CONSENSUS_RATER],
            consensus_items=int(np.count_nonzero(~np.isnan(values))),
            adjudicated_items=int(np.count_nonzero(~np.isnan(view.adjudicated[d]))), ties=ties, paired=paired,
            alpha_levels=levels,
            fleiss=fleiss_kappa(matrix, np.asarray(points), settings.confidence, counts=counts) if enough
            else ag.Undefined("Fleiss' kappa needs at least two experts"),
            ac1=gwet_ac_raters(matrix, np.asarray(points), None, settings.confidence, counts=counts) if enough
            else ag.Undefined("AC1 needs at least two experts"),
            ac2=(gwet_ac_raters(matrix, np.asarray(points), "quadratic", settings.confidence, counts=counts)
                 if enough and ordered
                 else ag.Undefined("AC2 weighs near misses on an ordered scale" if enough
                                   else "AC2 needs at least two experts")),
            expert_pairs=_expert_pairs(view, matrix, kappa, settings),
            experts_vs_consensus=vs_consensus, intervals=intervals,
        ))
        for name, pair in paired.items():
            pooled[name].append(pair)
    aligned_within = view.rubric.scale.alignment_tolerance(settings.tolerance)  # as each dimension's alignment counts
    pooled_rates = {name: pooled_alignment(pairs, aligned_within, "no items were rated by both")
                    for name, pairs in pooled.items()}
    pooled_intervals = {name: pooled_interval(pairs, aligned_within, settings.confidence) for name, pairs in pooled.items()}
    return TeamAgreement(view.rubric.id, view.experts, view.judge, len(view.item_ids), settings, tuple(dims),
                         pooled_rates, pooled_intervals, aligned_text(view.rubric.scale, settings.tolerance),
                         view.rubric.scale.nominal)


# --------------------------------------------------------------------------- disagreements (adjudication)


@dataclass(frozen=True)
class ExpertDisagreement:
    item_id: str
    dimensions: tuple[str, ...]  # where the experts differ beyond the tolerance
    experts: tuple[str, ...]  # who rated the item
    adjudicated: bool


def expert_disagreements(view: TeamView, settings: AgreementSettings) -> list[ExpertDisagreement]:
    """Items two or more experts rated whose scores differ by more than the tolerance on some dimension."""
    if not view.experts:
        return []
    flags = {d: spread_exceeds(view.rubric.scale, view.expert_scores[d], settings) for d in view.dimensions}
    first = view.dimensions[0]
    present = ~np.isnan(np.stack([view.expert_scores[d] for d in view.dimensions])).all(axis=0)
    out = []
    for j, item_id in enumerate(view.item_ids):
        dims = tuple(d for d in view.dimensions if flags[d][j])
        if dims:
            raters = tuple(e for i, e in enumerate(view.experts) if present[i, j])
            done = not np.isnan(view.adjudicated[first][j])
            out.append(ExpertDisagreement(item_id, dims, raters, done))
    return out


def team_figures(store: Store, rubric: Rubric, split: str | None = None, judge: str | None = None,
                 only_items: set[str] | None = None, settings: AgreementSettings | None = None,
                 ratings: RubricRatings | None = None) -> TeamAgreement | None:
    """The team section's figures, or None when fewer than two experts rated this rubric. ``ratings``: the
    split's ratings (scores.load) when the caller has read them already."""
    if ratings is None:
        # Asked first because it is cheap: most reports have one expert, and loading reads every rating.
        if sum(is_expert(r["id"], r["kind"]) for r in store.rubric_raters(rubric.id)) < 2:
            return None
    elif sum(is_expert(r, ratings.kinds[r]) for r in ratings.rater_ids) < 2:
        return None
    view = load_team(store, rubric, split=split, judge=judge, only_items=only_items, ratings=ratings, notes=False)
    if len(view.experts) < 2:
        return None
    return team_agreement(view, settings)
