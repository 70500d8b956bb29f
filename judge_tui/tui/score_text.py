"""How the screens write scores: scale points as the scale labels them, overall scores in full.

An overall score is a weighted mean of scale points, so two decimals are not enough: 0.625 and 0.6875 (the
means of four quarter-step scores) would read "0.62" and "0.69". Up to four decimals show them exactly.
"""

from __future__ import annotations

import math

from judge_tui.formats.numbers import decimal_text
from judge_tui.model.rubrics import Rubric, Scale

NO_SCORE = "—"


def exact(value: float) -> str:
    """A number with two to four decimals and no trailing zeros past the second: 0.50, 0.625, 0.6875."""
    whole, _, decimals = decimal_text(value, 4).partition(".")
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


UNSCORED = "–"  # a dimension not scored yet, in the compact line


def short_names(rubric: Rubric) -> dict[str, str]:
    """A short name per dimension for the compact score line: the part before " · " when the rubric names
    them so ("R · Requirements" → "R"), else the words' initials ("Reasoning validity" → "RV"); names that
    would clash take more letters of their first word ("Completeness", "Clarity" → "Co", "Cl")."""
    def initials(name: str) -> str:
        head, dot, _rest = name.partition(" · ")
        if dot and 0 < len(head) <= 3:
            return head
        return "".join(word[0].upper() for word in name.split() if word[:1].isalnum())[:3] or name[:1]

    names = {d.id: initials(d.name) for d in rubric.dimensions}
    for letters in range(2, 6):
        clashing = [d for d in rubric.dimensions if list(names.values()).count(names[d.id]) > 1]
        if not clashing:
            break
        for d in clashing:
            first = (d.name.split() or [d.id])[0]
            names[d.id] = first[:letters].capitalize()
    if len(set(names.values())) < len(names):  # still alike: the ids are unique
        names = {d.id: d.id for d in rubric.dimensions}
    return names


def compact_score(scale: Scale, value: float | None) -> str:
    """A score in as few characters as reads unambiguously: .75, 1, 0, .5; PASS and FAIL as written."""
    if value is None or math.isnan(value):
        return UNSCORED
    # A verdict reads as one on either side of 0.5, a whole number as itself (never its place in 0-1); a name only
    # on its point.
    if scale.binary or scale.numbered or (scale.named and any(abs(value - p) <= 1e-9 for p in scale.points)):
        return scale.label(value)
    text = decimal_text(value, 4).rstrip("0").rstrip(".")
    return text[1:] if text.startswith("0.") else text
