"""Raters and their ratings."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from judge_tui.model.judge_backends import JUDGED_BY
from judge_tui.model.records import Rating
from judge_tui.store.common import _dumps, _loads, now, where
from judge_tui.store.core import StoreCore
from judge_tui.store.queue_orders import record_draw

# A draft holding nothing but a skip or flag mark, of an item the rater has now rated: the mark has done its job.
DROP_MARK_OF_RATED = "DELETE FROM drafts WHERE item_id = ? AND rater_id = ? AND scores = '{}' AND notes = ''"


class RaterQueries(StoreCore):
    # ------------------------------------------------------------------ raters

    def ensure_rater(
        self, rater_id: str, kind: str, *, model: str | None = None, prompt_version: str | None = None,
        display_name: str = "",
    ) -> None:
        """Create the rater if new; an existing rater of another kind is an error.

        A display name fills in an existing rater's empty one (a rating form naming its expert), never replaces it.
        """
        row = self.conn.execute("SELECT kind FROM raters WHERE id = ?", [rater_id]).fetchone()
        if row is None:
            # Another process may create the same rater between the look-up and here: DO NOTHING, then read.
            with self.transaction() as conn:
                conn.execute(
                    "INSERT INTO raters (id, kind, model, prompt_version, display_name, created_at)"
                    " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
                    [rater_id, kind, model, prompt_version, display_name, now()],
                )
                row = conn.execute("SELECT kind FROM raters WHERE id = ?", [rater_id]).fetchone()
        if row[0] != kind:
            raise ValueError(f"rater {rater_id!r} already exists as a {row[0]} rater, not {kind}")
        if display_name:
            with self.transaction() as conn:
                conn.execute("UPDATE raters SET display_name = ? WHERE id = ? AND display_name = ''",
                             [display_name, rater_id])

    def rater(self, rater_id: str) -> dict[str, Any] | None:
        rows = self.query("SELECT * FROM raters WHERE id = ?", [rater_id])
        return rows[0] if rows else None

    def raters(self, kind: str | None = None) -> list[dict[str, Any]]:
        if kind:
            return self.query("SELECT * FROM raters WHERE kind = ? ORDER BY id", [kind])
        return self.query("SELECT * FROM raters ORDER BY kind, id")

    def rater_kinds(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT id, kind FROM raters").fetchall())

    def judge_backend(self, rater_id: str) -> str | None:
        """The backend that made the judge rater's newest judgment (its rating's source); None when no rating
        of it was judged by judge-tui (imported ones)."""
        row = self.conn.execute(
            "SELECT substr(source, ?) FROM ratings WHERE rater_id = ? AND substr(source, 1, ?) = ?"
            " ORDER BY created_at DESC LIMIT 1",
            [len(JUDGED_BY) + 1, rater_id, len(JUDGED_BY), JUDGED_BY]).fetchone()
        return str(row[0]) if row else None


class RatingQueries(StoreCore):
    # ------------------------------------------------------------------ ratings

    _RATING_COLUMNS = (
        "item_id, rater_id, rubric_version_id, repeat, scores, overall, verdict, notes, seconds, source,"
        " details, created_at, updated_at, flagged, flag_reason"
    )

    @staticmethod
    def _rating(row: Sequence[Any]) -> Rating:
        (item_id, rater_id, version, repeat, scores, overall, verdict, notes, seconds, source, details,
         created, updated, flagged, flag_reason) = row
        return Rating(item_id=item_id, rater_id=rater_id, rubric_version_id=version, repeat=repeat,
                      scores=json.loads(scores), overall=overall, verdict=verdict, notes=notes,
                      seconds=seconds, source=source, details=_loads(details, {}), created_at=created,
                      updated_at=updated, flagged=bool(flagged), flag_reason=flag_reason)

    def save_rating(self, rating: Rating, *, clear_draft: bool = False) -> bool:
        """Insert or replace a rating (same item, rater, rubric version and repeat) and commit it.

        Returns True if anything changed. With clear_draft the item's draft goes in the same transaction
        (its flag, too, is now the rating's). A first rating records how its item was drawn (rating_draws).
        """
        with self.transaction() as conn:
            changed = self._upsert_rating(conn, rating)
            if not rating.repeat:
                record_draw(conn, rating.item_id, rating.rater_id)
            if clear_draft:
                conn.execute("DELETE FROM drafts WHERE item_id = ? AND rater_id = ?", [rating.item_id, rating.rater_id])
        return changed

    def save_ratings(self, ratings: Iterable[Rating]) -> int:
        """Many ratings in one transaction (an import): all or nothing. Returns how many changed.

        A draft that only marked a newly rated item (skipped or flagged, no scores or notes) goes: the item is
        rated now, as when it is submitted on the rating screen. A draft holding unsubmitted work stays.
        """
        with self.transaction() as conn:
            changed = 0
            for r in ratings:
                changed += self._upsert_rating(conn, r)
                if not r.repeat:
                    conn.execute(DROP_MARK_OF_RATED, [r.item_id, r.rater_id])
            return changed

    def drop_marks_of_rated(self, pairs: Iterable[tuple[str, str]]) -> None:
        """(item, rater) pairs now rated (a merge): a draft that only marked the item skipped or flagged goes,
        as when the rating is submitted on the rating screen or imported."""
        with self.transaction() as conn:
            conn.executemany(DROP_MARK_OF_RATED, pairs)

    def _upsert_rating(self, conn: sqlite3.Connection, r: Rating) -> bool:
        key = [r.item_id, r.rater_id, r.rubric_version_id, r.repeat]
        seconds = None if r.seconds is None else float(r.seconds)
        values = [_dumps(r.scores), r.overall, r.verdict, r.notes, seconds, _dumps(r.details), int(r.flagged),
                  r.flag_reason if r.flagged else ""]
        existing = conn.execute(
            "SELECT scores, overall, verdict, notes, seconds, details, flagged, flag_reason FROM ratings"
            " WHERE item_id = ? AND rater_id = ? AND rubric_version_id = ? AND repeat = ?", key
        ).fetchone()
        # The source says where a rating came from, not what it is: the same rating read from another file
        # (an export of it, say) is unchanged and keeps its first source.
        if existing is not None and list(existing) == values:
            return False
        stamp = now()
        if existing is None:
            conn.execute(
                "INSERT INTO ratings (item_id, rater_id, rubric_version_id, repeat, scores, overall, verdict, notes,"
                " seconds, details, flagged, flag_reason, source, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [*key, *values, r.source, r.created_at or stamp, stamp],
            )
        else:
            conn.execute(
                "UPDATE ratings SET scores = ?, overall = ?, verdict = ?, notes = ?, seconds = ?, details = ?,"
                " flagged = ?, flag_reason = ?, source = ?, updated_at = ? WHERE item_id = ? AND rater_id = ?"
                " AND rubric_version_id = ? AND repeat = ?",
                [*values, r.source, stamp, *key],
            )
        return True

    def rating(self, item_id: str, rater_id: str) -> Rating | None:
        """This rater's current rating of an item (the view current_ratings: first run, newest rubric version)."""
        row = self.conn.execute(
            f"SELECT {self._RATING_COLUMNS} FROM current_ratings WHERE item_id = ? AND rater_id = ?",
            [item_id, rater_id],
        ).fetchone()
        return self._rating(row) if row else None

    def ratings_for_item(self, item_id: str, *, current: bool = False) -> list[Rating]:
        """Every rating of an item (every version and repeat), or with current only each rater's current one."""
        rows = self.conn.execute(
            f"SELECT {self._RATING_COLUMNS} FROM {'current_ratings' if current else 'ratings'} WHERE item_id = ?"
            " ORDER BY rater_id, repeat", [item_id]
        ).fetchall()
        return [self._rating(r) for r in rows]

    def iter_ratings(
        self, rubric: str | None = None, rater_ids: Sequence[str] | None = None, kind: str | None = None,
        split: str | None = None, *, current: bool = False,
    ) -> Iterator[Rating]:
        """Ratings in item order, streamed, optionally limited to a rubric, raters, a rater kind or a split.

        current: only each rater's current rating of each item (the view current_ratings), not every version
        and repeat.
        """
        clause, params = where(
            ("i.rubric = ?", rubric), ("i.split = ?", split),
            (f"r.rater_id IN ({','.join('?' * len(rater_ids or ()))})", list(rater_ids or ())),
            ("r.rater_id IN (SELECT id FROM raters WHERE kind = ?)", kind),
        )
        columns = ", ".join("r." + c.strip() for c in self._RATING_COLUMNS.split(","))
        cursor = self.conn.execute(
            f"SELECT {columns} FROM {'current_ratings' if current else 'ratings'} r JOIN items i ON i.id = r.item_id"
            f" {clause} ORDER BY i.position, r.rater_id, r.repeat", params
        )
        for row in cursor:
            yield self._rating(row)

    def first_run_notes(self, rubric: str, split: str | None = None) -> dict[tuple[str, str], str]:
        """(rater id, item id) -> the note of the rater's current rating of the item."""
        clause, params = where(("i.rubric = ?", rubric), ("i.split = ?", split))
        return {(rater, item): notes for rater, item, notes in self.conn.execute(
            f"SELECT r.rater_id, r.item_id, r.notes FROM current_ratings r JOIN items i ON i.id = r.item_id {clause}",
            params)}

    def count_ratings(self, rater_id: str | None = None, rubric: str | None = None) -> int:
        clause, params = where(("r.rater_id = ?", rater_id), ("i.rubric = ?", rubric))
        return int(self.scalar(f"SELECT COUNT(*) FROM ratings r JOIN items i ON i.id = r.item_id {clause}", params))

    def has_rated(self, item_id: str, rater_id: str) -> bool:
        """Whether the rater has any rating of the item (a first run or a re-rating, any rubric version)."""
        return self.conn.execute("SELECT 1 FROM ratings WHERE rater_id = ? AND item_id = ? LIMIT 1",
                                 [rater_id, item_id]).fetchone() is not None

    def rated_item_ids(self, rater_id: str, rubric: str | None = None) -> set[str]:
        sql = "SELECT DISTINCT r.item_id FROM ratings r JOIN items i ON i.id = r.item_id WHERE r.rater_id = ?"
        params: list[Any] = [rater_id]
        if rubric:
            sql += " AND i.rubric = ?"
            params.append(rubric)
        return {row[0] for row in self.conn.execute(sql, params)}
