"""Asked once, on the first start: who is rating. The answer is remembered in the database."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Input, Static

from judge_tui.model.records import reviewer_problem


class ReviewerScreen(Screen[str | None]):
    """Dismissed with a valid reviewer id, or with None (Escape) to leave the app."""

    AUTO_FOCUS = "#reviewer-id"
    BINDINGS = [Binding("escape", "leave", "Quit", id="leave-welcome")]

    def compose(self) -> ComposeResult:
        with Vertical(id="reviewer-dialog", classes="dialog"):
            yield Static("Welcome to judge-tui", classes="title", markup=False)
            yield Static(
                "Your reviewer id is stored with every rating you make (for example EXP001). It is asked once "
                "and remembered; `judge-tui --reviewer ID` changes it.\n\nEnter continues · Esc quits",
                markup=False, classes="hint",
            )
            yield Input(placeholder="reviewer id", id="reviewer-id", max_length=40)
            yield Static("", id="reviewer-problem", markup=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        reviewer = event.value.strip()
        problem = reviewer_problem(reviewer)
        if problem:
            self.query_one("#reviewer-problem", Static).update(f"Not yet: {problem}.")
            return
        self.dismiss(reviewer)

    def action_leave(self) -> None:
        self.dismiss(None)
