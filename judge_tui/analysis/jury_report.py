"""The jury section of the report and the judge screen: `jury.Jury` as a plain dict (what `report --format
json` prints under "jury") and as blocks (headings, paragraphs, tables) drawn in Markdown, Rich or plain lines
like the team section (team_report), so every format shows the same figures.

Figures are kept at full precision in the dict and rounded only in text; every figure's interval sits beside
it in an ``intervals`` object ({low, high, method, confidence}, or null with the reason under ``undefined``).
"""

from __future__ import annotations

from typing import Any

from judge_tui.analysis.figure_format import (
    decimal_text,
    figure_text,
    figure_with_interval,
    share_text,
    short_text,
)
from judge_tui.analysis.jury import CostAndTime, ErrorCorrelation, Jury, RaterFigures
from judge_tui.analysis.pair_intervals import Change
from judge_tui.analysis.team_report import Block, Heading, Paragraph, TableBlock, figure, intervals_of
from judge_tui.model.numbers import format_seconds
from judge_tui.stats import agreement as ag
from judge_tui.stats.intervals import IntervalFigure


def _with_intervals(figures: dict[str, Any], named: dict[str, IntervalFigure]) -> dict[str, Any]:
    undefined: dict[str, str] = {}
    return {**figures, "intervals": intervals_of(named, undefined), "undefined": undefined}


def _cost(cost: CostAndTime | None) -> dict[str, Any] | None:
    if cost is None:
        return None
    return {"calls": cost.calls, "tokens": cost.tokens, "cost_usd": cost.dollars if cost.priced else None,
            "price_known": cost.priced, "judgments_timed": cost.judgments_timed,
            "mean_seconds": cost.mean_seconds, "total_seconds": cost.total_seconds}


def _rater(r: RaterFigures) -> dict[str, Any]:
    return {
        **_with_intervals({"rater": r.rater, "items": r.items, "alignment": figure(r.alignment)},
                          {"alignment": r.alignment_interval}),
        "dimensions": [_with_intervals({"dimension": d.dimension, "n": d.agreement.n,
                                        "alignment": figure(d.agreement.alignment_rate),
                                        "kappa": figure(d.agreement.cohen_kappa),
                                        "pearson_r": figure(d.agreement.pearson_r)}, d.intervals)
                       for d in r.dimensions],
        "cost": _cost(r.cost),
    }


def _errors(e: ErrorCorrelation) -> dict[str, Any]:
    return _with_intervals({"judges": [e.first, e.second], "scores": e.scores, "items": e.items,
                            "first_errors": figure(e.first_errors), "second_errors": figure(e.second_errors),
                            "both_wrong": figure(e.both), "independent": figure(e.independent),
                            "excess": figure(e.excess), "reading": e.reading},
                           {"both_wrong": e.both_interval, "independent": e.independent_interval,
                            "excess": e.excess_interval})


