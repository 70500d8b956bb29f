"""Queue orders (model/queue_orders.py): each reviewer's stored order of a rubric's items, and how each of
their first ratings' items was drawn."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from judge_tui.store.common import now
from judge_tui.store.core import StoreCore


@dataclass(frozen=True)
class QueueOrder:
    kind: str  # model.queue_orders.ORDERS or ASSIGNED
    seed: int
    judge_rater: str | None  # the judge whose verdicts stratify a balanced order


@dataclass(frozen=True)
class Draw:
    """How one rating's item was drawn."""

    item_id: str
    rater_id: str
    kind: str
    stratum: str | None
    judge_rater: str | None
    seed: int | None


# Copies the rater's order in use into rating_draws when a first rating is saved, in the same transaction:
# the first draw of an item is the one that counts, so a rating edited later keeps it.
_RECORD_DRAW = """
INSERT OR IGNORE INTO rating_draws (item_id, rater_id, rubric, kind, stratum, judge_rater, seed, position, created_at)
SELECT i.id, o.rater_id, o.rubric, o.kind, e.stratum, o.judge_rater, o.seed, e.position, ?
FROM items i JOIN queue_orders o ON o.rubric = i.rubric AND o.rater_id = ?
LEFT JOIN queue_entries e ON e.rater_id = o.rater_id AND e.rubric = o.rubric AND e.item_id = i.id
WHERE i.id = ?
"""


def record_draw(conn: sqlite3.Connection, item_id: str, rater_id: str) -> None:
    """Within a rating's transaction: how its item was drawn, if the rater rates in a recorded order."""
    conn.execute(_RECORD_DRAW, [now(), rater_id, item_id])


class QueueOrderQueries(StoreCore):
    def queue_order(self, rater_id: str, rubric: str) -> QueueOrder | None:
        row = self.conn.execute("SELECT kind, seed, judge_rater FROM queue_orders WHERE rater_id = ? AND rubric = ?",
                                [rater_id, rubric]).fetchone()
        return QueueOrder(*row) if row else None

    def allocated_with(self, rater_id: str, rubric: str) -> int:
        """The number of the reviewer's ratings their balanced order's layout was made with."""
        return int(self.scalar("SELECT allocated_with FROM queue_orders WHERE rater_id = ? AND rubric = ?",
                               [rater_id, rubric]) or 0)

    def set_queue_order(self, rater_id: str, rubric: str, order: QueueOrder,
                        entries: Sequence[tuple[str, str | None]] | None = None, *, keep: Iterable[str] = (),
                        allocated_with: int = 0) -> None:
        """Record the order a reviewer rates in. With entries [(item id, stratum)], they replace the stored
        entries except those of `keep` (items already worked on, which stay where they were), following them."""
        stamp = now()
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO queue_orders (rater_id, rubric, kind, seed, judge_rater, allocated_with, created_at,"
                " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (rater_id, rubric) DO UPDATE SET"
                " kind = excluded.kind, seed = excluded.seed, judge_rater = excluded.judge_rater,"
                " allocated_with = excluded.allocated_with, updated_at = excluded.updated_at",
                [rater_id, rubric, order.kind, order.seed, order.judge_rater, allocated_with, stamp, stamp])
            if entries is None:
                return
            kept = set(keep)
            conn.execute("CREATE TEMP TABLE IF NOT EXISTS kept_items (id TEXT PRIMARY KEY)")
            conn.execute("DELETE FROM kept_items")
            conn.executemany("INSERT OR IGNORE INTO kept_items VALUES (?)", [(i,) for i in kept])
            conn.execute("DELETE FROM queue_entries WHERE rater_id = ? AND rubric = ?"
                         " AND item_id NOT IN (SELECT id FROM kept_items)", [rater_id, rubric])
            start = int(conn.execute("SELECT COALESCE(MAX(position), 0) FROM queue_entries WHERE rater_id = ?"
                                     " AND rubric = ?", [rater_id, rubric]).fetchone()[0])
            rows = [(rater_id, rubric, item_id, start + n, stratum)
                    for n, (item_id, stratum) in enumerate((e for e in entries if e[0] not in kept), start=1)]
            conn.executemany("INSERT INTO queue_entries (rater_id, rubric, item_id, position, stratum)"
                             " VALUES (?, ?, ?, ?, ?)", rows)

    def queue_entries(self, rater_id: str, rubric: str) -> list[tuple[str, int, str | None]]:
        """[(item id, position, stratum)] of the reviewer's stored order, in order."""
        return [tuple(r) for r in self.conn.execute(
            "SELECT item_id, position, stratum FROM queue_entries WHERE rater_id = ? AND rubric = ?"
            " ORDER BY position", [rater_id, rubric])]

    def order_position(self, rater_id: str, rubric: str, item_id: str) -> int | None:
        position: int | None = self.scalar(
            "SELECT position FROM queue_entries WHERE rater_id = ? AND rubric = ? AND item_id = ?",
            [rater_id, rubric, item_id])
        return position

    def rubric_item_ids(self, rubric: str) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT id FROM items WHERE rubric = ? ORDER BY position", [rubric])]

    def worked_on(self, rater_id: str, rubric: str) -> set[str]:
        """Items of the rubric this reviewer has rated or holds a draft of (skipped ones too)."""
        return {r[0] for r in self.conn.execute(
            "SELECT r.item_id FROM ratings r JOIN items i ON i.id = r.item_id WHERE r.rater_id = ? AND i.rubric = ?"
            " UNION SELECT d.item_id FROM drafts d JOIN items i ON i.id = d.item_id"
            " WHERE d.rater_id = ? AND i.rubric = ?", [rater_id, rubric, rater_id, rubric])}

    def judge_verdicts(self, judge_rater: str, rubric: str) -> dict[str, tuple[str | None, float | None]]:
        """{item: (verdict, overall)} of a rater's current ratings (a judge's, or a reviewer's own)."""
        return {item_id: (verdict, overall) for item_id, verdict, overall in self.conn.execute(
            "SELECT r.item_id, r.verdict, r.overall FROM current_ratings r JOIN items i ON i.id = r.item_id"
            " WHERE r.rater_id = ? AND i.rubric = ?", [judge_rater, rubric])}

    def draws(self, rubric: str, rater_ids: Iterable[str] | None = None) -> list[Draw]:
        rows = self.conn.execute(
            "SELECT item_id, rater_id, kind, stratum, judge_rater, seed FROM rating_draws WHERE rubric = ?"
            " ORDER BY created_at, rowid", [rubric])
        wanted = None if rater_ids is None else set(rater_ids)
        return [Draw(*r) for r in rows if wanted is None or r[1] in wanted]

    def record_settled(self, rubric: str, ratings: int) -> None:
        """The number of compared ratings the study's targets were first all decided with (kept once)."""
        if self.settled_after(rubric) is None:
            self.set_meta(f"settled_after:{rubric}", str(ratings))

    def settled_after(self, rubric: str) -> int | None:
        value = self.get_meta(f"settled_after:{rubric}")
        return int(value) if value is not None and value.isdigit() else None
