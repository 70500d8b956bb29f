"""Lookups that a test expects to succeed: the value itself, or the test fails saying what was missing.

The store answers `None` for an item or rating it does not hold, and the statistics answer `Undefined` with a
reason; a test that has just written the row, or built data on which the figure is defined, says so with these,
so that the type checker knows the value is there and a failure names what went wrong.
"""

from __future__ import annotations

from typing import TypeVar

from judge_tui.stats.agreement import Undefined

T = TypeVar("T")


def present(value: T | None) -> T:
    """``value``, failing the test if it is None."""
    assert value is not None, "expected a value, found None"
    return value


def defined(value: T | Undefined) -> T:
    """``value``, failing the test with the reason if it is undefined."""
    assert not isinstance(value, Undefined), f"expected a figure, found it undefined: {value.reason}"
    return value
