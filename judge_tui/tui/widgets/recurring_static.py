"""A line or two of text whose few looks recur, each drawn once.

The status line, the key bar and the score under the rubric go back and forth between a few looks as keys are
pressed ("saving…" on and off, a key usable or not, "2 of 4 scored" on every item). Textual's Static turns its
text into Content when it is given, and into styled lines again each time it is drawn (~0.2 ms a line, in the
frame that answers the key); here the text is turned into lines only for a look not drawn lately: the lines
of the last looks are kept whole, for the widget's size, style and theme, and cut to what each frame asks for
(a frame asks for the part of a widget within the rectangle around all it draws, which moves from key to key).
A look the next key is likely to show can be drawn ahead of time (`prepare_look`: the status line's "saving…"),
so that the key's frame only sends it.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Literal, Self

from rich.cells import cell_len
from rich.console import Console
from rich.style import Style as RichStyle
from rich.terminal_theme import TerminalTheme
from rich.text import Text
from textual.content import Content, Span
from textual.geometry import Region
from textual.strip import Strip
from textual.style import Style
from textual.widget import Widget

from judge_tui.tui.widgets.kept_lines import KeptLines
from judge_tui.tui.widgets.styled_lines import styling_of
from judge_tui.tui.widgets.text_strips import text_strips

_LOOKS_KEPT = 8


def look_of(text: Text | Content) -> Hashable:
    """What tells two looks apart: the characters and their styles."""
    if isinstance(text, Text):
        return text.plain, tuple(text.spans), str(text.style)
    return text.plain, tuple(text.spans)


def first_changed_cell(before: Text | Content, after: Text | Content) -> int:
    """The first cell of a line that two texts draw differently (left-aligned, one line): where their
    characters part, or where a style starts that one has and the other has not."""
    if isinstance(before, Text) != isinstance(after, Text) or (
            isinstance(before, Text) and isinstance(after, Text) and before.style != after.style):
        return 0
    common = 0
    for old_char, new_char in zip(before.plain, after.plain, strict=False):
        if old_char != new_char:
            break
        common += 1
    old_spans: set[tuple[int, int, object]] = set(before.spans)
    new_spans: set[tuple[int, int, object]] = set(after.spans)
    first = min([common, *(start for start, _end, _style in old_spans ^ new_spans)])
    return cell_len(after.plain[:first])


_converted: dict[tuple[str | RichStyle, TerminalTheme | None], Style] = {}


def _style_of(style: str | RichStyle, console: Console, theme: TerminalTheme | None) -> Style:
    converted = _converted.get((style, theme))
    if converted is None:
        if len(_converted) > 256:
            _converted.clear()
        rich_style = console.get_style(style) if isinstance(style, str) else style
        converted = _converted[style, theme] = Style.from_rich_style(rich_style, theme)
    return converted


def as_content(text: Text, console: Console, theme: TerminalTheme | None) -> Content:
    """Rich text as Textual's Content.from_rich_text makes it for drawing, each style converted once: converting
    a few styles was a fifth of drawing the status line anew, which a score key does (its "saving…")."""
    content = Content(text.plain, [Span(start, end, _style_of(style, console, theme))
                                   for start, end, style in text.spans])
    if text.style:
        content = content.stylize_before(text.style if isinstance(text.style, str)
                                         else _style_of(text.style, console, theme))
    return content


class RecurringStatic(Widget, inherit_bindings=False):
    DEFAULT_CSS = """
    RecurringStatic {
        height: auto;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(markup=False, **kwargs)
        self._text: Text | Content = Text()
        self._look: Hashable = look_of(self._text)
        self._drawn_looks = KeptLines(_LOOKS_KEPT)
        # What waits to be drawn: all of it (border and padding too), or a region of its content, or nothing.
        self._undrawn: Region | Literal["all"] | None = None
        self._draws_itself = False  # the lines last drawn were its own, not Textual's (see _draw)

    @property
    def content(self) -> Text | Content:
        """The text shown."""
        return self._text

    def render(self) -> Text | Content:
        text = self._text
        return as_content(text, self.app.console, self.app.ansi_theme) if isinstance(text, Text) else text

    def shows(self, text: Text | Content) -> bool:
        """Whether this text is the one shown."""
        return look_of(text) == self._look

    def show_look(self, text: Text | Content, *, layout: bool = False) -> bool:
        """Show this text unless it is already shown (laid out again only with layout); True when it changed."""
        look = look_of(text)
        if look == self._look:
            return False
        before, self._text, self._look = self._text, text, look
        width = self.content_region.width
        if layout or self.size.height != 1 or not width or text.plain.count("\n"):
            self.refresh(layout=layout)
        else:
            # A line redrawn from its first changed cell: the screen's frame draws every widget that meets the
            # rectangle around what changed, and "saving…" at the end of the status line beside a score in the
            # rubric would otherwise stretch it over the item pane.
            start = first_changed_cell(before, text)
            if start < width:
                self.refresh(Region(start, 0, width - start, 1))
        return True

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        if repaint and regions and not (layout or recompose) and self._draws_itself and self.is_attached \
                and isinstance(self._text, Text):
            # Cells of a line it draws itself (nothing of Textual's to forget): the screen is told at once, so
            # they are drawn in its next frame with whatever else the key changed, and once (handed over from
            # this widget's own message loop, they came a moment later and were drawn again a frame after).
            offset = self.content_region.offset
            self.screen.refresh(*(region.translate(offset) for region in regions))
            return self
        if repaint:  # what is to be drawn again (the border's title set redraws it all); on the screen when taken
            undrawn = self._undrawn
            self._undrawn = "all" if not regions or undrawn == "all" else Region.from_union(
                [*regions, *([undrawn] if undrawn else [])])
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def take_changed(self) -> Region | None:
        """Where on the screen this widget's text changed and has not been drawn since (None: nowhere), so that
        a screen drawing several widgets' changes in one frame draws these cells alone, not the whole line: the
        frame draws every widget within the rectangle around all it draws, and a key bar or status line drawn
        whole stretches that rectangle over the item pane."""
        found, self._undrawn = self._undrawn, None
        if found is None or found == "all":
            return None if found is None else self.region
        return found.translate(self.content_region.offset)

    def forget_looks(self) -> None:
        """Draw the text afresh when next drawn (as a widget that has kept nothing would)."""
        self._drawn_looks.clear()

    def prepare_look(self, text: Text | Content) -> None:
        """Draw a look ahead of time, when the widget's styles are ones it draws itself (see _draw), so that
        showing it later only sends its lines."""
        look = look_of(text)
        key = self._kept_as(look)
        if look != self._look and self.region.width and key not in self._drawn_looks:
            drawn = self._draw(text)
            if drawn is not None:
                self._drawn_looks.lines(key, self.region, lambda _whole: drawn)

    def render_lines(self, crop: Region) -> list[Strip]:
        self._undrawn = None  # drawn now (its own refresh draws it too, whoever asks)
        lines = self._drawn_looks.lines(self._kept_as(self._look), crop, self._draw_shown)
        if crop.column_span != (0, self.region.width):
            start, end = crop.column_span
            return [line.crop(start, end) for line in lines[crop.y:crop.bottom]]
        return lines[crop.y:crop.bottom]

    def _kept_as(self, look: Hashable) -> Hashable:
        """What a look's lines are kept under: the widget's size, style and theme ($accent) with it, and its
        border's titles, drawn with the lines."""
        return look, self.region.size, self.visual_style, self.app.theme, self.border_title, self.border_subtitle

    def _draw_shown(self, _crop: Region) -> list[Strip]:
        """The whole widget's lines for the look shown (whatever part the frame asks for: they are kept)."""
        drawn = self._draw(self._text)
        self._draws_itself = drawn is not None
        return super().render_lines(Region(0, 0, *self.region.size)) if drawn is None else drawn

    def _draw(self, text: Text | Content) -> list[Strip] | None:
        """A line of Rich text as Textual draws it on this widget (padding at the sides, background, line
        filters; tests/tui/test_recurring_looks.py compares the two), or None for what only Textual draws: a
        border or its titles, vertical padding, aligned content, Content whose styles name the theme's
        variables, text that does not fill the widget's lines."""
        styling = styling_of(self)
        if (styling is None or not isinstance(text, Text) or self.border_title or self.border_subtitle
                or self.styles.content_align != ("left", "top")):
            return None
        strips = text_strips(self, text, styling.content_width, self.visual_style)
        if len(strips) != self.size.height:
            return None
        return [styling.style(strip) for strip in strips]
