"""Drafts: the rating screen's unsaved work on an item, committed on every change."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from judge_tui.model.records import Draft
from judge_tui.store.common import _dumps, now
from judge_tui.store.flags import FlagQueries


class DraftQueries(FlagQueries):
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

    def save_marks(self, marks: Iterable[Draft]) -> tuple[int, int]:
        """Skip and flag marks of items without a rating (an import), in one transaction: a new draft holds only
        the mark; an existing draft keeps its scores, notes and time. Returns how many were added and updated."""
        added = updated = 0
        with self.transaction() as conn:
            for mark in marks:
                held = self.draft(mark.item_id, mark.rater_id)
                if held is None:
                    conn.execute("INSERT INTO drafts (item_id, rater_id, scores, notes, seconds, skipped, flagged,"
                                 " flag_reason, updated_at) VALUES (?, ?, '{}', '', 0, ?, ?, ?, ?)",
                                 [mark.item_id, mark.rater_id, int(mark.skipped), int(mark.flagged),
                                  mark.flag_reason, now()])
                    added += 1
                elif (held.skipped, held.flagged, held.flag_reason) != (mark.skipped, mark.flagged, mark.flag_reason):
                    conn.execute("UPDATE drafts SET skipped = ?, flagged = ?, flag_reason = ?, updated_at = ?"
                                 " WHERE item_id = ? AND rater_id = ?",
                                 [int(mark.skipped), int(mark.flagged), mark.flag_reason, now(), mark.item_id,
                                  mark.rater_id])
                    updated += 1
        return added, updated

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
        self, rater_id: str, rubric: str, split: str | None = None, *, total: int | None = None,
        plan: str | None = None,
    ) -> dict[str, int]:
        """Counts for the status line: rated, skipped, flagged, total (pass a known total to skip counting it).

        With a plan id, of the rater's assigned items only. The CROSS JOINs make SQLite start from this
        rater's ratings and drafts rather than from every item of the rubric (200 ms at 100,000 items without
        them).
        """
        extra, params = ("AND i.split = ?", [split]) if split else ("", [])
        if plan is not None:
            extra += " AND i.id IN (SELECT item_id FROM assignments WHERE plan_id = ? AND rater_id = ?)"
            params = [*params, plan, rater_id]
        if total is None:
            total = int(self.scalar(f"SELECT COUNT(*) FROM items i WHERE i.rubric = ? {extra}", [rubric, *params]))
        rated = int(self.scalar(
            f"SELECT COUNT(DISTINCT r.item_id) FROM ratings r CROSS JOIN items i ON i.id = r.item_id"
            f" WHERE r.rater_id = ? AND i.rubric = ? {extra}", [rater_id, rubric, *params]))
        skipped = self.scalar(
            f"SELECT COALESCE(SUM(d.skipped), 0) FROM drafts d"
            f" CROSS JOIN items i ON i.id = d.item_id WHERE d.rater_id = ? AND i.rubric = ? {extra}",
            [rater_id, rubric, *params],
        )
        flagged = self.count_flagged(rater_id, rubric, split, plan=plan)  # on ratings and on drafts
        return {"rated": rated, "skipped": int(skipped), "flagged": flagged, "total": total}
