"""Agreement among several experts, and between them and the judge.

The store gives a rater x item x dimension view of one rubric (`load_team`); everything after that is
arithmetic on arrays through the agreement engine:

* Krippendorff's alpha per judged dimension among the experts (ordinal for ordered scales, nominal for
  PASS/FAIL), and Cohen's kappa for every pair of experts;
* each expert against the judge (alignment within the tolerance, kappa, Pearson r);
* the experts' consensus against the judge. The consensus of an item is the lead's adjudicated score where
  there is one, otherwise the mean of the experts' scores (ordered scales) or the majority label (PASS/FAIL)
  over the experts who rated it, when at least two did. A PASS/FAIL tie has no majority: the item is left out
  of the consensus (and counted as a tie) until someone adjudicates it.

Who counts as an expert: every human rater except the adjudicated "consensus" rater. That rater is a human
rater of its own (so its ratings merge, export and show like anyone's) but it is derived from the experts,
so it never enters alpha, the kappa matrix or the per-expert rows; it only replaces the computed consensus.
Drift re-ratings (repeat 1) are left out: each expert's first rating is their rating.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import DEFAULT_TOLERANCE
from judge_tui.stats import agreement as ag
from judge_tui.store import Store

CONSENSUS_RATER = "consensus"
TOLERANCE = DEFAULT_TOLERANCE  # callers pass settings.agreement.tolerance


@dataclass(frozen=True)
class TeamView:
    """One rubric's ratings as arrays: experts x items per judged dimension, NaN where a rating is missing."""

    rubric: Rubric
    item_ids: tuple[str, ...]
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


def load_team(store: Store, rubric: Rubric, *, split: str | None = None, judge: str | None = None,
              only_items: set[str] | None = None, rows: list[dict[str, Any]] | None = None) -> TeamView:
    """The view of `rubric`'s items (optionally one split, or only some items). The judge is `judge`, else
    the judge rater with the most ratings of this rubric (first created wins a tie). `rows`: the split's
    first-run rating rows (`store.rating_rows(..., repeat=0)`) when the caller has read them already."""
    if rows is None:
        rows = store.rating_rows(rubric.id, repeat=0, split=split)
    item_ids = tuple(store.item_ids_in_order(rubric.id, split))
    if only_items is not None:
        item_ids = tuple(i for i in item_ids if i in only_items)
        rows = [r for r in rows if r["item_id"] in only_items]
    column = {item_id: i for i, item_id in enumerate(item_ids)}
    experts = tuple(sorted({r["rater_id"] for r in rows if is_expert(r["rater_id"], r["kind"])}))
    if judge is None:
        counts: dict[str, int] = {}
        for r in rows:
            if r["kind"] == "judge":
                counts[r["rater_id"]] = counts.get(r["rater_id"], 0) + 1
        judge = max(counts, key=lambda j: counts[j]) if counts else None
    row_of = {expert: i for i, expert in enumerate(experts)}
    dims = [d.id for d in rubric.judged_dimensions]
    shape = (len(experts), len(item_ids))
    expert_scores = {d: np.full(shape, np.nan) for d in dims}
    adjudicated = {d: np.full(len(item_ids), np.nan) for d in dims}
    judge_scores = {d: np.full(len(item_ids), np.nan) for d in dims}
    notes: dict[tuple[str, str], str] = {}
    # Rows come oldest rubric version first, so the newest version's rating is the one kept.
    for r in rows:
        col = column[r["item_id"]]
        rater = r["rater_id"]
        target: list[tuple[np.ndarray, Any]]
        if rater in row_of:
            target = [(expert_scores[d], (row_of[rater], col)) for d in dims]
            notes[(rater, r["item_id"])] = r["notes"]
        elif rater == CONSENSUS_RATER:
            target = [(adjudicated[d], col) for d in dims]
        elif rater == judge:
            target = [(judge_scores[d], col) for d in dims]
        else:
            continue
        for (array, index), d in zip(target, dims, strict=True):
            value = r["scores"].get(d)
            array[index] = np.nan if value is None else float(value)
    return TeamView(rubric, item_ids, experts, expert_scores, adjudicated, judge, judge_scores, notes)


# --------------------------------------------------------------------------- pure functions on arrays


