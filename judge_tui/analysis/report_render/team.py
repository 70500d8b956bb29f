"""The team section (agreement among experts) and the experts' self-agreement, rendered from their typed objects
(team.TeamAgreement, drift.ExpertSelfAgreement): a plain dict for the JSON report (team_to_dict, drift_to_dicts)
and blocks for text, Markdown and the summary screen (team_blocks, drift_blocks).

Figures are kept at full precision in the dicts and rounded only in text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from judge_tui.analysis.drift import ExpertSelfAgreement
from judge_tui.analysis.report_render.blocks import Block, Heading, Paragraph, TableBlock
from judge_tui.analysis.report_render.section_json import figure, with_intervals
from judge_tui.analysis.team import DimensionTeam, TeamAgreement
from judge_tui.formats.numbers import (
    aligned_text,
    figure_text,
    figure_with_interval,
    interval_json,
    share_text,
)
from judge_tui.model.records import CONSENSUS_RATER
from judge_tui.model.rubrics import Scale
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats import agreement as ag
from judge_tui.stats.chance import GwetAC
from judge_tui.stats.intervals import IntervalFigure
from judge_tui.stats.raters import GwetAgreement


def _pair(p: ag.PairAgreement, named: dict[str, IntervalFigure]) -> dict[str, Any]:
    return with_intervals({"n": p.n, "alignment": figure(p.alignment_rate), "kappa": figure(p.cohen_kappa),
                           "pearson_r": figure(p.pearson_r)}, named)


def _gwet(value: GwetAgreement | GwetAC | ag.Undefined) -> tuple[float | dict[str, str], float | None, IntervalFigure]:
    if isinstance(value, ag.Undefined):
        return figure(value), None, value
    return float(value.value), float(value.standard_error), value.interval


def team_to_dict(result: TeamAgreement, split: str | None) -> dict[str, Any]:
    dims = []
    for d in result.dimensions:
        pairs = []
        for pair in d.expert_pairs:
            ac1, ac1_se, ac1_ci = _gwet(pair.ac1)
            ac2, ac2_se, ac2_ci = _gwet(pair.ac2)
            pairs.append(with_intervals(
                {"experts": list(pair.experts), "n": pair.n, "kappa": figure(pair.kappa), "ac1": ac1,
                 "ac1_standard_error": ac1_se, "ac2": ac2, "ac2_standard_error": ac2_se},
                {"kappa": pair.kappa_interval, "ac1": ac1_ci, "ac2": ac2_ci}))
        fleiss = d.fleiss
        named: dict[str, IntervalFigure] = {"alpha": d.alpha_levels[d.alpha_level][1]}
        named |= {f"alpha_{level}": interval for level, (_, interval) in d.alpha_levels.items()}
        named["fleiss_kappa"] = fleiss if isinstance(fleiss, ag.Undefined) else fleiss.interval
        ac1, ac1_se, named["ac1"] = _gwet(d.ac1)
        ac2, ac2_se, named["ac2"] = _gwet(d.ac2)
        consensus = d.intervals[f"judge:{CONSENSUS_RATER}"]
        dims.append(with_intervals({
            "dimension": d.dimension,
            "alpha": figure(d.alpha),
            "alpha_level": d.alpha_level,
            "kappa_matrix": [[figure(k) for k in row] for row in d.kappa],
            "experts_vs_judge": {e: _pair(p, d.intervals[f"judge:{e}"]) for e, p in d.experts_vs_judge.items()},
            "consensus_vs_judge": {**_pair(d.consensus_vs_judge, consensus), "items": d.consensus_items,
                                   "adjudicated": d.adjudicated_items, "ties": d.ties},
            "alpha_levels": {level: figure(value) for level, (value, _) in d.alpha_levels.items()},
            "fleiss_kappa": figure(fleiss if isinstance(fleiss, ag.Undefined) else fleiss.value),
            "fleiss_kappa_standard_error": None if isinstance(fleiss, ag.Undefined) else fleiss.standard_error,
            "expert_pairs": pairs,
            "experts_vs_consensus": {e: _pair(p, d.intervals[f"consensus:{e}"])
                                     for e, p in d.experts_vs_consensus.items()},
            "ac1": ac1, "ac1_standard_error": ac1_se, "ac2": ac2, "ac2_standard_error": ac2_se,
        }, named))
    undefined: dict[str, str] = {}
    pooled = {k: interval_json(v, f"pooled_alignment_intervals.{k}", undefined)
              for k, v in result.pooled_intervals.items()}
    return {"experts": list(result.experts), "judge": result.judge, "items": result.items, "split": split,
            "tolerance": result.settings.tolerance, "dimensions": dims,
            "pooled_alignment": {k: figure(v) for k, v in result.pooled_vs_judge.items()},
            "confidence": result.settings.confidence, "pooled_alignment_intervals": pooled, "undefined": undefined}


def drift_to_dicts(results: Sequence[ExpertSelfAgreement], settings: AgreementSettings) -> list[dict[str, Any]]:
    return [with_intervals(
        {"rater": s.rater_id, "pairs": s.pairs, "tolerance": settings.tolerance, "alignment": figure(s.alignment),
         "by_dimension": {d: with_intervals({"alignment": figure(p.alignment_rate), "kappa": figure(p.cohen_kappa)},
                                            s.dimension_intervals[d])
                          for d, p in s.by_dimension.items()},
         "confidence": settings.confidence},
        {"alignment": s.alignment_interval})
        for s in results]


# --------------------------------------------------------------------------- blocks


def _num(value: ag.Figure, percent: bool = False, signed: bool = False) -> str:
    return figure_text(value, digits=2, percent=percent, signed=signed)


def _ci(value: ag.Figure, interval: IntervalFigure | None, percent: bool = False) -> str:
    """A figure with its interval, e.g. "0.73 [0.49, 0.96]" or "83.3% [55, 95]"."""
    return figure_with_interval(value, interval, digits=2, percent=percent)


def _confidence_line(settings: AgreementSettings) -> str:
    return f"[low, high]: {share_text(settings.confidence)} intervals; docs/agreement.md names each method."


def _gwet_parts(value: GwetAgreement | GwetAC | ag.Undefined) -> tuple[ag.Figure, IntervalFigure]:
    """A Gwet coefficient's estimate and interval (the Undefined twice when it cannot be computed)."""
    if isinstance(value, ag.Undefined):
        return value, value
    return float(value.value), value.interval


