"""A line-drawn widget's lines as Textual's styles draw them, each line styled once and kept.

Textual styles every line a widget refreshes (its padding, border, tint, opacity, the app's colour filters) in the
frame that answers the key, a new Strip each time, even when the line itself is one the widget drew before: a new
item's ~70 lines and a score key's ~20 were styled again in their frame. The item pane and the rubric panel keep
their lines drawn (Strips that stay the same objects while they show the same thing); here each one is styled
once, possibly ahead of time (the next item's first screenful, the next card), and kept beside it, so that a frame
only puts styled lines together.

Only styles whose effect is a line padded to the content's width, a blank column or two at the sides and the
app's line filters are styled here; with anything more (a border, an outline, vertical padding, tint, opacity,
a hatch, a hovered link) the widget leaves its lines to Textual. tests/tui/test_styled_lines.py checks that the
lines are the ones Textual draws, for each theme, width, scroll and look.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import NamedTuple

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.color import Color
from textual.filter import LineFilter
from textual.geometry import Region
from textual.strip import Strip
from textual.style import Style
from textual.widget import Widget

_KEPT = 512  # styled lines kept per widget and styling (and as many again from before): a few screenfuls
_STYLINGS_KEPT = 3  # the widths of the rubric shown and folded, say


class Styling(NamedTuple):
    """What a styled line depends on besides the line itself."""

    width: int  # the widget's, padding included
    content_width: int
    pad_left: int
    pad_right: int
    padding: RichStyle  # the widget's background, for the cells beside and after the line
    filters: tuple[LineFilter, ...]
    background: Color

    def style(self, line: Strip) -> Strip:
        """A content line as Textual's styles draw it: padded to the content's width and at the sides, then
        through the app's line filters."""
        strip = line.adjust_cell_length(self.content_width, self.padding)
        if self.pad_left or self.pad_right:
            segments = list(strip)
            if self.pad_left:
                segments.insert(0, Segment(" " * self.pad_left, self.padding))
            if self.pad_right:
                segments.append(Segment(" " * self.pad_right, self.padding))
            strip = Strip(segments, self.width)
        else:
            strip = Strip(strip, self.width)  # a Strip of its own, as Textual's: its filtered forms kept on it
        for line_filter in self.filters:
            strip = strip.apply_filter(line_filter, self.background)
        return strip


def styling_of(widget: Widget) -> Styling | None:
    """How the widget's lines are styled now, or None when its styles do more than this module does."""
    styles = widget.styles
    pad_top, pad_right, pad_bottom, pad_left = styles.padding
    if (pad_top or pad_bottom or any(edge for edge, _color in styles.border)
            or any(edge for edge, _color in styles.outline) or styles.tint.a or styles.text_opacity != 1.0
            or widget.opacity != 1.0 or styles.has_rule("hatch") or (widget.auto_links and widget.hover_style.link_id)):
        return None
    region = widget.region  # as Textual's styles take it: the widget's size and its content's
    if not region.width:  # not on screen
        return None
    base_background, background = widget.background_colors
    return Styling(region.width, region.width - pad_left - pad_right, pad_left, pad_right,
                   Style(background=base_background + background).rich_style,
                   tuple(widget.get_line_filters()), background)


class LinesBeside:
    """Lines made from other lines, each kept beside the line it was made from while that line is in use: by the
    line's id and a tag, the line itself held so that its id stays its own. Past `most`, the older half is let
    go (kept one round more, in case it comes back)."""

    def __init__(self, most: int = _KEPT) -> None:
        self.most = most
        self._now: dict[tuple[int, Hashable], tuple[Strip, Strip]] = {}
        self._before: dict[tuple[int, Hashable], tuple[Strip, Strip]] = {}

    def get(self, line: Strip, tag: Hashable, make: Callable[[Strip], Strip]) -> Strip:
        """What `make(line)` gave for this line and tag, made now if not kept."""
        key = (id(line), tag)
        pair = self._now.get(key)
        if pair is None:
            pair = self._before.get(key)
            if pair is None or pair[0] is not line:
                pair = (line, make(line))
            if len(self._now) >= self.most:
                self._before, self._now = self._now, {}
            self._now[key] = pair
        return pair[1]


class StyledLines:
    """A widget's lines styled, each kept beside the line it was styled from while that line is in use (for the
    last few stylings: the rubric folded and back); and the last lines the screen asked for, given again while
    nothing has changed (the widget's refresh says when)."""

    def __init__(self) -> None:
        self._kept: OrderedDict[Styling, LinesBeside] = OrderedDict()  # for each styling, the lines styled
        self._styling: Styling | None = None  # the styling of the last line styled
        self._changes = 0  # counts the widget's refreshes
        # What the screen was last given, what for, and what held the lines then (so that its id stays its own).
        self._last: tuple[Hashable, list[Strip], object] | None = None
        self._styling_of: tuple[Hashable, Styling | None] | None = None  # the widget's styling, and what for

    def styling(self, widget: Widget) -> Styling | None:
        """styling_of(widget), kept until the widget is refreshed by Textual (an inline style set does that),
        told of new styles (forget), moved or resized, or a link in it hovered: a frame asks for it for every
        widget it draws, and working it out walks the widget's styles and its ancestors' backgrounds."""
        key = (widget.region, widget.auto_links and widget.hover_style.link_id)
        if self._styling_of is None or self._styling_of[0] != key:
            self._styling_of = (key, styling_of(widget))
        return self._styling_of[1]

    def refreshed(self) -> None:
        """The widget was refreshed through Textual: its lines may differ, and its styles too."""
        self._changes += 1
        self._styling_of = None

    def changed(self) -> None:
        """The lines the widget gives may differ from the last it gave (drawn by the screen: no refresh through
        Textual, and its styles as they were)."""
        self._changes += 1

    def styled(self, line: Strip, styling: Styling) -> Strip:
        """The line as Textual's styles draw it."""
        if styling is self._styling:  # the same as for the line before (a frame's lines, a screenful)
            kept = self._kept[styling]
        else:
            found = self._kept.get(styling)
            if found is None:
                found = self._kept[styling] = LinesBeside()
                if len(self._kept) > _STYLINGS_KEPT:
                    self._kept.popitem(last=False)
            self._kept.move_to_end(styling)
            self._styling, kept = styling, found
        return kept.get(line, None, styling.style)

    def lines(self, crop: Region, styling: Styling, drawn_for: tuple[Hashable, ...], holding: object,
              line_at: Callable[[int], Strip]) -> list[Strip]:
        """The crop's lines, styled: `line_at(y)` is the widget's row y; `drawn_for` what its rows depend on
        besides its refreshes (its scroll, the id of what holds its lines: `holding`, kept while this is)."""
        key = (crop, styling, drawn_for, self._changes)
        if self._last is not None and self._last[0] == key:
            return list(self._last[1])
        styled = [self.styled(line_at(y), styling) for y in crop.line_range]
        if crop.column_span != (0, styling.width):
            start, end = crop.column_span
            styled = [strip.crop(start, end) for strip in styled]
        self._last = (key, styled, holding)
        return list(styled)

    def forget(self) -> None:
        """New styles: nothing styled before is used again."""
        self._kept.clear()
        self._styling = self._last = self._styling_of = None