def consensus(matrix: np.ndarray, ordered: bool, min_raters: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Per item: the mean of the raters' scores (ordered scales) or the majority value (unordered), NaN where
    fewer than `min_raters` rated or (unordered) the most frequent values tie. Returns (values, tie mask)."""
    matrix = np.asarray(matrix, dtype=np.float64)
    out = np.full(matrix.shape[1], np.nan)
    tied = np.zeros(matrix.shape[1], dtype=bool)
    for j in range(matrix.shape[1]):
        column = matrix[:, j][~np.isnan(matrix[:, j])]
        if column.size < min_raters:
            continue
        if ordered:
            out[j] = float(column.mean())
            continue
        values, counts = np.unique(column, return_counts=True)
        winners = values[counts == counts.max()]
        if winners.size == 1:
            out[j] = float(winners[0])
        else:
            tied[j] = True
    return out, tied


def spread_exceeds(matrix: np.ndarray, tolerance: float = TOLERANCE) -> np.ndarray:
    """Per item: True where at least two raters' scores differ by more than the tolerance."""
    matrix = np.asarray(matrix, dtype=np.float64)
    present = ~np.isnan(matrix)
    enough = present.sum(axis=0) >= 2
    high = np.where(present, matrix, -np.inf).max(axis=0)
    low = np.where(present, matrix, np.inf).min(axis=0)
    return enough & (high - low > tolerance + ag.ALIGNMENT_EPSILON)


def _pair(a: np.ndarray, b: np.ndarray, points: tuple[float, ...], ordered: bool,
          tolerance: float) -> ag.PairAgreement:
    both = ~np.isnan(a) & ~np.isnan(b)
    return ag.compare(a[both], b[both], points, ordered=ordered, tolerance=tolerance)


# --------------------------------------------------------------------------- the team figures


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


@dataclass(frozen=True)
class TeamAgreement:
    rubric: str
    experts: tuple[str, ...]
    judge: str | None
    items: int
    tolerance: float  # scores at most this far apart count as aligned
    dimensions: tuple[DimensionTeam, ...]
    pooled_vs_judge: dict[str, ag.Figure]  # expert (and "consensus") -> alignment over every judged dimension

    @property
    def has_team(self) -> bool:
        return len(self.experts) >= 2


def team_consensus(view: TeamView, dimension: str, min_raters: int = 2) -> tuple[np.ndarray, int]:
    """The consensus scores of one dimension (adjudicated scores first) and how many PASS/FAIL ties remain."""
    computed, tied = consensus(view.expert_scores[dimension], view.rubric.scale.ordered, min_raters)
    adjudicated = view.adjudicated[dimension]
    done = ~np.isnan(adjudicated)
    return np.where(done, adjudicated, computed), int(np.count_nonzero(tied & ~done))


def team_agreement(view: TeamView, tolerance: float = TOLERANCE) -> TeamAgreement:
    scale = view.rubric.scale
    points, ordered = scale.points, scale.ordered
    level: ag.AlphaLevel = "ordinal" if ordered else "nominal"
    dims = []
    pooled: dict[str, list[np.ndarray]] = {name: [] for name in (*view.experts, CONSENSUS_RATER)}
    for d in view.dimensions:
        matrix = view.expert_scores[d]
        judge = view.judge_scores[d]
        alpha = ag.krippendorff_alpha(matrix, level, points) if len(view.experts) >= 2 else ag.Undefined(
            "alpha needs at least two experts")
        kappa = ag.pairwise_kappa(matrix, points) if view.experts else ()
        per_expert = {e: _pair(matrix[i], judge, points, ordered, tolerance) for i, e in enumerate(view.experts)}
        values, ties = team_consensus(view, d)
        dims.append(DimensionTeam(
            dimension=d, alpha=alpha, alpha_level=level, kappa=kappa, experts_vs_judge=per_expert,
            consensus_vs_judge=_pair(values, judge, points, ordered, tolerance),
            consensus_items=int(np.count_nonzero(~np.isnan(values))),
            adjudicated_items=int(np.count_nonzero(~np.isnan(view.adjudicated[d]))), ties=ties,
        ))
        for i, e in enumerate(view.experts):
            pooled[e].append(_aligned(matrix[i], judge, tolerance))
        pooled[CONSENSUS_RATER].append(_aligned(values, judge, tolerance))
    pooled_rates = {name: _rate(parts) for name, parts in pooled.items()}
    return TeamAgreement(view.rubric.id, view.experts, view.judge, len(view.item_ids), tolerance, tuple(dims),
                         pooled_rates)


def _aligned(a: np.ndarray, b: np.ndarray, tolerance: float) -> np.ndarray:
    both = ~np.isnan(a) & ~np.isnan(b)
    return np.abs(a[both] - b[both]) <= tolerance + ag.ALIGNMENT_EPSILON


def _rate(parts: list[np.ndarray]) -> ag.Figure:
    flags = np.concatenate(parts) if parts else np.array([], dtype=bool)
    if flags.size == 0:
        return ag.Undefined("no items were rated by both")
    return float(np.count_nonzero(flags) / flags.size)


# --------------------------------------------------------------------------- disagreements (adjudication)


@dataclass(frozen=True)
class ExpertDisagreement:
    item_id: str
    dimensions: tuple[str, ...]  # where the experts differ beyond the tolerance
    experts: tuple[str, ...]  # who rated the item
    adjudicated: bool


def disagreements(view: TeamView, tolerance: float = TOLERANCE) -> list[ExpertDisagreement]:
    """Items two or more experts rated whose scores differ by more than the tolerance on some dimension."""
    if not view.experts:
        return []
    flags = {d: spread_exceeds(view.expert_scores[d], tolerance) for d in view.dimensions}
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
