"""Screenshots of the rating screen for each rubric at two terminal sizes (pytest-textual-snapshot).

The timer runs on a fixed test clock, so the screenshots do not depend on how fast the machine is.
Regenerate after an intended change with `pytest tests/tui/test_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

import pytest

from judge_tui.tui.messages import JudgeStatusLine
from tests.tui.test_untrusted_text import add_hostile_item

# One score key first, so each screenshot shows a scored and a focused dimension.
FIRST_KEY = {"cis": "3", "reasoning-trace": "2", "exercise-quality": "1", "binary": "p"}


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
@pytest.mark.parametrize("rubric_id", ["cis", "reasoning-trace", "exercise-quality", "binary"])
def test_rating_screen(snap_compare, make_app, rubric_id, size):
    # auto_submit off, so that the binary rubric's key leaves its item on screen, scored.
    app = make_app(rubric_id, auto_submit=False)

    async def judge_busy(pilot) -> None:  # the status line must keep the judge's state, even at 80×24
        app.post_message(JudgeStatusLine("judge: 18 queued · 2 running · 30 done · offline"))
        await pilot.pause()

    assert snap_compare(app, press=[FIRST_KEY[rubric_id]], terminal_size=size, run_before=judge_busy)


def test_hostile_item_is_drawn_literally(snap_compare, make_app, filled_store, rubrics):
    add_hostile_item(filled_store, rubrics)
    assert snap_compare(make_app("binary"), press=["right", "right"], terminal_size=(120, 40))


def test_help_screen(snap_compare, make_app):
    assert snap_compare(make_app("cis"), press=["question_mark"], terminal_size=(120, 40))
