"""The item being rated, laid out field by field as its rubric describes, drawn line by line."""

from __future__ import annotations

import json
from bisect import bisect_right
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any, Self

from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.text import Text
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBarRender
from textual.strip import Strip

from judge_tui.model.records import Item
from judge_tui.model.rubrics import ItemField, Rubric
from judge_tui.model.textsafe import clean
from judge_tui.tui.widgets.field_rows import FieldRows, prepare
from judge_tui.tui.widgets.pair_rows import PairRows
from judge_tui.tui.widgets.styled_lines import LinesBeside, StyledLines, Styling
from judge_tui.tui.widgets.text_strips import text_strips


def display_text(value: object) -> str:
    """An item field as display text: strings as written, anything else as indented JSON; always cleaned."""
    if value is None:
        return ""
    if isinstance(value, str):
        return clean(value)
    return clean(json.dumps(value, indent=2, ensure_ascii=False))


# The scroll actions a screen may pass on to the item pane (the rating screen's and the item screen's keys).
SCROLLS = ("scroll_page_down", "scroll_page_up", "scroll_down", "scroll_up", "scroll_home", "scroll_end")

_LOOK_OF_KIND = {"text": "", "code": "code", "xml": "code", "output": "output"}



class ItemPane(ScrollView, can_focus=False):
    """The item's id, task type and split, then each field's label and its rows: one widget drawn line by
    line (Textual's line API, as RubricPanel draws the rubric). Scrolls with the rating screen's keys, so the
    arrow keys stay free for the rubric.

    A new item changes only the lines the pane holds and how far it scrolls: no layout of the screen, and only
    the lines on screen that differ are drawn again. The pane draws its scroll column itself, a cell at the end of
    each row, as Textual's scrollbar draws it (`ScrollBarRender`): Textual's scrollbar widget restyled all of its
    rows for each new item, and the screen cut each of the item's lines at its edge. Each field's rows are worked
    out per width by its FieldRows and become Strips only when on screen. It looks as the header, label and field widgets it
    replaces did: a blank line above the header and above each label, code and XML on a lighter background,
    program output muted as well.
    """

    DEFAULT_CSS = """
    ItemPane {
        width: 1fr;
        height: 1fr;
        overflow-x: hidden;
        overflow-y: hidden;  /* scrolled by keys; the scroll column is drawn with the lines */
    }
    ItemPane > .item-pane--label {
        color: $accent;
        text-style: bold;
    }
    ItemPane > .item-pane--code {
        background: $boost;
    }
    ItemPane > .item-pane--output {
        color: $text-muted;
        background: $boost;
    }
    """
    COMPONENT_CLASSES = {"item-pane--label", "item-pane--code", "item-pane--output"}

    def __init__(self, rubric: Rubric, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._prepared: _Content | None = None  # the next item, drawn ahead of time
        self.rubric = rubric
        self._content = _Content(None, Text(), [], {}, [(Text(), "")], [])
        self._drawn_text: dict[tuple[str, str, int], list[Strip]] = {}  # header and labels, by text, look, width
        self._on_screen: dict[int, Strip] = {}  # the line last drawn at each row of the pane
        self._blank: tuple[tuple[int, RichStyle], Strip] | None = None  # a blank line, the same Strip each time
        self.unwrapped = False  # code and program output a line a row, scrolled sideways (toggle-wrap)
        self._x = 0  # unwrapped: the first column of code shown
        self._top_drawn: int | None = None  # while Textual asks for the pane's lines: the item's line at the top
        self._looks: dict[str, Any] = {}  # the visual style of each look, until the styles change
        self._blank_background: RichStyle | None = None  # the pane's background alone, until the styles change
        self._styled = StyledLines()  # the lines as Textual's styles draw them (padding, colour filters)
        # The lines on screen as last worked out (to find those that changed), for the frame that draws them
        self._worked_out: tuple[tuple[int, int, int, int, bool, int], _Content, list[Strip]] | None = None
        self._bar: tuple[tuple[int, int, int], list[Segment]] | None = None  # the scroll column's cells, and for what
        self._bar_colours: tuple[Any, Any] | None = None  # its background and its thumb, until restyled
        self._rows = LinesBeside()  # each row as drawn: the item's line with the column's cell, by the line and cell

    @property
    def rubric(self) -> Rubric:
        return self._rubric

    @rubric.setter
    def rubric(self, rubric: Rubric) -> None:
        """Another version of the rubric: its fields from the next item on (one prepared before is not used)."""
        self._rubric = rubric
        self._prepared = None

    # ------------------------------------------------------------------ what the pane shows

    def show(self, item: Item, *, colour_later: bool = False) -> None:
        """Show an item, scrolled to its top; with colour_later its code stays plain until `colour()`.
        An item prepared ahead of time (`prepare`) is only swapped in."""
        self.workers.cancel_group(self, "highlight")  # the last item's long code, if still being coloured
        prepared, self._prepared = self._prepared, None
        if prepared is not None and prepared.item == item and not colour_later:
            self._content = prepared
        else:
            self._content = self._content_of(item, colour_later=colour_later)
        self._x = 0
        if self._apply_view(self._content):  # prepared before wrapping was switched
            self._content.width = -1
        for name in self._content.long:
            self._colour_in_steps(self._content.rows[name])
        if self.scroll_offset.y:
            self.scroll_to(y=0, animate=False, immediate=True)  # draws the whole pane anew
            self._build(refresh=False)
        else:
            self._build()

    def prepare(self, item: Item, *, other_width: int = 0) -> None:
        """Work out the next item's rows at the pane's width and draw its first screenful while the reviewer
        reads this one (after the frame, once its colours are worked out), so that `show` only swaps lines in.
        With `other_width` (the content width the pane takes with the rubric folded, or back), its first
        screenful at that width too, so that folding on the new item finds it drawn."""
        width = self.text_width
        if width <= 0:
            return
        content = self._content_of(item, colour_later=False)
        self._apply_view(content, x=0)  # as it opens: from its first column
        styling = self._styled.styling(self)
        if other_width > 0 and other_width != width:
            gained = other_width - width
            self._draw_ahead(content, other_width, None if styling is None else Styling(
                styling.width + gained, styling.content_width + gained, *styling[2:]), self._cuts(gained))
        self._draw_ahead(content, width, styling, self._cuts())  # the width it opens at, laid out last
        self._prepared = content

    def _draw_ahead(self, content: _Content, width: int, styling: Styling | None, cuts: list[int]) -> None:
        """Lay the content out at this width, and draw and style its first screenful (each row is kept by its
        field, each styled line by the pane)."""
        self._lay_out(content, width)
        console = self.app.console
        cells = self._bar_cells(content.starts[-1], 0)
        for y in range(self.scrollable_content_region.height):
            line = self._row(content, 0, y, cells)
            if styling is not None:
                styled = self._styled.styled(line, styling)  # the frame that shows it only sends it
                # The screen cuts each line it is given at the edges of the widgets on its row, and writes each
                # piece out as terminal text: a Strip keeps both, so cut and written now, the frame finds them
                # done (~40 code lines of many colours, 1-2 ms of the key).
                for piece in styled.divide(cuts):
                    piece.render(console)

    def _cuts(self, gained: int = 0) -> list[int]:
        """Where the screen cuts the pane's lines: at its own end (with `gained`, the pane that many columns
        wider); nothing else is drawn over it."""
        width = self.region.width + gained
        return [width] if width > 0 else []

    def colour(self) -> None:
        """Colour the code shown plain until now (the first item, once painted)."""
        changed = False
        for rows in self._content.rows.values():
            if rows.colour_pending:
                changed = True
                if rows.colour():
                    self._colour_in_steps(rows)
        if changed:
            self._content.width = -1  # the same rows, in colour
            self._build()

    def _content_of(self, item: Item, *, colour_later: bool) -> _Content:
        header = Text(clean(item.id), "bold")
        task_type = item.task_type or self.rubric.task_type_of(item.fields)
        if task_type:
            header.append(f"  · {clean(task_type)}", "dim")
        if item.split:
            header.append(f"  · {clean(item.split)} split", "dim")
        content = _Content(item, header, [], {}, [(header, "")], [])
        paired = self.rubric.side_by_side
        for field in self.rubric.fields:
            value = item.fields.get(field.name)
            missing = value in (None, "")
            if missing and not field.required:
                continue  # an optional field the item does not have
            rows = content.rows[field.name] = FieldRows(field.kind, field.language)
            if rows.set_text(display_text(value) if not missing else "(empty)", colour_later=colour_later):
                content.long.append(field.name)
            content.fields.append(field)
            if field.name not in paired:
                content.parts += [(Text(field.label), "label"), (rows, _LOOK_OF_KIND[field.kind])]
            elif all(name in content.rows for name in paired):  # the second of the two: both in one part
                first = next(f for f in content.fields if f.name == paired[0] or f.name == paired[1])
                second = field
                pair = PairRows((clean(first.label), clean(second.label)),
                                content.rows[first.name], content.rows[second.name])
                content.parts.append((pair, _LOOK_OF_KIND[first.kind]))
        return content

    # ------------------------------------------------------------------ wrapped or read sideways

    def set_unwrapped(self, unwrapped: bool) -> None:
        """Code and output unwrapped (a line a row, cut at the edge, line numbers kept) or wrapped again."""
        self.unwrapped, self._x = unwrapped, 0
        if self._apply_view(self._content):
            self._content.width = -1
            self._build()

    def scroll_sideways(self, direction: int) -> bool:
        """Move unwrapped code a step left or right (the line numbers stay); False when it cannot move."""
        width = self.text_width
        x = min(self._furthest(width), max(0, self._x + direction * max(8, width // 4)))
        if not self.unwrapped or x == self._x:
            return False
        self._x = x
        self._apply_view(self._content)
        self._refresh_changed()
        return True

    def _furthest(self, width: int) -> int:
        """How far unwrapped code can scroll at this width: the longest line's end in view, beside its mark."""
        widest = max((rows.widest() for rows in self._content.rows.values() if rows.scrolls_sideways), default=0)
        return max(0, widest - width + 2)

    @property
    def sideways(self) -> int:
        """Unwrapped: how many columns of code are scrolled out of view to the left."""
        return self._x

    def _apply_view(self, content: _Content, x: int | None = None) -> bool:
        changed = False
        for rows in content.rows.values():
            changed = rows.set_view(unwrapped=self.unwrapped, x=self._x if x is None else x) or changed
        return changed

    def _colour_in_steps(self, rows: FieldRows) -> None:
        content = self._content

        def coloured() -> None:
            if content is self._content:
                self._refresh_changed()

        self.run_worker(rows.colour_in_steps(coloured), group="highlight", exit_on_error=False)

    # ------------------------------------------------------------------ what tests and screens read

    def shows_field(self, name: str) -> bool:
        """Whether the item's field is shown (an optional field the item lacks is not)."""
        return name in self._content.rows

    def field_text(self, name: str) -> str:
        """The text a shown field holds, including what is scrolled out of view ("" when not shown)."""
        rows = self._content.rows.get(name)
        return rows.text if rows is not None else ""

    @property
    def prepared_item(self) -> Item | None:
        """The item laid out and drawn ahead of time, to be shown next (None when there is none)."""
        return self._prepared.item if self._prepared is not None else None

    def field_rows(self, name: str) -> FieldRows:
        return self._content.rows[name]

    @property
    def text(self) -> str:
        """Everything the pane shows as plain text, each field unwrapped."""
        content = self._content
        parts = [content.header.plain]
        for field in content.fields:
            parts += [field.label, content.rows[field.name].text]
        return "\n".join(parts)

    # ------------------------------------------------------------------ drawing

    @property
    def text_width(self) -> int:
        """The columns the item's lines take: the pane's content less the scroll column."""
        return max(0, self.scrollable_content_region.width - self.styles.scrollbar_size_vertical)

    @property
    def allow_vertical_scroll(self) -> bool:
        """Scrolls (by the mouse wheel too) while the item is taller than the pane, as with Textual's own bar."""
        return not self.disabled and self.max_scroll_y > 0

    @property
    def shows_thumb(self) -> bool:
        """Whether the scroll column shows where the pane is in the item (the item is taller than the pane)."""
        return self.virtual_size.height > self.scrollable_content_region.height

    def on_resize(self) -> None:
        width = self.text_width
        if self._x > self._furthest(width):  # wider now (the rubric folded): no more scrolled than needed
            self._x = self._furthest(width)
            self._apply_view(self._content)
        self._build()

    def expect_width(self, width: int) -> None:
        """The pane is about to be laid out at this content width (the rubric folded, or back): the item is laid
        out for it now, and Textual's layout sizes the scrollbar for it, so the first frame at the new width
        is the whole change (laid out when first drawn, the scrollbar was corrected a frame later)."""
        if width <= 0 or width == self._content.width:
            return
        content = self._content
        if self._x > self._furthest(width):
            self._x = self._furthest(width)
            self._apply_view(content)
        self._lay_out(content, width)
        self.set_reactive(ScrollView.virtual_size, Size(width, content.starts[-1]))  # no layout: the pane's own size

    def notify_style_update(self) -> None:
        """New styles (another theme): everything is drawn again in its new colours."""
        super().notify_style_update()
        self._looks.clear()
        self._blank_background = None
        self._styled.forget()
        self._drawn_text.clear()
        self._prepared = None
        self._bar = self._bar_colours = None
        self._rows = LinesBeside()
        for rows in self._content.rows.values():
            rows.forget_rows()
        self._content.width = -1
        self._on_screen.clear()
        self.refresh()

    def _build(self, *, refresh: bool = True) -> None:
        """Lay the item out at the pane's width (when not yet done) and set how far the pane scrolls; with
        refresh, draw again the lines on screen that changed."""
        width = self.text_width
        if self.scrollable_content_region.width <= 0:  # not laid out yet: built when first drawn
            return
        content = self._content
        if content.width != width:
            self._lay_out(content, width)
        size = Size(width, content.starts[-1])
        if size != self.virtual_size:
            # No layout of the screen: the pane's size is its own, and its scroll column is drawn with its lines.
            self.set_reactive(ScrollView.virtual_size, size)
            self.scroll_y = self.validate_scroll_y(self.scroll_y)
        if refresh:
            self._refresh_changed()

    def _lay_out(self, content: _Content, width: int) -> None:
        """Where each part starts at this width."""
        console = self.app.console
        starts = [0]
        for part, look in content.parts:
            if isinstance(part, FieldRows | PairRows):
                height = part.row_count(width, console)
            else:  # a blank line above the header and above each label, as their top margin
                height = 1 + len(self._drawn(part, look, width))
            starts.append(starts[-1] + height)
        content.starts, content.width = starts, width

    def _refresh_changed(self) -> None:
        """Draw again, and send to the terminal, only the run of lines on screen that changed."""
        if self._content.width != self.text_width:
            self.refresh()
            return
        top, content = round(self.scroll_offset.y), self._content
        cells = self._bar_cells(content.starts[-1], top)
        lines = [self._row(content, top, y, cells) for y in range(self.scrollable_content_region.height)]
        changed = [y for y, line in enumerate(lines)
                   if (before := self._on_screen.get(y)) is None or line is not before and before != line]
        if changed:
            self.refresh_lines(top + changed[0], changed[-1] - changed[0] + 1)
        # The frame asks for these lines again: worked out once, they are given while nothing else is refreshed.
        self._worked_out = (self._view_key(top), self._content, lines)

    def _drawn(self, text: Text, look: str, width: int) -> list[Strip]:
        """The header or a label drawn as a Static would draw it, kept for its text, look and width."""
        key = (text.markup, look, width)
        drawn = self._drawn_text.get(key)
        if drawn is None:
            style = self._look_style(look)
            drawn = [strip.adjust_cell_length(width, _background_only(style))
                     for strip in text_strips(self, text, width, style)]
            if len(self._drawn_text) > 64:
                self._drawn_text.clear()
            self._drawn_text[key] = drawn
        return drawn

    def _blank_style(self) -> RichStyle:
        """A blank line, as the space between two widgets was: the pane's background alone."""
        if self._blank_background is None:
            self._blank_background = _background_only(self._look_style(""))
        return self._blank_background

    def _look_style(self, look: str) -> Any:
        style = self._looks.get(look)
        if style is None:
            style = self._looks[look] = self.get_visual_style(f"item-pane--{look}") if look else self.visual_style
        return style

    def line(self, index: int) -> Strip:
        """Line `index` of everything the pane holds, at the width it was laid out for."""
        return self._line_of(self._content, index)

    def _line_of(self, content: _Content, index: int) -> Strip:
        width = content.width
        if width <= 0:  # no room for a column of text (a terminal too narrow): nothing to lay out
            return self._blank_line(self.text_width)
        part_index = bisect_right(content.starts, index) - 1
        if part_index >= len(content.parts):
            return self._blank_line(width)
        part, look = content.parts[part_index]
        offset = index - content.starts[part_index]
        if isinstance(part, FieldRows | PairRows):
            return part.row(offset, width, self.app.console, self._look_style(look).rich_style)
        if offset == 0:
            return self._blank_line(width)
        return self._drawn(part, look, width)[offset - 1]

    def _blank_line(self, width: int) -> Strip:
        """A blank line, the same Strip each time: a line compared with the one last drawn is found unchanged."""
        style = self._blank_style()
        if self._blank is None or self._blank[0] != (width, style):
            self._blank = ((width, style), Strip.blank(width, style))
        return self._blank[1]

    def _top(self) -> int:
        """The item's line at the top of the pane, the item laid out at the pane's width."""
        if self._content.width != self.text_width:  # first drawn, or a new width
            self._build(refresh=False)
        return round(self.scroll_offset.y)

    def render_lines(self, crop: Region) -> list[Strip]:
        # The scroll and width looked up once for all the lines Textual asks for, not once a line.
        top = self._top()
        styling = self._styled.styling(self)
        if styling is None:  # styles this pane does not draw itself: Textual styles each line
            self._top_drawn = top
            try:
                return super().render_lines(crop)
            finally:
                self._top_drawn = None
        content = self._content
        view = self._view_key(top)
        kept = self._worked_out
        worked_out = kept[2] if kept is not None and kept[0] == view and kept[1] is content else []
        cells = self._bar_cells(content.starts[-1], top)

        def line_at(y: int) -> Strip:
            line = self._on_screen[y] = worked_out[y] if y < len(worked_out) else self._row(content, top, y, cells)
            return line

        return self._styled.lines(crop, styling, view, content, line_at)

    def _view_key(self, top: int) -> tuple[int, int, int, int, bool, int]:
        """What the lines on screen depend on besides the pane's refreshes: scroll, item, width, sideways, height."""
        return (top, id(self._content), self._content.width, self._x, self.unwrapped,
                self.scrollable_content_region.height)

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        if repaint:
            self._styled.refreshed()
            self._worked_out = None
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def render_line(self, y: int) -> Strip:
        top = self._top() if self._top_drawn is None else self._top_drawn
        strip = self._row(self._content, top, y, self._bar_cells(self._content.starts[-1], top))
        self._on_screen[y] = strip
        return strip

    # ------------------------------------------------------------------ the scroll column

    def _row(self, content: _Content, top: int, y: int, cells: list[Segment]) -> Strip:
        """Row y of the pane scrolled to `top`: the item's line there and the scroll column's cell (of `cells`,
        `_bar_cells`); the same Strip while both are the same (a row compared with the one last drawn is found
        unchanged)."""
        cell = cells[y] if y < len(cells) else cells[-1]
        width = max(0, content.width)

        def with_cell(line: Strip) -> Strip:
            whole = line if line.cell_length == width else line.adjust_cell_length(width, self._blank_style())
            return Strip([*whole, cell], width + cell.cell_length)

        return self._rows.get(self._line_of(content, top + y), cell, with_cell)

    def _bar_cells(self, virtual_height: int, top: int) -> list[Segment]:
        """The scroll column's cell on each row, as Textual's scrollbar draws it; blank while the item fits."""
        height = self.scrollable_content_region.height
        key = (virtual_height, height, top)
        if self._bar is not None and self._bar[0] == key:
            return self._bar[1]
        back, thumb = self._bar_look()
        thickness = self.styles.scrollbar_size_vertical
        if virtual_height > height > 0:
            under = self._look_style("").rich_style  # as Textual draws a widget's segments: on its own style
            cells = [Segment(cell.text, under + cell.style) for cell in ScrollBarRender.render_bar(
                size=height, virtual_size=virtual_height, window_size=height, position=top, thickness=thickness,
                back_color=back, bar_color=thumb).segments]
        else:
            cells = [Segment(" " * thickness, self._blank_style())] * max(1, height)
        self._bar = (key, cells)
        return cells

    def _bar_look(self) -> tuple[Any, Any]:
        """The column's background and thumb colours, as Textual's scrollbar takes them from the pane's styles."""
        if self._bar_colours is None:
            styles = self.styles
            background = styles.scrollbar_background
            if background.a < 1:
                background = self.background_colors[0] + background
            thumb = background + styles.scrollbar_color
            self._bar_colours = (background.rich_color, thumb.rich_color)
        return self._bar_colours


def _background_only(style: Any) -> RichStyle:
    """A visual style's background as a Rich style (for blank cells beside or below text)."""
    return RichStyle(bgcolor=style.background.rich_color if style.background else None)


@dataclass
class _Content:
    """An item as the pane shows it: its header, its shown fields' rows, and where each part starts."""

    item: Item | None
    header: Text
    fields: list[ItemField]
    rows: dict[str, FieldRows]
    parts: list[tuple[Text | FieldRows | PairRows, str]]  # each part and its look: header, each label and rows
    long: list[str]  # fields coloured step by step once shown
    starts: list[int] = dataclass_field(default_factory=lambda: [0])  # the first line of each part
    width: int = -1  # the width it is laid out for


def prepare_item(rubric: Rubric, item: Item) -> None:
    """Do the slow part of showing an item (syntax colours) ahead of time; runs in a thread."""
    for field in rubric.fields:
        value = item.fields.get(field.name)
        if value not in (None, ""):
            prepare(display_text(value), field.kind, field.language)
