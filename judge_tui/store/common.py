"""What every part of the store shares: timestamps, JSON columns and the store's errors."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any


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
