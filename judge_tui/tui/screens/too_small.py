"""What a terminal too small for a screen shows instead: its size, the size needed, and that nothing is lost.

Below the minimum the item pane has no column left beside the rubric (or no row for the rubric's anchors), so
rating there would be rating blind. The screen covers the app until the terminal is large enough again; the
timer counts it as time away, and q still saves and quits.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import Static

RATING_MINIMUM = Size(60, 15)  # the item pane keeps about 20 columns beside the rubric's 34+
ADJUDICATION_MINIMUM = Size(70, 15)  # and beside the experts' scores (50+)


class TooSmallScreen(Screen[None]):
    AUTO_FOCUS = ""
    BINDINGS = [Binding("q", "app.quit", "Quit", id="quit")]

    def __init__(self, minimum: Size) -> None:
        super().__init__()
        self.minimum = minimum

    def compose(self) -> ComposeResult:
        yield Static(id="too-small", markup=False)

    def on_mount(self) -> None:
        self.show_size(self.size)

    def show_size(self, size: Size) -> None:
        need = self.minimum
        self.query_one("#too-small", Static).update(Text(
            f"Terminal {size.width}×{size.height}: judge-tui needs {need.width}×{need.height} or more. Make the "
            "window larger; nothing is lost meanwhile. q quits."))


def fit_to_terminal(app: App[Any], minimum: Size, size: Size | None = None) -> None:
    """Cover the app with TooSmallScreen while the terminal (of this size, else the app's) is smaller than
    minimum; uncover it once it fits."""
    size = size or app.size
    fits = size.width >= minimum.width and size.height >= minimum.height
    covering = [screen for screen in app.screen_stack if isinstance(screen, TooSmallScreen)]
    if fits:
        if covering and covering[-1] is app.screen:  # it takes every key, so nothing opens above it
            app.pop_screen()
        return
    if covering and covering[-1] is app.screen:
        covering[-1].show_size(size)
    else:
        app.push_screen(TooSmallScreen(minimum))
