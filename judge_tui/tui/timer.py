"""Active time spent on one item: paused while the terminal is away or after an idle spell."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal

TimerState = Literal["running", "idle", "away", "held"]


class ItemTimer:
    """Counts active seconds on the current item.

    Time runs from the last activity (a key press). Once `idle_seconds` pass without one, the spell is idle:
    of the time since the last key only `reading_seconds` count (reading without touching a key is work; the
    rest was a break), and nothing more until the next key. So the count may step back when an idle spell is
    detected, and a break of any length adds at most `reading_seconds`. While the terminal has lost focus it
    does not run at all. It is held (shown, never counting) while the item is a submitted rating only being
    looked at. The clock is injectable so tests and screenshots are deterministic.
    """

    def __init__(self, idle_seconds: float = 180.0, clock: Callable[[], float] = time.monotonic,
                 reading_seconds: float = 90.0) -> None:
        self.idle_seconds = idle_seconds
        self.reading_seconds = min(reading_seconds, idle_seconds)  # never more than the spell that detects a break
        self.clock = clock
        self._banked = 0.0
        self._segment_start: float | None = None
        self._last_activity = clock()
        self._away = False
        self._held = False

    def start(self, seconds_so_far: float) -> None:
        """Begin timing a newly opened item that already has `seconds_so_far` from earlier visits."""
        now = self.clock()
        self._banked = max(0.0, float(seconds_so_far))
        self._last_activity = now
        self._held = False
        self._segment_start = None if self._away else now

    def hold(self, seconds: float) -> None:
        """Show `seconds` and stop counting (a submitted item, looked at again, records no time)."""
        self._banked = max(0.0, float(seconds))
        self._segment_start = None
        self._held = True

    def resume(self) -> None:
        """Count again from the seconds held (the submitted item is being changed)."""
        if not self._held:
            return
        self._held = False
        now = self.clock()
        self._last_activity = now
        self._segment_start = None if self._away else now

    @property
    def held(self) -> bool:
        return self._held

    def _segment_seconds(self, now: float) -> float:
        if self._segment_start is None:
            return 0.0
        since_key = now - self._last_activity
        # An idle spell counts only the reading allowance after the last key; a live spell counts in full.
        end = self._last_activity + self.reading_seconds if since_key > self.idle_seconds else now
        return max(0.0, end - self._segment_start)

    def elapsed(self) -> float:
        return self._banked + self._segment_seconds(self.clock())

    @property
    def state(self) -> TimerState:
        if self._held:
            return "held"
        if self._away:
            return "away"
        if self.clock() - self._last_activity > self.idle_seconds:
            return "idle"
        return "running"

    def activity(self) -> None:
        """A key press or scroll: the reviewer is here. Ends an idle pause."""
        now = self.clock()
        if self._away or self._held:
            return
        if self._segment_start is None or now - self._last_activity > self.idle_seconds:
            self._banked += self._segment_seconds(now)
            self._segment_start = now
        self._last_activity = now

    def away(self) -> None:
        """The terminal lost focus: stop counting."""
        if self._away:
            return
        now = self.clock()
        self._banked += self._segment_seconds(now)
        self._segment_start = None
        self._away = True

    def back(self) -> None:
        """The terminal has focus again."""
        if not self._away:
            return
        self._away = False
        now = self.clock()
        self._segment_start = None if self._held else now
        self._last_activity = now


