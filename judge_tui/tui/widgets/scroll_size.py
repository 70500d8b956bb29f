"""How far a widget drawn line by line scrolls, changed without a layout of the screen."""

from __future__ import annotations

from textual.geometry import Size
from textual.scroll_view import ScrollView


def set_scroll_size(view: ScrollView, size: Size) -> None:
    """Give a ScrollView a new virtual size. Setting `virtual_size` lays the whole screen out (that is how Textual
    sizes the scrollbars); the item pane and the rubric panel change it on every item and most keys, and their own
    size never changes with it, so the scrollbar is sized here instead: a layout only when the bar comes or goes.
    """
    view.set_reactive(ScrollView.virtual_size, size)
    height = view.container_size.height
    overflow = view.styles.overflow_y
    show = overflow == "scroll" or (overflow == "auto" and size.height > height)
    view.show_vertical_scrollbar = show  # a reactive that lays out only when it changes
    if show and view.styles.scrollbar_size_vertical:
        bar = view.vertical_scrollbar
        bar.window_virtual_size = size.height
        bar.window_size = height - view.scrollbar_size_horizontal
        bar.refresh()
    view.scroll_y = view.validate_scroll_y(view.scroll_y)
