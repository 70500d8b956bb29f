"""The judge's biases against the experts' consensus: leniency, length bias, self-consistency, weak groups.

* leniency: the mean of judge − consensus per judged dimension, and overall (each item's mean over its judged
  dimensions), with a bootstrap interval; positive means the judge scores higher than the experts;
* length bias: Spearman's rho between the response's length in characters and the item's overall residual
  (judge − consensus), with its interval, flagged when the interval excludes zero: a judge that rewards longer
  answers is the most reported bias of LLM judges. The response is the item's `response` field, else the
  rubric's first code field, else its last XML or output field, else its last field;
* self-consistency: the judge's repeats (`judge --repeat`) against each other, as the report computes them;
* weak groups: alignment per task type and per CEFR level (fields `task_type`, `cefr_level`) with a bootstrap
  interval over items; a group is marked when its whole interval lies below the alignment of the other items.

`judge_biases` computes them (`Biases`); `biases_dict` is the JSON section, `biases_blocks` draws the same
object as blocks (team_report's headings, paragraphs and tables: Markdown, Rich or plain lines) and `biases_lines` is the plain
form the judge screen shows, so every place shows the same figures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from judge_tui.analysis.figure_format import (
    figure_text,
    figure_with_interval,
    interval_json,
    interval_text,
    share_text,
)
from judge_tui.analysis.pair_intervals import DEFAULT_CONFIDENCE, cluster_share_interval
from judge_tui.analysis.report import Group, JudgeSelfAgreement, NoComparison, Report, build_report
from judge_tui.analysis.scores import has_item_field, load
from judge_tui.analysis.team import TeamView, load_team, team_consensus
from judge_tui.analysis.team_report import Block, Heading, Paragraph, TableBlock, lines_of
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import DEFAULT_TOLERANCE, AgreementSettings
from judge_tui.stats import agreement as ag
from judge_tui.stats.bias import Estimate, length_correlation, mean_difference_estimate
from judge_tui.stats.intervals import IntervalFigure
from judge_tui.store import Store

if TYPE_CHECKING:
    from judge_tui.analysis.scores import RubricRatings

OVERALL = "overall"
GROUP_FIELDS = ("task_type", "cefr_level")


@dataclass(frozen=True)
class Leniency:
    key: str  # a dimension id, or "overall"
    name: str
    estimate: Estimate


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
    confidence: float = DEFAULT_CONFIDENCE  # of every interval

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
    out = np.full(keys.size, np.nan)
    if field is None:
        return out
    known, values = store.item_field_values(rubric.id, field, split)
    length_of = {int(k): (len(v) if isinstance(v, str) else len(str(v)) if v is not None else np.nan)
                 for k, v in zip(known.tolist(), values, strict=True)}
    for i, key in enumerate(keys.tolist()):
        out[i] = length_of.get(int(key), np.nan)
    return out


def consensus_and_judge(view: TeamView) -> tuple[np.ndarray, np.ndarray]:
    """The experts' consensus (one expert is enough) and the judge's scores, each dimensions x items."""
    if not view.dimensions:
        return np.empty((0, view.item_keys.size)), np.empty((0, view.item_keys.size))
    return (np.vstack([team_consensus(view, d, min_raters=1)[0] for d in view.dimensions]),
            np.vstack([view.judge_scores[d] for d in view.dimensions]))


def judge_biases(store: Store, rubric: Rubric, judge_id: str, *, split: str | None = None,
                 tolerance: float = DEFAULT_TOLERANCE, confidence: float = DEFAULT_CONFIDENCE,
                 ratings: RubricRatings | None = None, report: Report | None = None) -> Biases:
    """Every bias figure of one judge rater against the experts' consensus over the items of `split`.

    ``ratings``: the split's ratings (scores.load) when the caller has read them already; ``report``: a judge
    comparison built from them, whose self-agreement of this judge is taken instead of building another."""
    with store.snapshot():
        ratings = ratings if ratings is not None else load(store, rubric, split)
        view = load_team(store, rubric, split=split, judge=judge_id, ratings=ratings, notes=False)
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
    leniency = [Leniency(d, rubric.dimension(d).name, mean_difference_estimate(judge[i], human[i], confidence))
                for i, d in enumerate(dims)]
    diff = judge - human  # dimensions x items
    scored = (~np.isnan(diff)).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):  # an item nobody scored on both sides: NaN
        residual = np.where(scored > 0, np.nansum(diff, axis=0) / scored, np.nan)
    leniency.append(Leniency(OVERALL, "overall (mean over judged dimensions)",
                             mean_difference_estimate(residual, np.zeros_like(residual), confidence)))
    length = length_correlation(lengths, residual, confidence)

    aligned = (np.abs(diff) <= tolerance + ag.ALIGNMENT_EPSILON) & ~np.isnan(diff)
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
            interval = cluster_share_interval(hits[inside], counted[inside], confidence)
            weak = (isinstance(others, float) and not isinstance(interval, ag.Undefined)
                    and interval.high < others)
            groups.append(GroupAlignment(f, value, n, share, interval, others, weak))

    self_consistency = None
    if report is None and view.experts:
        try:
            report = build_report(store, rubric, human=Group("human", view.experts), judge=Group("judge", (judge_id,)),
                                  split=split, ratings=ratings, settings=AgreementSettings(tolerance=tolerance,
                                                                                          confidence=confidence))
        except NoComparison:
            report = None
    if report is not None:
        self_consistency = next((s for s in report.self_agreement if s.rater_id == judge_id), None)
    return Biases(rubric.id, judge_id, split, view.experts, field, tuple(leniency), length, self_consistency,
                  tuple(groups), confidence)


# --------------------------------------------------------------------------- renderings


def _estimate_dict(estimate: Estimate, name: str) -> dict[str, Any]:
    undefined: dict[str, str] = {}
    value: float | None = None
    if isinstance(estimate.value, ag.Undefined):
        undefined[name] = estimate.value.reason
    else:
        value = estimate.value
    out = {"n": estimate.n, name: value, "interval": interval_json(estimate.interval, "interval", undefined),
           "excludes_zero": estimate.excludes_zero}
    if undefined:
        out["undefined"] = undefined
    return out


def biases_dict(biases: Biases) -> dict[str, Any]:
    """The biases as the JSON report's section."""
    consistency = None
    if biases.self_consistency is not None:
        s = biases.self_consistency
        consistency = {"repeats": s.repeats, "items": s.items, "rows": [
            {"key": r.key, "n": r.n, "alignment_rate": r.alignment_rate if ag.is_defined(r.alignment_rate) else None,
             "cohen_kappa": r.cohen_kappa if ag.is_defined(r.cohen_kappa) else None,
             "intervals": {name: interval_json(r.intervals[name], name, {})
                           for name in ("alignment_rate", "cohen_kappa")}} for r in s.rows]}
    return {
        "judge": biases.judge, "split": biases.split, "reference": "experts' consensus", "experts": list(biases.experts),
        "confidence": biases.confidence,
        "leniency": [{"key": le.key, "name": le.name, **_estimate_dict(le.estimate, "mean_difference")}
                     for le in biases.leniency],
        "length_bias": {"field": biases.length_field, **_estimate_dict(biases.length, "spearman_rho"),
                        "flagged": biases.length_flagged},
        "self_consistency": consistency,
        "groups": [{"by": g.by, "value": g.value, "items": g.items,
                    "alignment_rate": g.alignment if ag.is_defined(g.alignment) else None,
                    "interval": interval_json(g.interval, "interval", {}),
                    "others_alignment_rate": g.others if ag.is_defined(g.others) else None, "weak": g.weak}
                   for g in biases.groups],
    }


