"""How every figure is written for people: the one number formatter of the report (text, Markdown, screens).

A figure that cannot be computed (Undefined, or its JSON form {"undefined": reason}) is written "n/a".
"""

from __future__ import annotations

from typing import Any

from judge_tui.stats import agreement as ag


def figure_text(value: Any, *, digits: int = 3, percent: bool = False, signed: bool = False) -> str:
    """A figure as text: a share as a percentage with one decimal (a signed change in points), any other
    figure with ``digits`` decimals."""
    if value is None or isinstance(value, dict | ag.Undefined):
        return "n/a"
    if percent:
        return f"{value * 100:+.1f} pts" if signed else f"{value:.1%}"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def pct(value: Any) -> str:
    return figure_text(value, percent=True)


def num(value: Any) -> str:
    return figure_text(value)


def signed(value: Any) -> str:
    return figure_text(value, signed=True)