def _fleiss_parts(d: DimensionTeam) -> tuple[ag.Figure, IntervalFigure]:
    fleiss = d.fleiss
    return (fleiss, fleiss) if isinstance(fleiss, ag.Undefined) else (fleiss.value, fleiss.interval)


def team_blocks(section: TeamAgreement) -> list[Block]:
    experts = section.experts
    dimensions = section.dimensions
    blocks: list[Block] = [Heading("Team: agreement among experts")]
    blocks.append(Paragraph((
        f"{len(experts)} experts ({', '.join(experts)}) on {section.items} items; judge: "
        f"{section.judge or 'none yet'}. " + (
            "Consensus = adjudicated category, else the experts' majority category (ties left out)."
            if section.nominal else
            "Consensus = adjudicated score, else the experts' mean (PASS/FAIL: majority; ties left out); kappa "
            "takes a mean at its nearest scale point."),
        _confidence_line(section.settings))))
    levels = [level for level in ("nominal", "ordinal", "interval")
              if any(ag.is_defined(d.alpha_levels[level][0]) for d in dimensions)]
    primary = dimensions[0].alpha_level if dimensions else "ordinal"
    others = [level for level in levels if level != primary]
    # Tables of at most three figures with intervals, so that they fit 80 columns on the summary screen.
    blocks.append(TableBlock(
        ("dimension", f"alpha ({primary})", "Fleiss kappa"),
        tuple((d.dimension, _ci(d.alpha, d.alpha_levels[d.alpha_level][1]), _ci(*_fleiss_parts(d)))
              for d in dimensions),
        right=frozenset({1, 2})))
    if others:
        blocks.append(TableBlock(
            ("dimension", *(f"alpha {level}" for level in others)),
            tuple((d.dimension, *(_ci(*d.alpha_levels[level]) for level in others)) for d in dimensions),
            "Alpha at the other levels (the consensus averages scores, as the interval level does):",
            frozenset(range(1, 1 + len(others)))))
    with_ac2 = any(ag.is_defined(_gwet_parts(d.ac2)[0]) for d in dimensions)
    blocks.append(TableBlock(
        ("dimension", "AC1", *(("AC2 (quadratic)",) if with_ac2 else ())),
        tuple((d.dimension, _ci(*_gwet_parts(d.ac1)), *((_ci(*_gwet_parts(d.ac2)),) if with_ac2 else ()))
              for d in dimensions),
        "Gwet's AC1 among all the experts (holds up when one score is far more common than the others):",
        frozenset({1, 2})))
    tolerance = f"alignment {section.aligned}"
    for d in dimensions:
        settled = (f"; consensus: {d.adjudicated_items} adjudicated, {d.ties} ties left out"
                   if d.adjudicated_items or d.ties else "")
        against = [*d.experts_vs_judge.items(), (CONSENSUS_RATER, d.consensus_vs_judge)]
        rows = [(name, *_pair_cells(p, d.intervals[f"judge:{name}"])) for name, p in against]
        blocks.append(TableBlock(("rater", "n", "alignment", "kappa", "r"), tuple(rows),
                                 f"{d.dimension}, against the judge ({tolerance}{settled}):",
                                 frozenset({1, 2, 3, 4})))
        rows = [(e, *_pair_cells(p, d.intervals[f"consensus:{e}"])) for e, p in d.experts_vs_consensus.items()]
        blocks.append(TableBlock(("expert", "n", "alignment", "kappa", "r"), tuple(rows),
                                 f"{d.dimension}, each expert against the other experts' consensus (adjudicated"
                                 " scores where set):", frozenset({1, 2, 3, 4})))
    pooled = ", ".join(f"{k} {_ci(v, section.pooled_intervals[k], percent=True)}"
                       for k, v in section.pooled_vs_judge.items())
    blocks.append(Paragraph((f"Alignment with the judge over every judged dimension: {pooled}",)))
    for d in dimensions:
        cells = {(e, e): _num(d.kappa[i][i]) for i, e in enumerate(experts)}
        for p in d.expert_pairs:
            a, b = p.experts
            cells[(a, b)] = cells[(b, a)] = _ci(p.kappa, p.kappa_interval)
        blocks.append(TableBlock(
            ("", *experts), tuple((e, *(cells[(e, other)] for other in experts)) for e in experts),
            f"Cohen's kappa between experts, {d.dimension}:", frozenset(range(1, len(experts) + 1))))
        with_ac2 = any(ag.is_defined(_gwet_parts(p.ac2)[0]) for p in d.expert_pairs)
        blocks.append(TableBlock(
            ("experts", "n", "AC1", *(("AC2 (quadratic)",) if with_ac2 else ())),
            tuple((" – ".join(p.experts), str(p.n), _ci(*_gwet_parts(p.ac1)),
                   *((_ci(*_gwet_parts(p.ac2)),) if with_ac2 else ()))
                  for p in d.expert_pairs),
            f"Gwet's AC1 between experts (holds up when one category is common), {d.dimension}:",
            frozenset({1, 2, 3})))
    return blocks


def _pair_cells(p: ag.PairAgreement, i: dict[str, IntervalFigure]) -> tuple[str, str, str, str]:
    return (str(p.n), _ci(p.alignment_rate, i["alignment"], percent=True), _ci(p.cohen_kappa, i["kappa"]),
            _ci(p.pearson_r, i["pearson_r"]))


def drift_blocks(section: Sequence[ExpertSelfAgreement], scale: Scale, settings: AgreementSettings) -> list[Block]:
    dims = list(section[0].by_dimension) if section else []
    rows = tuple((s.rater_id, str(s.pairs), _ci(s.alignment, s.alignment_interval, percent=True),
                  *(_ci(s.by_dimension[d].cohen_kappa, s.dimension_intervals[d]["kappa"]) for d in dims))
                 for s in section)
    title = (f"First rating against the re-rating (alignment {aligned_text(scale, settings.tolerance)}; "
             f"{share_text(settings.confidence)} intervals):" if section else None)
    return [Heading("Self-agreement (items re-rated blind later)"),
            TableBlock(("expert", "items", "alignment", *(f"kappa {d}" for d in dims)), rows, title,
                       frozenset(range(1, 3 + len(dims))))]
