"""The jury section of the report and the judge screen, rendered from its typed object (jury.Jury): a plain dict
(what `report --format json` prints under "jury") and blocks (headings, paragraphs, tables) drawn in Markdown,
Rich or plain lines like the team section, so every format shows the same figures.

Figures are kept at full precision in the dict and rounded only in text; every figure's interval sits beside
it in an ``intervals`` object ({low, high, method, confidence}, or null with the reason under ``undefined``).
"""

from __future__ import annotations

from typing import Any

from judge_tui.analysis.jury import CostAndTime, ErrorCorrelation, Jury, RaterFigures
from judge_tui.analysis.pair_intervals import Change
from judge_tui.analysis.report_render.blocks import Block, Heading, Paragraph, TableBlock
from judge_tui.analysis.report_render.section_json import figure, with_intervals
from judge_tui.formats.numbers import (
    cost_text,
    decimal_text,
    duration_text,
    figure_text,
    figure_with_interval,
    plural,
    share_text,
)
from judge_tui.stats import agreement as ag
from judge_tui.stats.intervals import IntervalFigure


def _reference(jury: Jury) -> str:
    return f"consensus of {plural(len(jury.experts), 'expert')}: {', '.join(jury.experts)}"


def jury_cost(jury: Jury) -> CostAndTime | None:
    """What the jury's calls cost: its members' together (None when no member's calls were recorded); priced only
    when every member's are."""
    costs = [j.cost for j in jury.judges if j.cost is not None]
    if not costs:
        return None
    return CostAndTime(sum(c.calls for c in costs), sum(c.tokens for c in costs), sum(c.dollars for c in costs),
                       all(c.priced for c in costs), 0, None, 0.0)


# --------------------------------------------------------------------------- JSON


def _cost(cost: CostAndTime | None) -> dict[str, Any] | None:
    if cost is None:
        return None
    return {"calls": cost.calls, "tokens": cost.tokens, "cost_usd": cost.dollars if cost.priced else None,
            "price_known": cost.priced, "judgments_timed": cost.judgments_timed,
            "mean_seconds": cost.mean_seconds, "total_seconds": cost.total_seconds}


def _rater(r: RaterFigures) -> dict[str, Any]:
    return {
        **with_intervals({"rater": r.rater, "items": r.items, "alignment": figure(r.alignment)},
                         {"alignment": r.alignment_interval}),
        "dimensions": [with_intervals({"dimension": d.dimension, "n": d.agreement.n,
                                       "alignment": figure(d.agreement.alignment_rate),
                                       "kappa": figure(d.agreement.cohen_kappa),
                                       "pearson_r": figure(d.agreement.pearson_r)}, d.intervals)
                       for d in r.dimensions],
        "cost": _cost(r.cost),
    }


def _errors(e: ErrorCorrelation) -> dict[str, Any]:
    return with_intervals({"judges": [e.first, e.second], "scores": e.scores, "items": e.items,
                           "first_errors": figure(e.first_errors), "second_errors": figure(e.second_errors),
                           "both_wrong": figure(e.both), "independent": figure(e.independent),
                           "excess": figure(e.excess), "reading": e.reading},
                          {"both_wrong": e.both_interval, "independent": e.independent_interval,
                           "excess": e.excess_interval})


def _change(pair: tuple[ag.Figure, ag.Figure], change: Change) -> dict[str, Any]:
    return with_intervals({"best": figure(pair[0]), "jury": figure(pair[1]), "change": figure(change.value),
                           "verdict": change.verdict}, {"change": change.interval})


def jury_to_dict(jury: Jury) -> dict[str, Any]:
    versus = jury.versus_best
    best = None
    if versus is not None:
        best = {"best": versus.best, "items": versus.items, "verdict": versus.verdict,
                "alignment": _change(versus.alignment, versus.alignment_change),
                "dimensions": [{"dimension": d, "n": n,
                                "alignment": _change((f[0].alignment_rate, f[1].alignment_rate), c["alignment"]),
                                "kappa": _change((f[0].cohen_kappa, f[1].cohen_kappa), c["kappa"])}
                               for d, n, c, f in versus.dimensions]}
    cost = jury_cost(jury)
    return {
        "rubric": jury.rubric, "split": jury.split, "members": list(jury.members),
        "reference": _reference(jury),
        "rule": jury.rule, "tolerance": jury.within, "confidence": jury.settings.confidence,
        "items": jury.items, "partly_judged": jury.partly_judged, "ties": jury.ties,
        "judges": [_rater(j) for j in jury.judges],
        "jury": {**_rater(jury.jury), "cost": {
            "calls": cost.calls, "tokens": cost.tokens, "cost_usd": cost.dollars if cost.priced else None,
            "price_known": cost.priced} if cost is not None else None},
        "error_correlation": [_errors(e) for e in jury.errors],
        "versus_best": best,
    }


# --------------------------------------------------------------------------- blocks


def _ci(value: ag.Figure, interval: IntervalFigure, percent: bool = False) -> str:
    return figure_with_interval(value, interval, digits=2, percent=percent)


def _money(cost: CostAndTime | None) -> str:
    if cost is None or not cost.calls:
        return "not recorded" if cost is not None else "n/a"
    return cost_text(cost.dollars, cost.calls)


