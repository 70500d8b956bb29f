"""How many times a screen is laid out, as Textual announces it (the screen's public layout signal)."""

from __future__ import annotations

from typing import Any

from textual.screen import Screen


class Layouts:
    def __init__(self, screen: Screen[Any]) -> None:
        self.count = 0
        screen.screen_layout_refresh_signal.subscribe(screen, self._laid_out, immediate=True)

    def _laid_out(self, _screen: Screen[Any]) -> None:
        self.count += 1

    def clear(self) -> None:
        self.count = 0
