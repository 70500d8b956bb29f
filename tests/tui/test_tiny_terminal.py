"""A terminal too small for an item beside its rubric: a message saying so, never a crash, and no blind rating."""

from __future__ import annotations

import pytest

from judge_tui.store import Store
from judge_tui.tui.screens.adjudication import AdjudicationApp, AdjudicationScreen
from judge_tui.tui.screens.rating import RatingScreen
from judge_tui.tui.screens.too_small import TooSmallScreen
from tests.narrowing import present, screen_of
from tests.test_adjudication import _db
from tests.tui.screen_text import screen_text

TINY = [(20, 10), (30, 12), (32, 30), (34, 24), (36, 14), (59, 40), (100, 14)]


def _words(app) -> str:
    return " ".join(screen_text(app).split())


@pytest.mark.parametrize("size", TINY)
async def test_starting_in_a_tiny_terminal_says_what_size_is_needed(make_app, filled_store, size):
    app = make_app("cis")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TooSmallScreen)
        assert f"Terminal {size[0]}×{size[1]}: judge-tui needs 60×15 or more" in _words(app)
        await pilot.press("3")  # no score given to an item the reviewer cannot see
        await pilot.pause()
        rating = next(s for s in app.screen_stack if isinstance(s, RatingScreen))
        assert present(rating.session.state).edit.scores == {}
        await pilot.resize_terminal(80, 24)  # large enough: the item and its rubric, as left
        await pilot.pause()
        assert screen_of(app, RatingScreen) is rating
        assert "B001" in screen_text(app)
        await pilot.press("3")
        assert present(rating.session.state).edit.scores == {"r": 0.75}
        await pilot.resize_terminal(*size)  # and small again, while rating
        await pilot.pause()
        assert isinstance(app.screen, TooSmallScreen)
        await pilot.press("q")  # quits, saving what was scored
        await pilot.pause()
    assert app.return_code in (None, 0)
    assert filled_store.draft("B001", "EXP001").scores == {"r": 0.75}


async def test_the_time_in_a_tiny_terminal_is_time_away(make_app, clock):
    app = make_app("cis")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        session = app.screen.session
        clock.advance(10)
        await pilot.resize_terminal(30, 12)
        await pilot.pause()
        clock.advance(100)  # cannot see the item: not counted
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert session.timer.elapsed() == 10


@pytest.mark.slow
@pytest.mark.parametrize("size", [(20, 10), (36, 14), (60, 20)])
async def test_adjudication_in_a_tiny_terminal_says_what_size_is_needed(tmp_path, rubrics, size):
    path = _db(tmp_path, rubrics)
    with Store(path) as store:
        app = AdjudicationApp(store, rubrics["exercise-quality"], "lead")
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            assert f"Terminal {size[0]}×{size[1]}: judge-tui needs 70×15 or more" in _words(app)
            await pilot.resize_terminal(80, 24)
            await pilot.pause()
            assert isinstance(app.screen, AdjudicationScreen)
            assert "E02" in screen_text(app)
