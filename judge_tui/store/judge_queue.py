"""The judge's work queue, the calls it made and its Message Batches."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from judge_tui.model.records import Rating
from judge_tui.model.redaction import redact
from judge_tui.store.common import _dumps, _loads, compared_versions, now, where
from judge_tui.store.ratings import RatingQueries

JOB_COLUMNS = ("id, item_id, rater_id, rubric_version_id, repeat, status, attempts, last_error, raw_output,"
               " batch_id, rating_id, next_attempt_at")


class JudgeQueueQueries(RatingQueries):
    # ------------------------------------------------------------------ judge queue
    # A job is one judgment to make: (item, judge rater, rubric version, repeat). Its life:
    # queued -> running -> done | failed, or back to queued for a retry. Jobs in a Message Batch stay
    # 'running' with their batch_id until the batch's results are read.

    @staticmethod
    def _missing_jobs(split: str | None) -> str:
        """The CTEs reps(n) and todo(id, position): items (of a split) lacking one of their repeats' jobs.

        Parameters after the split's: repeats, rubric, [split], rater_id, the versions compared as the rubric
        version (`_same_versions`), limit.
        """
        return (
            "WITH RECURSIVE reps(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM reps WHERE n + 1 < ?),"
            " todo AS (SELECT i.id, i.position FROM items i WHERE i.rubric = ? " + ("AND i.split = ?" if split else "") +
            "   AND EXISTS (SELECT 1 FROM reps WHERE NOT EXISTS (SELECT 1 FROM judge_jobs j"
            "     WHERE j.item_id = i.id AND j.rater_id = ? AND j.rubric_version_id IN (SELECT value FROM json_each(?))"
            "     AND j.repeat = reps.n))"
            "   ORDER BY i.position LIMIT ?)")

    def _missing_params(self, rater_id: str, rubric_version_id: int | None, rubric: str, split: str | None,
                        repeats: int, limit: int | None) -> list[Any]:
        split_params = [split] if split else []
        return [max(1, repeats), rubric, *split_params, rater_id, self._same_versions(rubric_version_id),
                -1 if limit is None else max(0, limit)]

    def _same_versions(self, rubric_version_id: int | None) -> str:
        """The rubric versions compared as this one (a JSON list): a judgment made under any of them is made (a
        version an earlier release recorded for the judge's examples alone is judged already)."""
        if rubric_version_id is None:
            return "[]"
        same = compared_versions(self.conn)
        this = same.get(rubric_version_id, rubric_version_id)
        return json.dumps(sorted({rubric_version_id, *(v for v, s in same.items() if s == this)}))

    def enqueue_judge_jobs(
        self, rater_id: str, rubric_version_id: int, rubric: str, *, split: str | None = None,
        repeats: int = 1, limit: int | None = None,
    ) -> int:
        """Queue item x repeat jobs this rater does not have yet, in import order; returns how many were added.

        limit counts items (each with its missing repeats). Idempotent: running it again adds nothing.
        """
        ctes = self._missing_jobs(split)
        stamp = now()
        with self.transaction() as conn:
            before = conn.total_changes  # rowcount is not reported for a statement that starts with WITH
            conn.execute(
                ctes + " INSERT OR IGNORE INTO judge_jobs (item_id, rater_id, rubric_version_id, repeat, status,"
                " created_at, updated_at) SELECT todo.id, ?, ?, reps.n, 'queued', ?, ? FROM todo, reps"
                " WHERE NOT EXISTS (SELECT 1 FROM judge_jobs j WHERE j.item_id = todo.id AND j.rater_id = ?"
                " AND j.rubric_version_id IN (SELECT value FROM json_each(?)) AND j.repeat = reps.n)"
                " ORDER BY todo.position, reps.n",
                [*self._missing_params(rater_id, rubric_version_id, rubric, split, repeats, limit),
                 rater_id, rubric_version_id, stamp, stamp, rater_id, self._same_versions(rubric_version_id)],
            )
            return conn.total_changes - before

    def count_missing_judge_jobs(
        self, rater_id: str, rubric_version_id: int | None, rubric: str, *, split: str | None = None,
        repeats: int = 1, limit: int | None = None,
    ) -> int:
        """How many jobs enqueue_judge_jobs would add, without adding them (a dry run)."""
        ctes = self._missing_jobs(split)
        return int(self.scalar(
            ctes + " SELECT COUNT(*) FROM todo, reps WHERE NOT EXISTS (SELECT 1 FROM judge_jobs j"
            " WHERE j.item_id = todo.id AND j.rater_id = ?"
            " AND j.rubric_version_id IN (SELECT value FROM json_each(?)) AND j.repeat = reps.n)",
            [*self._missing_params(rater_id, rubric_version_id, rubric, split, repeats, limit),
             rater_id, self._same_versions(rubric_version_id)]) or 0)

    def enqueue_judge_items(self, rater_id: str, rubric_version_id: int, item_ids: Iterable[str], repeat: int = 0) -> int:
        """Queue these items (e.g. as the app opens them); already queued ones are left alone."""
        stamp = now()
        same = self._same_versions(rubric_version_id)
        with self.transaction() as conn:
            before = conn.total_changes
            conn.executemany(
                "INSERT OR IGNORE INTO judge_jobs (item_id, rater_id, rubric_version_id, repeat, status, created_at,"
                " updated_at) SELECT ?, ?, ?, ?, 'queued', ?, ? WHERE NOT EXISTS (SELECT 1 FROM judge_jobs j"
                " WHERE j.item_id = ? AND j.rater_id = ? AND j.rubric_version_id IN (SELECT value FROM json_each(?))"
                " AND j.repeat = ?)",
                ((item_id, rater_id, rubric_version_id, repeat, stamp, stamp, item_id, rater_id, same, repeat)
                 for item_id in item_ids),
            )
            return conn.total_changes - before

    def withdraw_queued_judge_jobs(self, rater_id: str, item_ids: Collection[str]) -> int:
        """Drop this rater's jobs of these items that are still queued and were never sent (no call recorded):
        work queued before the items counted as judged already. Jobs with a call keep their history. One read of
        the rater's queue (usually empty) and a write only when some of it goes, since the app asks at every
        start."""
        never_sent = self.conn.execute(
            "SELECT id, item_id FROM judge_jobs j WHERE rater_id = ? AND status = 'queued' AND batch_id IS NULL"
            " AND NOT EXISTS (SELECT 1 FROM judge_calls c WHERE c.job_id = j.id)", [rater_id]).fetchall()
        gone = [(job_id,) for job_id, item_id in never_sent if item_id in item_ids]
        if not gone:
            return 0
        with self.transaction() as conn:
            before = conn.total_changes
            conn.executemany("DELETE FROM judge_jobs WHERE id = ? AND status = 'queued'", gone)
            return conn.total_changes - before

    def requeue_orphaned_judge_jobs(self, rater_id: str | None = None, live_owners: Iterable[str] = ()) -> int:
        """Jobs left 'running' by a process that is gone go back to the queue (not those waiting in a batch).

        A job whose lease_owner is one of live_owners is another process's call in flight: left alone.
        """
        live = list(live_owners)
        extra, params = ("AND rater_id = ?", [rater_id]) if rater_id else ("", [])
        owned = f"AND (lease_owner IS NULL OR lease_owner NOT IN ({', '.join('?' * len(live))}))" if live else ""
        with self.transaction() as conn:
            return conn.execute(
                f"UPDATE judge_jobs SET status = 'queued', lease_owner = NULL, updated_at = ? WHERE status = 'running'"
                f" AND batch_id IS NULL {extra} {owned}", [now(), *params, *live]).rowcount

    def claim_judge_jobs(self, rater_id: str, limit: int, at: str | None = None,
                         owner: str | None = None) -> list[dict[str, Any]]:
        """Up to limit queued jobs that are due, marked running (leased to owner), oldest first."""
        if limit <= 0:
            return []
        at = at or now()
        with self.transaction() as conn:
            rows = self.query(
                f"SELECT {JOB_COLUMNS} FROM judge_jobs WHERE rater_id = ? AND status = 'queued'"
                " AND (next_attempt_at IS NULL OR next_attempt_at <= ?) ORDER BY id LIMIT ?",
                [rater_id, at, limit],
            )
            conn.executemany("UPDATE judge_jobs SET status = 'running', lease_owner = ?, updated_at = ? WHERE id = ?",
                             [(owner, at, row["id"]) for row in rows])
        for row in rows:
            row["status"] = "running"
        return rows

    def next_judge_retry_at(self, rater_id: str) -> str | None:
        """When the earliest queued job with a retry time is due (None if none has one). It may be due already:
        a retry that fell due just after a claim looked is still to be judged."""
        due: str | None = self.scalar(
            "SELECT MIN(next_attempt_at) FROM judge_jobs WHERE rater_id = ? AND status = 'queued'", [rater_id])
        return due

    def _record_judge_call(self, conn: sqlite3.Connection, job_id: int, call: Mapping[str, Any]) -> None:
        conn.execute(
            "INSERT INTO judge_calls (job_id, model, input_tokens, output_tokens, cache_read_tokens,"
            " cache_write_tokens, cost_usd, sampling, outcome, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [job_id, call.get("model", ""), int(call.get("input_tokens", 0)), int(call.get("output_tokens", 0)),
             int(call.get("cache_read_tokens", 0)), int(call.get("cache_write_tokens", 0)),
             float(call.get("cost_usd") or 0.0), _dumps(call.get("sampling", {})), call.get("outcome", ""), now()],
        )

    def complete_judge_job(self, job_id: int, rating: Rating, call: Mapping[str, Any] | None = None) -> None:
        """Save the judge's rating and mark the job done, in one transaction (never one without the other)."""
        with self.transaction() as conn:
            self._upsert_rating(conn, rating)
            rating_id = self.scalar(
                "SELECT id FROM ratings WHERE item_id = ? AND rater_id = ? AND rubric_version_id = ? AND repeat = ?",
                [rating.item_id, rating.rater_id, rating.rubric_version_id, rating.repeat])
            conn.execute(
                "UPDATE judge_jobs SET status = 'done', attempts = attempts + 1, rating_id = ?, last_error = '',"
                " raw_output = '', next_attempt_at = NULL, updated_at = ? WHERE id = ?",
                [rating_id, now(), job_id])
            if call is not None:
                self._record_judge_call(conn, job_id, call)

    def fail_judge_job(self, job_id: int, error: str, raw_output: str = "",
                       call: Mapping[str, Any] | None = None) -> None:
        """A judgment that cannot be used: kept with its error and the raw answer (both scrubbed of keys), never
        retried by itself."""
        with self.transaction() as conn:
            conn.execute(
                "UPDATE judge_jobs SET status = 'failed', attempts = attempts + 1, last_error = ?, raw_output = ?,"
                " batch_id = NULL, next_attempt_at = NULL, updated_at = ? WHERE id = ?",
                [redact(error), redact(raw_output), now(), job_id])
            if call is not None:
                self._record_judge_call(conn, job_id, call)

    def retry_judge_job(self, job_id: int, error: str, next_attempt_at: str | None, raw_output: str = "",
                        call: Mapping[str, Any] | None = None) -> None:
        """Back to the queue after a passing problem (rate limit, overload, dropped connection); counts an attempt."""
        with self.transaction() as conn:
            conn.execute(
                "UPDATE judge_jobs SET status = 'queued', attempts = attempts + 1, last_error = ?, raw_output = ?,"
                " batch_id = NULL, next_attempt_at = ?, updated_at = ? WHERE id = ?",
                [redact(error), redact(raw_output), next_attempt_at, now(), job_id])
            if call is not None:
                self._record_judge_call(conn, job_id, call)

    def release_judge_jobs(self, job_ids: Iterable[int], note: str = "") -> None:
        """Back to the queue without counting an attempt: the job was not at fault (offline, stopped, interrupted)."""
        stamp, note = now(), redact(note)
        with self.transaction() as conn:
            conn.executemany(
                "UPDATE judge_jobs SET status = 'queued', batch_id = NULL, last_error = CASE WHEN ? = '' THEN"
                " last_error ELSE ? END, updated_at = ? WHERE id = ? AND status = 'running'",
                [(note, note, stamp, job_id) for job_id in job_ids])

    def requeue_failed_judge_jobs(self, rater_id: str) -> int:
        """Give failed jobs another go (attempts are kept; their last error stays until they succeed)."""
        with self.transaction() as conn:
            return conn.execute(
                "UPDATE judge_jobs SET status = 'queued', next_attempt_at = NULL, updated_at = ?"
                " WHERE rater_id = ? AND status = 'failed'", [now(), rater_id]).rowcount

    def judge_job(self, job_id: int) -> dict[str, Any] | None:
        rows = self.query(f"SELECT {JOB_COLUMNS} FROM judge_jobs WHERE id = ?", [job_id])
        return rows[0] if rows else None

    def judge_jobs(self, rater_id: str | None = None, status: str | None = None) -> list[dict[str, Any]]:
        clause, params = where(("rater_id = ?", rater_id), ("status = ?", status))
        return self.query(f"SELECT {JOB_COLUMNS} FROM judge_jobs {clause} ORDER BY id", params)

    def failed_judge_jobs(self, rubric: str | None = None, rater_id: str | None = None) -> list[dict[str, Any]]:
        """Failed judgments with their error and raw answer (and the item's rubric), oldest first."""
        clause, params = where(("i.rubric = ?", rubric), ("j.rater_id = ?", rater_id))
        clause = (clause + " AND" if clause else "WHERE") + " j.status = 'failed'"
        columns = ", ".join(f"j.{c.strip()}" for c in JOB_COLUMNS.split(","))
        return self.query(f"SELECT {columns}, i.rubric, j.updated_at FROM judge_jobs j JOIN items i ON i.id = j.item_id"
                          f" {clause} ORDER BY j.rater_id, j.id", params)

    def count_unjudged(self, rater_id: str, rubric: str, split: str | None) -> tuple[int, int, int]:
        """A rubric's items (of a split) this judge rater has no finished judgment of (first repeat); how many
        of those it failed to judge; and how many jobs of its queue are for items outside the split."""
        where = " AND i.split = ?" if split else ""
        split_params = [split] if split else []
        row = self.conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(EXISTS (SELECT 1 FROM judge_jobs f WHERE f.item_id = i.id"
            " AND f.rater_id = ? AND f.repeat = 0 AND f.status = 'failed')), 0) FROM items i"
            f" WHERE i.rubric = ?{where} AND NOT EXISTS (SELECT 1 FROM judge_jobs j WHERE j.item_id = i.id"
            " AND j.rater_id = ? AND j.repeat = 0 AND j.status = 'done')",
            [rater_id, rubric, *split_params, rater_id]).fetchone()
        elsewhere = 0
        if split:
            elsewhere = int(self.scalar(
                "SELECT COUNT(*) FROM judge_jobs j JOIN items i ON i.id = j.item_id WHERE j.rater_id = ?"
                " AND j.status IN ('queued', 'running') AND i.split IS NOT ?", [rater_id, split]) or 0)
        return int(row[0]), int(row[1]), elsewhere

    def judge_job_counts(self, rater_id: str | None = None) -> dict[str, int]:
        """{queued, running, done, failed} for one judge rater (or all)."""
        extra, params = ("WHERE rater_id = ?", [rater_id]) if rater_id else ("", [])
        counts = {"queued": 0, "running": 0, "done": 0, "failed": 0}
        for status, n in self.conn.execute(
                f"SELECT status, COUNT(*) FROM judge_jobs {extra} GROUP BY status", params):
            counts[status] = n
        return counts

    def running_judge_jobs_by_owner(self, rater_id: str) -> list[dict[str, Any]]:
        """A judge rater's running jobs counted by owner (a batch's poller, else the job's lease) and whether
        they wait in a Message Batch: rows of owner, in_batch (0 or 1), jobs."""
        return self.query(
            "SELECT COALESCE(b.owner, j.lease_owner) AS owner, j.batch_id IS NOT NULL AS in_batch, COUNT(*) AS jobs"
            " FROM judge_jobs j LEFT JOIN judge_batches b ON b.id = j.batch_id"
            " WHERE j.rater_id = ? AND j.status = 'running' GROUP BY 1, 2", [rater_id])

    def judge_call_totals(self, rater_id: str | None = None) -> dict[str, float]:
        """Tokens and cost of every call made for a judge rater."""
        extra, params = ("WHERE j.rater_id = ?", [rater_id]) if rater_id else ("", [])
        row = self.conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(c.input_tokens), 0), COALESCE(SUM(c.output_tokens), 0),"
            " COALESCE(SUM(c.cache_read_tokens), 0), COALESCE(SUM(c.cache_write_tokens), 0),"
            f" COALESCE(SUM(c.cost_usd), 0) FROM judge_calls c JOIN judge_jobs j ON j.id = c.job_id {extra}",
            params).fetchone()
        keys = ("calls", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd")
        return dict(zip(keys, row, strict=True))

    def mean_judge_output_tokens(self, model: str) -> float | None:
        """How long this model's answers have been, in tokens (None before its first answer here)."""
        value = self.scalar("SELECT AVG(output_tokens) FROM judge_calls WHERE model = ? AND output_tokens > 0",
                            [model])
        return float(value) if value is not None else None

    def judge_calls(self, job_id: int) -> list[dict[str, Any]]:
        rows = self.query("SELECT * FROM judge_calls WHERE job_id = ? ORDER BY id", [job_id])
        for row in rows:
            row["sampling"] = _loads(row["sampling"], {})
        return rows
