"""Flags for the lead: `judge-tui flags` lists every flagged item, and the report gets a "Flagged items" section.

A flag is an expert's "this item needs discussion", with an optional reason; it lives on their rating, or on
their draft while the item is skipped or unrated (judge_tui.store.flags). Reasons are untrusted text: cleaned
of terminal escapes for a terminal, escaped for Markdown, formula-protected in CSV.
"""

from __future__ import annotations

import json
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


def render(flags: list[Flag], fmt: str, *, title: str = "Flagged items") -> str:
    """The flags as text (a plain table), markdown, csv or json."""
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
        lines.append(f"  {clean(r['item_id']):<{width_item}}  {clean(r['rater']):<{width_rater}}  "
                     f"{r['state']:<7}  {reason}")
    return "\n".join([*lines, ""])


def flags_table(flags: list[Flag]) -> Any:
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"Flagged items ({len(flags)})", title_justify="left")
    for column in ("item", "expert", "state", "reason", "task type", "split", "rubric", "updated"):
        table.add_column(column, overflow="fold")
    for f in flags:
        table.add_row(*(Text(clean(str(v or ""))) for v in (
            f.item_id, f.rater_id, f.state, f.reason, f.task_type, f.split, f.rubric, f.updated_at[:19].replace("T", " "))))
    return table
