"""Flags for the lead: `judge-tui flags` lists every flagged item, and the report gets a "Flagged items" section.

A flag is an expert's "this item needs discussion", with an optional reason; it lives on their rating, or on
their draft while the item is skipped or unrated (judge_tui.store.flags). Reasons are untrusted text: cleaned
of terminal escapes for a terminal, escaped for Markdown, formula-protected in CSV.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

from judge_tui.formats.csv_rows import csv_line, protect
from judge_tui.model.records import Flag
from judge_tui.model.textsafe import clean

COLUMNS = ("item_id", "rater", "state", "reason", "task_type", "split", "rubric", "updated_at")
FORMAT_BY_SUFFIX = {".csv": "csv", ".json": "json", ".md": "markdown"}


def flag_row(flag: Flag) -> dict[str, Any]:
    return {"item_id": flag.item_id, "rater": flag.rater_id, "state": flag.state, "reason": flag.reason,
            "task_type": flag.task_type, "split": flag.split, "rubric": flag.rubric, "updated_at": flag.updated_at}


def _markdown_cell(text: object) -> str:
    from judge_tui.analysis.report_render.blocks import md

    return md("" if text is None else text)


def render(flags: list[Flag], fmt: str, *, title: str = "Flagged items", width: int | None = None) -> str:
    """The flags as text (a plain table; with `width`, each reason wrapped on words within it), markdown, csv
    or json."""
    rows = [flag_row(f) for f in flags]
    if fmt == "json":
        return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"
    if fmt == "csv":
        cells = ([protect(str(row[c])) if row[c] is not None else None for c in COLUMNS] for row in rows)
        return "".join(map(csv_line, [COLUMNS, *cells]))
    if fmt == "markdown":
        lines = [f"## {title} ({len(rows)})", ""]
        if not rows:
            return "\n".join([*lines, "No item is flagged.", ""])
        lines += ["| Item | Expert | State | Reason |", "| --- | --- | --- | --- |"]
        lines += [f"| {_markdown_cell(r['item_id'])} | {_markdown_cell(r['rater'])} | {r['state']} | "
                  f"{_markdown_cell(r['reason'])} |" for r in rows]
        return "\n".join([*lines, ""])
    lines = [f"{title} ({len(rows)})"]
    if not rows:
        return "\n".join([*lines, "  No item is flagged.", ""])
    width_item = max(len(clean(r["item_id"])) for r in rows)
    width_rater = max(len(clean(r["rater"])) for r in rows)
    for r in rows:
        reason = " ".join(clean(r["reason"]).split()) or "(no reason given)"
        lead = f"  {clean(r['item_id']):<{width_item}}  {clean(r['rater']):<{width_rater}}  {r['state']:<7}  "
        lines += _wrapped(lead, reason, width)
    return "\n".join([*lines, ""])


def _wrapped(lead: str, reason: str, width: int | None) -> list[str]:
    """The row's lead, then the reason wrapped on words under itself; under the lead's start when the lead
    leaves too little room beside it."""
    if width is None or len(lead) + len(reason) <= width:
        return [lead + reason]
    indent = len(lead) if width - len(lead) >= 24 else 4
    wrapped = textwrap.wrap(reason, max(20, width - indent), break_on_hyphens=False)
    if indent == len(lead):
        return [lead + wrapped[0], *(" " * indent + line for line in wrapped[1:])]
    return [lead.rstrip(), *(" " * indent + line for line in wrapped)]


def flags_table(flags: list[Flag]) -> Any:
    from rich.table import Table
    from rich.text import Text

    from judge_tui.formats.terminal import add_id_column

    table = Table(title=f"Flagged items ({len(flags)})", title_justify="left")
    columns: dict[str, list[str | None]] = {
        "item": [f.item_id for f in flags], "expert": [f.rater_id for f in flags], "state": [f.state for f in flags],
        "reason": [f.reason for f in flags], "task type": [f.task_type for f in flags],
        "split": [f.split for f in flags], "rubric": [f.rubric for f in flags],
        "updated": [f.updated_at[:19].replace("T", " ") for f in flags],
    }
    shown: list[list[str]] = []
    for header, raw in columns.items():
        cells = [str(value or "") for value in raw]
        if header in ("task type", "split") and not any(cells):
            continue  # a column no flag fills
        if header in ("item", "expert", "rubric"):
            add_id_column(table, header, keep_whole=cells)
        elif header == "reason":  # prose: wrapped on words, never narrower than a few, so a narrow terminal
            # splits the table rather than the words
            table.add_column(header, overflow="fold", min_width=min(24, max(map(len, cells), default=0)))
        elif header == "updated":  # a date and a time: on two lines when room is short
            table.add_column(header, min_width=10)
        else:
            table.add_column(header, no_wrap=header != "task type")
        shown.append(cells)
    for row in zip(*shown, strict=True):
        table.add_row(*(Text(clean(cell)) for cell in row))
    return table
