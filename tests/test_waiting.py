"""The waiting helpers the tests share: they give back what the condition gave, and say what never came."""

from __future__ import annotations

import asyncio
import itertools

import pytest
from textual.app import App

from tests.waiting import app_until, until, wait_until


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

    assert wait_until(lambda: True, state) is True and asked == []
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
