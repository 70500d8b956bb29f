"""The waiting helpers the tests share: they give back what the condition gave, and say what never came."""

from __future__ import annotations

import ast
import asyncio
import itertools
from pathlib import Path

import pytest
from textual.app import App

from tests.waiting import app_until, until, wait_until

TESTS = Path(__file__).parent
# Loops that sleep for what they are, not to wait for something: the fake servers' idle main loop, a typist's pace.
NOT_WAITS = {("judge/fake_anthropic.py", "time.sleep(3600)"), ("judge/fake_openai.py", "time.sleep(3600)"),
             ("tui/test_kill_and_resume.py", "time.sleep(0.05)")}


def test_the_first_true_value_is_given_back():
    looks = itertools.count(1)
    assert wait_until(lambda: (n := next(looks)) >= 3 and n, "the third look", every=0) == 3


def test_a_wait_that_never_ends_says_what_it_waited_for():
    with pytest.raises(AssertionError, match="in vain for: the moon to turn blue"):
        wait_until(lambda: False, "the moon to turn blue", limit=0, every=0)


def test_the_state_at_failure_is_asked_for_only_on_failure():
    asked: list[str] = []

    def state() -> str:
        asked.append("asked")
        return "the screen as it was"

    assert wait_until(lambda: True, state) is True
    assert asked == []
    with pytest.raises(AssertionError, match="the screen as it was"):
        wait_until(lambda: False, state, limit=0, every=0)


async def test_other_tasks_run_while_until_waits():
    done: list[bool] = []

    async def finish() -> None:
        done.append(True)

    task = asyncio.create_task(finish())
    assert await until(lambda: done, "the other task") == [True]
    await task
    with pytest.raises(AssertionError, match="in vain for: nothing"):
        await until(lambda: None, "nothing", limit=0, every=0)


async def test_the_apps_timers_run_while_app_until_waits():
    app: App[None] = App()
    fired: list[bool] = []
    async with app.run_test() as pilot:
        app.set_timer(0.1, lambda: fired.append(True))
        assert await app_until(pilot, lambda: fired, "the app's timer") == [True]
        with pytest.raises(AssertionError, match="in vain for: a key never pressed"):
            await app_until(pilot, lambda: False, "a key never pressed", limit=0, every=0)


def sleeping_loops(root: Path) -> list[tuple[str, str]]:
    """(file, call) for each loop under root that sleeps or pauses for a while between its rounds."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for loop in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(loop, ast.While | ast.For | ast.AsyncFor):
                found += [(path.relative_to(root).as_posix(), ast.unparse(call)) for call in ast.walk(loop)
                          if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                          and call.func.attr in ("sleep", "pause") and (call.args or call.keywords)]
    return found


def test_tests_wait_through_the_waiting_helpers_only():
    polling = [found for found in sleeping_loops(TESTS)
               if found[0] != "waiting.py" and found not in NOT_WAITS]
    assert polling == [], "wait with tests/waiting.py (wait_until, until, app_until) instead of a loop of one's own"


def test_a_polling_loop_of_its_own_is_found(tmp_path):
    (tmp_path / "test_x.py").write_text("async def test_x(pilot):\n    while not done():\n"
                                        "        await pilot.pause(0.1)\n")
    assert sleeping_loops(tmp_path) == [("test_x.py", "pilot.pause(0.1)")]
