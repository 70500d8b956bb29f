"""The judge's biases against the experts' consensus: leniency, length bias, self-consistency, weak groups.

* leniency: the mean of judge − consensus per judged dimension, and overall (each item's mean over its judged
  dimensions), with a bootstrap interval; positive means the judge scores higher than the experts;
* length bias: Spearman's rho between the response's length in characters and the item's overall residual
  (judge − consensus), with its interval, flagged when the interval excludes zero: a judge that rewards longer
  answers is the most reported bias of LLM judges. The response is the item's `response` field, else the
  rubric's first code field, else its last XML or output field, else its last field;
* self-consistency: the judge's repeats (`judge --repeat`) against each other, as the report computes them;
* on nominal categories (Scale.nominal) a category's stored position is a name, not a number: leniency and the
  length bias are undefined there, with the reason, and the category shares take leniency's place: per category,
  the share of items the judge puts in it minus the experts' share (stats.bias.category_shifts). Self-consistency
  and the weak groups count alignment, which on nominal categories is the same category, so they stand;
* weak groups: alignment per task type and per CEFR level (fields `task_type`, `cefr_level`) with a bootstrap
  interval over items; a group is marked when its whole interval lies below the alignment of the other items.

The experts are those of the report's human group: every expert by default, the ones `--raters` names otherwise,
and every expert again when `--raters` names no expert on the human side (two judges compared with each other:
team.names_no_expert), which the section then says. Every judge `--raters` names has its biases measured, on either
side.

`judge_biases` computes them (`Biases`); analysis/report_render/biases.py renders that object for the report and
the judge screen, so every place shows the same figures.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from judge_tui.analysis.pair_intervals import cluster_share_interval
from judge_tui.analysis.report import Group, JudgeSelfAgreement, NoComparison, Report, build_report
from judge_tui.analysis.scores import agreeing, has_item_field, load
from judge_tui.analysis.team import TeamView, experts_rating, load_team, names_no_expert, team_consensus
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats import agreement as ag
from judge_tui.stats.bias import (
    CategoryShift,
    Estimate,
    category_shifts,
    length_correlation,
    mean_difference_estimate,
)
from judge_tui.stats.intervals import IntervalFigure
from judge_tui.store import Store

if TYPE_CHECKING:
    from judge_tui.analysis.scores import RubricRatings

OVERALL = "overall"
GROUP_FIELDS = ("task_type", "cefr_level")
NOMINAL_LENIENCY = ("the categories are nominal: a category's position is a name, not a number, so a mean of "
                    "judge − experts means nothing; the category shares say which categories the judge names more "
                    "or less often than the experts")
NOMINAL_LENGTH = ("the categories are nominal: judge − experts has no size or direction, so its correlation with "
                  "the response's length means nothing")


@dataclass(frozen=True)
class Leniency:
    key: str  # a dimension id, or "overall"
    name: str
    estimate: Estimate


@dataclass(frozen=True)
class CategoryShares:
    """One dimension of nominal categories: per category, the judge's share minus the experts' share."""

    key: str
    name: str
    categories: tuple[str, ...]
    shifts: tuple[CategoryShift, ...]  # one per category, in the rubric's order


@dataclass(frozen=True)
class GroupAlignment:
    by: str
    value: str
    items: int
    alignment: ag.Figure
    interval: IntervalFigure
    others: ag.Figure  # alignment over every other item
    weak: bool  # the whole interval lies below `others`


@dataclass(frozen=True)
class Biases:
    rubric: str
    judge: str
    split: str | None
    experts: tuple[str, ...]
    length_field: str | None
    leniency: tuple[Leniency, ...]
    length: Estimate
    self_consistency: JudgeSelfAgreement | None
    groups: tuple[GroupAlignment, ...]
    settings: AgreementSettings  # the tolerance and the confidence of every interval it was measured at
    nominal: bool = False  # nominal categories: leniency and length undefined, category_shares instead
    category_shares: tuple[CategoryShares, ...] = ()
    left_out: tuple[str, ...] = ()  # experts who rated but are not in the report's human group (`--raters`)
    # Why the experts are every expert though `--raters` chose the human group ("" when they are not).
    reference_note: str = ""

    @property
    def length_flagged(self) -> bool:
        return self.length.excludes_zero


def response_length_field(rubric: Rubric) -> str | None:
    names = [f.name for f in rubric.fields]
    if "response" in names:
        return "response"
    code = [f.name for f in rubric.fields if f.kind == "code"]
    if code:
        return code[0]
    shown = [f.name for f in rubric.fields if f.kind in ("xml", "output")]
    return shown[-1] if shown else (names[-1] if names else None)


def _lengths(store: Store, rubric: Rubric, field: str | None, keys: np.ndarray, split: str | None) -> np.ndarray:
    """The response's length of each item key, NaN where it has none (counted in SQL: store.item_field_lengths)."""
    if field is None:
        return np.full(keys.size, np.nan)
    known, lengths = store.item_field_lengths(rubric.id, field, split)
    length_of = dict(zip(known.tolist(), lengths.tolist(), strict=True))
    return np.array([length_of.get(key, np.nan) for key in keys.tolist()], dtype=np.float64)


def consensus_and_judge(view: TeamView) -> tuple[np.ndarray, np.ndarray]:
    """The experts' consensus (one expert is enough) and the judge's scores, each dimensions x items."""
    if not view.dimensions:
        return np.empty((0, view.item_keys.size)), np.empty((0, view.item_keys.size))
    return (np.vstack([team_consensus(view, d, min_raters=1)[0] for d in view.dimensions]),
            np.vstack([view.judge_scores[d] for d in view.dimensions]))


