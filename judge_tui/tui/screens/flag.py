"""Asks for an optional reason when the reviewer flags an item."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from judge_tui.model.textsafe import clean


class FlagScreen(ModalScreen[str | None]):
    """Dismissed with the reason ("" for none), or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="cancel-flag")]

    def __init__(self, item_id: str) -> None:
        super().__init__()
        self.item_id = item_id

    def compose(self) -> ComposeResult:
        with Vertical(id="flag-dialog", classes="dialog"):
            yield Static(Text(f"Flag {clean(self.item_id)}", "bold"), markup=False)
            yield Static("Why? (optional) Enter flags, Escape cancels.", markup=False, classes="hint")
            yield Input(placeholder="reason", id="flag-reason", max_length=500)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(clean(event.value).strip())

    def action_cancel(self) -> None:
        self.dismiss(None)
