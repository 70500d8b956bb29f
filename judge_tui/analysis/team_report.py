"""The report sections about several experts: team agreement, self-agreement (drift) and version comparison.

Each section is computed once as typed objects (team.TeamAgreement, drift.ExpertSelfAgreement,
compare.VersionComparison). The JSON (`report --format json`) is a plain dict built from them (team_to_dict,
drift_to_dicts, comparison_to_dict), and the blocks (headings, paragraphs, tables) that one of three styles renders,
Markdown, Rich tables (the text report, like its other tables) or plain lines (the summary screen), are drawn from
the same objects (team_blocks, drift_blocks; the version comparison's, compare_blocks and compare_rows, still from
its dict). So every format shows the same figures.

Figures are kept at full precision in the dicts (JSON) and rounded only in text. Every figure's interval sits
beside it in an ``intervals`` object ({low, high, method, confidence}, or null with the reason in the object's
``undefined`` map).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from judge_tui.analysis.compare import VersionComparison
from judge_tui.analysis.drift import ExpertSelfAgreement, self_agreement
from judge_tui.analysis.figure_format import (
    figure_text,
    figure_with_interval,
    interval_json,
    share_text,
    short_text,
)
from judge_tui.analysis.pair_intervals import DEFAULT_CONFIDENCE, Change
from judge_tui.analysis.team import (
    DimensionTeam,
    TeamAgreement,
    is_expert,
    load_team,
    team_agreement,
)
from judge_tui.model.records import CONSENSUS_RATER
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import DEFAULT_TOLERANCE
from judge_tui.model.textsafe import clean
from judge_tui.stats import agreement as ag
from judge_tui.stats.chance import GwetAC
from judge_tui.stats.intervals import IntervalFigure
from judge_tui.stats.raters import GwetAgreement
from judge_tui.store import Store

if TYPE_CHECKING:
    from rich.console import RenderableType

    from judge_tui.analysis.scores import RubricRatings


def figure(value: ag.Figure) -> float | dict[str, str]:
    """A figure at full precision, or {"undefined": reason} (the sections' form of a missing figure)."""
    if isinstance(value, ag.Undefined):
        return {"undefined": value.reason}
    return float(value)


def intervals_of(named: dict[str, IntervalFigure], undefined: dict[str, str]) -> dict[str, Any]:
    """Intervals by figure name for the JSON report; the reasons of missing ones go into ``undefined``."""
    return {name: interval_json(interval, name, undefined) for name, interval in named.items()}


def _with_intervals(figures: dict[str, Any], named: dict[str, IntervalFigure]) -> dict[str, Any]:
    undefined: dict[str, str] = {}
    return {**figures, "intervals": intervals_of(named, undefined), "undefined": undefined}


def _pair(p: ag.PairAgreement, named: dict[str, IntervalFigure]) -> dict[str, Any]:
    return _with_intervals({"n": p.n, "alignment": figure(p.alignment_rate), "kappa": figure(p.cohen_kappa),
                            "pearson_r": figure(p.pearson_r)}, named)


def _gwet(value: Any) -> tuple[float | dict[str, str], float | None, IntervalFigure]:
    if isinstance(value, ag.Undefined):
        return figure(value), None, value
    return float(value.value), float(value.standard_error), value.interval


# --------------------------------------------------------------------------- computing the sections


def team_figures(store: Store, rubric: Rubric, split: str | None = None, judge: str | None = None,
                 only_items: set[str] | None = None, tolerance: float = DEFAULT_TOLERANCE,
                 ratings: RubricRatings | None = None, confidence: float = DEFAULT_CONFIDENCE) -> TeamAgreement | None:
    """The team figures, or None when fewer than two experts rated this rubric. ``ratings``: the split's
    ratings (scores.load) when the caller has read them already."""
    if ratings is None:
        # Asked first because it is cheap: most reports have one expert, and loading reads every rating.
        if sum(is_expert(r["id"], r["kind"]) for r in store.rubric_raters(rubric.id)) < 2:
            return None
    elif sum(is_expert(r, ratings.kinds[r]) for r in ratings.rater_ids) < 2:
        return None
    view = load_team(store, rubric, split=split, judge=judge, only_items=only_items, ratings=ratings, notes=False)
    if len(view.experts) < 2:
        return None
    return team_agreement(view, tolerance, confidence)


def drift_figures(store: Store, rubric: Rubric, split: str | None = None, rater: str | None = None,
                  tolerance: float = DEFAULT_TOLERANCE, ratings: RubricRatings | None = None,
                  confidence: float = DEFAULT_CONFIDENCE) -> list[ExpertSelfAgreement]:
    """Each expert's (or one expert's) self-agreement over the items they rated twice (empty when none did)."""
    if ratings is None and not store.has_human_rerating(rubric.id):
        return []
    return [s for s in self_agreement(store, rubric, split, tolerance, ratings=ratings, confidence=confidence)
            if rater is None or s.rater_id == rater]


def team_to_dict(result: TeamAgreement, split: str | None) -> dict[str, Any]:
    dims = []
    for d in result.dimensions:
        pairs = []
        for pair in d.expert_pairs:
            ac1, ac1_se, ac1_ci = _gwet(pair.ac1)
            ac2, ac2_se, ac2_ci = _gwet(pair.ac2)
            pairs.append(_with_intervals(
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
        dims.append(_with_intervals({
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
            "tolerance": result.tolerance, "dimensions": dims,
            "pooled_alignment": {k: figure(v) for k, v in result.pooled_vs_judge.items()},
            "confidence": result.confidence, "pooled_alignment_intervals": pooled, "undefined": undefined}


def drift_to_dicts(results: Sequence[ExpertSelfAgreement], tolerance: float,
                   confidence: float = DEFAULT_CONFIDENCE) -> list[dict[str, Any]]:
    return [_with_intervals(
        {"rater": s.rater_id, "pairs": s.pairs, "tolerance": tolerance, "alignment": figure(s.alignment),
         "by_dimension": {d: _with_intervals({"alignment": figure(p.alignment_rate), "kappa": figure(p.cohen_kappa)},
                                             s.dimension_intervals[d])
                          for d, p in s.by_dimension.items()},
         "confidence": confidence},
        {"alignment": s.alignment_interval})
        for s in results]


def _change_dict(pair: tuple[ag.Figure, ag.Figure], change: Change) -> dict[str, Any]:
    value = change.value
    return _with_intervals({"v1": figure(pair[0]), "v2": figure(pair[1]), "change": figure(value),
                            "verdict": change.verdict}, {"change": change.interval})


def comparison_to_dict(c: VersionComparison) -> dict[str, Any]:
    return {
        "rubric": c.rubric, "split": c.split or "all items (no splits assigned)",
        "v1": {"name": c.v1.name, "judge": c.v1.rater_id}, "v2": {"name": c.v2.name, "judge": c.v2.rater_id},
        "reference": f"consensus of {len(c.experts)} expert(s): {', '.join(c.experts)}", "items": c.items,
        "tolerance": c.tolerance, "confidence": c.confidence,
        "alignment": _change_dict(c.alignment, c.alignment_change),
        "dimensions": [{"dimension": s.dimension, "n": s.n,
                        "alignment": _change_dict(s.alignment, s.changes["alignment"]),
                        "kappa": _change_dict(s.kappa, s.changes["kappa"]),
                        "pearson_r": _change_dict(s.pearson, s.changes["pearson_r"])}
                       for s in c.dimensions],
    }


# --------------------------------------------------------------------------- blocks, and their three styles


@dataclass(frozen=True)
class Heading:
    text: str


@dataclass(frozen=True)
class Paragraph:
    lines: tuple[str, ...]


@dataclass(frozen=True)
class TableBlock:
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    title: str | None = None  # a line before the table; the table's title in Rich
    right: frozenset[int] = field(default_factory=frozenset)  # columns of numbers (right-aligned in Rich)


Block = Heading | Paragraph | TableBlock


def _cell(text: object, fmt: str) -> str:
    """Rater ids and names come from other people's databases: no control characters, no table breakers."""
    cleaned = clean(str(text)).replace("\n", " ")
    return cleaned.replace("\\", "\\\\").replace("|", "\\|") if fmt == "markdown" else cleaned


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], fmt: str) -> list[str]:
    headers = [_cell(h, fmt) for h in headers]
    cells = [[_cell(c, fmt) for c in row] for row in rows]
    if fmt == "markdown":
        lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(" --- " for _ in headers) + "|"]
        return lines + ["| " + " | ".join(row) + " |" for row in cells]
    widths = [max(len(str(c)) for c in column) for column in zip(headers, *cells, strict=True)]
    return ["  " + "  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
            for row in [headers, *cells]]


def lines_of(blocks: Sequence[Block], fmt: str) -> list[str]:
    """Blocks as Markdown (fmt "markdown") or plain lines (fmt "text": the summary screen)."""
    lines: list[str] = []
    for block in blocks:
        if isinstance(block, Heading):
            text = _cell(block.text, fmt)
            lines += [f"## {text}", ""] if fmt == "markdown" else [text, "-" * len(text)]
        elif isinstance(block, Paragraph):
            lines += [*(_cell(line, fmt) for line in block.lines), ""]
        else:
            if block.title is not None:  # Markdown renderers other than GitHub's need a blank line before a table
                lines += [_cell(block.title, fmt), ""] if fmt == "markdown" else [_cell(block.title, fmt)]
            lines += [*_table(block.headers, block.rows, fmt), ""]
    return lines


def rich_of(blocks: Sequence[Block]) -> list[RenderableType]:
    """Blocks as Rich renderables, in the style of the rest of the text report."""
    from rich.table import Table
    from rich.text import Text

    from judge_tui.formats.terminal import add_id_column

    out: list[RenderableType] = []
    for block in blocks:
        if isinstance(block, Heading):
            out.append(Text(clean(block.text), style="bold"))
        elif isinstance(block, Paragraph):
            out.append(Text("\n".join(clean(line) for line in block.lines)))
        else:
            title = clean(block.title).removesuffix(":") if block.title is not None else None
            table = Table(title=Text(title) if title else None, title_justify="left")
            for index, header in enumerate(block.headers):
                if index in block.right:
                    # A long header (kappa of a long dimension name) folds; the figures stay whole.
                    table.add_column(Text(clean(header)), justify="right", overflow="fold",
                                     min_width=max((len(row[index]) for row in block.rows), default=1))
                else:
                    add_id_column(table, Text(clean(header)))
            for row in block.rows:
                table.add_row(*(Text(clean(c)) for c in row))
            out.append(table)
    return out


# --------------------------------------------------------------------------- the sections as blocks


def _num(value: Any, percent: bool = False, signed: bool = False) -> str:
    return figure_text(value, digits=2, percent=percent, signed=signed)


def _ci(value: Any, interval: Any, percent: bool = False) -> str:
    """A figure with its interval, e.g. "0.73 [0.49, 0.96]" or "83.3% [55, 95]"."""
    return figure_with_interval(value, interval, digits=2, percent=percent)


def _change_cell(f: dict[str, Any], percent: bool) -> str:
    text = _num(f["change"], percent, signed=True)
    interval = f["intervals"]["change"]
    if interval is None or text == "n/a":
        return text
    scale, digits = (100, 0) if percent else (1, 2)
    low, high = (0.0 if round(b * scale, digits) == 0 else b * scale for b in (interval["low"], interval["high"]))
    return f"{text} [{low:+.{digits}f}, {high:+.{digits}f}]"


def _confidence_line(confidence: float) -> str:
    return f"[low, high]: {share_text(confidence)} intervals; docs/agreement.md names each method."


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
        f"{section.judge or 'none yet'}. Consensus = adjudicated score, else the experts' mean "
        "(PASS/FAIL: majority; ties left out); kappa takes a mean at its nearest scale point.",
        _confidence_line(section.confidence))))
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
    tolerance = f"alignment within ±{short_text(section.tolerance)}"
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


