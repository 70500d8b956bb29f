"""Flags: items a rater raised for discussion, with an optional reason.

A flag lives where the rater's work on the item lives: on their rating once they submitted one (their current
rating counts: the view current_ratings), otherwise on their draft (an item skipped or not yet rated).
"""

from __future__ import annotations

from judge_tui.model.records import Draft, Flag
from judge_tui.store.common import where
from judge_tui.store.core import StoreCore

# A draft (alias d) whose rater holds no rating of its item: no first run under any version, so no current
# rating. Written on the ratings table rather than the view current_ratings because merges read it in databases
# an older judge-tui made, from before the view.
UNRATED = ("NOT EXISTS (SELECT 1 FROM ratings o WHERE o.item_id = d.item_id AND o.rater_id = d.rater_id"
           " AND o.repeat = 0)")
# A draft that only marks its item: skipped or flagged, and not rated.
SET_ASIDE = f"(d.skipped = 1 OR d.flagged = 1) AND {UNRATED}"

# One row per (item, rater): the flag of the rater's current rating, else of their draft if unrated.
_FLAGS = f"""
    SELECT r.item_id, r.rater_id, r.flag_reason, 'rated' AS state, r.updated_at
      FROM current_ratings r
     WHERE r.flagged = 1
    UNION ALL
    SELECT d.item_id, d.rater_id, d.flag_reason, CASE WHEN d.skipped THEN 'skipped' ELSE 'unrated' END, d.updated_at
      FROM drafts d
     WHERE d.flagged = 1 AND {UNRATED}
"""


class FlagQueries(StoreCore):
    # ------------------------------------------------------------------ flags

    def flags(self, rubric: str | None = None, rater_id: str | None = None, split: str | None = None,
              plan: str | None = None) -> list[Flag]:
        """Every flag (optionally of one rubric, rater or split, or of items assigned to the rater in a plan),
        in item order, then by rater."""
        clause, params = where(
            ("i.rubric = ?", rubric), ("f.rater_id = ?", rater_id), ("i.split = ?", split),
            ("f.item_id IN (SELECT item_id FROM assignments a WHERE a.plan_id = ? AND a.rater_id = f.rater_id)",
             plan))
        rows = self.conn.execute(
            f"SELECT f.item_id, f.rater_id, f.flag_reason, f.state, f.updated_at, i.rubric, i.task_type, i.split"
            f" FROM ({_FLAGS}) f JOIN items i ON i.id = f.item_id {clause} ORDER BY i.position, f.rater_id", params
        )
        return [Flag(*row) for row in rows]

    def count_flagged(self, rater_id: str, rubric: str, split: str | None = None, plan: str | None = None) -> int:
        return len(self.flags(rubric, rater_id, split, plan))


    def set_aside(self, rubric: str | None = None, rater_id: str | None = None) -> list[Draft]:
        """Items skipped or flagged without a rating, as drafts holding only those marks, in item order."""
        clause, params = where(("i.rubric = ?", rubric), ("d.rater_id = ?", rater_id))
        clause = (clause + " AND " if clause else "WHERE ") + SET_ASIDE
        rows = self.conn.execute(
            "SELECT d.item_id, d.rater_id, d.skipped, d.flagged, d.flag_reason, d.updated_at FROM drafts d"
            f" JOIN items i ON i.id = d.item_id {clause} ORDER BY i.position, d.rater_id", params
        )
        return [Draft(item_id, rater, skipped=bool(skipped), flagged=bool(flagged), flag_reason=reason,
                      updated_at=updated) for item_id, rater, skipped, flagged, reason, updated in rows]
