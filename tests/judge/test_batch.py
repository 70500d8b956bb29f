"""Judging through the Message Batches API: custom_id matching, retries, and a restart mid-batch."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from judge_tui.judge.backends.anthropic import AnthropicBackend
from judge_tui.judge.batch_limits import BatchLimits
from judge_tui.judge.runner import BatchRunner, RunState
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from tests.judge import fake_anthropic as fa
from tests.judge.conftest import API_KEY, assert_consistent, fast, make_judge
from tests.narrowing import present
from tests.waiting import until

ITEMS = 6


def batch_posts(fake: fa.FakeAnthropic) -> list[fa.Recorded]:
    return [r for r in fake.requests if r.method == "POST" and r.path == "/v1/messages/batches"]


@pytest.mark.slow
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
        rating = present(cis_store.rating(job["item_id"], judge.rater_id))
        assert rating.details["batch_id"] == post_id(fake)
        assert rating.details["sampling"]["batch"] is True
    assert cis_store.open_judge_batches(judge.rater_id) == []
    # batch calls cost half
    first = cis_store.judge_calls(next(iter(jobs)))[0]
    assert first["cost_usd"] > 0


def post_id(fake: fa.FakeAnthropic) -> str:
    return next(iter(fake.batches))


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
    assert present(cis_store.rating("B003", judge.rater_id)).details["sampling"]["temperature"] is None


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
            await until(lambda: any(batch["polls"] for batch in fake.batches.values()),
                        "the batch sent and polled", every=0.01)
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
        assert asyncio.run(again.read_results(open_batch["id"])) is True
        assert again.state.done_now == 0
        assert_consistent(store, judge.rater_id, ITEMS)


def test_batch_mode_needs_the_anthropic_backend(cis_store: Store, rubrics: dict[str, Rubric]) -> None:
    from judge_tui.judge.backends.replay import ReplayBackend

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


# --------------------------------------------------------------------------- what one batch may hold


def _create_batch_directly(fake: fa.FakeAnthropic, requests: list[dict[str, Any]]) -> int:
    """POST a batch through the real SDK; the HTTP status the fake answered."""
    import anthropic

    client = anthropic.Anthropic(api_key=API_KEY, base_url=fake.url, max_retries=0)
    try:
        client.messages.batches.create(requests=requests)  # type: ignore[arg-type]  # raw entries, to test the fake's limits
    except anthropic.APIStatusError as exc:
        return exc.status_code
    finally:
        client.close()
    return 200


def test_the_fake_refuses_a_batch_over_either_limit_as_the_api_does(fake: fa.FakeAnthropic) -> None:
    entry: dict[str, Any] = {"custom_id": "job-1", "params": {"model": "claude-sonnet-5", "max_tokens": 10,
                                              "messages": [{"role": "user", "content": "x" * 2000}]}}
    fake.max_batch_requests, fake.max_batch_bytes = 3, 5_000
    assert _create_batch_directly(fake, [entry, entry]) == 200
    assert _create_batch_directly(fake, [entry] * 3) == 413  # over the size limit
    small = {**entry, "params": {**entry["params"], "messages": [{"role": "user", "content": "x"}]}}
    assert _create_batch_directly(fake, [small] * 4) == 400  # over the count limit
    assert [r.behaviour for r in batch_posts(fake)] == ["", "request_too_large", "too_many_requests"]


def test_the_size_of_a_batch_is_measured_as_the_sdk_sends_it(fake: fa.FakeAnthropic, tmp_path: Path,
                                                             rubrics: dict[str, Rubric]) -> None:
    from judge_tui.model.records import Item
    from tests.judge.conftest import add_cis_items, cis_rows

    with Store(tmp_path / "sized.db") as store:
        add_cis_items(store, rubrics["cis"], 24)
        row = cis_rows(25)[24]
        fields = {k: f"{v} — naïve, 日本語" if isinstance(v, str) else v for k, v in row.items()
                  if k not in ("id", "split")}
        store.add_items([Item(id=row["id"], rubric="cis", fields=fields, task_type=row.get("task_type"))])
        judge = make_judge(store, rubrics["cis"])
        judge.queue.enqueue()
        requests = [present(judge.request(job)) for job in store.judge_jobs(judge.rater_id)]
        assert isinstance(judge.backend, AnthropicBackend)  # the batch API is Anthropic's
        sizes = [judge.backend.batch_entry_bytes(r) for r in requests]

        async def send() -> None:
            assert isinstance(judge.backend, AnthropicBackend)
            await judge.backend.create_batch(requests)
            await judge.backend.close()

        asyncio.run(send())
    [post] = batch_posts(fake)
    assert BatchLimits().body_bytes(sizes) == post.size  # to the byte, non-ASCII text included
    assert min(sizes) > 5_000  # the rubric prefix rides in every request


def test_a_queue_over_the_size_limit_goes_in_several_batches_none_refused(fake: fa.FakeAnthropic, tmp_path: Path,
                                                                          rubrics: dict[str, Rubric]) -> None:
    """The same limits as the API's, scaled down: 25 CIS requests of about 11 KB against a 100 KB batch."""
    from tests.judge.conftest import add_cis_items

    fake.max_batch_bytes = 100_000
    with Store(tmp_path / "split.db") as store:
        add_cis_items(store, rubrics["cis"], 25)
        judge = make_judge(store, rubrics["cis"])
        judge.queue.enqueue()
        limits = BatchLimits(max_bytes=100_000, headroom=2_000)
        states: list[list[tuple[int, str, int]]] = []

        def seen(state: RunState) -> None:
            states.append([(b.requests, b.status, b.succeeded) for b in state.batches.values()])

        state = asyncio.run(BatchRunner(judge, fast(batch_limits=limits), seen).run())
        assert (state.done, state.failed, state.error) == (25, 0, "")
        assert_consistent(store, judge.rater_id, 25)
        posts = batch_posts(fake)
        assert len(posts) >= 3
        assert all(p.behaviour == "" for p in posts)
        assert all(p.size <= limits.budget for p in posts)
        assert max(p.size for p in posts) > limits.budget - 15_000  # filled, not cut needlessly small
        assert sum(len(p.body["requests"]) for p in posts) == 25
        # each batch has its own progress: sent, then ended with all its requests succeeded
        final = states[-1]
        assert [n for n, _, _ in final] == [len(p.body["requests"]) for p in posts]
        assert all(status == "ended" and ok == n for n, status, ok in final)
        assert store.open_judge_batches(judge.rater_id) == []


