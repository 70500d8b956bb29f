"""The SQLite store: the one module of judge-tui that speaks SQL.

Durability: WAL with synchronous=FULL, so a committed rating survives a crash or a power cut, and every
write is its own short transaction begun with BEGIN IMMEDIATE (a second process waits instead of failing).
A Store belongs to the thread that opened it.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from judge_tui.records import Draft, Item, Rating, content_hash


def _import_sqlite_utils_without_numpy() -> None:
    """sqlite-utils imports numpy and pandas, if installed, only to map their scalar types to column types.

    judge-tui writes plain Python values, so both are hidden while sqlite-utils loads: that keeps ~80 ms and
    numpy's memory off the rating screen's start-up path. numpy imports normally afterwards.
    """
    hidden = [name for name in ("numpy", "pandas") if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment] - makes `import name` raise ImportError
    try:
        import sqlite_utils  # noqa: F401
    finally:
        for name in hidden:
            del sys.modules[name]


_import_sqlite_utils_without_numpy()
import sqlite_utils  # noqa: E402 - loaded above without numpy
from sqlite_utils.migrations import Migrations  # noqa: E402

migrations = Migrations("judge_tui")


@migrations()
def m001_initial_schema(db: sqlite_utils.Database) -> None:
    # Statement by statement: executescript() would commit the migration's transaction half way.
    for statement in _SCHEMA_V1.split(";"):
        if statement.strip():
            db.execute(statement)


_SCHEMA_V1 = """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

        CREATE TABLE rubric_versions (
            id INTEGER PRIMARY KEY,
            rubric TEXT NOT NULL,
            version TEXT NOT NULL,
            content_hash TEXT NOT NULL UNIQUE,
            definition TEXT NOT NULL,
            reason TEXT NOT NULL DEFAULT '',
            motivating_items TEXT NOT NULL DEFAULT '[]',
            created_at TEXT NOT NULL
        );

        CREATE TABLE items (
            id TEXT PRIMARY KEY,
            rubric TEXT NOT NULL,
            task_type TEXT,
            fields TEXT NOT NULL,
            split TEXT,
            content_hash TEXT NOT NULL,
            position INTEGER NOT NULL,
            source TEXT NOT NULL DEFAULT '',
            few_shot_used INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL
        );
        CREATE INDEX items_by_rubric ON items (rubric, position);

        CREATE TABLE raters (
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('human', 'judge', 'code')),
            model TEXT,
            prompt_version TEXT,
            display_name TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL
        );

        CREATE TABLE ratings (
            id INTEGER PRIMARY KEY,
            item_id TEXT NOT NULL REFERENCES items (id),
            rater_id TEXT NOT NULL REFERENCES raters (id),
            rubric_version_id INTEGER NOT NULL REFERENCES rubric_versions (id),
            repeat INTEGER NOT NULL DEFAULT 0,
            scores TEXT NOT NULL,
            overall REAL,
            verdict TEXT,
            notes TEXT NOT NULL DEFAULT '',
            seconds REAL NOT NULL DEFAULT 0,
            source TEXT NOT NULL DEFAULT '',
            details TEXT NOT NULL DEFAULT '{}',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            UNIQUE (item_id, rater_id, rubric_version_id, repeat)
        );
        CREATE INDEX ratings_by_rater ON ratings (rater_id, item_id);

        CREATE TABLE drafts (
            item_id TEXT NOT NULL REFERENCES items (id),
            rater_id TEXT NOT NULL REFERENCES raters (id),
            scores TEXT NOT NULL DEFAULT '{}',
            notes TEXT NOT NULL DEFAULT '',
            seconds REAL NOT NULL DEFAULT 0,
            skipped INTEGER NOT NULL DEFAULT 0,
            flagged INTEGER NOT NULL DEFAULT 0,
            flag_reason TEXT NOT NULL DEFAULT '',
            updated_at TEXT NOT NULL,
            PRIMARY KEY (item_id, rater_id)
        );

        CREATE TABLE judge_jobs (
            id INTEGER PRIMARY KEY,
            item_id TEXT NOT NULL REFERENCES items (id),
            rater_id TEXT NOT NULL REFERENCES raters (id),
            rubric_version_id INTEGER NOT NULL REFERENCES rubric_versions (id),
            repeat INTEGER NOT NULL DEFAULT 0,
            status TEXT NOT NULL DEFAULT 'queued'
                CHECK (status IN ('queued', 'running', 'done', 'failed')),
            attempts INTEGER NOT NULL DEFAULT 0,
            last_error TEXT NOT NULL DEFAULT '',
            raw_output TEXT NOT NULL DEFAULT '',
            batch_id TEXT,
            rating_id INTEGER REFERENCES ratings (id),
            next_attempt_at TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            UNIQUE (item_id, rater_id, rubric_version_id, repeat)
        );
        CREATE INDEX judge_jobs_by_status ON judge_jobs (status, id);

        CREATE TABLE judge_batches (
            id TEXT PRIMARY KEY,
            rater_id TEXT NOT NULL REFERENCES raters (id),
            rubric_version_id INTEGER NOT NULL REFERENCES rubric_versions (id),
            status TEXT NOT NULL,
            request_count INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );

        CREATE TABLE judge_calls (
            id INTEGER PRIMARY KEY,
            job_id INTEGER NOT NULL REFERENCES judge_jobs (id),
            model TEXT NOT NULL,
            input_tokens INTEGER NOT NULL DEFAULT 0,
            output_tokens INTEGER NOT NULL DEFAULT 0,
            cache_read_tokens INTEGER NOT NULL DEFAULT 0,
            cache_write_tokens INTEGER NOT NULL DEFAULT 0,
            cost_usd REAL NOT NULL DEFAULT 0,
            sampling TEXT NOT NULL DEFAULT '{}',
            outcome TEXT NOT NULL,
            created_at TEXT NOT NULL
        );

        CREATE TABLE revision_marks (
            id INTEGER PRIMARY KEY,
            item_id TEXT NOT NULL REFERENCES items (id),
            rubric TEXT NOT NULL,
            note TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            UNIQUE (item_id, rubric)
        );
        """


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _loads(text: str | None, default: Any) -> Any:
    return json.loads(text) if text else default


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


class StoreError(Exception):
    """The database cannot be used (not a judge-tui database, unreadable, locked)."""


class Store:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(str(path), timeout=10.0)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            self.db = sqlite_utils.Database(conn)
            migrations.apply(self.db)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path}: cannot open as a judge-tui database ({exc})") from None
        self.conn = conn

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
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

    # ------------------------------------------------------------------ rubric versions

    def ensure_rubric_version(self, rubric: Any, reason: str = "", motivating_items: Sequence[str] = ()) -> int:
        """The id of this exact rubric definition, recording it the first time it is seen."""
        existing = self.scalar("SELECT id FROM rubric_versions WHERE content_hash = ?", [rubric.content_hash])
        if existing is not None:
            return int(existing)
        with self.transaction() as conn:
            cursor = conn.execute(
                "INSERT INTO rubric_versions (rubric, version, content_hash, definition, reason, motivating_items,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    rubric.id,
                    rubric.version,
                    rubric.content_hash,
                    _dumps(rubric.model_dump(mode="json")),
                    reason,
                    _dumps(list(motivating_items)),
                    now(),
                ],
            )
            return int(cursor.lastrowid)  # type: ignore[arg-type]

    def rubric_versions(self, rubric_id: str | None = None) -> list[dict[str, Any]]:
        where, params = ("WHERE rubric = ?", [rubric_id]) if rubric_id else ("", [])
        rows = self.query(
            f"SELECT id, rubric, version, content_hash, reason, motivating_items, created_at"
            f" FROM rubric_versions {where} ORDER BY id",
            params,
        )
        for row in rows:
            row["motivating_items"] = _loads(row["motivating_items"], [])
        return rows

    def rubric_version_ids(self, rubric_id: str) -> list[int]:
        return [r[0] for r in self.conn.execute("SELECT id FROM rubric_versions WHERE rubric = ?", [rubric_id])]

    # ------------------------------------------------------------------ items

    def _next_position(self) -> int:
        return int(self.scalar("SELECT COALESCE(MAX(position), 0) + 1 FROM items"))

    def add_items(self, items: Iterable[Item], source: str = "") -> dict[str, int]:
        """Insert new items in one transaction; an existing id with the same content is left alone.

        Returns counts {"added", "unchanged", "split_changed"}. Raises ItemConflict (nothing written)
        if an id already exists under another rubric or with different content.
        """
        counts = {"added": 0, "unchanged": 0, "split_changed": 0}
        with self.transaction() as conn:
            position = self._next_position()
            stamp = now()
            for item in items:
                digest = item.content_hash or content_hash(item.fields)
                row = conn.execute(
                    "SELECT rubric, content_hash, split FROM items WHERE id = ?", [item.id]
                ).fetchone()
                if row is None:
                    conn.execute(
                        "INSERT INTO items (id, rubric, task_type, fields, split, content_hash, position, source,"
                        " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [item.id, item.rubric, item.task_type, _dumps(item.fields), item.split, digest,
                         position, source, stamp],
                    )
                    position += 1
                    counts["added"] += 1
                    continue
                rubric, existing_hash, split = row
                if rubric != item.rubric:
                    raise ItemConflict(item.id, f"already exists under rubric {rubric!r}, not {item.rubric!r}")
                if existing_hash != digest:
                    raise ItemConflict(item.id, "already exists with different content")
                if item.split and item.split != split:
                    conn.execute("UPDATE items SET split = ? WHERE id = ?", [item.split, item.id])
                    counts["split_changed"] += 1
                else:
                    counts["unchanged"] += 1
        return counts

    @staticmethod
    def _item(row: Sequence[Any]) -> Item:
        id_, rubric, task_type, fields, split, position, digest = row
        return Item(id=id_, rubric=rubric, task_type=task_type, fields=json.loads(fields), split=split,
                    position=position, content_hash=digest)

    _ITEM_COLUMNS = "id, rubric, task_type, fields, split, position, content_hash"

    def item(self, item_id: str) -> Item | None:
        row = self.conn.execute(f"SELECT {self._ITEM_COLUMNS} FROM items WHERE id = ?", [item_id]).fetchone()
        return self._item(row) if row else None

    def existing_item_ids(self, ids: Iterable[str]) -> set[str]:
        """Which of these ids exist (checked in chunks, for validating large imports)."""
        ids = list(ids)
        found: set[str] = set()
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            found.update(r[0] for r in self.conn.execute(f"SELECT id FROM items WHERE id IN ({marks})", chunk))
        return found

    def item_rubrics(self, ids: Iterable[str]) -> dict[str, str]:
        ids = list(ids)
        out: dict[str, str] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            out.update(self.conn.execute(f"SELECT id, rubric FROM items WHERE id IN ({marks})", chunk).fetchall())
        return out

    def iter_items(self, rubric: str | None = None, split: str | None = None) -> Iterator[Item]:
        """Items in import order, streamed (never all held in memory)."""
        clauses, params = self._item_filter(rubric, split)
        cursor = self.conn.execute(
            f"SELECT {self._ITEM_COLUMNS} FROM items {clauses} ORDER BY position", params
        )
        for row in cursor:
            yield self._item(row)

    @staticmethod
    def _item_filter(rubric: str | None, split: str | None, prefix: str = "") -> tuple[str, list[Any]]:
        clauses, params = [], []
        if rubric:
            clauses.append(f"{prefix}rubric = ?")
            params.append(rubric)
        if split:
            clauses.append(f"{prefix}split = ?")
            params.append(split)
        return ("WHERE " + " AND ".join(clauses) if clauses else ""), params

    def count_items(self, rubric: str | None = None, split: str | None = None) -> int:
        clauses, params = self._item_filter(rubric, split)
        return int(self.scalar(f"SELECT COUNT(*) FROM items {clauses}", params))

    def rubrics_in_use(self) -> list[tuple[str, int]]:
        """(rubric id, item count), most items first."""
        return [tuple(r) for r in self.conn.execute(  # type: ignore[misc]
            "SELECT rubric, COUNT(*) FROM items GROUP BY rubric ORDER BY COUNT(*) DESC, rubric")]

    def item_at(self, rubric: str, position: int, direction: int, split: str | None = None) -> Item | None:
        """The item before (direction -1) or after (+1) a position, within a rubric (and split)."""
        op, order = (">", "ASC") if direction > 0 else ("<", "DESC")
        extra, params = ("AND split = ?", [split]) if split else ("", [])
        row = self.conn.execute(
            f"SELECT {self._ITEM_COLUMNS} FROM items WHERE rubric = ? AND position {op} ? {extra}"
            f" ORDER BY position {order} LIMIT 1",
            [rubric, position, *params],
        ).fetchone()
        return self._item(row) if row else None

    def next_unrated_item(
        self, rater_id: str, rubric: str, split: str | None = None, after_position: int = 0,
        include_skipped: bool = False,
    ) -> Item | None:
        """The first item (in import order, after a position, wrapping round) this rater has not submitted.

        Skipped items are passed over unless include_skipped is set.
        """
        extra, params = ("AND i.split = ?", [split]) if split else ("", [])
        skipped = "" if include_skipped else (
            "AND NOT EXISTS (SELECT 1 FROM drafts d WHERE d.item_id = i.id AND d.rater_id = ? AND d.skipped = 1)"
        )
        skip_params = [] if include_skipped else [rater_id]
        sql = (
            f"SELECT {', '.join('i.' + c.strip() for c in self._ITEM_COLUMNS.split(','))} FROM items i"
            f" WHERE i.rubric = ? AND i.position > ? {extra}"
            f" AND NOT EXISTS (SELECT 1 FROM ratings r WHERE r.item_id = i.id AND r.rater_id = ?) {skipped}"
            f" ORDER BY i.position LIMIT 1"
        )
        for start in (after_position, 0):
            row = self.conn.execute(sql, [rubric, start, *params, rater_id, *skip_params]).fetchone()
            if row:
                return self._item(row)
        return None

    def set_splits(self, splits: Mapping[str, str | None]) -> None:
        with self.transaction() as conn:
            conn.executemany("UPDATE items SET split = ? WHERE id = ?", [(s, i) for i, s in splits.items()])

    def mark_few_shot_used(self, item_ids: Iterable[str]) -> None:
        """Items shown to a judge as examples: a split must never move them out of train."""
        with self.transaction() as conn:
            conn.executemany("UPDATE items SET few_shot_used = 1 WHERE id = ?", [(i,) for i in item_ids])

    def few_shot_used_ids(self, rubric: str) -> set[str]:
        return {r[0] for r in self.conn.execute(
            "SELECT id FROM items WHERE rubric = ? AND few_shot_used = 1", [rubric])}

    # ------------------------------------------------------------------ raters

    def ensure_rater(
        self, rater_id: str, kind: str, *, model: str | None = None, prompt_version: str | None = None,
        display_name: str = "",
    ) -> None:
        """Create the rater if new; an existing rater of another kind is an error."""
        row = self.conn.execute("SELECT kind FROM raters WHERE id = ?", [rater_id]).fetchone()
        if row is not None:
            if row[0] != kind:
                raise ValueError(f"rater {rater_id!r} already exists as a {row[0]} rater, not {kind}")
            return
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO raters (id, kind, model, prompt_version, display_name, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                [rater_id, kind, model, prompt_version, display_name, now()],
            )

    def rater(self, rater_id: str) -> dict[str, Any] | None:
        rows = self.query("SELECT * FROM raters WHERE id = ?", [rater_id])
        return rows[0] if rows else None

    def raters(self, kind: str | None = None) -> list[dict[str, Any]]:
        if kind:
            return self.query("SELECT * FROM raters WHERE kind = ? ORDER BY id", [kind])
        return self.query("SELECT * FROM raters ORDER BY kind, id")

    # ------------------------------------------------------------------ ratings

    _RATING_COLUMNS = (
        "item_id, rater_id, rubric_version_id, repeat, scores, overall, verdict, notes, seconds, source,"
        " details, created_at, updated_at"
    )

    @staticmethod
    def _rating(row: Sequence[Any]) -> Rating:
        (item_id, rater_id, version, repeat, scores, overall, verdict, notes, seconds, source, details,
         created, updated) = row
        return Rating(item_id=item_id, rater_id=rater_id, rubric_version_id=version, repeat=repeat,
                      scores=json.loads(scores), overall=overall, verdict=verdict, notes=notes,
                      seconds=seconds, source=source, details=_loads(details, {}), created_at=created,
                      updated_at=updated)

    def save_rating(self, rating: Rating, *, clear_draft: bool = False) -> bool:
        """Insert or replace a rating (same item, rater, rubric version and repeat) and commit it.

        Returns True if anything changed. With clear_draft the item's draft goes in the same transaction.
        """
        with self.transaction() as conn:
            changed = self._upsert_rating(conn, rating)
            if clear_draft:
                # A flag outlives the submission; the rest of the draft is now in the rating.
                key = [rating.item_id, rating.rater_id]
                conn.execute("DELETE FROM drafts WHERE item_id = ? AND rater_id = ? AND flagged = 0", key)
                conn.execute("UPDATE drafts SET scores = '{}', notes = '', seconds = 0, skipped = 0"
                             " WHERE item_id = ? AND rater_id = ?", key)
        return changed

    def save_ratings(self, ratings: Iterable[Rating]) -> int:
        """Many ratings in one transaction (an import): all or nothing. Returns how many changed."""
        with self.transaction() as conn:
            return sum(self._upsert_rating(conn, r) for r in ratings)

    def _upsert_rating(self, conn: sqlite3.Connection, r: Rating) -> bool:
        key = [r.item_id, r.rater_id, r.rubric_version_id, r.repeat]
        values = [_dumps(r.scores), r.overall, r.verdict, r.notes, float(r.seconds), r.source, _dumps(r.details)]
        existing = conn.execute(
            "SELECT scores, overall, verdict, notes, seconds, source, details FROM ratings"
            " WHERE item_id = ? AND rater_id = ? AND rubric_version_id = ? AND repeat = ?", key
        ).fetchone()
        if existing is not None and list(existing) == values:
            return False
        stamp = now()
        if existing is None:
            conn.execute(
                f"INSERT INTO ratings ({self._RATING_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [*key, *values, r.created_at or stamp, stamp],
            )
        else:
            conn.execute(
                "UPDATE ratings SET scores = ?, overall = ?, verdict = ?, notes = ?, seconds = ?, source = ?,"
                " details = ?, updated_at = ? WHERE item_id = ? AND rater_id = ? AND rubric_version_id = ?"
                " AND repeat = ?",
                [*values, stamp, *key],
            )
        return True

    def rating(self, item_id: str, rater_id: str) -> Rating | None:
        """This rater's latest rating of an item (newest rubric version, first run)."""
        row = self.conn.execute(
            f"SELECT {self._RATING_COLUMNS} FROM ratings WHERE item_id = ? AND rater_id = ?"
            " ORDER BY repeat, rubric_version_id DESC LIMIT 1",
            [item_id, rater_id],
        ).fetchone()
        return self._rating(row) if row else None

    def ratings_for_item(self, item_id: str) -> list[Rating]:
        rows = self.conn.execute(
            f"SELECT {self._RATING_COLUMNS} FROM ratings WHERE item_id = ? ORDER BY rater_id, repeat", [item_id]
        ).fetchall()
        return [self._rating(r) for r in rows]

    def iter_ratings(
        self, rubric: str | None = None, rater_ids: Sequence[str] | None = None, kind: str | None = None,
        split: str | None = None,
    ) -> Iterator[Rating]:
        """Ratings in item order, streamed, optionally limited to a rubric, raters, a rater kind or a split."""
        clauses, params = [], []
        if rubric:
            clauses.append("i.rubric = ?")
            params.append(rubric)
        if split:
            clauses.append("i.split = ?")
            params.append(split)
        if rater_ids:
            clauses.append(f"r.rater_id IN ({','.join('?' * len(rater_ids))})")
            params.extend(rater_ids)
        if kind:
            clauses.append("r.rater_id IN (SELECT id FROM raters WHERE kind = ?)")
            params.append(kind)
        where = "WHERE " + " AND ".join(clauses) if clauses else ""
        columns = ", ".join("r." + c.strip() for c in self._RATING_COLUMNS.split(","))
        cursor = self.conn.execute(
            f"SELECT {columns} FROM ratings r JOIN items i ON i.id = r.item_id {where}"
            " ORDER BY i.position, r.rater_id, r.repeat", params
        )
        for row in cursor:
            yield self._rating(row)

    def count_ratings(self, rater_id: str | None = None, rubric: str | None = None) -> int:
        clauses, params = [], []
        if rater_id:
            clauses.append("r.rater_id = ?")
            params.append(rater_id)
        if rubric:
            clauses.append("i.rubric = ?")
            params.append(rubric)
        where = "WHERE " + " AND ".join(clauses) if clauses else ""
        return int(self.scalar(f"SELECT COUNT(*) FROM ratings r JOIN items i ON i.id = r.item_id {where}", params))

    def rated_item_ids(self, rater_id: str, rubric: str | None = None) -> set[str]:
        sql = "SELECT DISTINCT r.item_id FROM ratings r JOIN items i ON i.id = r.item_id WHERE r.rater_id = ?"
        params: list[Any] = [rater_id]
        if rubric:
            sql += " AND i.rubric = ?"
            params.append(rubric)
        return {row[0] for row in self.conn.execute(sql, params)}

    # ------------------------------------------------------------------ drafts (the rating screen's work)

    def save_draft(self, draft: Draft) -> None:
        """Commit the rating screen's current state of an item; called on every change."""
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO drafts (item_id, rater_id, scores, notes, seconds, skipped, flagged, flag_reason,"
                " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (item_id, rater_id) DO UPDATE SET scores = excluded.scores, notes = excluded.notes,"
                " seconds = excluded.seconds, skipped = excluded.skipped, flagged = excluded.flagged,"
                " flag_reason = excluded.flag_reason, updated_at = excluded.updated_at",
                [draft.item_id, draft.rater_id, _dumps(draft.scores), draft.notes, float(draft.seconds),
                 int(draft.skipped), int(draft.flagged), draft.flag_reason, now()],
            )

    def draft(self, item_id: str, rater_id: str) -> Draft | None:
        row = self.conn.execute(
            "SELECT scores, notes, seconds, skipped, flagged, flag_reason, updated_at FROM drafts"
            " WHERE item_id = ? AND rater_id = ?", [item_id, rater_id]
        ).fetchone()
        if row is None:
            return None
        scores, notes, seconds, skipped, flagged, reason, updated = row
        return Draft(item_id=item_id, rater_id=rater_id, scores=json.loads(scores), notes=notes,
                     seconds=seconds, skipped=bool(skipped), flagged=bool(flagged), flag_reason=reason,
                     updated_at=updated)

    def delete_draft(self, item_id: str, rater_id: str) -> None:
        with self.transaction() as conn:
            conn.execute("DELETE FROM drafts WHERE item_id = ? AND rater_id = ?", [item_id, rater_id])

    def latest_draft(self, rater_id: str, rubric: str | None = None) -> Draft | None:
        """The draft this rater touched last (where a resumed session reopens)."""
        # CROSS JOIN keeps drafts as the outer loop: this rater's few drafts, not every item of the rubric.
        sql = ("SELECT d.item_id FROM drafts d CROSS JOIN items i ON i.id = d.item_id WHERE d.rater_id = ?"
               " AND d.skipped = 0 AND d.scores != '{}'")
        params: list[Any] = [rater_id]
        if rubric:
            sql += " AND i.rubric = ?"
            params.append(rubric)
        row = self.conn.execute(sql + " ORDER BY d.updated_at DESC LIMIT 1", params).fetchone()
        return self.draft(row[0], rater_id) if row else None

    def progress(
        self, rater_id: str, rubric: str, split: str | None = None, *, total: int | None = None
    ) -> dict[str, int]:
        """Counts for the status line: rated, skipped, flagged, total (pass a known total to skip counting it).

        The CROSS JOINs make SQLite start from this rater's ratings and drafts rather than from every item of
        the rubric (200 ms at 100,000 items without them).
        """
        extra, params = ("AND i.split = ?", [split]) if split else ("", [])
        if total is None:
            total = int(self.scalar(f"SELECT COUNT(*) FROM items i WHERE i.rubric = ? {extra}", [rubric, *params]))
        rated = int(self.scalar(
            f"SELECT COUNT(DISTINCT r.item_id) FROM ratings r CROSS JOIN items i ON i.id = r.item_id"
            f" WHERE r.rater_id = ? AND i.rubric = ? {extra}", [rater_id, rubric, *params]))
        skipped, flagged = self.conn.execute(
            f"SELECT COALESCE(SUM(d.skipped), 0), COALESCE(SUM(d.flagged), 0) FROM drafts d"
            f" CROSS JOIN items i ON i.id = d.item_id WHERE d.rater_id = ? AND i.rubric = ? {extra}",
            [rater_id, rubric, *params],
        ).fetchone()
        return {"rated": rated, "skipped": int(skipped), "flagged": int(flagged), "total": total}


class ItemConflict(Exception):
    def __init__(self, item_id: str, problem: str) -> None:
        super().__init__(f"item {item_id!r} {problem}")
        self.item_id = item_id
        self.problem = problem
