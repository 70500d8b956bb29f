"""The note for the current item: a small text area that takes the keys only while editing."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import TextArea


class NotesEditor(TextArea):
    BINDINGS = [Binding("escape", "finish", "Done", id="finish-note", tooltip="Stop editing the note")]

    def __init__(self, **kwargs: object) -> None:
        super().__init__(soft_wrap=True, show_line_numbers=False, tab_behavior="focus", **kwargs)  # type: ignore[arg-type]
        self.border_title = "Note"
        self.border_subtitle = "n to edit"

    def action_finish(self) -> None:
        self.screen.set_focus(None)
