"""`judge-tui report --items` written out: the rows of analysis/item_report.py as CSV, JSON Lines or Markdown (to
paste into a spreadsheet or a review document)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from judge_tui.analysis.item_report import OVERALL
from judge_tui.analysis.report import Group
from judge_tui.analysis.report_render.blocks import md
from judge_tui.formats.numbers import aligned_text, short_text
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings

FORMATS = ("csv", "jsonl", "markdown")
FORMAT_BY_SUFFIX = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".md": "markdown"}


def _joined(value: Any) -> str:
    """Flags and notes as one cell: "EXP001: reason; EXP002: reason"."""
    if isinstance(value, list):
        return "; ".join(f"{f['rater']}: {f['reason']}" if f["reason"] else f["rater"] for f in value)
    if isinstance(value, dict):
        return "; ".join(f"{rater}: {text}" for rater, text in value.items())
    return "" if value is None else str(value)


def render_csv(rows: list[dict[str, Any]], text: Callable[[str], str]) -> str:
    from judge_tui.formats.csv_rows import csv_line, protect

    columns = list(rows[0]) if rows else ["item_id"]
    cells = ([protect(text(_joined(row[c]))) if isinstance(row[c], str | list | dict) else row[c] for c in columns]
             for row in rows)
    return "".join(map(csv_line, [columns, *cells]))


def render_jsonl(rows: list[dict[str, Any]], text: Callable[[str], str]) -> str:
    def cleaned(value: Any) -> Any:
        if isinstance(value, str):
            return text(value)
        if isinstance(value, list):
            return [cleaned(v) for v in value]
        if isinstance(value, dict):
            return {k: cleaned(v) for k, v in value.items()}
        return value

    return "".join(json.dumps(cleaned(row), ensure_ascii=False) + "\n" for row in rows)


def render_markdown(rows: list[dict[str, Any]], rubric: Rubric, human: Group, judge: Group,
                    settings: AgreementSettings) -> str:
    def cell(value: float | str | None) -> str:
        return "—" if value is None else value if isinstance(value, str) else short_text(value)

    names = [*rubric.dimension_ids, OVERALL]
    nominal = rubric.scale.nominal

    def sides(row: dict[str, Any], name: str) -> str:
        """H / J / gap; on a scale of categories each side's split, and no gap on a nominal one."""
        if f"{name}_human_split" not in row:
            return f"{cell(row[f'{name}_human'])} / {cell(row[f'{name}_judge'])} / {cell(row[f'{name}_gap'])}"
        shown = [md(row[f"{name}_{side}_split"] or "—") for side in ("human", "judge")]
        return " / ".join(shown if nominal else [*shown, cell(row[f"{name}_gap"])])

    gap = {name: " / gap" if not nominal or (name == OVERALL and rubric.overall != "label") else "" for name in names}
    certified = bool(rows) and "judge_decides" in rows[0]  # a certificate is in force
    head = ["Item", *(f"{name} (H / J{gap[name]})" for name in names), "Aligned", "Flags", "Notes",
            *(["Judge decides"] if certified else [])]
    aligned = aligned_text(rubric.scale, settings.tolerance)
    lines = [f"# Item by item: {md(rubric.name)}", "",
             f"Human: {md(', '.join(human.rater_ids))} · Judge: {md(', '.join(judge.rater_ids))} · gap = judge − "
             f"human · aligned = judged dimensions {aligned}", "",
             "| " + " | ".join(head) + " |", "|" + "|".join(" --- " for _ in head) + "|"]
    for row in rows:
        cells = [md(row["item_id"])]
        cells += [sides(row, n) for n in names]
        notes = {**row["human_notes"], **row["judge_notes"]}
        cells += [row["aligned"], md(_joined(row["flags"])), md(_joined(notes))]
        cells += ["yes" if row["judge_decides"] else "—"] if certified else []
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join([*lines, ""])
