"""Fixtures for the rating screen: a small item set per rubric, a controllable clock, an app factory."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from judge_tui.model.records import Item
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.tui.app import JudgeTuiApp

CIS_CODE = '''class Counter:
    """Counts calls."""

    def __init__(self):
        self.calls = 0

    def hit(self):
        self.calls += 1
        return self.calls
'''

FIELDS: dict[str, list[dict[str, object]]] = {
    "cis": [
        {"task_type": "LRU Cache", "task": "Build a fixed-size cache that evicts the entry used longest ago.",
         "rationale": "A dict plus a recency list; reading moves a key to the end.",
         "source_code": CIS_CODE, "test_code": "def test_hit():\n    assert Counter().hit() == 1\n",
         "test_results": "1 passed in 0.01s"},
        {"task_type": "Fibonacci", "task": "Return F(n) recursively.", "rationale": "Plain recursion.",
         "source_code": "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n",
         "test_code": "def test_fib():\n    assert fib(6) == 8\n", "test_results": "1 passed"},
        {"task_type": "Email Validator", "task": "Check an address's syntax.", "rationale": "One regex.",
         "source_code": "import re\n", "test_code": "", "test_results": "no tests ran"},
    ],
    "reasoning-trace": [
        {"question": "A train leaves at 9:40 and the trip takes 95 minutes. When does it arrive?",
         "response": "95 minutes is 1 h 35 min. 9:40 + 1:35 = 11:15. It arrives at 11:15.",
         "reference_answer": "11:15"},
        {"question": "Is 91 prime?", "response": "91 = 7 × 13, so no.", "reference_answer": "No"},
    ],
    "exercise-quality": [
        {"source_document": "<doc><p>Lena takes the bus to work every morning.</p></doc>",
         "instruction": "Make a fill-in-the-blank exercise on daily routines for A2 learners.",
         "cefr_level": "A2", "focus": "present simple",
         "exercise": '<exercise><p>Lena <blank answer="takes" student-answer=""/> the bus.</p></exercise>'},
        {"source_document": "<doc><p>Rain fell.</p></doc>", "instruction": "Blanks for B1.",
         "cefr_level": "B1", "exercise": "<p>no container here</p>"},
    ],
    "binary": [
        {"query": "How do I reset my password?", "criterion": "The response never asks for the current password.",
         "response": "Open Settings, choose Security, then Reset password; a link is mailed to you."},
        {"query": "What is 2 + 2?", "criterion": "The answer is a single number.", "response": "4"},
    ],
}
PREFIX = {"cis": "B", "reasoning-trace": "R", "exercise-quality": "E", "binary": "P"}


def make_items(rubric: Rubric) -> list[Item]:
    return [Item(id=f"{PREFIX[rubric.id]}{n:03d}", rubric=rubric.id, fields=dict(fields),
                 task_type=rubric.task_type_of(fields))
            for n, fields in enumerate(FIELDS[rubric.id], start=1)]


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def saved_mark_stays(monkeypatch: pytest.MonkeyPatch) -> None:
    """The status line's "✓ B001 saved" mark stays while the test reads the screen: its usual few seconds can
    pass between a key and a screenshot on a busy machine."""
    monkeypatch.setattr("judge_tui.tui.screens.rating.SAVED_SHOWN_FOR", 3600.0)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "rating.db"


@pytest.fixture
def filled_store(db_path: Path, rubrics: dict[str, Rubric]) -> Iterator[Store]:
    """Every rubric's test items in one database."""
    with Store(db_path) as store:
        for rubric in rubrics.values():
            if rubric.id in FIELDS:
                store.ensure_rubric_version(rubric)
                store.add_items(make_items(rubric))
        yield store


AppFactory = Callable[..., JudgeTuiApp]


@pytest.fixture
def make_app(filled_store: Store, rubrics: dict[str, Rubric], clock: FakeClock) -> AppFactory:
    def factory(rubric_id: str = "cis", reviewer: str | None = "EXP001", **settings: Any) -> JudgeTuiApp:
        return JudgeTuiApp(filled_store, rubrics[rubric_id], reviewer=reviewer,
                           settings=Settings(**{"judge_in_background": False, **settings}), clock=clock)

    return factory
