"""Fixtures for the judge tests: a fake Anthropic API on 127.0.0.1 and small stores of items."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judge_tui.judge.backends import Backend
from judge_tui.judge.backends.anthropic import AnthropicBackend
from judge_tui.judge.prompts import JudgePrompt
from judge_tui.judge.runner import Judge, RunOptions
from judge_tui.model import locations
from judge_tui.model.records import Item, Rating
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from tests.judge.fake_anthropic import FakeAnthropic

API_KEY = "sk-ant-test-DO-NOT-STORE-7f3a9c"
FAST = RunOptions(concurrency=4, max_attempts=4, backoff_base=0.01, backoff_cap=0.05, offline_probe=0.05,
                  idle_poll=0.05, batch_poll=0.02)


def fast(**changes: object) -> RunOptions:
    options = RunOptions(**vars(FAST))
    for name, value in changes.items():
        setattr(options, name, value)
    return options


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAnthropic]:
    server = FakeAnthropic(api_key=API_KEY).start()
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    yield server
    server.stop()


def cis_rows(count: int) -> list[dict[str, Any]]:
    lines = (locations.data_dir() / "cis.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[:count]]


def add_cis_items(store: Store, rubric: Rubric, count: int = 6) -> list[str]:
    items = []
    for row in cis_rows(count):
        item_id = row.pop("id")
        row.pop("split", None)
        items.append(Item(id=item_id, rubric="cis", fields=row, task_type=row.get("task_type")))
    store.ensure_rubric_version(rubric)
    store.add_items(items)
    return [i.id for i in items]


def add_binary_items(store: Store, rubric: Rubric) -> dict[str, str]:
    """Eight PASS/FAIL items: four in train (three with a human rating), two in dev (rated), two in test."""
    version = store.ensure_rubric_version(rubric)
    splits = {"P01": "train", "P02": "train", "P03": "train", "P04": "train",
              "P05": "dev", "P06": "dev", "P07": "test", "P08": "test"}
    items = [Item(id=i, rubric="binary", split=s, fields={
        "query": f"Query {i}: a vegan lunch idea", "criterion": "vegan",
        "response": f"Response {i}: " + ("chickpeas and rice" if n % 2 else "rice with honey glaze"),
    }) for n, (i, s) in enumerate(splits.items())]
    store.add_items(items)
    store.ensure_rater("EXP001", "human")
    for item_id, label in (("P01", 1.0), ("P02", 0.0), ("P03", 0.0), ("P05", 1.0), ("P06", 0.0)):
        store.save_rating(Rating(item_id=item_id, rater_id="EXP001", rubric_version_id=version,
                                 scores={"label": label}, overall=label, verdict="PASS" if label else "FAIL",
                                 notes=f"human note for {item_id}"))
    return splits


def make_judge(store: Store, rubric: Rubric, backend: Backend | None = None, model: str = "claude-sonnet-5") -> Judge:
    backend = backend or AnthropicBackend(model)
    return Judge(store, rubric, JudgePrompt.for_rubric(rubric, store), backend)


def job_states(store: Store, rater_id: str) -> dict[str, str]:
    return {f"{j['item_id']}#{j['repeat']}": j["status"] for j in store.judge_jobs(rater_id)}


def assert_consistent(store: Store, rater_id: str, expected_jobs: int) -> None:
    """Nothing lost, nothing duplicated: every job is in one state, one rating per done job, failures explained."""
    jobs = store.judge_jobs(rater_id)
    assert len(jobs) == expected_jobs
    assert len({(j["item_id"], j["repeat"]) for j in jobs}) == expected_jobs
    ratings = list(store.iter_ratings(rater_ids=[rater_id]))
    assert len(ratings) == len({(r.item_id, r.repeat) for r in ratings})
    done = {(j["item_id"], j["repeat"]) for j in jobs if j["status"] == "done"}
    assert {(r.item_id, r.repeat) for r in ratings} == done
    for j in jobs:
        if j["status"] == "failed":
            assert j["last_error"], j
        if j["status"] == "done":
            assert j["rating_id"] is not None


@pytest.fixture
def cis_store(tmp_path: Path, rubrics: dict[str, Rubric]) -> Iterator[Store]:
    with Store(tmp_path / "judge.db") as store:
        add_cis_items(store, rubrics["cis"])
        yield store
