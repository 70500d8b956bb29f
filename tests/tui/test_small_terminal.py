"""At 80×24, the default terminal, everything an expert needs to score is on screen or one key away."""

from __future__ import annotations

import pytest

from judge_tui.tui.messages import JudgeStatusLine
from judge_tui.tui.screens.rating import RatingScreen
from tests.tui.screen_text import screen_lines, screen_text

SMALL = (80, 24)
JUDGE = "judge: 18 queued · 2 running · 30 done · offline"



def _words(text: str) -> str:
    return " ".join(text.split())


def side_text(app) -> str:
    """The rubric side of the screen as one line of words (wrapped lines joined; scroll bars cut off)."""
    side = app.screen.query_one("#side")
    lines = screen_lines(app)
    return _words(" ".join(line[side.region.x + 1:side.region.right - 1] for line in lines))


@pytest.mark.parametrize("rubric_id", ["cis", "reasoning-trace", "exercise-quality", "binary"])
async def test_every_anchor_of_the_focused_dimension_and_the_judge_state_show_at_80x24(make_app, rubric_id,
                                                                                        rubrics):
    rubric = rubrics[rubric_id]
    app = make_app(rubric_id)
    async with app.run_test(size=SMALL) as pilot:
        app.post_message(JudgeStatusLine(JUDGE))
        for index, dimension in enumerate(rubric.judged_dimensions):
            if index:
                await pilot.press("down")
            await pilot.pause()
            assert isinstance(app.screen, RatingScreen)
            assert app.screen.cursor == dimension.id
            shown = side_text(app)
            for label, meaning in rubric.anchors(dimension).items():
                assert _words(f"{label} {meaning}") in shown, (dimension.id, label, shown)
            for number, point in enumerate(rubric.scale.points):  # every key with the score it gives
                key = {1.0: "p", 0.0: "f"}[point] if rubric.scale.kind == "pass_fail" else str(number)
                assert f"{key}→{rubric.scale.label(point)}" in shown
            assert JUDGE in screen_text(app).splitlines()[0]


async def test_brackets_scroll_the_rubric_to_what_does_not_fit(make_app, rubrics):
    rubric = rubrics["cis"]
    guidance = rubric.guidance_for(rubric.dimension("r"), "LRU Cache")
    app = make_app("cis")
    async with app.run_test(size=SMALL) as pilot:
        panel = app.screen.query_one("#rubric")
        await pilot.pause()
        start = panel.scroll_y
        assert _words(guidance) not in side_text(app)
        await pilot.press("]")
        await pilot.pause()
        assert panel.scroll_y > start
        assert _words(guidance) in side_text(app)
        await pilot.press("[")
        assert panel.scroll_y == start
        await pilot.press("]", "down")  # the focus brings its dimension's anchors back into view
        await pilot.pause()
        assert _words("0.00 " + rubric.anchors(rubric.dimension("a"))["0.00"]) in side_text(app)