def _change(pair: tuple[ag.Figure, ag.Figure], change: Change) -> dict[str, Any]:
    return _with_intervals({"best": figure(pair[0]), "jury": figure(pair[1]), "change": figure(change.value),
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
    costs = [j.cost for j in jury.judges if j.cost is not None]
    return {
        "rubric": jury.rubric, "split": jury.split, "members": list(jury.members),
        "reference": f"consensus of {len(jury.experts)} expert(s): {', '.join(jury.experts)}",
        "rule": jury.rule, "tolerance": jury.tolerance, "confidence": jury.confidence,
        "items": jury.items, "partly_judged": jury.partly_judged, "ties": jury.ties,
        "judges": [_rater(j) for j in jury.judges],
        "jury": {**_rater(jury.jury), "cost": {
            "calls": sum(c.calls for c in costs), "tokens": sum(c.tokens for c in costs),
            "cost_usd": sum(c.dollars for c in costs) if all(c.priced for c in costs) else None,
            "price_known": all(c.priced for c in costs)} if costs else None},
        "error_correlation": [_errors(e) for e in jury.errors],
        "versus_best": best,
    }


# --------------------------------------------------------------------------- blocks


def _ci(value: Any, interval: Any, percent: bool = False) -> str:
    return figure_with_interval(value, interval, digits=2, percent=percent)


def _money(cost: dict[str, Any] | None) -> str:
    if cost is None or not cost["calls"]:
        return "not recorded" if cost is not None else "n/a"
    if not cost["price_known"]:
        return f"{cost['tokens']:,} tokens, no price"
    return f"${decimal_text(cost['cost_usd'], 4, grouped=True)}"


def _time(cost: dict[str, Any] | None) -> str:
    if cost is None or cost.get("mean_seconds") is None:
        return "n/a"
    return f"{decimal_text(cost['mean_seconds'], 1)} s ({format_seconds(round(cost['total_seconds']))} in all)"


def _signed_points(f: dict[str, Any], key: str) -> str:
    """A change or excess in points with its interval, e.g. "+4.0 pts [+1, +7]"."""
    text = figure_text(f[key], percent=True, signed=True)
    interval = f["intervals"][key]
    if interval is None or text == "n/a":
        return text
    low, high = (0.0 if round(b * 100) == 0 else b * 100 for b in (interval["low"], interval["high"]))
    return f"{text} [{decimal_text(low, 0, signed=True)}, {decimal_text(high, 0, signed=True)}]"


def _signed(f: dict[str, Any], percent: bool) -> str:
    if percent:
        return _signed_points(f, "change")
    text = figure_text(f["change"], digits=2, signed=True)
    interval = f["intervals"]["change"]
    if interval is None or text == "n/a":
        return text
    return f"{text} [{decimal_text(interval['low'], 2, signed=True)}, {decimal_text(interval['high'], 2, signed=True)}]"


def jury_blocks(section: dict[str, Any]) -> list[Block]:
    members = section["members"]
    ties = ", ".join(f"{d}: {n}" for d, n in section["ties"].items())
    tie_word = ("a tied majority gives no verdict, left out" if section["rule"] == "majority"
                else "the two middle scores differ, their mean taken")
    blocks: list[Block] = [Heading(f"Jury: {len(members)} judges against the experts")]
    blocks.append(Paragraph((
        f"{section['items']} items rated by the experts and judged by every member"
        + (f" ({section['partly_judged']} judged by some members only, left out)" if section["partly_judged"]
           else "") + f"; reference: {section['reference']}; aligned within ±{short_text(section['tolerance'])}.",
        f"The jury is derived, never stored: the {section['rule']} of its members' scores per item; ties "
        f"({tie_word}): {ties or 'none'}.",
        f"[low, high]: {share_text(section['confidence'])} intervals; docs/juries.md names each method.")))
    raters = [*section["judges"], section["jury"]]
    short = {r["rater"]: f"J{k}" for k, r in enumerate(section["judges"], 1)}  # the error table's names
    blocks.append(TableBlock(
        ("", "judge", "items", "alignment", "cost", "mean time per judgment"),
        tuple((short.get(r["rater"], ""), r["rater"], str(r["items"]), _ci(r["alignment"], r["intervals"]["alignment"], True),
               _money(r["cost"]), _time(r["cost"])) for r in raters),
        title="Each judge and the jury, every judged dimension:", right=frozenset({2, 3})))
    rows: list[tuple[str, ...]] = []
    for index, dimension in enumerate(d["dimension"] for d in section["jury"]["dimensions"]):
        for r in raters:
            d = r["dimensions"][index]
            rows.append((dimension, r["rater"], str(d["n"]), _ci(d["alignment"], d["intervals"]["alignment"], True),
                         _ci(d["kappa"], d["intervals"]["kappa"]), _ci(d["pearson_r"], d["intervals"]["pearson_r"])))
    blocks.append(TableBlock(("dimension", "judge", "n", "alignment", "kappa", "r"), tuple(rows),
                             title="By dimension:", right=frozenset({2, 3, 4, 5})))
    if section["error_correlation"]:
        blocks.append(TableBlock(
            ("judges", "scores", "first wrong", "second wrong", "both wrong", "if independent", "excess", "reading"),
            tuple((" & ".join(short[j] for j in e["judges"]), str(e["scores"]), figure_text(e["first_errors"], percent=True),
                   figure_text(e["second_errors"], percent=True),
                   _ci(e["both_wrong"], e["intervals"]["both_wrong"], True),
                   _ci(e["independent"], e["intervals"]["independent"], True), _signed_points(e, "excess"),
                   e["reading"]) for e in section["error_correlation"]),
            title="How often two judges err on the same score (excess: both wrong minus what independence gives):",
            right=frozenset({1, 2, 3, 4, 5, 6})))
    best = section["versus_best"]
    if best is not None:
        rows = [(str(d["dimension"]), name, str(d["n"]) if name == "alignment" else "",
                 figure_text(d[key]["best"], digits=2, percent=name == "alignment"),
                 figure_text(d[key]["jury"], digits=2, percent=name == "alignment"),
                 _signed(d[key], name == "alignment"), str(d[key]["verdict"] or "n/a"))
                for d in best["dimensions"] for name, key in (("alignment", "alignment"), ("kappa", "kappa"))]
        a = best["alignment"]
        rows.append(("all judged", "alignment", str(best["items"]), figure_text(a["best"], percent=True),
                     figure_text(a["jury"], percent=True), _signed(a, True), str(a["verdict"] or "n/a")))
        blocks.append(Paragraph((
            f"Does the jury beat its best member ({best['best']})? {best['verdict']}.",
            "Jury minus best member on the items where the jury gave a verdict, with the interval of a paired "
            "bootstrap over the same items (as report --compare); the best member was picked on these items, "
            "which flatters it.")))
        blocks.append(TableBlock(("dimension", "figure", "n", "best member", "jury", "change", "verdict"),
                                 tuple(rows), right=frozenset({2, 3, 4, 5})))
    return blocks
