"""Honest time in the app: a break adds at most the reading allowance, and what is saved agrees with what
is shown (fake clock, the real app through Pilot, the real SQLite file)."""

from __future__ import annotations

from judge_tui.store import Store
from judge_tui.tui.screens.rating import RatingScreen
from judge_tui.tui.session import RatingSession
from tests.narrowing import present
from tests.tui.conftest import FakeClock

SIZE = (80, 24)


async def test_a_ten_minute_break_adds_at_most_the_reading_allowance(make_app, filled_store, clock):
    app = make_app("cis", reading_seconds=90)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        clock.advance(40)
        await pilot.press("2")
        clock.advance(600)  # a coffee break: an idle spell after 180 s, of which 90 s count as reading
        await pilot.pause()
        assert isinstance(app.screen, RatingScreen)
        assert app.screen.session.timer.elapsed() == 130.0
        await pilot.press("3", "3")
        clock.advance(10)
        await pilot.press("enter")
    assert filled_store.rating("B001", "EXP001").seconds == 140.0


def test_a_pause_saves_the_reading_allowance_once_and_nothing_after(filled_store, rubrics, db_path):
    clock = FakeClock()
    session = RatingSession(filled_store, rubrics["cis"], "EXP001", clock=clock, reading_seconds=60)
    session.resume()
    session.set_score("r", 0.5)
    clock.advance(170)
    session.save_time(5)  # the screen saves every 5 counted seconds while the timer runs
    assert filled_store.draft("B001", "EXP001").seconds == 60.0  # of a pause, only the allowance counts
    clock.advance(400)  # the spell turns idle: nothing more counts, so nothing more is written
    with filled_store.transaction() as conn:
        conn.execute("UPDATE drafts SET seconds = -1 WHERE item_id = 'B001'")
    session.save_time(5)
    with Store(db_path) as again:
        assert present(again.draft("B001", "EXP001")).seconds == -1.0
