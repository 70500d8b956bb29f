"""A Static whose few looks recur, drawn once per look.

The status line, the key bar and the score under the rubric go back and forth between a few looks as keys are
pressed ("saving…" on and off, a key usable or not, "2 of 4 scored" on every item). Drawing a line through
Textual's Static turns its text into Content and styled strips again each time (~0.2 ms a line, in the frame
that answers the key); the lines of the last looks are kept instead, for the widget's size and style.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable

from rich.text import Text
from textual.content import Content
from textual.strip import Strip
from textual.visual import Visual
from textual.widgets import Static

_LOOKS_KEPT = 8


def look_of(text: Text | Content) -> Hashable:
    """What tells two looks apart: the characters and their styles."""
    if isinstance(text, Text):
        return text.plain, tuple(text.spans), str(text.style)
    return text.plain, tuple(text.spans)


class RecurringStatic(Static):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._look: Hashable = None
        self._drawn_looks: OrderedDict[Hashable, list[Strip]] = OrderedDict()

    def shows(self, text: Text | Content) -> bool:
        """Whether this text is the one shown."""
        return look_of(text) == self._look

    def show_look(self, text: Text | Content, *, layout: bool = False) -> bool:
        """Show this text unless it is already shown; True when it changed."""
        look = look_of(text)
        if look == self._look:
            return False
        self._look = look
        self.update(text, layout=layout)
        return True

    def render_line(self, y: int) -> Strip:
        size, style = self.size, self.visual_style
        key = (self._look, size, style, self.app.theme)  # a theme's colours ($accent) are resolved here
        strips = self._drawn_looks.get(key)
        if strips is None:
            strips = Visual.to_strips(self, self._render(), size.width, size.height, style)
            self._drawn_looks[key] = strips
            if len(self._drawn_looks) > _LOOKS_KEPT:
                self._drawn_looks.popitem(last=False)
        else:
            self._drawn_looks.move_to_end(key)
        self._dirty_regions.clear()  # as Widget.render_line's own drawing leaves it
        return strips[y] if y < len(strips) else Strip.blank(size.width, style.rich_style)
