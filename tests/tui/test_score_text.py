"""Scores as the screens write them: overall means in full, scale points as their labels."""

from __future__ import annotations

import pytest

from judge_tui.model.rubrics import Scale, get_rubric
from judge_tui.tui.score_text import exact, overall_label, score_label


@pytest.mark.parametrize(("value", "text"), [
    (0.0, "0.00"), (0.5, "0.50"), (1.0, "1.00"), (0.625, "0.625"), (0.6875, "0.6875"), (0.0625, "0.0625"),
    (1 / 3, "0.3333"), (0.1, "0.10"),
])
def test_exact_keeps_quarter_step_means_whole(value, text):
    assert exact(value) == text


def test_overall_and_score_labels():
    cis, binary = get_rubric("cis"), get_rubric("binary")
    assert overall_label(cis, 0.6875) == "0.6875"
    assert overall_label(cis, None) == "—"
    assert overall_label(binary, 1.0) == "PASS"
    quarter = Scale(kind="quarter")
    assert score_label(quarter, 0.75) == "0.75"
    assert score_label(quarter, 0.6) == "0.60"
    assert score_label(quarter, float("nan")) == "—"
    assert score_label(Scale(kind="pass_fail"), 0.0) == "FAIL"
