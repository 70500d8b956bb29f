"""Judging through the Message Batches API: custom_id matching, retries, and a restart mid-batch."""

from __future__ import annotations

import asyncio
from pathlib import Path

from judge_tui.judge.backends import AnthropicBackend
from judge_tui.judge.runner import BatchRunner, RunState
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from tests.judge import fake_anthropic as fa
from tests.judge.conftest import assert_consistent, fast, make_judge

ITEMS = 6


def batch_posts(fake: fa.FakeAnthropic) -> list[fa.Recorded]:
    return [r for r in fake.requests if r.method == "POST" and r.path == "/v1/messages/batches"]


def test_a_batch_judges_everything_and_matches_results_by_custom_id(fake: fa.FakeAnthropic, cis_store: Store,
                                                                    rubrics: dict[str, Rubric]) -> None:
    fake.batch_polls = 3
    judge = make_judge(cis_store, rubrics["cis"])
    judge.queue.enqueue()
    state = asyncio.run(BatchRunner(judge, fast()).run())
    assert (state.done, state.failed, state.queued, state.running) == (ITEMS, 0, 0, 0)
    assert_consistent(cis_store, judge.rater_id, ITEMS)
    [post] = batch_posts(fake)
    sent = post.body["requests"]
    jobs = {j["id"]: j for j in cis_store.judge_jobs(judge.rater_id)}
    assert sorted(r["custom_id"] for r in sent) == sorted(f"job-{i}" for i in jobs)
    assert all(r["params"]["temperature"] == 0.0 for r in sent)
    assert sent[0]["params"]["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert not fake.message_requests()  # nothing went through the one-at-a-time endpoint
    # results came back in reverse order; each still landed on its own item
    for job in jobs.values():
        rating = cis_store.rating(job["item_id"], judge.rater_id)
        assert rating.details["batch_id"] == post_id(fake)
        assert rating.details["sampling"]["batch"] is True
    assert cis_store.open_judge_batches(judge.rater_id) == []
    # batch calls cost half
    first = cis_store.judge_calls(next(iter(jobs)))[0]
    assert first["cost_usd"] > 0


def post_id(fake: fa.FakeAnthropic) -> str:
    return next(iter(fake._batches))


def test_errored_requests_are_retried_in_a_new_batch(fake: fa.FakeAnthropic, cis_store: Store,
                                                     rubrics: dict[str, Rubric]) -> None:
    fake.add_rule(fa.OVERLOADED, contains="I wrapped an OrderedDict", times=1)
    fake.add_rule(fa.OFF_SCALE, contains="B002-never-matches")
    judge = make_judge(cis_store, rubrics["cis"])
    judge.queue.enqueue()
    state = asyncio.run(BatchRunner(judge, fast()).run())
    assert (state.done, state.failed) == (ITEMS, 0)
    posts = batch_posts(fake)
    assert [len(p.body["requests"]) for p in posts] == [ITEMS, 1]
    assert_consistent(cis_store, judge.rater_id, ITEMS)


def test_temperature_rejected_in_a_batch_is_resent_without_it(fake: fa.FakeAnthropic, cis_store: Store,
                                                              rubrics: dict[str, Rubric]) -> None:
    fake.reject_temperature = True
    judge = make_judge(cis_store, rubrics["cis"])
    judge.queue.enqueue()
    # A long backoff: retried batch requests must not wait for it, nor be spread over several batches by its jitter.
    state = asyncio.run(BatchRunner(judge, fast(backoff_base=30.0, backoff_cap=60.0)).run())
    assert state.done == ITEMS
    first, second = batch_posts(fake)
    assert "temperature" in first.body["requests"][0]["params"]
    assert "temperature" not in second.body["requests"][0]["params"]
    assert cis_store.rating("B003", judge.rater_id).details["sampling"]["temperature"] is None


def test_a_restart_mid_batch_resumes_polling_the_same_batch(fake: fa.FakeAnthropic, tmp_path: Path,
                                                            rubrics: dict[str, Rubric]) -> None:
    from tests.judge.conftest import add_cis_items

    fake.batch_polls = 1_000_000  # the batch will not end while the first process runs
    path = tmp_path / "batch.db"
    with Store(path) as store:
        add_cis_items(store, rubrics["cis"], ITEMS)
        judge = make_judge(store, rubrics["cis"])
        judge.queue.enqueue()

        async def first_process() -> None:
            runner = BatchRunner(judge, fast())
            task = asyncio.create_task(runner.run())
            while not store.open_judge_batches(judge.rater_id):
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.1)
            task.cancel()  # the process dies while polling

        asyncio.run(first_process())
        [open_batch] = store.open_judge_batches(judge.rater_id)
        assert store.judge_job_counts(judge.rater_id)["running"] == ITEMS
    # a new process: stale-job recovery must leave the batch's jobs alone, and poll the stored batch
    fake.batch_polls = 0
    with Store(path) as store:
        judge = make_judge(store, rubrics["cis"])
        assert judge.queue.requeue_orphaned() == 0
        state: RunState = asyncio.run(BatchRunner(judge, fast()).run())
        assert state.done == ITEMS
        assert len(batch_posts(fake)) == 1  # no second batch: nothing sent or judged twice
        assert_consistent(store, judge.rater_id, ITEMS)
        assert {r.details["batch_id"] for r in store.iter_ratings(rater_ids=[judge.rater_id])} == {open_batch["id"]}
        # reading the results again (a crash after recording) records nothing twice
        again = BatchRunner(make_judge(store, rubrics["cis"]), fast())
        assert asyncio.run(again._collect(open_batch["id"])) is True
        assert again.state.done_now == 0
        assert_consistent(store, judge.rater_id, ITEMS)


def test_batch_mode_needs_the_anthropic_backend(cis_store: Store, rubrics: dict[str, Rubric]) -> None:
    from judge_tui.judge.backends import ReplayBackend

    replay = tmp_replay(cis_store)
    judge = make_judge(cis_store, rubrics["cis"], ReplayBackend(replay))
    try:
        BatchRunner(judge, fast())
    except ValueError as exc:
        assert "no batch mode" in str(exc)
    else:
        raise AssertionError("expected ValueError")
    assert isinstance(make_judge(cis_store, rubrics["cis"]).backend, AnthropicBackend)


def tmp_replay(store: Store) -> Path:
    path = store.path.parent / "replay.jsonl"
    path.write_text('{"item_id": "B001", "answer": "{}"}\n')
    return path