def _is_number(value: Any) -> bool:
    """Whether a JSON figure is a number (not {"undefined": reason} or null)."""
    return isinstance(value, int | float)


def _pair_cells(p: ag.PairAgreement, i: dict[str, IntervalFigure]) -> tuple[str, str, str, str]:
    return (str(p.n), _ci(p.alignment_rate, i["alignment"], percent=True), _ci(p.cohen_kappa, i["kappa"]),
            _ci(p.pearson_r, i["pearson_r"]))


def drift_blocks(section: Sequence[ExpertSelfAgreement], tolerance: float,
                 confidence: float = DEFAULT_CONFIDENCE) -> list[Block]:
    dims = list(section[0].by_dimension) if section else []
    rows = tuple((s.rater_id, str(s.pairs), _ci(s.alignment, s.alignment_interval, percent=True),
                  *(_ci(s.by_dimension[d].cohen_kappa, s.dimension_intervals[d]["kappa"]) for d in dims))
                 for s in section)
    title = (f"First rating against the re-rating (alignment within ±{short_text(tolerance)}; "
             f"{share_text(confidence)} intervals):" if section else None)
    return [Heading("Self-agreement (items re-rated blind later)"),
            TableBlock(("expert", "items", "alignment", *(f"kappa {d}" for d in dims)), rows, title,
                       frozenset(range(1, 3 + len(dims))))]


