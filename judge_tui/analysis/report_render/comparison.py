"""The version comparison (`report --compare V1 V2`, the judge screen's "previous version beside it") rendered from
its typed object (compare.VersionComparison): a plain dict for the JSON report (comparison_to_dict), its table's
rows (compare_rows: the judge screen lays them out for a narrow pane) and blocks for text and Markdown
(compare_blocks).
"""

from __future__ import annotations

from typing import Any

from judge_tui.analysis.compare import DimensionShift, VersionComparison
from judge_tui.analysis.pair_intervals import Change
from judge_tui.analysis.report_render.blocks import Block, Heading, Paragraph, TableBlock
from judge_tui.analysis.report_render.section_json import figure, with_intervals
from judge_tui.formats.numbers import decimal_text, figure_text, plural, share_text
from judge_tui.stats import agreement as ag

ComparisonRow = tuple[str, str, str, str, str, str, str]


def split_text(c: VersionComparison) -> str:
    """The split compared, as the JSON and the text name it."""
    return c.split or "all items (no splits assigned)"


def reference_text(c: VersionComparison) -> str:
    return f"consensus of {plural(len(c.experts), 'expert')}: {', '.join(c.experts)}"


def _figures(s: DimensionShift) -> tuple[tuple[str, str, tuple[ag.Figure, ag.Figure], Change, bool], ...]:
    """Each figure of a dimension: (name in text, key in JSON, both versions' values, the change, a share?)."""
    return (("alignment", "alignment", s.alignment, s.changes["alignment"], True),
            ("kappa", "kappa", s.kappa, s.changes["kappa"], False),
            ("r", "pearson_r", s.pearson, s.changes["pearson_r"], False))


# --------------------------------------------------------------------------- JSON


def _change_dict(pair: tuple[ag.Figure, ag.Figure], change: Change) -> dict[str, Any]:
    return with_intervals({"v1": figure(pair[0]), "v2": figure(pair[1]), "change": figure(change.value),
                           "verdict": change.verdict}, {"change": change.interval})


def comparison_to_dict(c: VersionComparison) -> dict[str, Any]:
    return {
        "rubric": c.rubric, "split": split_text(c),
        "v1": {"name": c.v1.name, "judge": c.v1.rater_id}, "v2": {"name": c.v2.name, "judge": c.v2.rater_id},
        "reference": reference_text(c), "items": c.items,
        "tolerance": c.settings.tolerance, "confidence": c.settings.confidence,
        "alignment": _change_dict(c.alignment, c.alignment_change),
        "dimensions": [{"dimension": s.dimension, "n": s.n,
                        **{key: _change_dict(pair, change) for _name, key, pair, change, _share in _figures(s)}}
                       for s in c.dimensions],
    }


# --------------------------------------------------------------------------- text


def _num(value: ag.Figure, percent: bool = False, signed: bool = False) -> str:
    return figure_text(value, digits=2, percent=percent, signed=signed)


def _change_cell(change: Change, percent: bool) -> str:
    """The change with its interval: "+4.0 pts [+1, +7]" for a share, "+0.12 [+0.03, +0.20]" otherwise."""
    text = _num(change.value, percent, signed=True)
    interval = change.interval
    if isinstance(interval, ag.Undefined) or text == "n/a":
        return text
    scale, digits = (100, 0) if percent else (1, 2)
    low, high = (0.0 if round(b * scale, digits) == 0 else b * scale for b in (interval.low, interval.high))
    return f"{text} [{decimal_text(low, digits, signed=True)}, {decimal_text(high, digits, signed=True)}]"


def _row(dimension: str, name: str, n: str, pair: tuple[ag.Figure, ag.Figure], change: Change,
         percent: bool) -> ComparisonRow:
    return (dimension, name, n, _num(pair[0], percent), _num(pair[1], percent), _change_cell(change, percent),
            str(change.verdict or "n/a"))


def compare_rows(c: VersionComparison) -> list[ComparisonRow]:
    """The version comparison's table: (dimension, figure, n, v1, v2, change with interval, verdict) per figure of
    each dimension, then alignment over every judged score."""
    rows = [_row(s.dimension if share else "", name, str(s.n) if share else "", pair, change, share)
            for s in c.dimensions for name, _key, pair, change, share in _figures(s)]
    rows.append(_row("all judged", "alignment", "", c.alignment, c.alignment_change, True))
    return rows


def compare_blocks(c: VersionComparison) -> list[Block]:
    v1, v2 = c.v1.name, c.v2.name
    figures = [(f"{s.dimension} {name}", change) for s in c.dimensions for name, _key, _pair, change, _share
               in _figures(s)]
    missing = [f"{where}: {change.interval.reason}" for where, change in
               [*figures, ("all judged alignment", c.alignment_change)]
               if ag.is_defined(change.value) and isinstance(change.interval, ag.Undefined)]
    notes = [Paragraph(("No interval (so no verdict) for:", *missing))] if missing else []
    return [
        Heading(f"Version comparison: {v1} -> {v2}"),
        Paragraph((f"{v1} = {c.v1.rater_id}; {v2} = {c.v2.rater_id}",
                   f"Rubric {c.rubric}, split {split_text(c)}, {c.items} items judged "
                   f"under both and rated by the experts; reference: {reference_text(c)}; alignment "
                   f"{c.aligned}.",
                   f"Change: {v2} minus {v1}, with the {share_text(c.settings.confidence)} "
                   f"interval of a "
                   "paired bootstrap over the same items; improved or worse only when the whole interval lies "
                   "above or below 0.")),
        TableBlock(("dimension", "figure", "n", v1, v2, "change", "verdict"), tuple(compare_rows(c)),
                   right=frozenset({2, 3, 4, 5})),
        *notes,
    ]