def test_a_queue_over_the_count_limit_goes_in_several_batches(fake: fa.FakeAnthropic, cis_store: Store,
                                                              rubrics: dict[str, Rubric]) -> None:
    fake.max_batch_requests = 4
    judge = make_judge(cis_store, rubrics["cis"])
    judge.queue.enqueue()
    state = asyncio.run(BatchRunner(judge, fast(batch_limits=BatchLimits(max_requests=4))).run())
    assert (state.done, state.error) == (ITEMS, "")
    assert [len(p.body["requests"]) for p in batch_posts(fake)] == [4, 2]
    assert_consistent(cis_store, judge.rater_id, ITEMS)


def test_a_request_too_large_for_any_batch_fails_alone_saying_why(fake: fa.FakeAnthropic, cis_store: Store,
                                                                  rubrics: dict[str, Rubric]) -> None:
    judge = make_judge(cis_store, rubrics["cis"])
    judge.queue.enqueue()
    assert isinstance(judge.backend, AnthropicBackend)  # the batch API is Anthropic's
    sizes = {job["item_id"]: judge.backend.batch_entry_bytes(present(judge.request(job)))
             for job in cis_store.judge_jobs(judge.rater_id)}
    biggest = max(sizes, key=sizes.__getitem__)
    assert sorted(sizes.values())[-2] < sizes[biggest] - 20  # the others fit alone
    limits = BatchLimits(max_bytes=sizes[biggest], margin=0.0, headroom=0)  # the body's envelope tips it over
    fake.max_batch_bytes = limits.max_bytes
    state = asyncio.run(BatchRunner(judge, fast(batch_limits=limits)).run())
    assert (state.done, state.failed, state.error) == (ITEMS - 1, 1, "")
    [failed] = cis_store.judge_jobs(judge.rater_id, status="failed")
    assert failed["item_id"] == biggest
    assert "more than a Message Batch can hold" in failed["last_error"]
    assert "shorten the item" in failed["last_error"]
    assert all(p.behaviour == "" for p in batch_posts(fake))


