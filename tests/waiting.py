"""Waiting in a test for something to happen, never for a guessed length of time.

Each helper looks at a condition until it holds and returns what it gave. The limit only stops a test that
would otherwise hang: it is a safety net, never a timing assertion, so it is generous; a test that reaches it
fails saying what it waited for. Which helper depends on what must go on meanwhile:

- `wait_until`: this thread sleeps between looks (a subprocess, a server thread or a file is awaited);
- `until`: the event loop's other tasks run between looks (a runner or worker started with asyncio);
- `app_until`: the app under Pilot runs between looks, its timers and messages included.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from textual.pilot import Pilot

T = TypeVar("T")

LIMIT = 90.0  # seconds before a wait gives up: far beyond what any wait here takes on a loaded machine
EVERY = 0.05  # seconds between two looks at the condition

# What was awaited, for the failure message; a function is asked only on failure (to show the state then).
What = str | Callable[[], str]


def _gave_up(what: What, limit: float) -> AssertionError:
    said = what if isinstance(what, str) else what()
    return AssertionError(f"waited {limit:g} s in vain for: {said}")


def wait_until(condition: Callable[[], T | None], what: What, *, limit: float = LIMIT, every: float = EVERY) -> T:
    """The first true value condition() gives, looked at every ``every`` seconds by this thread."""
    deadline = time.monotonic() + limit
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise _gave_up(what, limit)
        time.sleep(every)
    return value


async def until(condition: Callable[[], T | None], what: What, *, limit: float = LIMIT, every: float = EVERY,
                between: Callable[[float], Awaitable[object]] = asyncio.sleep) -> T:
    """The first true value condition() gives, `between(every)` awaited between looks (by default the event loop
    running its other tasks)."""
    deadline = time.monotonic() + limit
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise _gave_up(what, limit)
        await between(every)
    return value


async def app_until(pilot: Pilot[Any], condition: Callable[[], T | None], what: What, *, limit: float = LIMIT,
                    every: float = EVERY) -> T:
    """The first true value condition() gives, the app under ``pilot`` running (timers too) between looks."""
    return await until(condition, what, limit=limit, every=every, between=pilot.pause)
