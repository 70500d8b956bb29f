"""Assignment plans (`judge-tui assign`): which expert rates which items, in what order, and their progress.

A rubric's newest plan is the one in force. An expert with rows in it rates from that queue (the rating
screen's next item, counts and paging follow it); an expert without is not assigned and rates every item.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from judge_tui.store.core import StoreCore
from judge_tui.store.flags import UNRATED

# The newest plan of each rubric (alias p): no plan of the same rubric is later.
CURRENT_PLAN = ("NOT EXISTS (SELECT 1 FROM assignment_plans q WHERE q.rubric = p.rubric"
                " AND (q.created_at, q.id) > (p.created_at, p.id))")

_PLAN_COLUMNS = "id, rubric, experts, overlap, overlap_raters, per_expert, seed, balance, created_at"


class AssignmentQueries(StoreCore):
    # ------------------------------------------------------------------ assignment plans

    def save_assignment(self, plan: Mapping[str, Any], rows: Iterable[tuple[str, str, int, bool]]) -> None:
        """A new plan and its rows (expert, item, position in the expert's queue, overlap), in one transaction."""
        with self.transaction() as conn:
            conn.execute(
                f"INSERT INTO assignment_plans ({_PLAN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [plan["id"], plan["rubric"], json.dumps(list(plan["experts"])), plan["overlap"],
                 plan["overlap_raters"], plan["per_expert"], plan["seed"], json.dumps(list(plan["balance"])),
                 plan["created_at"]])
            conn.executemany(
                "INSERT INTO assignments (plan_id, rater_id, item_id, position, overlap) VALUES (?, ?, ?, ?, ?)",
                [(plan["id"], rater, item, position, int(overlap)) for rater, item, position, overlap in rows])

    def current_plan(self, rubric: str) -> dict[str, Any] | None:
        """The plan in force for this rubric (its newest), with its number among the rubric's plans; None if none."""
        rows = self.query(
            f"SELECT {_PLAN_COLUMNS}, (SELECT COUNT(*) FROM assignment_plans o WHERE o.rubric = p.rubric) AS number"
            f" FROM assignment_plans p WHERE p.rubric = ? AND {CURRENT_PLAN}", [rubric])
        if not rows:
            return None
        plan = rows[0]
        plan["experts"] = json.loads(plan["experts"])
        plan["balance"] = json.loads(plan["balance"])
        return plan

    def assignment_of(self, rater_id: str, rubric: str) -> str | None:
        """The id of the plan in force whose queue this rater rates from, or None (not assigned: every item)."""
        plan_id: str | None = self.scalar(
            f"SELECT p.id FROM assignment_plans p WHERE p.rubric = ? AND {CURRENT_PLAN} AND EXISTS"
            " (SELECT 1 FROM assignments a WHERE a.plan_id = p.id AND a.rater_id = ?)", [rubric, rater_id])
        return plan_id

    def assignments_in_force(self, rater_id: str) -> dict[str, tuple[int, int]]:
        """{rubric: (items, overlap items)} of this rater in every plan in force."""
        return {rubric: (n, int(overlap)) for rubric, n, overlap in self.conn.execute(
            "SELECT p.rubric, COUNT(*), SUM(a.overlap) FROM assignment_plans p JOIN assignments a ON a.plan_id = p.id"
            f" WHERE a.rater_id = ? AND {CURRENT_PLAN} GROUP BY p.rubric ORDER BY p.rubric", [rater_id])}

    def assigned_items(self, plan_id: str, rater_id: str | None = None) -> list[tuple[str, str, int, bool]]:
        """(expert, item, position, overlap) of a plan (or of one expert in it), in queue order."""
        sql = "SELECT rater_id, item_id, position, overlap FROM assignments WHERE plan_id = ?"
        params: list[Any] = [plan_id]
        if rater_id is not None:
            sql += " AND rater_id = ?"
            params.append(rater_id)
        return [(r, i, p, bool(o)) for r, i, p, o in self.conn.execute(sql + " ORDER BY rater_id, position", params)]

    def queue_position(self, plan_id: str, rater_id: str, item_id: str) -> int | None:
        position: int | None = self.scalar(
            "SELECT position FROM assignments WHERE plan_id = ? AND rater_id = ? AND item_id = ?",
            [plan_id, rater_id, item_id])
        return position

    def count_assigned(self, plan_id: str, rater_id: str, split: str | None = None) -> int:
        extra, params = ("AND i.split = ?", [split]) if split else ("", [])
        return int(self.scalar(
            "SELECT COUNT(*) FROM assignments a CROSS JOIN items i ON i.id = a.item_id"
            f" WHERE a.plan_id = ? AND a.rater_id = ? {extra}", [plan_id, rater_id, *params]))

    def experts_by_item(self, rubric: str) -> dict[str, set[str]]:
        """{item: human raters holding a first-run rating of it}: the work an assignment must not move."""
        found: dict[str, set[str]] = {}
        for item_id, rater_id in self.conn.execute(
                "SELECT r.item_id, r.rater_id FROM current_ratings r JOIN items i ON i.id = r.item_id"
                " JOIN raters t ON t.id = r.rater_id WHERE i.rubric = ? AND t.kind = 'human'",
                [rubric]):
            found.setdefault(item_id, set()).add(rater_id)
        return found

    def assignment_progress(self, plan_id: str) -> dict[str, dict[str, Any]]:
        """Per expert of a plan: assigned, overlap, rated (of the assigned items), skipped, flagged, seconds.

        Rated counts the expert's first-run ratings of assigned items; seconds adds up their known times (the
        current rating of each item) and `timed` says how many had one.
        """
        out: dict[str, dict[str, Any]] = {}
        for rater, assigned, overlap in self.conn.execute(
                "SELECT rater_id, COUNT(*), SUM(overlap) FROM assignments WHERE plan_id = ? GROUP BY rater_id",
                [plan_id]):
            out[rater] = {"assigned": assigned, "overlap": int(overlap), "rated": 0, "overlap_rated": 0,
                          "skipped": 0, "seconds": 0.0, "timed": 0}
        for rater, rated, overlap_rated, seconds, timed in self.conn.execute(
                "SELECT a.rater_id, COUNT(*), SUM(a.overlap), COALESCE(SUM(r.seconds), 0), COUNT(r.seconds)"
                " FROM assignments a JOIN current_ratings r ON r.item_id = a.item_id AND r.rater_id = a.rater_id"
                " WHERE a.plan_id = ? GROUP BY a.rater_id", [plan_id]):
            out[rater].update(rated=rated, overlap_rated=int(overlap_rated), seconds=float(seconds), timed=timed)
        for rater, skipped in self.conn.execute(
                "SELECT a.rater_id, COUNT(*) FROM assignments a JOIN drafts d ON d.item_id = a.item_id"
                f" AND d.rater_id = a.rater_id WHERE a.plan_id = ? AND d.skipped = 1 AND {UNRATED}"
                " GROUP BY a.rater_id", [plan_id]):
            out[rater]["skipped"] = skipped
        return out

    def overlap_coverage(self, plan_id: str) -> tuple[int, int, int]:
        """(overlap items of the plan, those rated by two or more of its experts, those rated by all assigned)."""
        rows = self.conn.execute(
            "SELECT a.item_id, COUNT(*), SUM(EXISTS (SELECT 1 FROM current_ratings r WHERE r.item_id = a.item_id"
            " AND r.rater_id = a.rater_id)) FROM assignments a"
            " WHERE a.plan_id = ? AND a.overlap = 1 GROUP BY a.item_id", [plan_id]).fetchall()
        return (len(rows), sum(1 for _i, _n, rated in rows if rated >= 2),
                sum(1 for _i, n, rated in rows if rated >= n))

    def overlap_item_ids(self, plan_id: str) -> set[str]:
        return {r[0] for r in self.conn.execute(
            "SELECT DISTINCT item_id FROM assignments WHERE plan_id = ? AND overlap = 1", [plan_id])}