def _lean(estimate: Estimate) -> str:
    value = estimate.value
    if not estimate.excludes_zero or isinstance(value, ag.Undefined):
        return "no detectable lean"
    return "lenient: scores higher" if value > 0 else "harsh: scores lower"


def _length_verdict(biases: Biases) -> str:
    rho = biases.length.value
    if isinstance(rho, ag.Undefined):
        return f"not measurable ({rho.reason})"
    if biases.length_flagged:
        return ("FLAGGED: the judge rewards longer responses" if rho > 0
                else "FLAGGED: the judge rewards shorter responses")
    return "no detectable length bias (the interval includes 0)"


def _signed_with_interval(value: ag.Figure, interval: IntervalFigure) -> str:
    """A difference with its sign, as the report's J−H column writes it: "+0.060 [0.02, 0.12]"."""
    text = figure_text(value, digits=3, signed=True)
    bounds = interval_text(interval)
    return f"{text} {bounds}" if bounds and text != "n/a" else text


def biases_blocks(section: Biases, *, heading: bool = True) -> list[Block]:
    """The biases section as blocks: the same figures in Markdown, Rich or plain lines (biases_dict: JSON)."""
    level = share_text(section.confidence)
    blocks: list[Block] = [Heading(f"Judge biases: {section.judge}")] if heading else []
    where = f"the {section.split} split" if section.split else "all items"
    blocks.append(Paragraph((
        f"Against the experts' consensus ({', '.join(section.experts) or 'no experts'}) on {where}; "
        f"[low, high]: {level} intervals.",)))
    blocks.append(TableBlock(
        ("dimension", "n", "judge − experts", "lean"),
        tuple((le.key, str(le.estimate.n), _signed_with_interval(le.estimate.value, le.estimate.interval),
               _lean(le.estimate))
              for le in section.leniency),
        "Leniency (mean score difference; overall: each item's mean over its judged dimensions):",
        frozenset({1, 2})))
    length = section.length
    rho = figure_with_interval(length.value, length.interval, digits=2)
    lines = [f"Length bias (Spearman rho, length of {section.length_field or '?'} vs judge − consensus): {rho} "
             f"over {length.n} items: {_length_verdict(section)}"]
    consistency = section.self_consistency
    if consistency is None:
        lines.append("Self-consistency: no repeats (run `judge-tui judge --repeat 3` to measure it)")
    else:
        overall = next((r for r in consistency.rows if r.key == "overall"), consistency.rows[-1])
        alignment = figure_with_interval(overall.alignment_rate, overall.intervals["alignment_rate"], percent=True)
        lines.append(f"Self-consistency over {consistency.repeats} repeats of {consistency.items} items: "
                     f"alignment {alignment} (overall score)")
    weak = [g for g in section.groups if g.weak]
    for g in weak:
        lines.append(f"Markedly worse: {g.by} {g.value}: alignment "
                     f"{figure_with_interval(g.alignment, g.interval, percent=True)} over {g.items} "
                     f"items, against {figure_text(g.others, percent=True)} on the other items")
    if section.groups and not weak:
        by = " / ".join(dict.fromkeys(g.by for g in section.groups))
        lines.append(f"By {by}: no group is markedly worse than the others")
    blocks.append(Paragraph(tuple(lines)))
    return blocks


def biases_lines(biases: Biases) -> list[str]:
    """The biases as plain text lines (the judge screen)."""
    return lines_of(biases_blocks(biases, heading=False), "text")
