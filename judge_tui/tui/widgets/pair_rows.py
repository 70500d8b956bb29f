"""Two fields of an item side by side (a pair's two responses), or one above the other when too narrow.

A part of the item pane like FieldRows: it answers how many rows it takes at a width and draws one row at a
time. Side by side, each column is a FieldRows of its own at half the width, with the two labels on the first
row; below MIN_COLUMN cells a column, the two are stacked, each under its label, so both stay readable.
"""

from __future__ import annotations

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from judge_tui.tui.widgets.field_rows import FieldRows

MIN_COLUMN = 30  # cells a column needs for prose to read as prose; narrower, the two are stacked
_DIVIDER = " │ "
_LABEL = Style(bold=True)


class PairRows:
    """Two fields' rows in two columns with a divider, or stacked; labels drawn with them."""

    def __init__(self, labels: tuple[str, str], left: FieldRows, right: FieldRows) -> None:
        self.labels = labels
        self.left, self.right = left, right

    def side_by_side(self, width: int) -> bool:
        return (width - len(_DIVIDER)) // 2 >= MIN_COLUMN

    def _column(self, width: int) -> int:
        return (width - len(_DIVIDER)) // 2

    def row_count(self, width: int, console: Console) -> int:
        if self.side_by_side(width):
            column = self._column(width)
            return 1 + max(self.left.row_count(column, console), self.right.row_count(width - column - 3, console))
        # stacked: label, rows, a blank line, label, rows
        return 1 + self.left.row_count(width, console) + 2 + self.right.row_count(width, console)

    def row(self, y: int, width: int, console: Console, style: Style) -> Strip:
        if not self.side_by_side(width):
            return self._stacked_row(y, width, console, style)
        left_width = self._column(width)
        right_width = width - left_width - len(_DIVIDER)
        if y == 0:
            left = self._label(self.labels[0], left_width, console, style)
            right = self._label(self.labels[1], right_width, console, style)
        else:
            left = self.left.row(y - 1, left_width, console, style)
            right = self.right.row(y - 1, right_width, console, style)
        return Strip.join([left, Strip([Segment(_DIVIDER, style)]), right])

    def _stacked_row(self, y: int, width: int, console: Console, style: Style) -> Strip:
        left_rows = self.left.row_count(width, console)
        if y == 0:
            return self._label(self.labels[0], width, console, style)
        if y <= left_rows:
            return self.left.row(y - 1, width, console, style)
        if y == left_rows + 1:
            return Strip.blank(width, style)
        if y == left_rows + 2:
            return self._label(self.labels[1], width, console, style)
        return self.right.row(y - left_rows - 3, width, console, style)

    @staticmethod
    def _label(label: str, width: int, console: Console, style: Style) -> Strip:
        text = Text(label, style + _LABEL, no_wrap=True, overflow="ellipsis")
        text.truncate(width, overflow="ellipsis")
        return Strip(list(text.render(console, end=""))).adjust_cell_length(width, style)
