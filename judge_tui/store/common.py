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
