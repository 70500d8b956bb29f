"""The judge queue in SQLite: idempotent, resumable, and a rating never without its job's 'done'."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest

from judge_tui.judge.lease import Lease
from judge_tui.model.records import Rating
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from tests.judge.conftest import add_binary_items
from tests.narrowing import present


@pytest.fixture
def queue_store(store: Store, rubrics: dict[str, Rubric]) -> tuple[Store, int]:
    add_binary_items(store, rubrics["binary"])
    store.ensure_rater("judge:m:binary@v1", "judge", model="m", prompt_version="v1")
    return store, store.ensure_rubric_version(rubrics["binary"])


def test_enqueue_is_idempotent_and_honours_split_limit_and_repeats(queue_store: tuple[Store, int]) -> None:
    store, version = queue_store
    rater = "judge:m:binary@v1"
    assert store.enqueue_judge_jobs(rater, version, "binary", split="dev") == 2
    assert store.enqueue_judge_jobs(rater, version, "binary", split="dev") == 0
    assert store.enqueue_judge_jobs(rater, version, "binary", limit=3) == 3  # the next 3 items without a job
    assert {j["item_id"] for j in store.judge_jobs(rater)} == {"P01", "P02", "P03", "P05", "P06"}
    # asking for 3 repeats later adds only the missing repeats
    assert store.enqueue_judge_jobs(rater, version, "binary", repeats=3) == 8 * 3 - 5
    assert store.enqueue_judge_jobs(rater, version, "binary", repeats=3) == 0
    assert store.judge_job_counts(rater) == {"queued": 24, "running": 0, "done": 0, "failed": 0}
    assert store.enqueue_judge_items(rater, version, ["P01", "P02"]) == 0


def test_claim_complete_fail_retry_release(queue_store: tuple[Store, int]) -> None:
    store, version = queue_store
    rater = "judge:m:binary@v1"
    store.enqueue_judge_jobs(rater, version, "binary")
    first, second, third, fourth = store.claim_judge_jobs(rater, 4)
    assert [j["item_id"] for j in (first, second, third, fourth)] == ["P01", "P02", "P03", "P04"]
    assert store.claim_judge_jobs(rater, 2)[0]["item_id"] == "P05"
    rating = Rating(item_id="P01", rater_id=rater, rubric_version_id=version, scores={"label": 1.0}, overall=1.0)
    store.complete_judge_job(first["id"], rating, {"model": "m", "input_tokens": 10, "cost_usd": 0.5,
                                                    "outcome": "done"})
    store.fail_judge_job(second["id"], "off_scale: label", raw_output='{"label": "MAYBE"}')
    store.retry_judge_job(third["id"], "429", next_attempt_at="2999-01-01T00:00:00.000+00:00")
    store.release_judge_jobs([fourth["id"]], "offline")
    jobs = {j["item_id"]: j for j in store.judge_jobs(rater)}
    assert jobs["P01"]["status"] == "done"
    assert jobs["P01"]["rating_id"] is not None
    assert jobs["P01"]["attempts"] == 1
    assert jobs["P02"]["status"] == "failed"
    assert jobs["P02"]["raw_output"] == '{"label": "MAYBE"}'
    assert jobs["P03"]["status"] == "queued"
    assert jobs["P03"]["attempts"] == 1
    assert jobs["P04"]["status"] == "queued"
    assert jobs["P04"]["attempts"] == 0
    # P03 waits for its retry time; P04 is claimable again at once
    claimed = [j["item_id"] for j in store.claim_judge_jobs(rater, 10)]
    assert "P03" not in claimed
    assert "P04" in claimed
    assert store.judge_call_totals(rater)["input_tokens"] == 10


def test_a_rating_is_never_saved_without_its_job_done(queue_store: tuple[Store, int]) -> None:
    store, version = queue_store
    rater = "judge:m:binary@v1"
    store.enqueue_judge_jobs(rater, version, "binary", limit=1)
    job = store.claim_judge_jobs(rater, 1)[0]
    bad = Rating(item_id="P01", rater_id="nobody", rubric_version_id=version, scores={"label": 1.0})
    with pytest.raises(Exception):  # noqa: B017 - the foreign key on the unknown rater
        store.complete_judge_job(job["id"], bad)
    assert present(store.judge_job(job["id"]))["status"] == "running"
    assert list(store.iter_ratings(rater_ids=["nobody"])) == []


def test_stale_running_jobs_come_back_but_batch_jobs_wait(queue_store: tuple[Store, int]) -> None:
    store, version = queue_store
    rater = "judge:m:binary@v1"
    store.enqueue_judge_jobs(rater, version, "binary")
    in_batch = store.claim_judge_jobs(rater, 2)
    store.intend_judge_batch("sending-1", rater, version, [j["id"] for j in in_batch], "owner-1")
    store.judge_batch_sent("sending-1", "msgbatch_1")
    store.claim_judge_jobs(rater, 3)  # then the process dies
    assert store.requeue_orphaned_judge_jobs(rater) == 3
    assert store.judge_job_counts(rater) == {"queued": 6, "running": 2, "done": 0, "failed": 0}
    assert [b["id"] for b in store.open_judge_batches(rater)] == ["msgbatch_1"]
    assert len(store.judge_batch_jobs("msgbatch_1")) == 2


class _FakeClock:
    def __init__(self) -> None:
        self.moment = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.moment


def _ended_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_running_jobs_of_a_live_judge_stay_theirs_until_its_heartbeat_stops(queue_store: tuple[Store, int]) -> None:
    store, version = queue_store
    rater = "judge:m:binary@v1"
    store.enqueue_judge_jobs(rater, version, "binary")
    clock = _FakeClock()
    first, second = Lease(store, seconds=60, clock=clock), Lease(store, seconds=60, clock=clock)
    first.register()
    second.register()
    store.claim_judge_jobs(rater, 3, owner=first.owner)
    # the second judge starts while the first has three calls in flight: they are not taken from it
    assert store.requeue_orphaned_judge_jobs(rater, second.live_owners()) == 0
    clock.moment += timedelta(seconds=45)
    first.beat()
    clock.moment += timedelta(seconds=45)
    assert first.owner in second.live_owners()  # 45 s since its last beat: still within its lease
    assert store.requeue_orphaned_judge_jobs(rater, second.live_owners()) == 0
    clock.moment += timedelta(seconds=30)  # 75 s without a beat: the first judge is gone
    assert second.live_owners() == [second.owner]
    assert store.requeue_orphaned_judge_jobs(rater, second.live_owners()) == 3
    assert [w["id"] for w in store.judge_workers()] == [second.owner]


def test_running_jobs_of_an_ended_process_come_back_at_once(queue_store: tuple[Store, int]) -> None:
    store, version = queue_store
    rater = "judge:m:binary@v1"
    store.enqueue_judge_jobs(rater, version, "binary")
    clock = _FakeClock()
    mine = Lease(store, clock=clock)
    dead = Lease(store, clock=clock)
    dead.pid = _ended_pid()  # a judge on this machine whose process has ended (killed), heartbeat still fresh
    dead.register()
    mine.register()
    store.claim_judge_jobs(rater, 2, owner=dead.owner)
    store.claim_judge_jobs(rater, 1, owner=mine.owner)
    assert store.requeue_orphaned_judge_jobs(rater, mine.live_owners()) == 2
    assert store.judge_job_counts(rater)["running"] == 1
