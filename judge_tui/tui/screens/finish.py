"""Finishing a study: the expert's own totals, then their name and summary notes for the rating form.

Offered once when no unrated item is left (and on its key at any time). It shows only the expert's own work:
counts and time, never a judge's or another expert's figure (the blind rule).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static, TextArea

from judge_tui.formats.numbers import duration_text
from judge_tui.model.textsafe import clean
from judge_tui.transfer.validate import MAX_NAME_LENGTH


@dataclass(frozen=True)
class Totals:
    rated: int
    total: int
    seconds: float  # on the rated items, as the rating form counts them
    form_minutes: float | int | None  # the rating form's total_time_minutes
    flagged: int
    skipped: int


class NameField(Input):
    """The name: Enter moves on to the summary notes, and keys typed after it land in the notes however fast
    they come (a fast typist, a paste). Textual hands each key to the field that has the focus when the key
    arrives; keys typed before Enter was handled were handed to this field, and are passed on from here."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.moved_on = False

    def on_key(self, event: events.Key) -> None:
        focused = self.screen.focused
        if not self.moved_on:
            if event.key != "enter":
                return  # typed into the name
            self.moved_on = True
            self.screen.set_focus(self.screen.query_one("#finish-notes", TextArea))
        elif focused is not None and focused is not self:
            focused.post_message(events.Key(event.key, event.character))  # typed after Enter: for the notes
        event.prevent_default()
        event.stop()

    def on_focus(self) -> None:
        self.moved_on = False  # back in the name (a click, shift+tab): it takes keys again


@dataclass(frozen=True)
class Finished:
    name: str
    summary_notes: str


class FinishScreen(ModalScreen[Finished | None]):
    """Dismissed with the name and notes to keep, or None when put off (Escape)."""

    BINDINGS = [
        Binding("escape", "later", "Later", id="finish-later"),
        Binding("ctrl+s", "save", "Save", id="finish-save"),
    ]

    def __init__(self, rubric_id: str, totals: Totals, *, name: str = "", summary_notes: str = "") -> None:
        super().__init__()
        self.rubric_id = rubric_id
        self.totals = totals
        self.expert_name = name
        self.summary_notes = summary_notes

    def compose(self) -> ComposeResult:
        t = self.totals
        form = "" if t.form_minutes is None else f" ({t.form_minutes} min in the rating form)"
        with Vertical(id="finish-dialog", classes="dialog"):
            yield Static(Text(f"Finish the study: {clean(self.rubric_id)}", "bold"), markup=False)
            yield Static(f"Rated {t.rated} of {t.total} items · time {duration_text(t.seconds)}{form}\n"
                         f"{t.flagged} flagged · {t.skipped} skipped", markup=False, id="finish-totals")
            yield Static("Your name (the rating form's expert_name)", markup=False, classes="finish-hint")
            yield NameField(value=self.expert_name, placeholder="name", id="finish-name", max_length=MAX_NAME_LENGTH)
            yield Static("Summary notes: patterns across items, failure modes scores miss",
                         markup=False, classes="finish-hint")
            yield TextArea(self.summary_notes, id="finish-notes", soft_wrap=True, tab_behavior="focus")
            with Horizontal(id="finish-buttons"):
                yield Button("Save (ctrl+s)", id="finish-save", variant="primary")
                yield Button("Later (Esc)", id="finish-later")

    def on_mount(self) -> None:
        self.query_one("#finish-name", Input).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "finish-save":
            self.action_save()
        else:
            self.action_later()

    def action_save(self) -> None:
        name = " ".join(clean(self.query_one("#finish-name", Input).value).split())
        notes = self.query_one("#finish-notes", TextArea).text.strip()
        self.dismiss(Finished(name, notes))

    def action_later(self) -> None:
        self.dismiss(None)

