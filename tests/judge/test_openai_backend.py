"""The openai backend against a fake OpenAI-compatible server on 127.0.0.1, through the real openai SDK.

The same queue as the Anthropic backend's: every answer strictly checked (a server may accept a schema and not
enforce it), passing faults retried, a server that is not running waited for, and the queue consistent after.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from judge_tui.judge.backends.openai import OpenAIBackend
from judge_tui.judge.runner import Judge, JudgeRunner, RunState
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from tests.judge import fake_openai as fo
from tests.judge.conftest import assert_consistent, fast, make_judge
from tests.narrowing import present
from tests.waiting import until

ITEMS = 6
B001_MARK = "I wrapped an OrderedDict"  # only B001 says this
MODEL = "llama3.1:8b"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[fo.FakeOpenAI]:
    with fo.serving(monkeypatch) as fake:
        yield fake


def run(store: Store, rubric: Rubric, base_url: str, **option_changes: Any) -> tuple[RunState, Judge]:
    backend = OpenAIBackend(MODEL, base_url=base_url, **option_changes.pop("backend", {}))
    judge = make_judge(store, rubric, backend)
    judge.queue.enqueue()
    state = asyncio.run(JudgeRunner(judge, fast(**option_changes)).run())
    return state, judge


def test_answers_become_ratings_with_the_schema_sent_and_temperature_zero(
        server: fo.FakeOpenAI, cis_store: Store, rubrics: dict[str, Rubric]) -> None:
    state, judge = run(cis_store, rubrics["cis"], server.url)
    assert (state.done, state.failed, state.queued, state.running) == (ITEMS, 0, 0, 0)
    assert_consistent(cis_store, judge.rater_id, ITEMS)
    assert judge.rater_id == f"judge:{MODEL}:cis@{judge.prompt.version}"
    rating = present(cis_store.rating("B001", judge.rater_id))
    assert set(rating.scores) == {"r", "a", "t", "l"}
    assert rating.notes == "reasoning written by the fake API"
    assert rating.source == "judge:openai"
    details = rating.details
    assert details["model"] == MODEL
    assert details["backend"] == "openai"
    assert details["sampling"] == {"temperature": 0.0, "backend": "openai"}
    assert details["cost_usd"] is None
    assert details["tokens"]["input"] > 0
    body = server.completion_requests()[0].body
    assert body["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "judgment", "schema": judge.prompt.output.json_schema(), "strict": True}}
    assert body["temperature"] == 0.0
    assert body["model"] == MODEL
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert body["messages"][1]["content"].startswith("Rate this submission.")


@pytest.mark.parametrize(("behaviour", "kind"), [
    (fo.SCHEMA_BREAK, "schema_mismatch"), (fo.OFF_SCALE, "off_scale"), (fo.NOT_JSON, "invalid_json"),
    (fo.REFUSAL, "declined"),
])
def test_an_answer_the_server_did_not_hold_to_the_schema_is_refused(
        server: fo.FakeOpenAI, cis_store: Store, rubrics: dict[str, Rubric], behaviour: str, kind: str) -> None:
    server.add_rule(behaviour, contains=B001_MARK)
    state, judge = run(cis_store, rubrics["cis"], server.url)
    assert (state.done, state.failed) == (ITEMS - 1, 1)
    assert_consistent(cis_store, judge.rater_id, ITEMS)
    failed = cis_store.judge_jobs(judge.rater_id, "failed")[0]
    assert failed["item_id"] == "B001"
    assert failed["attempts"] == 1
    assert kind in failed["last_error"]
    assert cis_store.rating("B001", judge.rater_id) is None  # never coerced into a rating
    if behaviour == fo.SCHEMA_BREAK:
        assert failed["last_error"].endswith("r_score: Field required")  # the missing key is named
    if behaviour == fo.OFF_SCALE:
        assert "0.7" in failed["raw_output"]
    if behaviour == fo.REFUSAL:
        assert "I can't help with that." in failed["last_error"]
    assert len(cis_store.judge_calls(failed["id"])) == 1  # the failed call's tokens are still accounted


@pytest.mark.parametrize("behaviour", [fo.RATE_LIMIT, fo.SERVER_ERROR, fo.DROP, fo.BAD_BODY])
def test_passing_faults_are_retried_until_judged(server: fo.FakeOpenAI, cis_store: Store,
                                                 rubrics: dict[str, Rubric], behaviour: str) -> None:
    server.script.extend([fo.OK, behaviour, behaviour])  # the second and third calls fail, then all is well
    state, judge = run(cis_store, rubrics["cis"], server.url)
    assert (state.done, state.failed) == (ITEMS, 0)
    assert_consistent(cis_store, judge.rater_id, ITEMS)
    assert [r.behaviour for r in server.completion_requests()[1:3]] == [behaviour, behaviour]
    assert len(server.completion_requests()) == ITEMS + 2
    assert sum(j["attempts"] for j in cis_store.judge_jobs(judge.rater_id)) == ITEMS + 2


def test_a_500_that_persists_fails_the_job_with_its_reason(server: fo.FakeOpenAI, cis_store: Store,
                                                           rubrics: dict[str, Rubric]) -> None:
    server.add_rule(fo.SERVER_ERROR, contains=B001_MARK)
    state, judge = run(cis_store, rubrics["cis"], server.url, max_attempts=3)
    assert (state.done, state.failed) == (ITEMS - 1, 1)
    failed = cis_store.judge_jobs(judge.rater_id, "failed")[0]
    assert failed["item_id"] == "B001"
    assert failed["attempts"] == 3
    assert "gave up after 3 attempts" in failed["last_error"]
    assert "the server failed (500)" in failed["last_error"]


def test_a_call_past_the_timeout_is_retried(server: fo.FakeOpenAI, cis_store: Store,
                                            rubrics: dict[str, Rubric]) -> None:
    server.add_rule(fo.SLOW, contains=B001_MARK, times=1)  # held until the test ends: only the timeout ends it
    state, judge = run(cis_store, rubrics["cis"], server.url, backend={"timeout": 0.3})
    assert (state.done, state.failed) == (ITEMS, 0)
    assert_consistent(cis_store, judge.rater_id, ITEMS)
    job = next(j for j in cis_store.judge_jobs(judge.rater_id) if j["item_id"] == "B001")
    assert job["attempts"] == 2
    assert [r.behaviour for r in server.completion_requests() if B001_MARK in r.body["messages"][1]["content"]] \
        == [fo.SLOW, fo.OK]


def test_a_timeout_that_persists_says_so(server: fo.FakeOpenAI, cis_store: Store, rubrics: dict[str, Rubric]) -> None:
    server.add_rule(fo.SLOW, contains=B001_MARK)
    state, judge = run(cis_store, rubrics["cis"], server.url, max_attempts=2, backend={"timeout": 0.2})
    failed = cis_store.judge_jobs(judge.rater_id, "failed")[0]
    assert failed["item_id"] == "B001"
    assert "no answer within 0.2 s" in failed["last_error"]
    assert state.done == ITEMS - 1


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_server_not_running_is_offline_then_judging_resumes(cis_store: Store, rubrics: dict[str, Rubric],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    port = _free_port()
    fake = fo.FakeOpenAI()
    judge = make_judge(cis_store, rubrics["cis"], OpenAIBackend(MODEL, base_url=f"http://127.0.0.1:{port}/v1"))
    judge.queue.enqueue()
    offline_seen: list[str] = []

    async def main() -> RunState:
        runner = JudgeRunner(judge, fast(offline_probe=0.05),
                             lambda s: offline_seen.append(s.offline) if s.offline else None)
        task = asyncio.create_task(runner.run())
        await until(lambda: offline_seen, "the judge offline")  # connection refused: waiting, not failing
        assert cis_store.judge_job_counts(judge.rater_id)["failed"] == 0
        fake.start(port)
        return await asyncio.wait_for(task, 30)

    try:
        state = asyncio.run(main())
    finally:
        fake.stop()
    assert offline_seen[0] == f"cannot reach the server (http://127.0.0.1:{port}/v1)"
    assert (state.done, state.failed, state.offline) == (ITEMS, 0, "")
    assert all(j["attempts"] == 1 for j in cis_store.judge_jobs(judge.rater_id))  # waiting is not an attempt
    assert_consistent(cis_store, judge.rater_id, ITEMS)


def test_the_openai_api_without_a_key_is_offline(cis_store: Store, rubrics: dict[str, Rubric],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    backend = OpenAIBackend("gpt-5-mini")
    assert backend.base_url == "https://api.openai.com/v1"
    judge = make_judge(cis_store, rubrics["cis"], backend)
    judge.queue.enqueue()
    runner = JudgeRunner(judge, fast())

    async def main() -> RunState:
        task = asyncio.create_task(runner.run())
        await until(lambda: runner.state.offline, "the judge offline")
        runner.stop()
        runner.poke()
        return await asyncio.wait_for(task, 10)

    state = asyncio.run(main())
    assert state.offline == "no OPENAI_API_KEY in the environment"
    assert state.failed == 0


def test_a_key_is_sent_from_the_environment_and_a_refused_one_stops_the_queue(
        cis_store: Store, rubrics: dict[str, Rubric], monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fo.FakeOpenAI(api_key="sk-right").start()
    monkeypatch.setenv("OPENAI_BASE_URL", fake.url)  # the environment's server, when no option names one
    try:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
        state, judge = run(cis_store, rubrics["cis"], "")
        assert "refused the API key (401)" in state.error
        assert "OPENAI_API_KEY" in state.error
        assert len(fake.completion_requests()) == 1  # no hammering
        assert cis_store.judge_job_counts(judge.rater_id)["queued"] == ITEMS
        monkeypatch.setenv("OPENAI_API_KEY", "sk-right")
        state, judge = run(cis_store, rubrics["cis"], "")
        assert (state.done, state.error) == (ITEMS, "")
    finally:
        fake.stop()


def test_a_model_the_server_does_not_have_stops_the_queue_and_says_what_to_check(
        server: fo.FakeOpenAI, cis_store: Store, rubrics: dict[str, Rubric]) -> None:
    server.models = ("qwen2.5:7b",)
    state, _judge = run(cis_store, rubrics["cis"], server.url)
    assert f"has no {MODEL} (404)" in state.error
    assert "ollama list" in state.error
    assert len(server.completion_requests()) == 1


def test_a_model_that_rejects_temperature_gets_its_default_and_the_rating_says_so(
        server: fo.FakeOpenAI, cis_store: Store, rubrics: dict[str, Rubric]) -> None:
    server.reject_temperature = True
    state, judge = run(cis_store, rubrics["cis"], server.url)
    assert (state.done, state.failed) == (ITEMS, 0)
    requests = server.completion_requests()
    assert requests[0].behaviour == "temperature_rejected"
    assert all("temperature" not in r.body for r in requests[1:])
    assert len(requests) == ITEMS + 1
    sampling = present(cis_store.rating("B002", judge.rater_id)).details["sampling"]
    assert sampling["temperature"] is None
    assert "rejected" in sampling["note"]
    assert cis_store.get_meta(f"judge.temperature_rejected:{MODEL}") == "1"


def test_a_server_without_json_schema_is_asked_without_it_and_still_checked(
        server: fo.FakeOpenAI, cis_store: Store, rubrics: dict[str, Rubric]) -> None:
    server.reject_schema = True
    # Without a schema the fake answers what it can ({}): every answer must be refused by the strict parser.
    state, judge = run(cis_store, rubrics["cis"], server.url)
    assert (state.done, state.failed) == (0, ITEMS)
    requests = server.completion_requests()
    assert requests[0].behaviour == "schema_rejected"
    assert all("response_format" not in r.body for r in requests[1:])
    assert all(j["last_error"].startswith("schema_mismatch") for j in cis_store.judge_jobs(judge.rater_id))
    sent_system = requests[1].body["messages"][0]["content"] + requests[1].body["messages"][1]["content"]
    assert '"r_score"' in sent_system  # the prompt itself still shows the answer's shape


def test_concurrency_limit_holds(server: fo.FakeOpenAI, cis_store: Store, rubrics: dict[str, Rubric]) -> None:
    server.latency = 0.05
    state, _judge = run(cis_store, rubrics["cis"], server.url, concurrency=2)
    assert state.done == ITEMS
    assert server.max_concurrent_seen <= 2


def test_an_item_too_long_for_the_context_fails_alone(server: fo.FakeOpenAI, cis_store: Store,
                                                      rubrics: dict[str, Rubric]) -> None:
    server.add_rule(fo.TOO_LONG, contains=B001_MARK)
    state, judge = run(cis_store, rubrics["cis"], server.url)
    assert (state.done, state.failed, state.error) == (ITEMS - 1, 1, "")
    failed = cis_store.judge_jobs(judge.rater_id, "failed")[0]
    assert failed["item_id"] == "B001"
    assert failed["last_error"].startswith("too long for the model's context (400)")
