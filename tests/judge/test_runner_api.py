"""The runner against a fake Messages API, through the real anthropic SDK.

For every behaviour of the API the queue must end consistent: nothing lost, nothing judged twice, every
failure stored with its error and raw text.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from judge_tui.judge.backends import JudgeAnswer, JudgeRequest, OfflineError
from judge_tui.judge.backends.anthropic import AnthropicBackend
from judge_tui.judge.runner import Judge, JudgeRunner, RunState
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from tests.judge import fake_anthropic as fa
from tests.judge.conftest import API_KEY, assert_consistent, fast, make_judge
from tests.narrowing import present
from tests.waiting import wait_until

ITEMS = 6
HANG_GUARD = 300.0  # seconds: only ends a run that hangs; the tests wait on events, never on this
B001_MARK = "I wrapped an OrderedDict"  # only B001 says this


def run(store: Store, rubric: Rubric, **option_changes: Any) -> tuple[RunState, Judge, list[RunState]]:
    judge = make_judge(store, rubric, AnthropicBackend("claude-sonnet-5", **option_changes.pop("backend", {})))
    judge.queue.enqueue(repeats=option_changes.pop("repeats", 1))
    seen: list[RunState] = []

    def snapshot(state: RunState) -> None:
        seen.append(RunState(**{k: v for k, v in vars(state).items() if k != "usage"}))

    state = asyncio.run(JudgeRunner(judge, fast(**option_changes), snapshot).run())
    return state, judge, seen


def test_answers_become_ratings_with_their_provenance(fake: fa.FakeAnthropic, cis_store: Store,
                                                      rubrics: dict[str, Rubric]) -> None:
    state, judge, _ = run(cis_store, rubrics["cis"])
    assert (state.done, state.failed, state.queued, state.running) == (ITEMS, 0, 0, 0)
    assert_consistent(cis_store, judge.rater_id, ITEMS)
    assert judge.rater_id == f"judge:claude-sonnet-5:cis@{judge.prompt.version}"
    rater = present(cis_store.rater(judge.rater_id))
    assert (rater["kind"], rater["model"], rater["prompt_version"]) == ("judge", "claude-sonnet-5", judge.prompt.version)
    rating = present(cis_store.rating("B001", judge.rater_id))
    assert set(rating.scores) == {"r", "a", "t", "l"}
    assert rating.overall == pytest.approx(sum(rating.scores.values()) / 4)
    assert rating.notes == "reasoning written by the fake API"
    details = rating.details
    assert details["model"] == "claude-sonnet-5"
    assert details["prompt_version"] == judge.prompt.version
    assert details["sampling"] == {"temperature": 0.0}
    assert details["few_shot_ids"] == []
    assert details["raw_text"].startswith("{")
    assert details["cost_usd"] > 0
    calls = cis_store.judge_calls(cis_store.judge_jobs(judge.rater_id)[0]["id"])
    assert len(calls) == 1
    assert calls[0]["outcome"] == "done"
    assert calls[0]["sampling"] == {"temperature": 0.0}
    # what went over the wire: the schema enforced by the API, temperature in the body, the prefix cacheable
    body = fake.message_requests()[0].body
    assert body["output_config"]["format"]["type"] == "json_schema"
    assert body["output_config"]["format"]["schema"] == judge.prompt.output.json_schema()
    assert body["temperature"] == 0.0
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert body["messages"][0]["content"].startswith("Rate this submission.")


def test_first_call_goes_alone_then_all_read_the_cache(fake: fa.FakeAnthropic, cis_store: Store,
                                                       rubrics: dict[str, Rubric]) -> None:
    fake.latency = 0.1
    state, judge, _ = run(cis_store, rubrics["cis"], concurrency=4)
    requests = fake.message_requests()
    assert len(requests) == ITEMS
    # nothing else was sent until the first answer (which wrote the cache) came back
    assert all(r.at >= requests[0].at + 0.1 for r in requests[1:])
    assert fake.max_concurrent_seen == 4
    assert present(state.first_usage).cache_write_tokens > 1000
    assert present(state.first_usage).cache_read_tokens == 0
    reads = [c for j in cis_store.judge_jobs(judge.rater_id) for c in cis_store.judge_calls(j["id"])]
    assert sum(1 for c in reads if c["cache_read_tokens"] > 0) == ITEMS - 1
    assert sum(1 for c in reads if c["cache_write_tokens"] > 0) == 1
    assert state.usage.cache_read_tokens == present(state.first_usage).cache_write_tokens * (ITEMS - 1)


@pytest.mark.parametrize("behaviour", [fa.RATE_LIMIT, fa.OVERLOADED, fa.SERVER_ERROR, fa.DROP, fa.BAD_BODY])
def test_passing_problems_are_retried_until_judged(fake: fa.FakeAnthropic, cis_store: Store,
                                                   rubrics: dict[str, Rubric], behaviour: str) -> None:
    fake.script.extend([fa.OK, behaviour, behaviour])  # the second and third calls fail, then all is well
    state, judge, _ = run(cis_store, rubrics["cis"])
    assert (state.done, state.failed) == (ITEMS, 0)
    assert_consistent(cis_store, judge.rater_id, ITEMS)
    assert len(fake.message_requests()) == ITEMS + 2
    attempts = sorted(j["attempts"] for j in cis_store.judge_jobs(judge.rater_id))
    assert sum(attempts) == ITEMS + 2


def test_retry_after_is_honoured(fake: fa.FakeAnthropic, cis_store: Store, rubrics: dict[str, Rubric]) -> None:
    fake.retry_after = "0.4"
    fake.script.extend([fa.OK, fa.RATE_LIMIT])
    state, _judge, _ = run(cis_store, rubrics["cis"], concurrency=1)
    assert state.done == ITEMS
    requests = fake.message_requests()
    assert requests[1].behaviour == fa.RATE_LIMIT
    assert requests[2].at - requests[1].at >= 0.4  # far longer than the 0.01 s backoff the options ask for


def test_a_429_pauses_every_call_not_just_its_own(fake: fa.FakeAnthropic, cis_store: Store,
                                                  rubrics: dict[str, Rubric]) -> None:
    """The calls sent with the limited one answer after the runner has taken in its 429, freeing their slots,
    yet nothing new is sent while the pause the API asked for lasts. Ordered by events, never by timing: the
    fake API holds those answers until the runner has paused, and the pause (30 s) outlasts any test machine's
    delay; the run is stopped once the answers are in."""
    fake.retry_after = "30"
    fake.script.extend([fa.OK, fa.RATE_LIMIT])
    judge = make_judge(cis_store, rubrics["cis"], AnthropicBackend("claude-sonnet-5"))
    judge.queue.enqueue()
    held = threading.Event()
    seen: dict[str, int] = {}

    def progress(state: RunState) -> None:
        if state.done == 1 and fake.hold is None:
            fake.hold = held  # the first call answered alone; the next four go out together and are held
        if fake.hold is held and (state.done, state.running) == (1, 3) and not held.is_set():
            held.set()  # one of the four came back without a rating, the 429: now the other three answer
        if state.done == 4 and "running_after" not in seen:
            seen["running_after"], seen["requests_after"] = state.running, len(fake.message_requests())
            runner.stop()
            runner.poke()

    runner = JudgeRunner(judge, fast(concurrency=4), progress)
    state = asyncio.run(runner.run())
    assert seen == {"running_after": 0, "requests_after": 5}  # three slots free, none used
    assert [r.behaviour for r in fake.message_requests()] == [fa.OK, fa.RATE_LIMIT, fa.OK, fa.OK, fa.OK]
    assert (state.done, state.queued, state.running) == (4, 2, 0)  # the limited job and the sixth wait, not lost
    assert_consistent(cis_store, judge.rater_id, ITEMS)


def test_a_retry_due_between_the_claim_and_the_wait_is_still_judged(fake: fa.FakeAnthropic, cis_store: Store,
                                                                      rubrics: dict[str, Rubric]) -> None:
    """The runner claims what is due, then asks when the next retry is; a retry that fell due in between ended
    the run with the job left in the queue (seen under load). Here the retry waits 30 s or more, so the claim
    certainly finds it not yet due, and falls due (its time is moved into the past) just as the question is
    asked: that moment is certain, not a matter of luck."""
    fake.script.extend([fa.SERVER_ERROR])
    judge = make_judge(cis_store, rubrics["cis"], AnthropicBackend("claude-sonnet-5"))
    judge.queue.enqueue(limit=1)
    ask = judge.queue.next_retry_at
    moved: list[str] = []

    def asked_as_it_falls_due() -> datetime | None:
        if ask() is not None and not moved:
            moved.append("2000-01-01T00:00:00.000+00:00")
            cis_store.db.execute("UPDATE judge_jobs SET next_attempt_at = ? WHERE status = 'queued'", moved)
        return ask()

    judge.queue.next_retry_at = asked_as_it_falls_due  # type: ignore[method-assign]  # the due time moves under the runner
    state = asyncio.run(JudgeRunner(judge, fast(backoff_base=60.0, backoff_cap=60.0)).run())
    assert moved  # the moment in question did happen
    assert (state.done, state.failed, state.queued) == (1, 0, 0)
    assert [r.behaviour for r in fake.message_requests()] == [fa.SERVER_ERROR, fa.OK]
    assert_consistent(cis_store, judge.rater_id, 1)


def test_a_problem_that_persists_fails_the_job_after_max_attempts(fake: fa.FakeAnthropic, cis_store: Store,
                                                                  rubrics: dict[str, Rubric]) -> None:
    fake.add_rule(fa.BAD_BODY, contains=B001_MARK)
    state, judge, _ = run(cis_store, rubrics["cis"], max_attempts=3)
    assert (state.done, state.failed) == (ITEMS - 1, 1)
    assert_consistent(cis_store, judge.rater_id, ITEMS)
    failed = cis_store.judge_jobs(judge.rater_id, "failed")[0]
    assert failed["item_id"] == "B001"
    assert failed["attempts"] == 3
    assert "gave up after 3 attempts" in failed["last_error"]
    assert failed["raw_output"].startswith('{"id": "msg_broken"')  # the garbled body, as received


@pytest.mark.parametrize(("behaviour", "kind"), [
    (fa.NOT_JSON, "invalid_json"), (fa.SCHEMA_BREAK, "schema_mismatch"), (fa.OFF_SCALE, "off_scale"),
    (fa.REFUSAL, "declined"),
])
def test_unusable_answers_fail_once_and_keep_the_raw_text(fake: fa.FakeAnthropic, cis_store: Store,
                                                          rubrics: dict[str, Rubric], behaviour: str,
                                                          kind: str) -> None:
    fake.add_rule(behaviour, contains=B001_MARK)
    state, judge, _ = run(cis_store, rubrics["cis"])
    assert (state.done, state.failed) == (ITEMS - 1, 1)
    assert_consistent(cis_store, judge.rater_id, ITEMS)
    failed = cis_store.judge_jobs(judge.rater_id, "failed")[0]
    assert kind in failed["last_error"]
    assert failed["attempts"] == 1
    assert cis_store.rating("B001", judge.rater_id) is None  # never coerced into a rating
    if behaviour != fa.REFUSAL:
        assert failed["raw_output"]
        sent = next(r for r in fake.message_requests() if B001_MARK in r.body["messages"][0]["content"])
        assert sent.behaviour == behaviour
    if behaviour == fa.OFF_SCALE:
        assert "0.7" in failed["raw_output"]
    assert len(cis_store.judge_calls(failed["id"])) == 1  # the tokens of a failed call are still accounted


def test_temperature_rejected_falls_back_and_says_so(fake: fa.FakeAnthropic, cis_store: Store,
                                                    rubrics: dict[str, Rubric]) -> None:
    fake.reject_temperature = True
    state, judge, _ = run(cis_store, rubrics["cis"])
    assert (state.done, state.failed) == (ITEMS, 0)
    requests = fake.message_requests()
    assert requests[0].behaviour == "temperature_rejected"
    assert all("temperature" not in r.body for r in requests[1:])
    assert len(requests) == ITEMS + 1
    sampling = present(cis_store.rating("B002", judge.rater_id)).details["sampling"]
    assert sampling["temperature"] is None
    assert "rejected" in sampling["note"]
    assert cis_store.get_meta("judge.temperature_rejected:claude-sonnet-5") == "1"
    # the next run does not ask again
    fake.requests.clear()
    cis_store.requeue_failed_judge_jobs(judge.rater_id)
    judge2 = make_judge(cis_store, rubrics["cis"])
    assert isinstance(judge2.backend, AnthropicBackend)
    assert judge2.backend.temperature_rejected


@pytest.mark.parametrize(("behaviour", "words"), [(fa.UNAUTHORIZED, "401"), (fa.PAYMENT, "spend limit")])
def test_auth_and_billing_errors_stop_the_queue(fake: fa.FakeAnthropic, cis_store: Store,
                                                rubrics: dict[str, Rubric], behaviour: str, words: str) -> None:
    fake.add_rule(behaviour)
    state, judge, _ = run(cis_store, rubrics["cis"])
    assert words in state.error
    assert len(fake.message_requests()) == 1  # no hammering
    assert cis_store.judge_job_counts(judge.rater_id) == {"queued": ITEMS, "running": 0, "done": 0, "failed": 0}
    assert all(j["attempts"] == 0 for j in cis_store.judge_jobs(judge.rater_id))


def test_a_wrong_key_stops_the_queue(fake: fa.FakeAnthropic, cis_store: Store, rubrics: dict[str, Rubric],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-wrong")
    state, _judge, _ = run(cis_store, rubrics["cis"])
    assert "API key was refused" in state.error
    assert "ANTHROPIC_API_KEY" in state.error


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _refused_calls_counted(judge: Judge, monkeypatch: pytest.MonkeyPatch, enough: int) -> asyncio.Event:
    """An event set once the backend has been refused `enough` times for being offline (each refusal is a real
    call through the SDK; only counted here). Made inside the running loop."""
    refused = asyncio.Event()
    count = 0
    real = judge.backend.judge

    async def counted(request: JudgeRequest) -> JudgeAnswer:
        nonlocal count
        try:
            return await real(request)
        except OfflineError:
            count += 1
            if count >= enough:
                refused.set()
            raise

    monkeypatch.setattr(judge.backend, "judge", counted)
    return refused


def test_offline_waits_then_resumes_when_the_server_comes_up(cis_store: Store, rubrics: dict[str, Rubric],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Ordered by events, never by timing: the server comes up only once the runner has been refused twice (the
    first call and a probe), however long the SDK takes to load on a busy machine."""
    port = _free_port()
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{port}")
    server = fa.FakeAnthropic(api_key=API_KEY)
    judge = make_judge(cis_store, rubrics["cis"])
    judge.queue.enqueue()
    offline_seen: list[str] = []

    def watch(state: RunState) -> None:
        if state.offline:
            offline_seen.append(state.offline)

    async def main() -> RunState:
        refused_twice = _refused_calls_counted(judge, monkeypatch, 2)
        runner = JudgeRunner(judge, fast(offline_probe=0.05), watch)
        task = asyncio.create_task(runner.run())
        await asyncio.wait_for(refused_twice.wait(), HANG_GUARD)
        # connection refused all along: waiting, not failing
        assert cis_store.judge_job_counts(judge.rater_id)["failed"] == 0
        server.start(port)
        return await asyncio.wait_for(task, HANG_GUARD)

    try:
        state = asyncio.run(main())
    finally:
        server.stop()
    assert offline_seen
    assert "cannot reach the API" in offline_seen[0]
    assert (state.done, state.failed, state.offline) == (ITEMS, 0, "")
    assert all(j["attempts"] == 1 for j in cis_store.judge_jobs(judge.rater_id))
    assert_consistent(cis_store, judge.rater_id, ITEMS)


