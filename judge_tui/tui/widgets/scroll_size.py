"""How far a widget drawn line by line scrolls, changed without a layout of the screen."""

from __future__ import annotations

from rich.segment import Segment
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar


def set_scroll_size(view: ScrollView, size: Size) -> None:
    """Give a ScrollView a new virtual size. Setting `virtual_size` lays the whole screen out (that is how Textual
    sizes the scrollbars); the rubric panel changes it on every item and most keys, and its own size never changes
    with it, so the scrollbar is sized here instead: a layout only when the bar comes or goes.
    """
    view.set_reactive(ScrollView.virtual_size, size)
    height = view.container_size.height
    overflow = view.styles.overflow_y
    show = overflow == "scroll" or (overflow == "auto" and size.height > height)
    shown = view.show_vertical_scrollbar
    view.show_vertical_scrollbar = show  # a reactive that lays out only when it changes
    if show and view.styles.scrollbar_size_vertical:
        bar = view.vertical_scrollbar
        window = height - view.scrollbar_size_horizontal
        if not shown or bar.size.height != window:  # laid out anew: drawn whole
            bar.window_virtual_size = size.height
            bar.window_size = window
            bar.refresh()
        else:
            resize_bar(bar, size.height, window)
    view.scroll_y = view.validate_scroll_y(view.scroll_y)


def resize_bar(bar: ScrollBar, virtual_size: int, window_size: int) -> None:
    """Give a scrollbar of unchanged height a new virtual and window size, and redraw only its rows that change:
    Textual restyles every row of a bar whose size it is told, while a new card of another length moves only the
    end of the thumb."""
    before = _bar_rows(bar)
    bar.set_reactive(ScrollBar.window_virtual_size, virtual_size)
    bar.set_reactive(ScrollBar.window_size, window_size)
    after = _bar_rows(bar)
    if len(before) != len(after):
        bar.refresh()
        return
    changed = [y for y, (old, new) in enumerate(zip(before, after, strict=True)) if old != new]
    if changed:
        bar.refresh(Region(0, changed[0], bar.size.width, changed[-1] - changed[0] + 1))


def _bar_rows(bar: ScrollBar) -> list[list[Segment]]:
    """The bar's rows as its renderable draws them at its present size."""
    console = bar.app.console
    width, height = bar.size
    options = console.options.update(width=width, height=height)
    return console.render_lines(bar.render(), options, pad=False)