def test_results_that_fail_to_download_are_read_again_in_the_same_run(fake: fa.FakeAnthropic, cis_store: Store,
                                                                       rubrics: dict[str, Rubric]) -> None:
    fake.results_failures = 2
    judge = make_judge(cis_store, rubrics["cis"])
    judge.queue.enqueue()
    state = asyncio.run(BatchRunner(judge, fast()).run())
    assert (state.done, state.error) == (ITEMS, "")
    assert len(batch_posts(fake)) == 1  # read again, not sent again
    assert_consistent(cis_store, judge.rater_id, ITEMS)


def test_a_run_stopped_between_two_batches_resumes_with_the_rest(fake: fa.FakeAnthropic, tmp_path: Path,
                                                                 rubrics: dict[str, Rubric]) -> None:
    from tests.judge.conftest import add_cis_items

    fake.batch_polls = 1_000_000  # nothing ends while the first process runs
    fake.max_batch_requests = 2
    path = tmp_path / "between.db"
    with Store(path) as store:
        add_cis_items(store, rubrics["cis"], ITEMS)
        judge = make_judge(store, rubrics["cis"])
        judge.queue.enqueue()
        assert isinstance(judge.backend, AnthropicBackend)  # the batch API is Anthropic's
        sent = judge.backend.create_batch

        async def first_batch_then_stopped(requests: list) -> str:
            if batch_posts(fake):
                raise asyncio.CancelledError  # Ctrl-C between the first batch and the second
            return await sent(requests)

        judge.backend.create_batch = first_batch_then_stopped  # type: ignore[method-assign]  # stopped between two batches
        runner = BatchRunner(judge, fast(batch_limits=BatchLimits(max_requests=2)))
        with pytest.raises(asyncio.CancelledError):
            asyncio.run(runner.run())
        first, stopped = store.open_judge_batches(judge.rater_id)
        # the batch being sent when the run stopped is kept, with its jobs, for the next run to look for
        assert (first["status"], stopped["status"]) == ("in_progress", "sending")
        assert store.judge_job_counts(judge.rater_id) == {"queued": 2, "running": 4, "done": 0, "failed": 0}
    fake.batch_polls = 0
    with Store(path) as store:
        judge = make_judge(store, rubrics["cis"])
        # Run once the API has had its time to list the stopped batch (tests/judge/test_batch_recovery.py waits).
        state = asyncio.run(BatchRunner(judge, fast(batch_limits=BatchLimits(max_requests=2), batch_grace=0)).run())
        assert (state.done, state.error) == (ITEMS, "")
        assert list(state.batches)[0] == first["id"]  # the stored batch was polled, not sent again
        # the API had no batch of the stopped one's size besides the first: its jobs were sent, once
        assert [len(p.body["requests"]) for p in batch_posts(fake)] == [2, 2, 2]
        assert "it never reached the API, so its items were sent again" in state.notice
        assert_consistent(store, judge.rater_id, ITEMS)


def test_the_judge_command_shows_each_batch(fake: fa.FakeAnthropic, tmp_path: Path, rubrics: dict[str, Rubric],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    from judge_tui.cli import build_parser
    from judge_tui.cli import judge as headless
    from tests.judge.conftest import add_cis_items

    fake.max_batch_requests = 4
    db = tmp_path / "shown.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], ITEMS)
    args = build_parser().parse_args(["judge", "--db", str(db), "--rubric", "cis", "--batch",
                                      "--model", "claude-sonnet-5"])
    assert headless.run(args, fast(batch_limits=BatchLimits(max_requests=4))) == 0
    out = capsys.readouterr().out
    ids = list(fake.batches)
    assert "batch 1 of 2" in out
    assert "batch 2 of 2" in out
    assert f"ended · 4 succeeded · 0 errored · {ids[0]}" in out
    assert f"ended · 2 succeeded · 0 errored · {ids[1]}" in out
    assert "cis: 6 done, 0 failed, 0 waiting" in out
