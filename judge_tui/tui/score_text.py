"""How the screens write scores: scale points as the scale labels them, overall scores in full.

An overall score is a weighted mean of scale points, so two decimals are not enough: 0.625 and 0.6875 (the
means of four quarter-step scores) would read "0.62" and "0.69". Up to four decimals show them exactly.
"""

from __future__ import annotations

import math

from judge_tui.model.rubrics import Rubric, Scale

NO_SCORE = "—"


def exact(value: float) -> str:
    """A number with two to four decimals and no trailing zeros past the second: 0.50, 0.625, 0.6875."""
    whole, _, decimals = f"{value:.4f}".partition(".")
    return f"{whole}.{decimals.rstrip('0'):0<2}"


def overall_label(rubric: Rubric, value: float | None) -> str:
    """An overall score as the rubric shows it: its scale's label (PASS/FAIL rubrics) or the exact mean."""
    if value is None:
        return NO_SCORE
    return rubric.scale.label(value) if rubric.overall == "label" else exact(value)


def score_label(scale: Scale, value: float | None) -> str:
    """A dimension's score as the scale writes it; a judge's score between points in full."""
    if value is None or math.isnan(value):
        return NO_SCORE
    for point in scale.points:
        if abs(value - point) <= 1e-9:
            return scale.label(point)
    return exact(value)
