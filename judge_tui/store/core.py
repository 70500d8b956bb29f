"""The store's connection: opening the database, transactions, plain queries and the meta table.

Every area of the store (items, ratings, the judge queue...) is a class built on StoreCore.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

from judge_tui.store.common import StoreError
from judge_tui.store.schema import migrations, sqlite_utils


class StoreCore:
    """One connection to a judge-tui database, migrated on opening. It belongs to the thread that opened it."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(str(path), timeout=10.0)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            # No sqlite-utils plugins: loading them scans every installed package (~40 ms at each start).
            self.db = sqlite_utils.Database(conn, execute_plugins=False)
            migrations.apply(self.db)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path}: cannot open as a judge-tui database ({exc})") from None
        self.conn = conn

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ transactions

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; nested use joins the outer one. Rolls back on any exception."""
        if self.conn.in_transaction:
            yield self.conn
            return
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.rollback()
            raise
        else:
            self.conn.commit()

    def query(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> list[sqlite3.Row]:
        cursor = self.conn.execute(sql, params)
        names = [d[0] for d in cursor.description or ()]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]  # type: ignore[misc]

    def scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        row = self.conn.execute(sql, params).fetchone()
        return row[0] if row else None

    def rows_for_ids(self, sql: str, ids: Iterable[str]) -> Iterator[tuple[Any, ...]]:
        """The rows of sql, whose "IN ({ids})" is filled with these ids 500 at a time (SQLite limits parameters)."""
        ids = list(dict.fromkeys(ids))
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            yield from self.conn.execute(sql.format(ids=",".join("?" * len(chunk))), chunk)

    # ------------------------------------------------------------------ meta

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        value = self.scalar("SELECT value FROM meta WHERE key = ?", [key])
        return default if value is None else value

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [key, value],
            )
