"""A vertical scrollbar that reuses the rows it has drawn: its thumb moves without a row being drawn again."""

from __future__ import annotations

from typing import Any

from rich.color import Color
from rich.console import RenderableType
from rich.segment import Segment, Segments
from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip
from textual.style import Style
from textual.widget import Widget


class RowScrollBar(ScrollBar):
    """Textual's vertical scrollbar, put together from rows drawn once.

    Textual draws a scrollbar as a Rich renderable over its whole height whenever its thumb moves, and each row
    then goes through a widget's styling as any line does: an item of another length moves the thumb, so every
    row was drawn again (about 1-2.5 ms for 38 rows). Yet a bar has few kinds of row: the track above and below
    the thumb, the thumb, and the eighth-of-a-cell glyphs at the thumb's ends. Each kind is drawn once, by
    Textual (its renderable, its styling), and a bar of any length or position is put together from them.

    A bar with nothing to scroll (one that is always shown, `overflow-y: scroll`) is an empty column in the
    widget's background, as the gutter Textual keeps for a bar that comes and goes: the column is kept, so an item
    that needs the bar after one that did not is shown without a layout of the screen.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._drawn_rows: dict[Segment, Strip] = {}  # a row as Textual's renderable makes it -> that row drawn
        self._drawn_for: object = None  # the look (width, styles, filters) the rows were drawn in
        self._sample: list[Segment] | None = None  # while rows are drawn ahead: the rows to draw
        self._shown: object = None  # the thumb and crop of the rows last returned, in the look drawn for
        self._shown_rows: list[Strip] = []
        self._shown_for: object = None  # the crop and size they were returned for

    def render_lines(self, crop: Region) -> list[Strip]:
        if not self.vertical or crop.column_span != (0, self.size.width):
            return super().render_lines(crop)
        if not self._dirty_regions and (crop, self.size) == self._shown_for:
            return self._shown_rows  # not refreshed since (Textual refreshes a bar when it moves or restyles)
        self._dirty_regions.clear()
        bar = super().render()
        assert isinstance(bar, ScrollBarRender)
        look = (self.size, self.visual_style, self.background_colors, tuple(self.get_line_filters()),
                self.app.ansi_theme, self.styles.tint, self.opacity, self.styles.text_opacity)
        if look != self._drawn_for:
            self._drawn_rows.clear()
            self._drawn_for = look
            self._shown = None
        shown = (bar.virtual_size, bar.window_size, bar.position, bar.style, crop)
        if shown == self._shown:  # nothing moved since the last frame
            self._shown_for = (crop, self.size)
            return self._shown_rows
        if not bar.window_size:  # nothing to scroll: an empty column, as the gutter Textual keeps for a bar
            self._shown, self._shown_for, self._shown_rows = shown, (crop, self.size), [self._gutter()] * crop.height
            return self._shown_rows
        rows = self._bar(bar, self.size.height, bar.virtual_size, bar.window_size, bar.position)
        if any(row not in self._drawn_rows for row in rows):
            self._draw_rows([*rows, *self._every_kind_of_row(bar)])
        self._shown, self._shown_for = shown, (crop, self.size)
        self._shown_rows = [self._drawn_rows[row] for row in rows[crop.line_range.start:crop.line_range.stop]]
        return self._shown_rows

    def _gutter(self) -> Strip:
        """A row of the column in the scrolling widget's background, as Textual draws its padding."""
        assert isinstance(self.parent, Widget)
        base, background = self.parent.background_colors
        strip = Strip.blank(self.size.width, Style(background=base + background).rich_style)
        for line_filter in self.get_line_filters():
            strip = strip.apply_filter(line_filter, background)
        return strip

    def render(self) -> RenderableType:
        if self._sample is not None:
            return Segments(self._sample, new_lines=True)
        return super().render()

    def _draw_rows(self, rows: list[Segment]) -> None:
        """Draw these rows as Textual draws a bar's rows (a screenful at a time, in place of the bar) and keep
        them. What is drawn next is drawn afresh."""
        height = self.size.height
        rows = [row for row in dict.fromkeys(rows) if row not in self._drawn_rows]
        try:
            for start in range(0, len(rows), height):
                sample = rows[start:start + height]
                self._sample = sample + [sample[-1]] * (height - len(sample))
                self._forget_drawing()
                self._drawn_rows.update(zip(sample, super().render_lines(self.size.region), strict=False))
        finally:
            self._sample = None
            self._forget_drawing()

    def _forget_drawing(self) -> None:
        """Have Textual draw the bar from its renderable next time (nothing it kept of an earlier one)."""
        self._layout_cache.clear()  # where Textual keeps the renderable
        self._set_dirty()
        self._shown_for = None

    def _bar(self, renderer: ScrollBarRender, size: int, virtual_size: float, window_size: float,
             position: float) -> list[Segment]:
        """A bar's rows in this bar's colours, as Textual's renderable makes them."""
        style = self.app.console.get_style(renderer.style)
        return list(renderer.render_bar(
            size=size, virtual_size=virtual_size, window_size=window_size, position=position,
            thickness=self.size.width, vertical=True, back_color=style.bgcolor or Color.parse("#555555"),
            bar_color=style.color or Color.parse("bright_magenta")).segments)

    def _every_kind_of_row(self, bar: ScrollBarRender) -> list[Segment]:
        """Every row a bar in these colours can have: a thumb of 8 cells in a track of 16, started at each
        eighth of a cell (its ends then take every glyph), and a bar with nothing to scroll."""
        rows = self._bar(bar, 16, 0, 0, 0)
        for eighth in range(8):  # the thumb's top at 2 * position / 8 cells: position = eighth / 4
            rows += self._bar(bar, 16, 32, 16, eighth / 4)
        return rows


def row_scroll_bar(widget: Widget) -> ScrollBar:
    """A scrolling widget's vertical scrollbar as a RowScrollBar (made as Textual's `vertical_scrollbar` makes
    its own: a widget's property returns this)."""
    if widget._vertical_scrollbar is None:  # noqa: SLF001
        bar = widget._vertical_scrollbar = RowScrollBar(  # noqa: SLF001
            vertical=True, name="vertical", thickness=widget.scrollbar_size_vertical)
        bar.display = False
        widget.app._start_widget(widget, bar)  # noqa: SLF001
    return widget._vertical_scrollbar  # noqa: SLF001
