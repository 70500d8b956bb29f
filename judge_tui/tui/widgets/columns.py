"""The rating screen's two columns, the item and the rubric, side by side."""

from __future__ import annotations

from textual.containers import Horizontal
from textual.geometry import Size
from textual.reactive import Reactive


class Columns(Horizontal):
    """A Horizontal that is laid out once when its size changes, not twice.

    Textual gives every widget a virtual size that asks for another layout of the screen, and a repaint of the
    whole widget, whenever it changes; a layout that resizes a container changes its virtual size, so folding
    the rubric (toggle-rubric) laid the screen out a second time and sent the item and the rubric to the
    terminal again in the next frame. These columns never scroll (overflow hidden), so their virtual size is
    only a record of the layout that has just been done: kept without asking for another.
    """

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)
