"""The CIS judge's output: {"ratings": [{"submission_id", "task_type", "r_score", "a_score", "t_score",
"l_score", "reasoning"}]}. The reasoning becomes the rating's notes."""

from __future__ import annotations

from judge_tui.formats import Parsed
from judge_tui.formats.rating_form import read_rows


def read(text: str) -> Parsed:
    return read_rows(text, notes_key="reasoning", describe="judge output ({\"ratings\": [...]})")
