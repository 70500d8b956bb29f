"""One rater against themself (drift): the items a rater may re-rate blind, and whether anyone has."""

from __future__ import annotations

from judge_tui.store.core import StoreCore


class DriftQueries(StoreCore):
    # ------------------------------------------------------------------ drift (re-rating for self-agreement)

    def drift_candidates(self, rater_id: str, rubric: str) -> list[tuple[str, int]]:
        """(item id, rubric version id) of this rater's current ratings not yet re-rated, oldest first."""
        return [tuple(r) for r in self.conn.execute(
            "SELECT r.item_id, r.rubric_version_id FROM current_ratings r JOIN items i ON i.id = r.item_id"
            " WHERE r.rater_id = ? AND i.rubric = ? AND NOT EXISTS (SELECT 1 FROM ratings x"
            " WHERE x.item_id = r.item_id AND x.rater_id = r.rater_id AND x.repeat > 0)"
            " ORDER BY r.created_at, r.item_id", [rater_id, rubric])]

    def has_human_rerating(self, rubric: str) -> bool:
        """Whether any human rated an item of this rubric twice (a drift re-check): ~40 ms at 200k ratings,
        where loading every rating to find out takes seconds."""
        return self.conn.execute(
            "SELECT 1 FROM raters t WHERE t.kind = 'human' AND EXISTS (SELECT 1 FROM ratings r"
            " JOIN items i ON i.id = r.item_id WHERE r.rater_id = t.id AND r.repeat > 0 AND i.rubric = ?) LIMIT 1",
            [rubric],
        ).fetchone() is not None
