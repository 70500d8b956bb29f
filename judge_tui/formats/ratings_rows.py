"""judge-tui's own rating rows, as JSON Lines or CSV (what `judge-tui export` writes).

JSON Lines: {"item_id": ..., "scores": {<dimension id>: value}, "notes": ..., "seconds": ...} per line, plus
optional "rater", "kind", "rubric", "rubric_version", "overall", "verdict", "repeat", "details", "flagged",
"flag_reason", "skipped" (exports carry them; overall and verdict are recomputed on import). A row without
scores that is skipped or flagged is not a rating but that mark: the rater skipped or flagged the item
without rating it. Without a "scores" object, every other key is taken
as a dimension: {"item_id": "P01", "label": "PASS", "critique": "..."}.
CSV: an item id column (item_id, id or submission_id) and one column per dimension, with the same optional
columns; an empty cell leaves that dimension unscored.

The writers (``rating_row``, ``mark_row``, ``write_jsonl``, ``write_csv``) write what the readers read back: every
column named above, seconds empty or null when not known, and in CSV the formula quote of ``csv_rows.protect``.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from judge_tui.formats import ID_KEYS, Parsed, Problem, RatingRecord, csv_rows, first_present
from judge_tui.formats.field_map import apply_mapping, keys_of
from judge_tui.formats.text import Source, json_lines, parse_json
from judge_tui.model.records import Draft, Rating

NOTE_KEYS = ("notes", "critique", "reasoning")
OTHER_KEYS = ("rater", "kind", "rubric", "rubric_version", "overall", "verdict", "repeat", "details", "seconds",
              "created_at", "updated_at", "task_type", "overall_score", "issues", "suggestions", "flagged",
              "flag_reason", "skipped")
NOT_DIMENSIONS = frozenset((*ID_KEYS, *NOTE_KEYS, *OTHER_KEYS, "scores"))


def record_from(line: int, row: dict[str, Any], problems: list[Problem], *, from_csv: bool = False) -> None | RatingRecord:
    """One rating row to a RatingRecord, or None after adding a Problem."""
    id_key, item_id = first_present(row, ID_KEYS)
    if id_key is None or item_id in ("", None):
        problems.append(Problem(line, "missing required field \"item_id\" (or \"id\" / \"submission_id\")"))
        return None
    keyed = False
    if "scores" in row:
        scores = row["scores"]
        if from_csv:
            try:
                scores = parse_json(scores) if scores.strip() else {}
            except json.JSONDecodeError:
                scores = None
        if not isinstance(scores, dict):
            problems.append(Problem(line, "\"scores\" must be an object of dimension id -> score"))
            return None
    else:
        scores = {key: value for key, value in row.items() if key not in NOT_DIMENSIONS}
        keyed = True
    if from_csv:
        scores = {key: value for key, value in scores.items() if not (isinstance(value, str) and not value.strip())}
    _note_key, notes = first_present(row, NOTE_KEYS)
    if notes is None:
        notes = ""
    if not isinstance(notes, str):
        problems.append(Problem(line, "\"notes\" must be text"))
        return None
    details = row.get("details") or {}
    if from_csv and isinstance(details, str):
        try:
            details = parse_json(details)
        except json.JSONDecodeError:
            details = None
    if not isinstance(details, dict):
        problems.append(Problem(line, "\"details\" must be an object"))
        return None
    for key in ("issues", "suggestions"):
        if key in row:
            details = {**details, key: row[key]}
    rater, kind = row.get("rater"), row.get("kind")
    blank = (None, "")
    return RatingRecord(
        line=line, item_id=item_id, scores=scores, notes=notes,
        seconds=None if row.get("seconds") in blank else row.get("seconds"),
        repeat=0 if row.get("repeat") in blank else row.get("repeat"),
        rater=str(rater) if rater not in blank else None,
        kind=str(kind) if kind not in blank else None,
        details=details,
        stated_overall=row.get("overall_score"),
        stated_verdict=row.get("verdict") if "overall_score" in row else None,
        flagged=row.get("flagged", False), flag_reason=row.get("flag_reason", ""), skipped=row.get("skipped", False),
        keyed_scores=keyed,
    )


def _no_id(keys: list[str], mapping: Mapping[str, str], what: str) -> Problem:
    """No row names its item: one problem for the file, with its keys and the --map that fits."""
    holding = [key for key in keys if key not in mapping.values() and "id" in re.split(r"[^a-z0-9]+", key.lower())]
    fix = f"use --map item_id={holding[0]}" if len(holding) == 1 else "name the one that holds it with --map item_id=KEY"
    return Problem(1 if what == "columns" else 0, f"no {'column' if what == 'columns' else 'row'} holds the item id "
                                                  f"(item_id, id or submission_id): {fix} ({what}: {', '.join(keys)})")


def read_jsonl(source: Source, mapping: Mapping[str, str] | None = None) -> Parsed:
    """Rows of JSON Lines; ``mapping`` (--map FIELD=KEY) renames or builds keys before a row is read."""
    values, problems = json_lines(source)
    parsed = Parsed(problems=problems)
    rows = []
    for line, value in values:
        if not isinstance(value, dict):
            parsed.problems.append(Problem(line, "expected a JSON object on this line"))
            continue
        rows.append((line, value))
    parsed.meta["keys"] = keys_of(value for _line, value in rows)
    if rows and not any(first_present(apply_mapping(value, mapping or {}), ID_KEYS)[0] for _line, value in rows):
        parsed.problems.append(_no_id(parsed.meta["keys"], mapping or {}, "keys"))
        return parsed
    for line, value in rows:
        record = record_from(line, apply_mapping(value, mapping or {}), parsed.problems)
        if record:
            parsed.records.append(record)
    return parsed


def read_csv(source: Source, mapping: Mapping[str, str] | None = None) -> Parsed:
    """Rows of a CSV table; ``mapping`` as for read_jsonl, by column."""
    table = csv_rows.read(source)
    parsed = Parsed(problems=table.problems, meta=table.meta)
    header = table.meta.get("header", [])
    if header and not any(key in apply_mapping(dict.fromkeys(header), mapping or {}) for key in ID_KEYS):
        parsed.problems.append(_no_id(header, mapping or {}, "columns"))
        return parsed
    own = csv_rows.is_own_export(header)
    for row in table.records:
        data = {key: csv_rows.unprotect(cell) for key, cell in row.data.items()} if own else row.data
        record = record_from(row.line, apply_mapping(data, mapping or {}), parsed.problems, from_csv=True)
        if record:
            parsed.records.append(record)
    return parsed


# --------------------------------------------------------------------------- writing


def rating_row(rating: Rating, *, kind: str | None, rubric: str, rubric_version: int,
               scores: dict[str, float | str], overall: float | str | None) -> dict[str, Any]:
    """One rating as a flat row; scores and overall as exported (scores in the rubric's order, PASS/FAIL and
    categories by name)."""
    row: dict[str, Any] = {
        "item_id": rating.item_id, "rater": rating.rater_id, "kind": kind,
        "rubric": rubric, "rubric_version": rubric_version, "scores": scores,
        "overall": overall, "verdict": rating.verdict, "notes": rating.notes,
        "seconds": rating.seconds, "repeat": rating.repeat,
        "flagged": rating.flagged, "flag_reason": rating.flag_reason, "skipped": False,
    }
    if rating.details:
        row["details"] = rating.details
    return row


def mark_row(mark: Draft, *, kind: str | None, rubric: str) -> dict[str, Any]:
    """An item skipped or flagged without a rating: a row with no scores that carries just the mark."""
    return {"item_id": mark.item_id, "rater": mark.rater_id, "kind": kind, "rubric": rubric, "rubric_version": None,
            "scores": {}, "overall": None, "verdict": None, "notes": "", "seconds": None, "repeat": 0,
            "flagged": mark.flagged, "flag_reason": mark.flag_reason, "skipped": mark.skipped}


def write_jsonl(out: io.TextIOBase, rows: Iterable[dict[str, Any]]) -> None:
    """Each row as one line of JSON."""
    for row in rows:
        out.write(json.dumps(row, ensure_ascii=False) + "\n")


def write_csv(out: io.TextIOBase, rows: Iterable[dict[str, Any]], dimensions: list[str]) -> None:
    """A header (the export's columns, one per dimension between them), then one line per row."""
    out.write(csv_rows.csv_line([*csv_rows.EXPORT_COLUMNS, *dimensions, *csv_rows.EXPORT_TAIL]))
    for row in rows:
        cells = [row["item_id"], row["rater"], row["kind"], row["rubric"],
                 "" if row["rubric_version"] is None else row["rubric_version"],
                 *(row["scores"].get(d, "") for d in dimensions),
                 "" if row["overall"] is None else row["overall"], row["verdict"] or "", row["notes"],
                 "" if row["seconds"] is None else row["seconds"], row["repeat"],
                 json.dumps(row["details"], ensure_ascii=False) if row.get("details") else "",
                 "yes" if row["flagged"] else "", row["flag_reason"], "yes" if row["skipped"] else ""]
        out.write(csv_rows.csv_line([csv_rows.protect(c) if isinstance(c, str) else repr(c) if isinstance(c, float)
                                 else c for c in cells]))