def test_no_api_key_waits_then_resumes_when_one_is_set(fake: fa.FakeAnthropic, cis_store: Store,
                                                       rubrics: dict[str, Rubric],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The key is set only once the runner has said it has none, twice: ordered by events, never by timing."""
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    judge = make_judge(cis_store, rubrics["cis"])
    judge.queue.enqueue()
    states: list[str] = []

    async def main() -> RunState:
        refused_twice = _refused_calls_counted(judge, monkeypatch, 2)
        runner = JudgeRunner(judge, fast(), lambda s: states.append(s.offline))
        task = asyncio.create_task(runner.run())
        await asyncio.wait_for(refused_twice.wait(), HANG_GUARD)
        assert cis_store.judge_job_counts(judge.rater_id)["failed"] == 0
        monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
        return await asyncio.wait_for(task, HANG_GUARD)

    state = asyncio.run(main())
    assert "no ANTHROPIC_API_KEY in the environment" in states
    assert state.done == ITEMS
    assert state.offline == ""


def test_forced_tool_structured_output(fake: fa.FakeAnthropic, cis_store: Store, rubrics: dict[str, Rubric]) -> None:
    state, judge, _ = run(cis_store, rubrics["cis"], backend={"structured": "tool"})
    assert state.done == ITEMS
    body = fake.message_requests()[0].body
    assert body["tool_choice"] == {"type": "tool", "name": "record_judgment"}
    assert body["tools"][0]["input_schema"] == judge.prompt.output.json_schema()
    assert "output_config" not in body


def test_repeats_are_separate_judgments(fake: fa.FakeAnthropic, cis_store: Store, rubrics: dict[str, Rubric]) -> None:
    state, judge, _ = run(cis_store, rubrics["cis"], repeats=3)
    assert state.done == ITEMS * 3
    assert_consistent(cis_store, judge.rater_id, ITEMS * 3)
    assert sorted({r.repeat for r in cis_store.iter_ratings(rater_ids=[judge.rater_id])}) == [0, 1, 2]


def test_the_api_key_is_never_written_anywhere(fake: fa.FakeAnthropic, tmp_path: Path, rubrics: dict[str, Rubric]) -> None:
    from tests.judge.conftest import add_cis_items

    path = tmp_path / "secret.db"
    with Store(path) as store:
        add_cis_items(store, rubrics["cis"], 3)
        fake.add_rule(fa.UNAUTHORIZED, contains=B001_MARK, times=1)
        run(store, rubrics["cis"])  # a refused call puts an error message in the queue
        fake.rules.clear()
        store.requeue_failed_judge_jobs(make_judge(store, rubrics["cis"]).rater_id)
        run(store, rubrics["cis"])
        assert store.count_ratings() == 3
    data = b"".join(p.read_bytes() for p in tmp_path.glob("secret.db*"))
    assert API_KEY.encode() not in data
    assert b"DO-NOT-STORE" not in data


def test_concurrency_limit_holds(fake: fa.FakeAnthropic, cis_store: Store, rubrics: dict[str, Rubric]) -> None:
    """Two calls at once at most, and two do run at once: once the first call has answered alone (it writes the
    cache), the fake API holds the calls until two are in flight, however slow the machine."""
    fake.latency = 0.05  # long enough for calls to overlap, were more than two allowed
    held = threading.Event()

    def release_once_two_are_in() -> None:
        try:  # a failed wait still lets the calls go: the assertion below then says what happened
            wait_until(lambda: fake.in_flight() >= 2, "two calls in flight", limit=HANG_GUARD, every=0.002)
        finally:
            held.set()

    def progress(state: RunState) -> None:
        if state.done == 1 and fake.hold is None:
            fake.hold = held
            threading.Thread(target=release_once_two_are_in, daemon=True).start()

    judge = make_judge(cis_store, rubrics["cis"], AnthropicBackend("claude-sonnet-5"))
    judge.queue.enqueue()
    state = asyncio.run(JudgeRunner(judge, fast(concurrency=2), progress).run())
    assert state.done == ITEMS
    assert fake.max_concurrent_seen == 2


def test_waiting_offline_does_not_spin(cis_store: Store, rubrics: dict[str, Rubric],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # a job whose retry time has passed, and no key: the runner sleeps until the next probe, it does not spin
    judge = make_judge(cis_store, rubrics["cis"])
    judge.queue.enqueue(limit=1)
    [job] = cis_store.claim_judge_jobs(judge.rater_id, 1)
    cis_store.retry_judge_job(job["id"], "500", next_attempt_at="2000-01-01T00:00:00.000+00:00")
    looks = 0
    real = judge.queue.next_retry_at

    def counted():  # noqa: ANN202
        nonlocal looks
        looks += 1
        return real()

    monkeypatch.setattr(judge.queue, "next_retry_at", counted)

    async def main() -> None:
        runner = JudgeRunner(judge, fast(offline_probe=0.2))
        task = asyncio.create_task(runner.run())
        await asyncio.sleep(0.5)
        runner.stop()
        await asyncio.wait_for(task, 5)

    asyncio.run(main())
    assert looks < 20
