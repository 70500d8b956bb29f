"""Message Batches of judge jobs: recorded before they are sent, owned by one judge process while it polls."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from judge_tui.store.common import now
from judge_tui.store.core import StoreCore
from judge_tui.store.judge_queue import JOB_COLUMNS


class JudgeBatchQueries(StoreCore):
    def intend_judge_batch(self, token: str, rater_id: str, rubric_version_id: int, job_ids: Sequence[int],
                           owner: str) -> None:
        """Before a batch is sent: a 'sending' batch under a token of ours, holding its jobs, in one transaction.
        A process killed while the API takes the batch leaves it behind, to be looked for, never sent blind."""
        stamp = now()
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO judge_batches (id, rater_id, rubric_version_id, status, request_count, owner, created_at,"
                " updated_at) VALUES (?, ?, ?, 'sending', ?, ?, ?, ?)",
                [token, rater_id, rubric_version_id, len(job_ids), owner, stamp, stamp])
            conn.executemany("UPDATE judge_jobs SET status = 'running', batch_id = ?, updated_at = ? WHERE id = ?",
                             [(token, stamp, job_id) for job_id in job_ids])

    def judge_batch_sent(self, token: str, batch_id: str) -> None:
        """The API accepted the batch held under token as batch_id: the batch and its jobs take that id."""
        stamp = now()
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO judge_batches (id, rater_id, rubric_version_id, status, request_count, owner, created_at,"
                " updated_at) SELECT ?, rater_id, rubric_version_id, 'in_progress', request_count, owner, created_at,"
                " ? FROM judge_batches WHERE id = ?", [batch_id, stamp, token])
            conn.execute("UPDATE judge_jobs SET batch_id = ?, updated_at = ? WHERE batch_id = ?",
                         [batch_id, stamp, token])
            conn.execute("DELETE FROM judge_batches WHERE id = ?", [token])

    def judge_batch_not_sent(self, token: str) -> list[int]:
        """The batch held under token never reached the API: its jobs leave it (still claimed); their ids."""
        with self.transaction() as conn:
            ids = [r[0] for r in conn.execute("SELECT id FROM judge_jobs WHERE batch_id = ? ORDER BY id", [token])]
            conn.execute("UPDATE judge_jobs SET batch_id = NULL, updated_at = ? WHERE batch_id = ?", [now(), token])
            conn.execute("DELETE FROM judge_batches WHERE id = ?", [token])
        return ids

    def take_judge_batch(self, batch_id: str, owner: str | None, previous: str | None) -> bool:
        """Make owner the batch's poller if it is still previous's (two processes may try at once). A 'sending'
        batch keeps its updated_at: the last time its sender was known alive (touch_sending_judge_batches)."""
        with self.transaction() as conn:
            return conn.execute("UPDATE judge_batches SET owner = ?, updated_at = CASE WHEN status = 'sending' THEN"
                                " updated_at ELSE ? END WHERE id = ? AND owner IS ?",
                                [owner, now(), batch_id, previous]).rowcount == 1

    def touch_sending_judge_batches(self, tokens: Sequence[str]) -> None:
        """Batches this process is sending (their tokens), marked with the time it was last alive: should it stop
        mid-upload, a later run gives the API time to list such a batch, counted from then, before sending its
        jobs again."""
        with self.transaction() as conn:
            conn.executemany("UPDATE judge_batches SET updated_at = ? WHERE id = ? AND status = 'sending'",
                             [(now(), token) for token in tokens])

    def set_judge_batch_status(self, batch_id: str, status: str) -> None:
        with self.transaction() as conn:
            conn.execute("UPDATE judge_batches SET status = ?, updated_at = ? WHERE id = ?", [status, now(), batch_id])

    def open_judge_batches(self, rater_id: str) -> list[dict[str, Any]]:
        """Batches whose results have not been read yet (to resume after a restart)."""
        return self.query("SELECT * FROM judge_batches WHERE rater_id = ? AND status != 'processed'"
                          " ORDER BY created_at", [rater_id])

    def judge_batch_ids(self) -> set[str]:
        """Every Message Batch this database knows, of any judge."""
        return {r[0] for r in self.conn.execute("SELECT id FROM judge_batches")}

    def judge_batch_jobs(self, batch_id: str) -> list[dict[str, Any]]:
        """The jobs of a batch still waiting for its results."""
        return self.query(f"SELECT {JOB_COLUMNS} FROM judge_jobs WHERE batch_id = ? AND status = 'running'"
                          " ORDER BY id", [batch_id])
