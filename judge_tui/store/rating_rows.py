"""Several raters side by side (team agreement) and one rater against themself (drift)."""

from __future__ import annotations

import json
from typing import Any

from judge_tui.store.common import _loads, where
from judge_tui.store.core import StoreCore
from judge_tui.store.items import ItemQueries


class TeamQueries(ItemQueries):
    # ------------------------------------------------------------------ team (several raters side by side)

    def rating_rows(self, rubric: str, *, repeat: int | None = 0, split: str | None = None) -> list[dict[str, Any]]:
        """Ratings of a rubric's items with their rater's kind, newest rubric version last per item and rater.

        Rows: item_id, rater_id, kind, rubric_version_id, repeat, scores (dict), notes, details (dict),
        created_at. repeat=None returns every repeat.
        """
        clause, params = where(
            ("i.rubric = ?", rubric), ("r.repeat = ?", repeat), ("i.split = ?", split))
        rows = self.query(
            "SELECT r.item_id, r.rater_id, t.kind, r.rubric_version_id, r.repeat, r.scores, r.notes, r.details,"
            " r.created_at FROM ratings r JOIN items i ON i.id = r.item_id JOIN raters t ON t.id = r.rater_id"
            f" {clause} ORDER BY i.position, r.rater_id, r.rubric_version_id, r.repeat",
            params,
        )
        for row in rows:
            row["scores"] = json.loads(row["scores"])
            row["details"] = _loads(row["details"], {})
        return rows

    def first_run_notes(self, rubric: str, split: str | None = None) -> dict[tuple[str, str], str]:
        """(rater id, item id) -> the note of the rater's first run under the newest rubric version they used."""
        clause, params = where(("i.rubric = ?", rubric), ("r.repeat = ?", 0), ("i.split = ?", split))
        rows = self.conn.execute(
            f"SELECT r.rater_id, r.item_id, r.notes FROM ratings r JOIN items i ON i.id = r.item_id {clause}"
            " ORDER BY r.rubric_version_id", params)
        return {(rater, item): notes for rater, item, notes in rows}  # the newest version comes last and wins

    def has_human_rerating(self, rubric: str) -> bool:
        """Whether any human rated an item of this rubric twice (a drift re-check): ~40 ms at 200k ratings,
        where loading every rating to find out takes seconds."""
        return self.conn.execute(
            "SELECT 1 FROM raters t WHERE t.kind = 'human' AND EXISTS (SELECT 1 FROM ratings r"
            " JOIN items i ON i.id = r.item_id WHERE r.rater_id = t.id AND r.repeat > 0 AND i.rubric = ?) LIMIT 1",
            [rubric],
        ).fetchone() is not None

    def item_ids_in_order(self, rubric: str, split: str | None = None) -> list[str]:
        clauses, params = self._item_filter(rubric, split)
        return [r[0] for r in self.conn.execute(f"SELECT id FROM items {clauses} ORDER BY position", params)]

    def rater_kinds(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT id, kind FROM raters").fetchall())


class DriftQueries(StoreCore):
    # ------------------------------------------------------------------ drift (re-rating for self-agreement)

    def drift_candidates(self, rater_id: str, rubric: str) -> list[tuple[str, int]]:
        """(item id, rubric version id) this rater has rated once (repeat 0) and not yet re-rated, oldest first."""
        return [tuple(r) for r in self.conn.execute(
            "SELECT r.item_id, r.rubric_version_id FROM ratings r JOIN items i ON i.id = r.item_id"
            " WHERE r.rater_id = ? AND i.rubric = ? AND r.repeat = 0 AND NOT EXISTS (SELECT 1 FROM ratings x"
            " WHERE x.item_id = r.item_id AND x.rater_id = r.rater_id AND x.repeat > 0)"
            " ORDER BY r.created_at, r.item_id", [rater_id, rubric])]
