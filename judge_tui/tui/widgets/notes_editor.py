"""The note for the current item: a small text area that takes the keys only while editing.

Invisible characters (a typed ❤️ is U+2764 then the variation selector U+FE0F, zero-width spaces and
joiners, bidi controls) are measured by the layout as narrower than many terminals draw them, which pushed
the box's right border out of line. The editor therefore shows each as ``<U+FE0F>``, as every other screen
does, while the note is stored exactly as typed: `note` turns the codes back into the characters.

A loaded note (another item's, or one restored after a crash) puts the cursor at its end, where typing goes
on; the box still shows the note from its start until it is edited. On a short terminal the box folds to one
row while not edited, and `NotePreview` stands in for it with the note's first line.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Self

from rich.text import Text
from textual.binding import Binding
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import TextArea

from judge_tui.model.textsafe import invisible_spans, restore_invisible, show_invisible


class NotesEditor(TextArea):
    BINDINGS = [Binding("escape", "finish", "Done", id="finish-note", tooltip="Stop editing the note")]

    def __init__(self, **kwargs: Any) -> None:
        self._refreshes = 0  # counts the box's refreshes: its lines change only with one
        self._last: tuple[Hashable, list[Strip]] | None = None  # the lines last given, and what for
        super().__init__(soft_wrap=True, show_line_numbers=False, tab_behavior="focus", **kwargs)
        self.border_title = "Note"
        self.border_subtitle = "n to edit"

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        if repaint:
            self._refreshes += 1
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def render_lines(self, crop: Region) -> list[Strip]:
        # A frame that changes anything beside the box (a new item, a score) asks for its lines too, and a text
        # area applies its theme to its styles each time it is drawn: the lines last given are given again while
        # the box has not been refreshed.
        key = (crop, self._refreshes, self.size, self.visual_style, self.app.theme, self.theme, self.has_focus,
               self.border_title, self.border_subtitle)
        if self._last is None or self._last[0] != key:
            self._last = (key, super().render_lines(crop))
        return list(self._last[1])

    @property
    def note(self) -> str:
        """The note as the reviewer wrote it (invisible characters as themselves)."""
        return restore_invisible(self.text)

    def load_note(self, note: str) -> None:
        self.load_text(show_invisible(note))
        self.move_cursor(self.document.end)
        self.scroll_home(animate=False)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        # A typed or pasted invisible character is shown as its code at once (the message then bubbles on).
        text = self.text
        for start, end, shown in invisible_spans(text):
            self.replace(shown, self._location(text, start), self._location(text, end))

    @staticmethod
    def _location(text: str, offset: int) -> tuple[int, int]:
        row = text.count("\n", 0, offset)
        return row, offset - (text.rfind("\n", 0, offset) + 1)

    def on_focus(self) -> None:
        self.border_subtitle = "Enter: new line · Esc: done"
        self.scroll_cursor_visible()

    def on_blur(self) -> None:
        self.border_subtitle = "n to edit"
        self.scroll_home(animate=False)

    def action_finish(self) -> None:
        self.screen.set_focus(None)


def first_line(note: str) -> str:
    """What a folded note box shows: the note's first line, with "…" when there is more."""
    stripped = note.strip()
    head, _, rest = stripped.partition("\n")
    return head.rstrip() + (" …" if rest.strip() else "")


class NotePreview(Widget):
    """The folded note on a short terminal: its first line, cut to the box with "…" (never interpreted).

    Its size never depends on the note, so a new note repaints it without a layout of the screen."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "Note"
        self.border_subtitle = "n to edit"
        self._line = ""

    def show_note(self, note: str) -> None:
        line = show_invisible(first_line(note))
        if line != self._line:
            self._line = line
            self.refresh()

    def render(self) -> Text:
        return Text(self._line, no_wrap=True, overflow="ellipsis")
