"""judge-tui's own rating rows, as JSON Lines or CSV (what `judge-tui export` writes).

JSON Lines: {"item_id": ..., "scores": {<dimension id>: value}, "notes": ..., "seconds": ...} per line, plus
optional "rater", "kind", "rubric", "rubric_version", "overall", "verdict", "repeat", "details", "flagged",
"flag_reason", "skipped" (exports carry them; overall and verdict are recomputed on import). A row without
scores that is skipped or flagged is not a rating but that mark: the rater skipped or flagged the item
without rating it. Without a "scores" object, every other key is taken
as a dimension: {"item_id": "P01", "label": "PASS", "critique": "..."}.
CSV: an item id column (item_id, id or submission_id) and one column per dimension, with the same optional
columns; an empty cell leaves that dimension unscored.
"""

from __future__ import annotations

import json
from typing import Any

from judge_tui.formats import ID_KEYS, Parsed, Problem, RatingRecord, csv_rows, first_present
from judge_tui.formats.text import json_lines, parse_json

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
    )


def read_jsonl(text: str) -> Parsed:
    values, problems = json_lines(text)
    parsed = Parsed(problems=problems)
    for line, value in values:
        if not isinstance(value, dict):
            parsed.problems.append(Problem(line, "expected a JSON object on this line"))
            continue
        record = record_from(line, value, parsed.problems)
        if record:
            parsed.records.append(record)
    return parsed


def read_csv(text: str) -> Parsed:
    table = csv_rows.read(text)
    parsed = Parsed(problems=table.problems, meta=table.meta)
    header = table.meta.get("header", [])
    if header and not any(key in header for key in ID_KEYS):
        parsed.problems.append(Problem(1, "the header has no item id column (name one item_id, id or submission_id)"))
        return parsed
    own = csv_rows.is_own_export(header)
    for row in table.records:
        data = {key: csv_rows.unprotect(cell) for key, cell in row.data.items()} if own else row.data
        record = record_from(row.line, data, parsed.problems, from_csv=True)
        if record:
            parsed.records.append(record)
    return parsed