def _time(cost: CostAndTime | None) -> str:
    if cost is None or cost.mean_seconds is None:
        return "n/a"
    return f"{decimal_text(cost.mean_seconds, 1)} s ({duration_text(round(cost.total_seconds))} in all)"


def _signed_points(value: ag.Figure, interval: IntervalFigure) -> str:
    """A change or excess in points with its interval, e.g. "+4.0 pts [+1, +7]"."""
    text = figure_text(value, percent=True, signed=True)
    if isinstance(interval, ag.Undefined) or text == "n/a":
        return text
    low, high = (0.0 if round(b * 100) == 0 else b * 100 for b in (interval.low, interval.high))
    return f"{text} [{decimal_text(low, 0, signed=True)}, {decimal_text(high, 0, signed=True)}]"


def _signed(change: Change, percent: bool) -> str:
    if percent:
        return _signed_points(change.value, change.interval)
    text = figure_text(change.value, digits=2, signed=True)
    interval = change.interval
    if isinstance(interval, ag.Undefined) or text == "n/a":
        return text
    return f"{text} [{decimal_text(interval.low, 2, signed=True)}, {decimal_text(interval.high, 2, signed=True)}]"


def jury_blocks(jury: Jury) -> list[Block]:
    members = jury.members
    ties = ", ".join(f"{d}: {n}" for d, n in jury.ties.items())
    tie_word = ("a tied majority gives no verdict, left out" if jury.rule == "majority"
                else "the two middle scores differ, their mean taken")
    blocks: list[Block] = [Heading(f"Jury: {len(members)} judges against the experts")]
    blocks.append(Paragraph((
        f"{jury.items} items rated by the experts and judged by every member"
        + (f" ({jury.partly_judged} judged by some members only, left out)" if jury.partly_judged
           else "") + f"; reference: {_reference(jury)}; aligned {jury.aligned}.",
        f"The jury is derived, never stored: the {jury.rule} of its members' scores per item; ties "
        f"({tie_word}): {ties or 'none'}.",
        f"[low, high]: {share_text(jury.settings.confidence)} intervals; docs/juries.md names each method.")))
    raters: list[tuple[RaterFigures, CostAndTime | None]] = [*((j, j.cost) for j in jury.judges),
                                                             (jury.jury, jury_cost(jury))]
    short = {r.rater: f"J{k}" for k, r in enumerate(jury.judges, 1)}  # the error table's names
    blocks.append(TableBlock(
        ("", "judge", "items", "alignment", "cost", "mean time per judgment"),
        tuple((short.get(r.rater, ""), r.rater, str(r.items), _ci(r.alignment, r.alignment_interval, True),
               _money(cost), _time(cost)) for r, cost in raters),
        title="Each judge and the jury, every judged dimension:", right=frozenset({2, 3})))
    rows: list[tuple[str, ...]] = []
    for index, dimension in enumerate(d.dimension for d in jury.jury.dimensions):
        for r, _cost in raters:
            d = r.dimensions[index]
            p = d.agreement
            rows.append((dimension, r.rater, str(p.n), _ci(p.alignment_rate, d.intervals["alignment"], True),
                         _ci(p.cohen_kappa, d.intervals["kappa"]), _ci(p.pearson_r, d.intervals["pearson_r"])))
    blocks.append(TableBlock(("dimension", "judge", "n", "alignment", "kappa", "r"), tuple(rows),
                             title="By dimension:", right=frozenset({2, 3, 4, 5})))
    if jury.errors:
        blocks.append(TableBlock(
            ("judges", "scores", "first wrong", "second wrong", "both wrong", "if independent", "excess", "reading"),
            tuple((f"{short[e.first]} & {short[e.second]}", str(e.scores),
                   figure_text(e.first_errors, percent=True), figure_text(e.second_errors, percent=True),
                   _ci(e.both, e.both_interval, True), _ci(e.independent, e.independent_interval, True),
                   _signed_points(e.excess, e.excess_interval), e.reading) for e in jury.errors),
            title="How often two judges err on the same score (excess: both wrong minus what independence gives):",
            right=frozenset({1, 2, 3, 4, 5, 6})))
    best = jury.versus_best
    if best is not None:
        rows = []
        for dimension, n, changes, (of_best, of_jury) in best.dimensions:
            for name, pair in (("alignment", (of_best.alignment_rate, of_jury.alignment_rate)),
                               ("kappa", (of_best.cohen_kappa, of_jury.cohen_kappa))):
                percent = name == "alignment"
                rows.append((dimension, name, str(n) if percent else "",
                             figure_text(pair[0], digits=2, percent=percent),
                             figure_text(pair[1], digits=2, percent=percent),
                             _signed(changes[name], percent), str(changes[name].verdict or "n/a")))
        a, change = best.alignment, best.alignment_change
        rows.append(("all judged", "alignment", str(best.items), figure_text(a[0], percent=True),
                     figure_text(a[1], percent=True), _signed(change, True), str(change.verdict or "n/a")))
        blocks.append(Paragraph((
            f"Does the jury beat its best member ({best.best})? {best.verdict}.",
            "Jury minus best member on the items where the jury gave a verdict, with the interval of a paired "
            "bootstrap over the same items (as report --compare); the best member was picked on these items, "
            "which flatters it.")))
        blocks.append(TableBlock(("dimension", "figure", "n", "best member", "jury", "change", "verdict"),
                                 tuple(rows), right=frozenset({2, 3, 4, 5})))
    return blocks
