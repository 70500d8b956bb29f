from __future__ import annotations

from judge_tui.formats.numbers import duration_text
from judge_tui.tui.timer import ItemTimer
from tests.tui.conftest import FakeClock


def test_counts_only_active_time_and_stops_after_idle():
    clock = FakeClock()
    timer = ItemTimer(idle_seconds=60, clock=clock)
    timer.start(10.0)  # seconds from an earlier visit
    clock.advance(30)
    assert (timer.elapsed(), timer.state) == (40.0, "running")
    clock.advance(200)  # walked away: only the first 60 s after the last key count
    assert (timer.elapsed(), timer.state) == (70.0, "idle")
    timer.activity()  # back at the keyboard
    clock.advance(5)
    assert (timer.elapsed(), timer.state) == (75.0, "running")


def test_pauses_while_the_terminal_is_away():
    clock = FakeClock()
    timer = ItemTimer(idle_seconds=180, clock=clock)
    timer.start(0)
    clock.advance(4)
    timer.away()
    clock.advance(100)
    assert (timer.elapsed(), timer.state) == (4.0, "away")
    timer.activity()  # a key while away does not restart the clock
    clock.advance(10)
    assert timer.elapsed() == 4.0
    timer.back()
    clock.advance(6)
    assert timer.elapsed() == 10.0


def test_a_new_item_while_away_starts_paused():
    clock = FakeClock()
    timer = ItemTimer(clock=clock)
    timer.away()
    timer.start(12.5)
    clock.advance(50)
    assert timer.elapsed() == 12.5


def test_duration_text():
    assert duration_text(0) == "0:00"
    assert duration_text(75.9) == "1:15"
    assert duration_text(3725) == "1:02:05"


def test_a_held_timer_shows_its_seconds_and_counts_nothing():
    clock = FakeClock()
    timer = ItemTimer(clock=clock)
    timer.start(0)
    timer.hold(42.0)  # a submitted item, looked at again
    clock.advance(30)
    timer.activity()
    timer.away()
    timer.back()
    clock.advance(30)
    assert (timer.elapsed(), timer.state) == (42.0, "held")
    timer.resume()  # the item is being changed
    clock.advance(5)
    assert (timer.elapsed(), timer.state) == (47.0, "running")


def test_an_idle_spell_keeps_only_the_reading_allowance():
    clock = FakeClock()
    timer = ItemTimer(idle_seconds=180, clock=clock, reading_seconds=90)
    timer.start(0)
    clock.advance(20)
    timer.activity()  # a key at 0:20
    clock.advance(150)  # no key for 150 s: of it only the reading allowance counts, though not yet idle
    assert (timer.elapsed(), timer.state) == (110.0, "running")
    clock.advance(600 - 150)  # a ten-minute break counts no more than that
    assert (timer.elapsed(), timer.state) == (110.0, "idle")
    timer.activity()  # back
    clock.advance(5)
    assert timer.elapsed() == 115.0


def test_losing_focus_during_an_idle_spell_counts_the_allowance_once():
    clock = FakeClock()
    timer = ItemTimer(idle_seconds=180, clock=clock, reading_seconds=60)
    timer.start(0)
    clock.advance(600)
    timer.away()
    clock.advance(600)
    timer.back()
    assert timer.elapsed() == 60.0


def test_the_allowance_never_exceeds_the_idle_spell():
    clock = FakeClock()
    timer = ItemTimer(idle_seconds=30, clock=clock, reading_seconds=90)
    timer.start(0)
    clock.advance(600)
    assert timer.elapsed() == 30.0


def _recorded_after_pause(pause: float, idle_seconds: float, reading_seconds: float) -> float:
    clock = FakeClock()
    timer = ItemTimer(idle_seconds=idle_seconds, clock=clock, reading_seconds=reading_seconds)
    timer.start(0)
    timer.activity()
    clock.advance(pause)
    timer.activity()  # the pause ends with a key
    return timer.elapsed()


def test_a_longer_pause_never_records_more_than_a_shorter_one():
    assert _recorded_after_pause(181, 180, 90) <= _recorded_after_pause(179, 180, 90)
    for idle_seconds, reading_seconds in ((180, 90), (60, 60), (30, 90), (300, 120)):
        recorded = [_recorded_after_pause(pause, idle_seconds, reading_seconds) for pause in range(0, 700, 7)]
        steps = [later - earlier for earlier, later in zip(recorded[:-1], recorded[1:], strict=True)]
        assert min(steps) >= 0, (idle_seconds, reading_seconds, recorded)
        assert max(recorded) == min(reading_seconds, idle_seconds), (idle_seconds, reading_seconds)
