"""The judge's biases (biases.Biases) rendered: the JSON report's section (biases_dict), blocks for text and
Markdown (biases_blocks) and the plain lines the judge screen shows (biases_lines), all from the same object."""

from __future__ import annotations

from typing import Any

from judge_tui.analysis.biases import Biases, CategoryShares
from judge_tui.analysis.report_render.blocks import Block, Heading, Paragraph, TableBlock, lines_of
from judge_tui.formats.numbers import (
    figure_text,
    figure_with_interval,
    interval_json,
    interval_text,
    share_text,
)
from judge_tui.stats import agreement as ag
from judge_tui.stats.bias import Estimate
from judge_tui.stats.intervals import IntervalFigure


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
        **({"experts_left_out": list(biases.left_out)} if biases.left_out else {}),
        **({"reference_note": biases.reference_note} if biases.reference_note else {}),
        "confidence": biases.settings.confidence,
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
        **({"category_shares": [_shares_dict(s) for s in biases.category_shares]} if biases.nominal else {}),
    }


def _shares_dict(shares: CategoryShares) -> dict[str, Any]:
    return {"key": shares.key, "name": shares.name, "categories": [
        {"category": name, "judge_share": c.judge_share if ag.is_defined(c.judge_share) else None,
         "experts_share": c.human_share if ag.is_defined(c.human_share) else None,
         **_estimate_dict(c.shift, "difference")}
        for name, c in zip(shares.categories, shares.shifts, strict=True)]}


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
    level = share_text(section.settings.confidence)
    every = " (against every expert)" if section.reference_note else ""
    blocks: list[Block] = [Heading(f"Judge biases: {section.judge}{every}")] if heading else []
    where = f"the {section.split} split" if section.split else "all items"
    experts = ", ".join(section.experts) or "no experts"
    if section.left_out:  # the report's human group, as `--raters` named it
        experts = f"the human group compared: {experts}; {', '.join(section.left_out)} left out"
    if section.reference_note:
        experts = f"{experts}: {section.reference_note}"
    blocks.append(Paragraph((
        f"Against the experts' consensus ({experts}) on {where}; [low, high]: {level} intervals.",)))
    if section.nominal:
        blocks += _nominal_leniency_blocks(section)
    else:
        blocks.append(TableBlock(
            ("dimension", "n", "judge − experts", "lean"),
            tuple((le.key, str(le.estimate.n), _signed_with_interval(le.estimate.value, le.estimate.interval),
                   _lean(le.estimate))
                  for le in section.leniency),
            "Leniency (mean score difference; overall: each item's mean over its judged dimensions):",
            frozenset({1, 2})))
    length = section.length
    if section.nominal:
        lines = [f"Length bias: {_not_defined(length.value)}"]
    else:
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


def _not_defined(value: ag.Figure) -> str:
    return f"n/a: {value.reason}" if isinstance(value, ag.Undefined) else figure_text(value)


def _share_lean(estimate: Estimate) -> str:
    value = estimate.value
    if not estimate.excludes_zero or isinstance(value, ag.Undefined):
        return "no detectable difference"
    return "judge names it more often" if value > 0 else "judge names it less often"


def _nominal_leniency_blocks(section: Biases) -> list[Block]:
    """Leniency's n/a with its reason, and in its place each dimension's category shares."""
    blocks: list[Block] = [Paragraph((f"Leniency: {_not_defined(section.leniency[0].estimate.value)}",)
                                     if section.leniency else ())]
    for shares in section.category_shares:
        n = shares.shifts[0].shift.n if shares.shifts else 0
        blocks.append(TableBlock(
            ("category", "judge", "experts", "judge − experts", "lean"),
            tuple((name, figure_text(c.judge_share, percent=True), figure_text(c.human_share, percent=True),
                   _signed_percent(c.shift), _share_lean(c.shift))
                  for name, c in zip(shares.categories, shares.shifts, strict=True)),
            f"Category shares of {shares.key} (the share of the {n} items both gave a category that each puts "
            "in it):", frozenset({1, 2, 3})))
    return blocks


def _signed_percent(estimate: Estimate) -> str:
    text = figure_text(estimate.value, percent=True, signed=True)
    bounds = interval_text(estimate.interval, percent=True)
    return f"{text} {bounds}" if bounds and text != "n/a" else text


def biases_lines(biases: Biases) -> list[str]:
    """The biases as plain text lines (the judge screen)."""
    return lines_of(biases_blocks(biases, heading=False), "text")
