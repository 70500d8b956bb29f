"""What `judge-tui status` reads: each expert's work and the judge queue, per rubric."""

from __future__ import annotations

from typing import Any

from judge_tui.store.core import StoreCore


class StatusQueries(StoreCore):
    # ------------------------------------------------------------------ status (the lead's overview)

    def active_experts(self, rubric: str) -> list[dict[str, Any]]:
        """Human raters who rated, skipped or flagged an item of this rubric: id and display name."""
        return self.query(
            "SELECT t.id, t.display_name FROM raters t WHERE t.kind = 'human' AND ("
            " EXISTS (SELECT 1 FROM ratings r JOIN items i ON i.id = r.item_id WHERE r.rater_id = t.id"
            " AND i.rubric = ?) OR EXISTS (SELECT 1 FROM drafts d JOIN items i ON i.id = d.item_id"
            " WHERE d.rater_id = t.id AND i.rubric = ? AND (d.skipped = 1 OR d.flagged = 1)))"
            " ORDER BY t.id", [rubric, rubric])

    def current_ratings(self, rubric: str, rater_id: str) -> list[tuple[str, str | None, float | None]]:
        """(item id, task type, seconds) of the rater's current rating of each item (seconds may be None)."""
        return self.conn.execute(
            "SELECT r.item_id, i.task_type, r.seconds FROM current_ratings r JOIN items i ON i.id = r.item_id"
            " WHERE r.rater_id = ? AND i.rubric = ? ORDER BY i.position", [rater_id, rubric]).fetchall()

    def first_run_time(self, rubric: str, rater_id: str) -> tuple[int, float]:
        """(first runs with a known time, their seconds in all) of the rater's ratings of this rubric's items,
        every rubric version."""
        count, total = self.conn.execute(
            # A rating's rubric version is one of its item's rubric: no join with the items.
            "SELECT COUNT(r.seconds), COALESCE(SUM(r.seconds), 0) FROM ratings r WHERE r.rater_id = ? AND r.repeat = 0"
            " AND r.rubric_version_id IN (SELECT id FROM rubric_versions WHERE rubric = ?)", [rater_id, rubric]
        ).fetchone()
        return int(count), float(total)

    def skipped_count(self, rubric: str, rater_id: str) -> int:
        return int(self.scalar("SELECT COUNT(*) FROM drafts d JOIN items i ON i.id = d.item_id"
                               " WHERE d.rater_id = ? AND i.rubric = ? AND d.skipped = 1", [rater_id, rubric]))

    def last_activity(self, rubric: str, rater_id: str) -> str | None:
        """When the rater last changed a rating or a draft of this rubric (ISO 8601, UTC)."""
        last: str | None = self.scalar(
            "SELECT MAX(at) FROM (SELECT MAX(r.updated_at) AS at FROM ratings r JOIN items i ON i.id = r.item_id"
            " WHERE r.rater_id = ? AND i.rubric = ? UNION ALL SELECT MAX(d.updated_at) FROM drafts d"
            " JOIN items i ON i.id = d.item_id WHERE d.rater_id = ? AND i.rubric = ?)",
            [rater_id, rubric, rater_id, rubric])
        return last

    def judge_queue_by_rater(self, rubric: str) -> dict[str, dict[str, Any]]:
        """{judge rater: {queued, running, done, failed, calls, cost_usd}} for this rubric's items."""
        found: dict[str, dict[str, Any]] = {}
        for rater_id, status, count in self.conn.execute(
                "SELECT j.rater_id, j.status, COUNT(*) FROM judge_jobs j JOIN items i ON i.id = j.item_id"
                " WHERE i.rubric = ? GROUP BY j.rater_id, j.status", [rubric]):
            found.setdefault(rater_id, {"queued": 0, "running": 0, "done": 0, "failed": 0, "calls": 0,
                                        "cost_usd": 0.0})[status] = count
        for rater_id, calls, cost in self.conn.execute(
                "SELECT j.rater_id, COUNT(*), COALESCE(SUM(c.cost_usd), 0) FROM judge_calls c"
                " JOIN judge_jobs j ON j.id = c.job_id JOIN items i ON i.id = j.item_id WHERE i.rubric = ?"
                " GROUP BY j.rater_id", [rubric]):
            found[rater_id].update(calls=calls, cost_usd=float(cost))
        return found