def compare_rows(section: dict[str, Any]) -> list[tuple[str, str, str, str, str, str, str]]:
    """The version comparison's table: (dimension, figure, n, v1, v2, change with interval, verdict) per figure of
    each dimension, then alignment over every judged score."""
    rows: list[tuple[str, str, str, str, str, str, str]] = []
    for d in section["dimensions"]:
        for name, key, percent in (("alignment", "alignment", True), ("kappa", "kappa", False),
                                   ("r", "pearson_r", False)):
            f = d[key]
            rows.append((str(d["dimension"]) if name == "alignment" else "", name, str(d["n"]) if percent else "",
                         _num(f["v1"], percent), _num(f["v2"], percent), _change_cell(f, percent),
                         str(f["verdict"] or "n/a")))
    a = section["alignment"]
    rows.append(("all judged", "alignment", "", _num(a["v1"], True), _num(a["v2"], True), _change_cell(a, True),
                 str(a["verdict"] or "n/a")))
    return rows


def compare_blocks(section: dict[str, Any]) -> list[Block]:
    v1, v2, a = section["v1"], section["v2"], section["alignment"]
    rows = compare_rows(section)
    figures = [(f"{d['dimension']} {name}", d[key]) for d in section["dimensions"]
               for name, key in (("alignment", "alignment"), ("kappa", "kappa"), ("r", "pearson_r"))]
    missing = [f"{where}: {f['undefined']['change']}" for where, f in [*figures, ("all judged alignment", a)]
               if _is_number(f["change"]) and "change" in f["undefined"]]
    notes = [Paragraph(("No interval (so no verdict) for:", *missing))] if missing else []
    return [
        Heading(f"Version comparison: {v1['name']} -> {v2['name']}"),
        Paragraph((f"{v1['name']} = {v1['judge']}; {v2['name']} = {v2['judge']}",
                   f"Rubric {section['rubric']}, split {section['split']}, {section['items']} items judged "
                   f"under both and rated by the experts; reference: {section['reference']}; alignment within "
                   f"±{short_text(section['tolerance'])}.",
                   f"Change: {v2['name']} minus {v1['name']}, with the {share_text(section['confidence'])} "
                   f"interval of a "
                   "paired bootstrap over the same items; improved or worse only when the whole interval lies "
                   "above or below 0.")),
        TableBlock(("dimension", "figure", "n", v1["name"], v2["name"], "change", "verdict"), tuple(rows),
                   right=frozenset({2, 3, 4, 5})),
        *notes,
    ]
