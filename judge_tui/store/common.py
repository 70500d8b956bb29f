"""What every part of the store shares: timestamps, JSON columns, the store's errors and which rubric versions
compare as one."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from typing import Any

from judge_tui.model.rubrics import definition_hash


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _loads(text: str | None, default: Any) -> Any:
    return json.loads(text) if text else default


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def where(*conditions: tuple[str, Any]) -> tuple[str, list[Any]]:
    """`WHERE a = ? AND b IN (?, ?)` from (condition, value) pairs, leaving out those whose value is None or empty.

    A condition with several `?` takes a sequence of that many parameters as its value.
    """
    parts: list[str] = []
    params: list[Any] = []
    for condition, value in conditions:
        if value is None or value == "" or (isinstance(value, list | tuple) and not value):
            continue
        parts.append(condition)
        if isinstance(value, list | tuple):
            params.extend(value)
        else:
            params.append(value)
    return ("WHERE " + " AND ".join(parts) if parts else ""), params


def _json_path(key: str) -> str:
    """A JSON path selecting one object key, quoted so that dots or brackets in the key are taken literally."""
    if '"' in key:
        raise ValueError(f"a field name cannot contain a double quote: {key!r}")
    return f'$."{key}"'


class StoreError(Exception):
    """The database cannot be used (not a judge-tui database, unreadable, locked)."""


class ItemConflict(Exception):
    def __init__(self, item_id: str, problem: str) -> None:
        super().__init__(f"item {item_id!r} {problem}")
        self.item_id = item_id
        self.problem = problem


def compared_versions(conn: sqlite3.Connection) -> dict[int, int]:
    """Each rubric version's id -> the id its ratings are compared under: the oldest version of its rubric that
    asks the experts the same. A version is what the experts are asked, so two recorded versions that differ
    only in the judge's settings (as an earlier release recorded a few-shot change) are one for every figure."""
    first: dict[tuple[str, str], int] = {}
    same: dict[int, int] = {}
    for version_id, rubric, definition in conn.execute(
            "SELECT v.id, v.rubric, v.definition FROM rubric_versions v JOIN rubric_version_order o ON o.id = v.id"
            " ORDER BY v.rubric, o.number"):
        try:
            asked = definition_hash(json.loads(definition))
        except (ValueError, TypeError):
            asked = f"#{version_id}"  # unreadable: a version of its own
        same[version_id] = first.setdefault((rubric, asked), version_id)
    return same


def record_compared_versions(conn: sqlite3.Connection) -> None:
    """Write compared_versions into rubric_versions.compared_as, where the view current_ratings reads it (NULL:
    compared as itself)."""
    for version_id, same in compared_versions(conn).items():
        conn.execute("UPDATE rubric_versions SET compared_as = ? WHERE id = ? AND compared_as IS NOT ?",
                     [None if same == version_id else same, version_id, None if same == version_id else same])
