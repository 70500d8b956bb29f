"""Message Batches at full scale: more requests than one batch may hold, and more bytes than one batch may hold."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from judge_tui.judge.backends.anthropic import AnthropicBackend
from judge_tui.judge.batch_limits import MAX_BYTES, BatchLimits
from judge_tui.judge.prompts import JudgePrompt, JudgeTemplate
from judge_tui.judge.runner import BatchRunner, Judge
from judge_tui.model.records import Item
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from tests.judge import fake_anthropic as fa
from tests.judge.conftest import fast

pytestmark = pytest.mark.slow


def tiny_judge(store: Store, rubric: Rubric) -> Judge:
    """A judge with a one-line prompt, so that 120,000 requests stay small."""
    template = JudgeTemplate(path=Path("tiny.judge.md"), system_text="Judge against {{rubric_name}}.",
                             item_text="{{item}}")
    return Judge(store, rubric, JudgePrompt(rubric, template), AnthropicBackend("claude-sonnet-5"))


def add_items(store: Store, rubric: Rubric, count: int, response: str = "yes") -> None:
    store.ensure_rubric_version(rubric)
    store.add_items(Item(id=f"T{n:06d}", rubric=rubric.id, fields={"query": f"q{n}", "criterion": "c",
                                                                   "response": response}) for n in range(count))


def batch_posts(fake: fa.FakeAnthropic) -> list[fa.Recorded]:
    return [r for r in fake.requests if r.method == "POST" and r.path == "/v1/messages/batches"]


def test_more_items_than_one_batch_holds_go_in_several_full_batches(fake: fa.FakeAnthropic, tmp_path: Path,
                                                                   rubrics: dict[str, Rubric]) -> None:
    """The split by count, at a limit of 1,000 requests a batch (the API's 100,000, at full scale, is measured by
    benchmarks/bench_batch_scale.py: 120,000 items take minutes)."""
    fake.record_bodies = False
    limit = 1_000
    with Store(tmp_path / "scale.db") as store:
        add_items(store, rubrics["binary"], 1_200)
        judge = tiny_judge(store, rubrics["binary"])
        assert judge.queue.enqueue() == 1_200
        state = asyncio.run(BatchRunner(judge, fast(batch_limits=BatchLimits(max_requests=limit))).run())
        assert (state.done, state.failed, state.queued, state.running, state.error) == (1_200, 0, 0, 0, "")
        assert store.judge_job_counts(judge.rater_id)["done"] == 1_200
        assert store.scalar("SELECT COUNT(*) FROM ratings WHERE rater_id = ?", [judge.rater_id]) == 1_200
    posts = batch_posts(fake)
    assert all(p.behaviour == "" for p in posts)  # none refused
    assert sorted(len(b["requests"]) for b in fake.batches.values()) == [200, limit]
    assert [b.requests for b in state.batches.values()] == [limit, 200]
    assert state.cost_usd > 0
    assert state.usage.output_tokens > 0  # priced from the usage the API reported


def test_requests_over_the_size_limit_go_in_several_batches_none_refused(fake: fa.FakeAnthropic, tmp_path: Path,
                                                                        rubrics: dict[str, Rubric]) -> None:
    """The API's limits scaled down a hundredfold, the API's margin kept: 2,700 requests of about 1 KB against a
    2.56 MB batch (at full scale, 100 KB each against 256 MB, the same split)."""
    fake.record_bodies = False
    limits = BatchLimits(max_bytes=MAX_BYTES // 100, headroom=BatchLimits().headroom // 100)
    fake.max_batch_bytes = limits.max_bytes
    with Store(tmp_path / "large.db") as store:
        add_items(store, rubrics["binary"], 2_700, response="word " * 170)
        judge = tiny_judge(store, rubrics["binary"])
        judge.queue.enqueue()
        state = asyncio.run(BatchRunner(judge, fast(batch_limits=limits)).run())
        assert (state.done, state.failed, state.error) == (2_700, 0, "")
    posts = batch_posts(fake)
    assert len(posts) == 2
    assert all(p.behaviour == "" for p in posts)
    assert sum(p.size for p in posts) > limits.max_bytes  # one batch would have been refused
    assert all(p.size <= limits.budget for p in posts)
