"""Generic modal dialogs: edit a text, answer one or two questions, choose one of several answers.

Each returns its answer through `dismiss` (None when cancelled with Escape), so a screen pushes one with a
callback and never waits on it."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from judge_tui.model.textsafe import clean


class TextEditorScreen(ModalScreen[str | None]):
    """The in-app editor, when neither $VISUAL nor $EDITOR is set: Ctrl+S saves, Escape cancels."""

    DEFAULT_CSS = """
    TextEditorScreen { align: center middle; }
    TextEditorScreen > Vertical { width: 100%; height: 100%; border: thick $accent; background: $surface; }
    TextEditorScreen TextArea { height: 1fr; }
    TextEditorScreen Label { height: 1; }
    """
    BINDINGS = [Binding("ctrl+s", "save", "Save", id="editor-save", priority=True),
                Binding("escape", "cancel", "Cancel", id="editor-cancel", priority=True)]

    def __init__(self, title: str, text: str, language: str | None) -> None:
        super().__init__()
        self.title_text, self.text, self.language = title, text, language

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(clean(self.title_text), style="bold"))
            yield TextArea(self.text, language=self.language, id="editor-text", show_line_numbers=True)
            yield Label(Text("Ctrl+S: check and save · Escape: cancel (set $EDITOR to use your own editor)",
                             style="dim"))

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_save(self) -> None:
        self.dismiss(self.query_one(TextArea).text)

    def action_cancel(self) -> None:
        self.dismiss(None)


class AskScreen(ModalScreen[tuple[str, str] | None]):
    """Two lines to fill in (a reason and its items, an item and its explanation); Enter on the last one
    confirms, Escape cancels."""

    DEFAULT_CSS = """
    AskScreen { align: center middle; }
    AskScreen > Vertical { width: 76; max-width: 100%; height: auto; padding: 0 1; border: thick $accent;
                           background: $surface; }
    AskScreen Label { width: 100%; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="ask-cancel")]

    def __init__(self, title: str, first: tuple[str, str, str], second: tuple[str, str, str] | None) -> None:
        super().__init__()
        self.title_text, self.first, self.second = title, first, second

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(clean(self.title_text), style="bold"))
            for n, (label, value, placeholder) in enumerate(filter(None, (self.first, self.second))):
                yield Label(Text(clean(label)))
                yield Input(value=value, placeholder=placeholder, id=f"ask-{n}")
            yield Label(Text("Enter: next / confirm · Escape: cancel", style="dim"))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "ask-0" and self.second is not None:
            self.query_one("#ask-1", Input).focus()
            return
        first = self.query_one("#ask-0", Input).value.strip()
        second = self.query_one("#ask-1", Input).value.strip() if self.second is not None else ""
        self.dismiss((first, second))

    def action_cancel(self) -> None:
        self.dismiss(None)


class ChooseScreen(ModalScreen[str | None]):
    """One of several answers, each with what choosing it writes: Enter chooses the highlighted one (the first,
    the default, to begin with), Escape cancels."""

    DEFAULT_CSS = """
    ChooseScreen { align: center middle; }
    ChooseScreen > Vertical { width: 76; max-width: 100%; height: auto; max-height: 100%; padding: 0 1;
                              border: thick $accent; background: $surface; }
    ChooseScreen Label, ChooseScreen Static { width: 100%; }
    ChooseScreen OptionList { height: auto; max-height: 8; }
    ChooseScreen #choose-preview { margin-top: 1; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="choose-cancel")]

    def __init__(self, title: str, choices: list[tuple[str, Text, str]], preview_heading: str) -> None:
        """choices: (value, how it is listed, what choosing it writes); preview_heading introduces the last."""
        super().__init__()
        self.title_text, self.choices, self.preview_heading = title, choices, preview_heading

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(clean(self.title_text), style="bold"))
            yield OptionList(*(Option(shown, id=value) for value, shown, _preview in self.choices),
                             id="choose-list")
            yield Static(id="choose-preview")
            yield Label(Text("↑↓: choose · Enter: confirm · Escape: cancel", style="dim"))

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()
        self._preview(0)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._preview(event.option_index)

    def _preview(self, index: int) -> None:
        written = Text(f"{self.preview_heading}\n", style="dim")
        written.append(clean(self.choices[index][2]))
        self.query_one("#choose-preview", Static).update(written)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.choices[event.option_index][0])

    def action_cancel(self) -> None:
        self.dismiss(None)
