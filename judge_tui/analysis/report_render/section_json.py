"""The JSON forms the report's sections share (team, self-agreement, version comparison, jury): a figure at full
precision or {"undefined": reason}, and every figure's interval beside it in an ``intervals`` object ({low,
high, method, confidence}, or null with the reason in the object's ``undefined`` map)."""

from __future__ import annotations

from typing import Any

from judge_tui.formats.numbers import interval_json
from judge_tui.stats import agreement as ag
from judge_tui.stats.intervals import IntervalFigure


def figure(value: ag.Figure) -> float | dict[str, str]:
    """A figure at full precision, or {"undefined": reason} (the sections' form of a missing figure)."""
    if isinstance(value, ag.Undefined):
        return {"undefined": value.reason}
    return float(value)


def intervals_of(named: dict[str, IntervalFigure], undefined: dict[str, str]) -> dict[str, Any]:
    """Intervals by figure name for the JSON report; the reasons of missing ones go into ``undefined``."""
    return {name: interval_json(interval, name, undefined) for name, interval in named.items()}


def with_intervals(figures: dict[str, Any], named: dict[str, IntervalFigure]) -> dict[str, Any]:
    undefined: dict[str, str] = {}
    return {**figures, "intervals": intervals_of(named, undefined), "undefined": undefined}
