"""Lookups that a test expects to succeed: the value itself, or the test fails saying what was missing.

The store answers `None` for an item or rating it does not hold, and the statistics answer `Undefined` with a
reason, and an app shows whichever screen is on top; a test that has just written the row, built data on which
the figure is defined, or opened a screen says so with these, so that the type checker knows what the value is
and a failure names what went wrong.
"""

from __future__ import annotations

from typing import Any, TypeVar

from textual.app import App
from textual.screen import Screen

from judge_tui.stats.agreement import Undefined

T = TypeVar("T")
S = TypeVar("S", bound=Screen[Any])


def present(value: T | None) -> T:
    """``value``, failing the test if it is None."""
    assert value is not None, "expected a value, found None"
    return value


def defined(value: T | Undefined) -> T:
    """``value``, failing the test with the reason if it is undefined."""
    assert not isinstance(value, Undefined), f"expected a figure, found it undefined: {value.reason}"
    return value


def screen_of(app: App[Any], kind: type[S]) -> S:
    """The app's current screen, failing the test if it is not a ``kind``."""
    screen = app.screen
    assert isinstance(screen, kind), f"expected {kind.__name__} on screen, found {type(screen).__name__}"
    return screen
