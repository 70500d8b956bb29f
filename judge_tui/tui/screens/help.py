"""Every key of the rating screen, built from the bindings themselves (so it follows the user's keymap)."""

from __future__ import annotations

from collections.abc import Mapping

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from judge_tui.tui.keys import RATING_BINDINGS, keys_of
from judge_tui.tui.widgets.key_bar import KeyBar


class HelpScreen(Screen[None]):
    BINDINGS = [Binding("escape,question_mark,q", "app.pop_screen", "Close help", id="close-help")]

    def __init__(self, keymap: Mapping[str, str]) -> None:
        super().__init__()
        self.keymap = keymap

    def key_table(self) -> Table:
        table = Table(box=None, show_header=True, header_style="bold", expand=True, padding=(0, 2, 0, 0))
        table.add_column("keys", no_wrap=True)
        table.add_column("does")
        table.add_column("binding id (for settings.json keymap)", style="dim", no_wrap=True)
        for binding in RATING_BINDINGS:
            keys = ", ".join(self.app.get_key_display(binding.with_key(k)) for k in keys_of(binding, self.keymap))
            what = binding.tooltip or binding.description
            table.add_row(Text(keys, "bold"), Text(what), Text(binding.id or ""))
        return table

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Static(Text("Keys of the rating screen", "bold"), markup=False)
            yield Static(self.key_table(), markup=False)
            yield Static(
                Text(
                    "Scores: 0–4 give 0.00 / 0.25 / 0.50 / 0.75 / 1.00 on a quarter scale and 0–2 give "
                    "0 / 0.5 / 1 on a three-point scale; p and f give PASS and FAIL. Setting a score moves to "
                    "the next dimension, so an item with k dimensions takes k + 1 keys. Every change is saved "
                    "at once. Remap any key in settings.json, e.g. {\"keymap\": {\"submit\": \"enter,ctrl+s\"}}."
                ),
                markup=False, classes="hint",
            )
        yield KeyBar()
