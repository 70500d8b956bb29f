"""Items: importing them, reading them in import order, and finding the next one to rate (in import order, an
assignment's queue or a stored queue order)."""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from judge_tui.model.records import Item, canonical_json, hash_of_canonical
from judge_tui.store.common import ItemConflict, now, where
from judge_tui.store.core import StoreCore

ITEM_CHUNK = 2000  # items written at once by add_items


class ItemQueries(StoreCore):
    # ------------------------------------------------------------------ items

    def _next_position(self) -> int:
        return int(self.scalar("SELECT COALESCE(MAX(position), 0) + 1 FROM items"))

    def add_items(self, items: Iterable[Item], source: str = "") -> dict[str, int]:
        """Insert new items in one transaction; an existing id with the same content is left alone.

        Written ITEM_CHUNK items at a time, each chunk's rows let go once sent: from a generator, a large
        import's values are in memory once, not a second time as rows. Returns counts {"added", "unchanged",
        "split_changed"}. Raises ItemConflict (nothing written) if an id already exists under another rubric or
        with different content.
        """
        counts = {"added": 0, "unchanged": 0, "split_changed": 0}
        pending = iter(items)
        with self.transaction() as conn:
            # Looked up once: MAX(position) reads every item's index entry (5 ms at 100k items), which chunk
            # after chunk grew with the square of the file.
            position = self._next_position()
            stamp = now()
            while chunk := list(itertools.islice(pending, ITEM_CHUNK)):
                position = self._add_chunk(conn, chunk, source, stamp, position, counts)
        return counts

    def _add_chunk(self, conn: sqlite3.Connection, items: list[Item], source: str, stamp: str, position: int,
                   counts: dict[str, int]) -> int:
        """add_items for one chunk (an earlier chunk's items are in the database by now); the next position."""
        # One lookup per 500 ids and one executemany per kind of write: a 100k-item import takes seconds.
        known: dict[str, tuple[str, str, str | None]] = {
            id_: (rubric, digest, split) for id_, rubric, digest, split in self.rows_for_ids(
                "SELECT id, rubric, content_hash, split FROM items WHERE id IN ({ids})", (i.id for i in items))
        }
        inserts: list[list[Any]] = []
        split_updates: list[tuple[str, str]] = []
        for item in items:
            # Serialised once: the stored text is the canonical form the content hash is made from.
            text = canonical_json(item.fields)
            digest = item.content_hash or hash_of_canonical(text)
            row = known.get(item.id)
            if row is None:
                inserts.append([item.id, item.rubric, item.task_type, text, item.split, int(bool(item.split)),
                                digest, position, source, stamp])
                known[item.id] = (item.rubric, digest, item.split)
                position += 1
                counts["added"] += 1
                continue
            rubric, existing_hash, split = row
            if rubric != item.rubric:
                raise ItemConflict(item.id, f"already exists under rubric {rubric!r}, not {item.rubric!r}")
            if existing_hash != digest:
                raise ItemConflict(item.id, "already exists with different content")
            if item.split and item.split != split:
                split_updates.append((item.split, item.id))
                known[item.id] = (rubric, existing_hash, item.split)
                counts["split_changed"] += 1
            else:
                counts["unchanged"] += 1
        conn.executemany(
            "INSERT INTO items (id, rubric, task_type, fields, split, split_from_import, content_hash, position,"
            " source, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", inserts)
        conn.executemany("UPDATE items SET split = ?, split_from_import = 1 WHERE id = ?", split_updates)
        return position

    @staticmethod
    def _item(row: Sequence[Any]) -> Item:
        id_, rubric, task_type, fields, split, position, digest = row
        return Item(id=id_, rubric=rubric, task_type=task_type, fields=json.loads(fields), split=split,
                    position=position, content_hash=digest)

    _ITEM_COLUMNS = "id, rubric, task_type, fields, split, position, content_hash"

    def item(self, item_id: str) -> Item | None:
        row = self.conn.execute(f"SELECT {self._ITEM_COLUMNS} FROM items WHERE id = ?", [item_id]).fetchone()
        return self._item(row) if row else None

    def item_rubrics(self, ids: Iterable[str]) -> dict[str, str]:
        """{id: rubric} for those of these ids that exist."""
        return dict(self.rows_for_ids("SELECT id, rubric FROM items WHERE id IN ({ids})", ids))

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
        return where((f"{prefix}rubric = ?", rubric), (f"{prefix}split = ?", split))

    def item_ids_in_order(self, rubric: str, split: str | None = None) -> list[str]:
        clauses, params = self._item_filter(rubric, split)
        return [r[0] for r in self.conn.execute(f"SELECT id FROM items {clauses} ORDER BY position", params)]

    def count_items(self, rubric: str | None = None, split: str | None = None) -> int:
        clauses, params = self._item_filter(rubric, split)
        return int(self.scalar(f"SELECT COUNT(*) FROM items {clauses}", params))

    def item_column_present(self, rubric: str, column: str) -> bool:
        """Whether any item of the rubric has a task type or a split (column: "task_type" or "split")."""
        if column not in ("task_type", "split"):
            raise ValueError(f"{column!r} is not an optional item column")
        return self.scalar(f"SELECT 1 FROM items WHERE rubric = ? AND {column} IS NOT NULL AND {column} != ''"
                           " LIMIT 1", [rubric]) is not None

    def has_items(self, rubric: str | None = None, split: str | None = None) -> bool:
        """Whether any item matches; stops at the first (counting 100,000 items takes ~3 ms)."""
        clauses, params = self._item_filter(rubric, split)
        return bool(self.scalar(f"SELECT EXISTS (SELECT 1 FROM items {clauses})", params))

    def rubric_ids(self) -> list[str]:
        """The rubrics that have items, by id: one index probe per rubric, however many items each has."""
        ids: list[str] = []
        row = self.conn.execute("SELECT min(rubric) FROM items").fetchone()
        while row[0] is not None:
            ids.append(row[0])
            row = self.conn.execute("SELECT min(rubric) FROM items WHERE rubric > ?", [row[0]]).fetchone()
        return ids

    def rubrics_in_use(self) -> list[tuple[str, int]]:
        """(rubric id, item count), most items first."""
        return [tuple(r) for r in self.conn.execute(
            "SELECT rubric, COUNT(*) FROM items GROUP BY rubric ORDER BY COUNT(*) DESC, rubric")]

    def item_at(self, rubric: str, position: int, direction: int, split: str | None = None,
                plan: tuple[str, str] | None = None, ordered_for: str | None = None) -> Item | None:
        """The item before (direction -1) or after (+1) a position, within a rubric (and split).

        With a plan (plan id, rater): within that rater's assigned items, `position` being a queue position.
        With ordered_for (a rater): in that rater's stored queue order, `position` being a place in it.
        """
        op, order = (">", "ASC") if direction > 0 else ("<", "DESC")
        source, condition, place, params = self._queue(rubric, plan, ordered_for)
        extra, split_params = ("AND i.split = ?", [split]) if split else ("", [])
        columns = ", ".join(f"i.{c.strip()}" for c in self._ITEM_COLUMNS.split(","))
        row = self.conn.execute(
            f"SELECT {columns} FROM {source} WHERE {condition} AND {place} {op} ? {extra}"
            f" ORDER BY {place} {order} LIMIT 1",
            [*params, position, *split_params],
        ).fetchone()
        return self._item(row) if row else None

    @staticmethod
    def _queue(rubric: str, plan: tuple[str, str] | None,
               ordered_for: str | None = None) -> tuple[str, str, str, list[Any]]:
        """(FROM, WHERE, ordering column, parameters) of a rubric's items (alias i) in import order, of a
        rater's queue in a plan (plan id, rater), or in a rater's stored queue order (random or balanced)."""
        if plan is None and ordered_for is not None:
            return ("queue_entries q CROSS JOIN items i ON i.id = q.item_id", "q.rater_id = ? AND q.rubric = ?",
                    "q.position", [ordered_for, rubric])
        if plan is None:
            return "items i", "i.rubric = ?", "i.position", [rubric]
        # The rater's few assigned rows drive the loop, not every item of the rubric.
        return ("assignments a CROSS JOIN items i ON i.id = a.item_id", "a.plan_id = ? AND a.rater_id = ?",
                "a.position", list(plan))

    def next_unrated_item(
        self, rater_id: str, rubric: str, split: str | None = None, after_position: int = 0,
        include_skipped: bool = False, plan: str | None = None, ordered: bool = False,
    ) -> Item | None:
        """The first item (in import order, after a position, wrapping round) this rater has not submitted.

        Skipped items are passed over unless include_skipped is set. With a plan id: the rater's assigned
        items in their queue's order, after_position being a queue position. With ordered (and no plan): in
        the rater's stored queue order, after_position being a place in it.
        """
        extra, params = ("AND i.split = ?", [split]) if split else ("", [])
        skipped, skip_params = "", []
        if not include_skipped and self.conn.execute(
                "SELECT 1 FROM drafts WHERE rater_id = ? AND skipped = 1 LIMIT 1", [rater_id]).fetchone():
            skipped = "AND i.id NOT IN (SELECT item_id FROM drafts WHERE rater_id = ? AND skipped = 1)"
            skip_params = [rater_id]
        source, condition, place, source_params = self._queue(
            rubric, None if plan is None else (plan, rater_id), rater_id if ordered else None)
        # An anti-join over the covering index items_next_unrated: with 90% of 100k items rated this is the
        # difference between ~30 ms and ~75 ms on a fresh start.
        sql = (
            f"SELECT i.id FROM {source} LEFT JOIN ratings r ON r.item_id = i.id AND r.rater_id = ?"
            f" WHERE {condition} AND {place} > ? {extra} AND r.item_id IS NULL {skipped}"
            f" ORDER BY {place} LIMIT 1"
        )
        for start in (after_position, 0):
            row = self.conn.execute(sql, [rater_id, *source_params, start, *params, *skip_params]).fetchone()
            if row:
                return self.item(row[0])
        return None

    def set_splits(self, splits: Mapping[str, str | None]) -> None:
        """Splits assigned by `judge-tui split` (a later split may move them, unlike splits set at import)."""
        with self.transaction() as conn:
            conn.executemany("UPDATE items SET split = ?, split_from_import = 0 WHERE id = ?",
                             [(s, i) for i, s in splits.items()])

    def current_splits(self, rubric: str) -> dict[str, str]:
        """{item id: split} of the rubric's items that have one."""
        return dict(self.conn.execute("SELECT id, split FROM items WHERE rubric = ? AND split IS NOT NULL", [rubric]))

    def splits_from_import(self, rubric: str) -> dict[str, str]:
        """{item id: split} of the rubric's items whose split was set when they were imported."""
        return dict(self.conn.execute(
            "SELECT id, split FROM items WHERE rubric = ? AND split_from_import = 1 AND split IS NOT NULL", [rubric]))

    def mark_few_shot_used(self, item_ids: Iterable[str]) -> None:
        """Items shown to a judge as examples: a split must never move them out of train."""
        with self.transaction() as conn:
            conn.executemany("UPDATE items SET few_shot_used = 1 WHERE id = ?", [(i,) for i in item_ids])

    def few_shot_used_ids(self, rubric: str) -> set[str]:
        return {r[0] for r in self.conn.execute(
            "SELECT id FROM items WHERE rubric = ? AND few_shot_used = 1", [rubric])}
