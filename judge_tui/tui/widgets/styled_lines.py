"""A line-drawn widget's lines as Textual styles them, kept per line: a line shown again is not styled again."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from rich.style import Style as RichStyle
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

KEPT_LINES = 1024  # styled lines kept per widget (a few screenfuls of a long item, the next item's first)


class StyledLines:
    """Textual turns each line a widget draws into a line of the screen (its padding and background, the app's
    line filters) every time the line changes on screen: 25-35 µs a line, a whole pane's worth when a new item
    comes. The item pane and the rubric panel keep the lines they draw (the next item's and the next card's are
    drawn ahead of time), so what Textual makes of each is kept with it, made by Textual's own routine, and a
    line shown again costs a look-up.

    Only for a widget with no border, outline or padding above and below (each line then styles alike wherever
    it is); any other widget is styled by Textual as usual.
    """

    def __init__(self, widget: Widget) -> None:
        self.widget = widget
        self._kept: dict[int, tuple[Strip, Strip]] = {}  # id of a line drawn -> (that line, the line styled)
        self._look: object = None  # what the kept lines were styled with
        self._on_screen: dict[int, Strip] = {}  # row -> the styled line last returned for it
        self._blank: tuple[tuple[int, RichStyle], Strip] | None = None

    def blank(self, width: int, style: RichStyle) -> Strip:
        """A blank line of the widget, the same Strip each time (its styled line is kept by it)."""
        if self._blank is None or self._blank[0] != (width, style):
            self._blank = ((width, style), Strip.blank(width, style))
        return self._blank[1]

    def usable(self) -> bool:
        """Whether this widget's lines can be styled here (otherwise Textual styles them, and what was shown
        here is forgotten)."""
        widget = self.widget
        styles = widget.styles
        usable = (not any(edge for edge, _ in styles.border) and not any(edge for edge, _ in styles.outline)
                  and not styles.padding.top and not styles.padding.bottom
                  and not (widget.auto_links and widget.hover_style._link_id))  # noqa: SLF001 - a link under the mouse
        if not usable:
            self._on_screen.clear()
        return usable

    def keep(self, lines: list[Strip]) -> None:
        """Style lines the widget will draw soon (the next item's first screenful), while nothing waits."""
        if self.usable() and self.widget.content_region.height:
            following = iter(lines)
            self.render_lines(Region(0, 0, self.widget.region.width, 1), lambda _y: next(following), rows=len(lines))

    def render_lines(self, crop: Region, line: Callable[[int], Strip], rows: int | None = None) -> list[Strip]:
        """The widget's styled lines in `crop`, `line(y)` being what the widget draws at its row y (with `rows`:
        that many lines all styled as at the crop's first row)."""
        widget = self.widget
        styles = widget.styles
        app = widget.app
        base_background, background = widget.background_colors
        filters = widget.get_line_filters()
        size, content_size = widget.region.size, widget.content_region.size
        look = (size, content_size, styles._cache_key, base_background, background, tuple(filters),  # noqa: SLF001
                widget.opacity, app.ansi_theme, app.native_ansi_color)
        if look != self._look or len(self._kept) > KEPT_LINES:
            self._kept.clear()
            self._on_screen.clear()
            self._look = look
        cache = widget._styles_cache  # noqa: SLF001 - Textual's styling of a line, as it styles every widget's
        kept, on_screen = self._kept, self._on_screen
        # A row is drawn again when Textual has been told it changed (a refresh of it: its "dirty lines").
        dirty = cache._dirty_lines if rows is None else set()  # noqa: SLF001
        strips = []
        for y in crop.line_range if rows is None else [crop.y] * rows:
            if rows is None and y not in dirty and (shown := on_screen.get(y)) is not None:
                strips.append(shown)
                continue
            drawn = line(y)
            known = kept.get(id(drawn))
            if known is None or known[0] is not drawn:
                styled = cache.render_line(styles, y, size, content_size, styles.padding, base_background, background,
                                           partial(_same, drawn), None, None, widget.opacity, app.ansi_theme,
                                           app.native_ansi_color)
                for line_filter in filters:
                    styled = styled.apply_filter(line_filter, background)
                known = kept[id(drawn)] = (drawn, styled)
            strips.append(known[1])
            if rows is None:
                on_screen[y] = known[1]
        if rows is None:
            dirty.difference_update(crop.line_range)
        if crop.column_span != (0, size.width):
            x1, x2 = crop.column_span
            strips = [strip.crop(x1, x2) for strip in strips]
        return strips


def _same(line: Strip, _y: int) -> Strip:
    return line
