"""The judge processes that hold leases on running jobs (judge/lease.py): registered, kept alive by a heartbeat,
removed when they end."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from judge_tui.store.core import StoreCore


class JudgeWorkerQueries(StoreCore):
    def register_judge_worker(self, worker_id: str, host: str, pid: int, at: str) -> None:
        with self.transaction() as conn:
            conn.execute("INSERT OR REPLACE INTO judge_workers (id, host, pid, started_at, heartbeat_at)"
                         " VALUES (?, ?, ?, ?, ?)", [worker_id, host, pid, at, at])

    def judge_worker_heartbeat(self, worker_id: str, at: str) -> None:
        with self.transaction() as conn:
            conn.execute("UPDATE judge_workers SET heartbeat_at = ? WHERE id = ?", [at, worker_id])

    def remove_judge_workers(self, worker_ids: Iterable[str]) -> None:
        with self.transaction() as conn:
            conn.executemany("DELETE FROM judge_workers WHERE id = ?", [(w,) for w in worker_ids])

    def judge_workers(self) -> list[dict[str, Any]]:
        return self.query("SELECT id, host, pid, started_at, heartbeat_at FROM judge_workers ORDER BY started_at")
