"""The judge's job queue for one judge rater, kept in SQLite so nothing is lost to a crash or a kill.

A job is one judgment to make: (item, judge rater, rubric version, repeat), unique, so queueing twice
adds nothing. States: queued -> running -> done | failed, or back to queued for a retry. A rating and its
job's 'done' are written in one transaction: a job is either judged once or not at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from judge_tui.model.records import Rating
from judge_tui.store import Store


def stamp_in(seconds: float) -> str:
    """A store timestamp this many seconds from now (same format as Store's, so they compare as text)."""
    return (datetime.now(UTC) + timedelta(seconds=max(0.0, seconds))).isoformat(timespec="milliseconds")


class JudgeQueue:
    def __init__(self, store: Store, rater_id: str, rubric_version_id: int, rubric_id: str) -> None:
        self.store = store
        self.rater_id = rater_id
        self.rubric_version_id = rubric_version_id
        self.rubric_id = rubric_id

    # ---- filling

    def enqueue(self, *, split: str | None = None, repeats: int = 1, limit: int | None = None) -> int:
        """Queue every item of the rubric (or of a split) this judge has no job for yet; returns how many."""
        return self.store.enqueue_judge_jobs(self.rater_id, self.rubric_version_id, self.rubric_id,
                                             split=split, repeats=repeats, limit=limit)

    def enqueue_items(self, item_ids: Iterable[str], repeats: int = 1) -> int:
        """Queue these items, each for repeats 0..repeats-1 (already queued jobs are left alone)."""
        ids = list(item_ids)
        return sum(self.store.enqueue_judge_items(self.rater_id, self.rubric_version_id, ids, repeat=repeat)
                   for repeat in range(repeats))

    def requeue_orphaned(self, live_owners: Iterable[str] = ()) -> int:
        """Jobs left running by a judge that is gone (crashed, killed) go back to the queue; the running
        jobs of live_owners (other judges' calls in flight) and jobs waiting for their batch stay as they are."""
        return self.store.requeue_orphaned_judge_jobs(self.rater_id, live_owners)

    def requeue_failed(self) -> int:
        return self.store.requeue_failed_judge_jobs(self.rater_id)

    # ---- working

    def claim(self, limit: int, owner: str | None = None) -> list[dict[str, Any]]:
        return self.store.claim_judge_jobs(self.rater_id, limit, owner=owner)

    def done(self, job: Mapping[str, Any], rating: Rating, call: Mapping[str, Any] | None) -> None:
        self.store.complete_judge_job(job["id"], rating, call)

    def failed(self, job: Mapping[str, Any], error: str, raw_output: str = "",
               call: Mapping[str, Any] | None = None) -> None:
        self.store.fail_judge_job(job["id"], error, raw_output, call)

    def retry(self, job: Mapping[str, Any], error: str, delay: float, raw_output: str = "",
              call: Mapping[str, Any] | None = None) -> None:
        self.store.retry_judge_job(job["id"], error, stamp_in(delay), raw_output, call)

    def release(self, jobs: Iterable[Mapping[str, Any]], note: str = "") -> None:
        self.store.release_judge_jobs([job["id"] for job in jobs], note)

    def next_retry_at(self) -> datetime | None:
        value = self.store.next_judge_retry_at(self.rater_id)
        return datetime.fromisoformat(value) if value else None

    # ---- batches

    def intend_batch(self, token: str, jobs: Sequence[Mapping[str, Any]], owner: str) -> None:
        self.store.intend_judge_batch(token, self.rater_id, self.rubric_version_id, [j["id"] for j in jobs], owner)

    def batch_sent(self, token: str, batch_id: str) -> None:
        self.store.judge_batch_sent(token, batch_id)

    def batch_not_sent(self, token: str) -> list[int]:
        return self.store.judge_batch_not_sent(token)

    def touch_sending(self, tokens: Sequence[str]) -> None:
        """The process sending these batches is alive: they say so (see _Base._find_interrupted_sends)."""
        self.store.touch_sending_judge_batches(tokens)

    def take_batch(self, batch: Mapping[str, Any], owner: str) -> bool:
        return self.store.take_judge_batch(batch["id"], owner, batch["owner"])

    def give_back_batch(self, batch: Mapping[str, Any], owner: str) -> None:
        """A batch this process took but will not poll: no one's, so the next judge --batch takes it."""
        self.store.take_judge_batch(batch["id"], None, owner)

    def open_batches(self) -> list[dict[str, Any]]:
        return self.store.open_judge_batches(self.rater_id)

    def batch_job(self, batch_id: str, job_id: int) -> dict[str, Any] | None:
        """A job still waiting for this batch's result (None if it is not, e.g. already recorded)."""
        job = self.store.judge_job(job_id)
        if job is None or job["batch_id"] != batch_id or job["status"] != "running" or job["rater_id"] != self.rater_id:
            return None
        return job

    def finish_batch(self, batch_id: str) -> int:
        """Jobs of the batch that got no result go back to the queue; the batch is marked processed."""
        left = self.store.judge_batch_jobs(batch_id)
        self.release(left, note="no result in its batch; queued again")
        self.store.set_judge_batch_status(batch_id, "processed")
        return len(left)

    # ---- reading

    def counts(self) -> dict[str, int]:
        return self.store.judge_job_counts(self.rater_id)

    def running_by_owner(self) -> list[dict[str, Any]]:
        """Running jobs counted by who has them (the batch's poller, or the judge that claimed them): owner,
        in_batch, jobs."""
        return self.store.running_judge_jobs_by_owner(self.rater_id)

    def totals(self) -> dict[str, float]:
        return self.store.judge_call_totals(self.rater_id)