def judge_biases(store: Store, rubric: Rubric, judge_id: str, *, split: str | None = None,
                 settings: AgreementSettings | None = None,
                 ratings: RubricRatings | None = None, report: Report | None = None,
                 among: Collection[str] | None = None) -> Biases:
    """Every bias figure of one judge rater against the experts' consensus over the items of `split`.

    ``ratings``: the split's ratings (scores.load) when the caller has read them already; ``report``: a judge
    comparison built from them, of this judge, whose self-agreement of this judge is taken instead of building
    another, and whose human group are the experts here (its experts: team.experts_rating), as in the rest of the
    report; ``among``: that human group, when the judge is not the report's judge (it is on the human side)."""
    settings = settings or AgreementSettings()
    with store.snapshot():
        ratings = ratings if ratings is not None else load(store, rubric, split)
        if report is not None:
            among = report.human.rater_ids  # `--raters` names them for every section
        view = load_team(store, rubric, split=split, judge=judge_id, ratings=ratings, notes=False, among=among)
        left_out = tuple(e for e in experts_rating(ratings, view.item_keys) if e not in view.experts)
        note = (f"every expert, as --raters names none on the human side ({', '.join(among or ())})"
                if names_no_expert(ratings, among) else "")
        fields = [f for f in GROUP_FIELDS if has_item_field(store, rubric, f)]
        groups_of = {}
        for f in fields:
            known, values = store.item_field_values(rubric.id, f, split)
            value_of = dict(zip(known.tolist(), values, strict=True))
            groups_of[f] = ["(none)" if value_of.get(k) in (None, "") else str(value_of.get(k))
                            for k in view.item_keys.tolist()]
        field = response_length_field(rubric)
        lengths = _lengths(store, rubric, field, view.item_keys, split)
    dims = view.dimensions
    human, judge = consensus_and_judge(view)
    diff = judge - human  # dimensions x items
    scored = (~np.isnan(diff)).sum(axis=0)
    nominal = rubric.scale.nominal
    shares: list[CategoryShares] = []
    if nominal:
        leniency = [Leniency(d, rubric.dimension(d).name, _undefined(int(scored_i), NOMINAL_LENIENCY))
                    for d, scored_i in zip(dims, (~np.isnan(diff)).sum(axis=1).tolist(), strict=True)]
        leniency.append(Leniency(OVERALL, "overall (the label's category)",
                                 _undefined(int(np.count_nonzero(scored)), NOMINAL_LENIENCY)))
        length = _undefined(int(np.count_nonzero((scored > 0) & np.isfinite(lengths))), NOMINAL_LENGTH)
        last = len(rubric.scale.categories) - 1
        shares = [CategoryShares(d, rubric.dimension(d).name, tuple(rubric.scale.categories),
                                 category_shifts(np.rint(judge[i] * last), np.rint(human[i] * last), last + 1,
                                                 settings.confidence))
                  for i, d in enumerate(dims)]
    else:
        leniency = [Leniency(d, rubric.dimension(d).name, mean_difference_estimate(judge[i], human[i], settings.confidence))
                    for i, d in enumerate(dims)]
        with np.errstate(invalid="ignore", divide="ignore"):  # an item nobody scored on both sides: NaN
            residual = np.where(scored > 0, np.nansum(diff, axis=0) / scored, np.nan)
        leniency.append(Leniency(OVERALL, "overall (mean over judged dimensions)",
                                 mean_difference_estimate(residual, np.zeros_like(residual), settings.confidence)))
        length = length_correlation(lengths, residual, settings.confidence)

    aligned = agreeing(rubric.scale, judge, human, settings.tolerance)  # False where either is missing
    hits = aligned.sum(axis=0).astype(np.float64)
    counted = (~np.isnan(diff)).sum(axis=0).astype(np.float64)
    groups = []
    for f, labels in groups_of.items():
        label_array = np.array(labels, dtype=object)
        for value in sorted(set(labels)):
            inside = (label_array == value) & (counted > 0)
            rest = (label_array != value) & (counted > 0)
            n = int(np.count_nonzero(inside))
            if n == 0:
                continue
            share = float(hits[inside].sum() / counted[inside].sum())
            others: ag.Figure = (float(hits[rest].sum() / counted[rest].sum()) if counted[rest].sum() > 0
                                 else ag.Undefined("no other items"))
            interval = cluster_share_interval(hits[inside], counted[inside], settings.confidence)
            weak = (isinstance(others, float) and not isinstance(interval, ag.Undefined)
                    and interval.high < others)
            groups.append(GroupAlignment(f, value, n, share, interval, others, weak))

    self_consistency = None
    if report is None and view.experts:
        try:
            report = build_report(store, rubric, human=Group("human", view.experts), judge=Group("judge", (judge_id,)),
                                  split=split, ratings=ratings, settings=settings)
        except NoComparison:
            report = None
    if report is not None:
        self_consistency = next((s for s in report.self_agreement if s.rater_id == judge_id), None)
    return Biases(rubric.id, judge_id, split, view.experts, field, tuple(leniency), length, self_consistency,
                  tuple(groups), settings, nominal, tuple(shares), left_out, note)


def _undefined(n: int, reason: str) -> Estimate:
    """A figure this scale cannot have, over the n items it would have been computed from."""
    return Estimate(n, ag.Undefined(reason), ag.Undefined(reason))
