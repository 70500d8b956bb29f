"""The rating screen's two columns, the item and the rubric, side by side."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.containers import Horizontal, Vertical
from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.strip import Strip
from textual.widget import Widget

from judge_tui.tui.widgets.kept_lines import KeptLines

_KEPT = 4  # a few sizes: the rubric shown and folded, a short and a tall terminal


def _drawn_lines(widget: Widget, kept: KeptLines, crop: Region, draw: Callable[[Region], list[Strip]]) -> list[Strip]:
    """A container's own lines (its background and border; its children are drawn over them), kept for the few
    sizes it takes. Textual styles every one of a container's lines again whenever its size changes or it is
    shown: folding the rubric (toggle-rubric) and back did that for the whole body (~1.7 ms) and the rubric's
    column with its border (~3 ms), a good part of the key. What is drawn depends only on the size, the styles
    and the theme, all in the key."""
    styles = widget.styles
    key = (crop, widget.size, widget.visual_style, styles.border, styles.outline, widget.app.theme)
    return kept.lines(key, crop, draw)


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
        self.drawn = KeptLines(_KEPT)

    def render_lines(self, crop: Region) -> list[Strip]:
        return _drawn_lines(self, self.drawn, crop, super().render_lines)


class RubricColumn(Vertical):
    """The rubric's column beside the item (the rubric, its score line, the note), drawing its own lines once."""

    def __init__(self, *children: Widget, **kwargs: Any) -> None:
        super().__init__(*children, **kwargs)
        self.drawn = KeptLines(_KEPT)

    def render_lines(self, crop: Region) -> list[Strip]:
        return _drawn_lines(self, self.drawn, crop, super().render_lines)
