"""The rating screen's two columns, the item and the rubric, side by side."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

from textual.containers import Horizontal, Vertical
from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.strip import Strip
from textual.widget import Widget

_KEPT = 4  # a few sizes: the rubric shown and folded, a short and a tall terminal


class _DrawnLines:
    """A container's own lines (its background and border; its children are drawn over them), kept for the few
    sizes it takes. Textual styles every one of a container's lines again whenever its size changes or it is
    shown: folding the rubric (toggle-rubric) and back did that for the whole body (~1.7 ms) and the rubric's
    column with its border (~3 ms), a good part of the key. What is drawn depends only on the size, the styles
    and the theme, all in the key."""

    def __init__(self) -> None:
        self.kept: OrderedDict[Hashable, list[Strip]] = OrderedDict()

    def lines(self, widget: Widget, crop: Region, draw: Callable[[Region], list[Strip]]) -> list[Strip]:
        styles = widget.styles
        key = (crop, widget.size, widget.visual_style, styles.border, styles.outline, widget.app.theme)
        strips = self.kept.get(key)
        if strips is None:
            strips = self.kept[key] = draw(crop)
            if len(self.kept) > _KEPT:
                self.kept.popitem(last=False)
        else:
            self.kept.move_to_end(key)
        return strips


class Columns(Horizontal):
    """A Horizontal that is laid out once when its size changes, not twice, and draws its own lines once.

    Textual gives every widget a virtual size that asks for another layout of the screen, and a repaint of the
    whole widget, whenever it changes; a layout that resizes a container changes its virtual size, so folding
    the rubric (toggle-rubric) laid the screen out a second time and sent the item and the rubric to the
    terminal again in the next frame. These columns never scroll (overflow hidden), so their virtual size is
    only a record of the layout that has just been done: kept without asking for another.
    """

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)

    def __init__(self, *children: Widget, **kwargs: Any) -> None:
        super().__init__(*children, **kwargs)
        self.drawn = _DrawnLines()

    def render_lines(self, crop: Region) -> list[Strip]:
        return self.drawn.lines(self, crop, super().render_lines)


class RubricColumn(Vertical):
    """The rubric's column beside the item (the rubric, its score line, the note), drawing its own lines once."""

    def __init__(self, *children: Widget, **kwargs: Any) -> None:
        super().__init__(*children, **kwargs)
        self.drawn = _DrawnLines()

    def render_lines(self, crop: Region) -> list[Strip]:
        return self.drawn.lines(self, crop, super().render_lines)
