"""Active time spent on one item: paused while the terminal is away or after an idle spell."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal

TimerState = Literal["running", "idle", "away", "held"]


class ItemTimer:
    """Counts active seconds on the current item.

    Time runs from the last activity (a key press), but of any spell without a key only the first
    `reading_seconds` count: reading without touching a key is work up to about a screenful, the rest was a
    break. So the count never steps back, and a longer pause never counts more than a shorter one. After
    `idle_seconds` without a key the timer shows as idle. While the terminal has lost focus it does not run at
    all. It is held (shown, never counting) while the item is a submitted rating only being looked at. The
    clock is injectable so tests and screenshots are deterministic.
    """

    def __init__(self, idle_seconds: float = 180.0, clock: Callable[[], float] = time.monotonic,
                 reading_seconds: float = 90.0) -> None:
        self.idle_seconds = idle_seconds
        self.reading_seconds = min(reading_seconds, idle_seconds)  # an idle timer counts nothing more
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
        # Of the time since the last key only the reading allowance counts, however long the pause: the count
        # is the same function of the pause for every length, so it never goes down as the pause grows.
        end = min(now, self._last_activity + self.reading_seconds)
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
        # Bank what the spell since the last key counted and start a new one, so a pause's uncounted rest
        # never becomes counted by the key that ends it.
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


