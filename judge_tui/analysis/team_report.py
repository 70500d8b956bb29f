"""The report sections about several experts: team agreement, self-agreement (drift) and version comparison.

Each section is computed once as objects (team.TeamAgreement, drift.ExpertSelfAgreement,
compare.VersionComparison), turned into a plain dict (what `report --format json` prints), and drawn from that
dict as blocks (headings, paragraphs, tables) that one of three styles renders: Markdown, Rich tables (the text
report, like its other tables) or plain lines (the summary screen). So every format shows the same figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from judge_tui.analysis.compare import VersionComparison, compare_versions
from judge_tui.analysis.drift import ExpertSelfAgreement, self_agreement
from judge_tui.analysis.figure_format import figure_text
from judge_tui.analysis.team import (
    CONSENSUS_RATER,
    TOLERANCE,
    TeamAgreement,
    is_expert,
    load_team,
    team_agreement,
)
from judge_tui.model.rubrics import Rubric
from judge_tui.model.textsafe import clean
from judge_tui.stats import agreement as ag
from judge_tui.store import Store

if TYPE_CHECKING:
    from rich.console import RenderableType

    from judge_tui.analysis.scores import RubricRatings


def figure(value: ag.Figure) -> float | dict[str, str]:
    if isinstance(value, ag.Undefined):
        return {"undefined": value.reason}
    return round(float(value), 4)


def _pair(p: ag.PairAgreement) -> dict[str, Any]:
    return {"n": p.n, "alignment": figure(p.alignment_rate), "kappa": figure(p.cohen_kappa),
            "pearson_r": figure(p.pearson_r)}


# --------------------------------------------------------------------------- computing the sections


def team_figures(store: Store, rubric: Rubric, split: str | None = None, judge: str | None = None,
                 only_items: set[str] | None = None, tolerance: float = TOLERANCE,
                 ratings: RubricRatings | None = None) -> TeamAgreement | None:
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
    return team_agreement(view, tolerance)


def drift_figures(store: Store, rubric: Rubric, split: str | None = None, rater: str | None = None,
                  tolerance: float = TOLERANCE, ratings: RubricRatings | None = None) -> list[ExpertSelfAgreement]:
    """Each expert's (or one expert's) self-agreement over the items they rated twice (empty when none did)."""
    if ratings is None and not store.has_human_rerating(rubric.id):
        return []
    return [s for s in self_agreement(store, rubric, split, tolerance, ratings=ratings)
            if rater is None or s.rater_id == rater]


def team_to_dict(result: TeamAgreement, split: str | None) -> dict[str, Any]:
    dims = []
    for d in result.dimensions:
        dims.append({
            "dimension": d.dimension,
            "alpha": figure(d.alpha),
            "alpha_level": d.alpha_level,
            "kappa_matrix": [[figure(k) for k in row] for row in d.kappa],
            "experts_vs_judge": {e: _pair(p) for e, p in d.experts_vs_judge.items()},
            "consensus_vs_judge": {**_pair(d.consensus_vs_judge), "items": d.consensus_items,
                                   "adjudicated": d.adjudicated_items, "ties": d.ties},
        })
    return {"experts": list(result.experts), "judge": result.judge, "items": result.items, "split": split,
            "tolerance": result.tolerance, "dimensions": dims,
            "pooled_alignment": {k: figure(v) for k, v in result.pooled_vs_judge.items()}}


def drift_to_dicts(results: Sequence[ExpertSelfAgreement], tolerance: float) -> list[dict[str, Any]]:
    return [{"rater": s.rater_id, "pairs": s.pairs, "tolerance": tolerance, "alignment": figure(s.alignment),
             "by_dimension": {d: {"alignment": figure(p.alignment_rate), "kappa": figure(p.cohen_kappa)}
                              for d, p in s.by_dimension.items()}}
            for s in results]


def comparison_to_dict(c: VersionComparison) -> dict[str, Any]:
    def delta(pair: tuple[ag.Figure, ag.Figure]) -> float | dict[str, str]:
        a, b = pair
        if ag.is_defined(a) and ag.is_defined(b):
            return round(b - a, 4)
        return {"undefined": "one of the two figures is not defined"}

    return {
        "rubric": c.rubric, "split": c.split or "all items (no splits assigned)",
        "v1": {"name": c.v1.name, "judge": c.v1.rater_id}, "v2": {"name": c.v2.name, "judge": c.v2.rater_id},
        "reference": f"consensus of {len(c.experts)} expert(s): {', '.join(c.experts)}", "items": c.items,
        "tolerance": c.tolerance,
        "alignment": {"v1": figure(c.alignment[0]), "v2": figure(c.alignment[1]), "change": delta(c.alignment)},
        "dimensions": [{"dimension": s.dimension, "n": s.n,
                        "alignment": {"v1": figure(s.alignment[0]), "v2": figure(s.alignment[1]),
                                      "change": delta(s.alignment)},
                        "kappa": {"v1": figure(s.kappa[0]), "v2": figure(s.kappa[1]), "change": delta(s.kappa)},
                        "pearson_r": {"v1": figure(s.pearson[0]), "v2": figure(s.pearson[1]),
                                      "change": delta(s.pearson)}}
                       for s in c.dimensions],
    }


def team_section(store: Store, rubric: Rubric, split: str | None = None, judge: str | None = None,
                 only_items: set[str] | None = None, tolerance: float = TOLERANCE) -> dict[str, Any] | None:
    """The team section as a dict, or None when fewer than two experts rated this rubric."""
    result = team_figures(store, rubric, split, judge, only_items, tolerance)
    return None if result is None else team_to_dict(result, split)


def drift_section(store: Store, rubric: Rubric, split: str | None = None,
                  rater: str | None = None, tolerance: float = TOLERANCE) -> list[dict[str, Any]]:
    """The self-agreement section as dicts (empty when no expert re-rated an item)."""
    return drift_to_dicts(drift_figures(store, rubric, split, rater, tolerance), tolerance)


def compare_section(store: Store, rubric: Rubric, v1: str, v2: str, split: str | None = None,
                    tolerance: float = TOLERANCE) -> dict[str, Any]:
    return comparison_to_dict(compare_versions(store, rubric, v1, v2, split, tolerance))


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
            lines += [_cell(block.title, fmt)] if block.title is not None else []
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


def team_blocks(section: dict[str, Any]) -> list[Block]:
    experts = section["experts"]
    blocks: list[Block] = [Heading("Team: agreement among experts")]
    blocks.append(Paragraph((
        f"{len(experts)} experts ({', '.join(experts)}) on {section['items']} items; judge: "
        f"{section['judge'] or 'none yet'}. Consensus = adjudicated score, else the experts' mean "
        "(PASS/FAIL: majority; ties left out); kappa takes a mean at its nearest scale point.",)))
    blocks.append(TableBlock(("dimension", "alpha", "level"),
                             tuple((d["dimension"], _num(d["alpha"]), d["alpha_level"]) for d in section["dimensions"]),
                             right=frozenset({1})))
    rows = []
    for d in section["dimensions"]:
        for name, p in [*d["experts_vs_judge"].items(), (CONSENSUS_RATER, d["consensus_vs_judge"])]:
            extra = ""
            if name == CONSENSUS_RATER and (p["adjudicated"] or p["ties"]):
                extra = f" ({p['adjudicated']} adjudicated, {p['ties']} ties left out)"
            rows.append((d["dimension"], name + extra, str(p["n"]), _num(p["alignment"], percent=True),
                         _num(p["kappa"]), _num(p["pearson_r"])))
    blocks.append(TableBlock(
        ("dimension", "rater", "n", "alignment", "kappa", "r"), tuple(rows),
        f"Each expert and the consensus against the judge (alignment within ±{section['tolerance']:g}):",
        frozenset({2, 3, 4, 5})))
    pooled = ", ".join(f"{k} {_num(v, percent=True)}" for k, v in section["pooled_alignment"].items())
    blocks.append(Paragraph((f"Alignment with the judge over every judged dimension: {pooled}",)))
    for d in section["dimensions"]:
        blocks.append(TableBlock(
            ("", *experts), tuple((e, *(_num(k) for k in row)) for e, row in zip(experts, d["kappa_matrix"], strict=True)),
            f"Cohen's kappa between experts, {d['dimension']}:", frozenset(range(1, len(experts) + 1))))
    return blocks


def drift_blocks(section: list[dict[str, Any]]) -> list[Block]:
    dims = list(section[0]["by_dimension"]) if section else []
    rows = tuple((s["rater"], str(s["pairs"]), _num(s["alignment"], percent=True),
                  *(_num(s["by_dimension"][d]["kappa"]) for d in dims)) for s in section)
    title = (f"First rating against the re-rating (alignment within ±{section[0]['tolerance']:g}):"
             if section else None)
    return [Heading("Self-agreement (items re-rated blind later)"),
            TableBlock(("expert", "items", "alignment", *(f"kappa {d}" for d in dims)), rows, title,
                       frozenset(range(1, 3 + len(dims))))]


def compare_blocks(section: dict[str, Any]) -> list[Block]:
    v1, v2 = section["v1"], section["v2"]
    rows = []
    for d in section["dimensions"]:
        for name, key, percent in (("alignment", "alignment", True), ("kappa", "kappa", False),
                                   ("r", "pearson_r", False)):
            f = d[key]
            rows.append((d["dimension"] if name == "alignment" else "", name, str(d["n"]) if percent else "",
                         _num(f["v1"], percent), _num(f["v2"], percent), _num(f["change"], percent, signed=True)))
    a = section["alignment"]
    rows.append(("all judged", "alignment", "", _num(a["v1"], True), _num(a["v2"], True),
                 _num(a["change"], True, signed=True)))
    return [
        Heading(f"Version comparison: {v1['name']} -> {v2['name']}"),
        Paragraph((f"{v1['name']} = {v1['judge']}; {v2['name']} = {v2['judge']}",
                   f"Rubric {section['rubric']}, split {section['split']}, {section['items']} items judged "
                   f"under both and rated by the experts; reference: {section['reference']}; alignment within "
                   f"±{section['tolerance']:g}.")),
        TableBlock(("dimension", "figure", "n", v1["name"], v2["name"], "change"), tuple(rows),
                   right=frozenset({2, 3, 4, 5})),
    ]


def render_team(section: dict[str, Any], fmt: str) -> list[str]:
    return lines_of(team_blocks(section), fmt)


def render_drift(section: list[dict[str, Any]], fmt: str) -> list[str]:
    return lines_of(drift_blocks(section), fmt)


def render_compare(section: dict[str, Any], fmt: str) -> list[str]:
    return lines_of(compare_blocks(section), fmt)
