"""The item being rated, laid out field by field as its rubric describes, drawn line by line."""

from __future__ import annotations

import json
from bisect import bisect_right
from typing import Any

from rich.style import Style as RichStyle
from rich.text import Text
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.visual import Visual, visualize

from judge_tui.model.records import Item
from judge_tui.model.rubrics import ItemField, Rubric
from judge_tui.model.textsafe import clean
from judge_tui.tui.widgets.field_rows import FieldRows, language_for, prepare


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
    the lines on screen that differ are drawn again. Each field's rows are worked out per width by its
    FieldRows and become Strips only when on screen. It looks as the header, label and field widgets it
    replaces did: a blank line above the header and above each label, code and XML on a lighter background,
    program output muted as well.
    """

    DEFAULT_CSS = """
    ItemPane {
        width: 1fr;
        height: 1fr;
        overflow-x: hidden;
        overflow-y: auto;
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
        self.rubric = rubric
        self._header = Text()
        self._rows: dict[str, FieldRows] = {}
        self._shown: list[ItemField] = []
        self._parts: list[tuple[Text | FieldRows, str]] = [(self._header, "")]  # each part and its look
        # Per width: the first line of each part (the header, then each shown field's label and rows).
        self._starts: list[int] = [0]
        self._built_width = -1
        self._drawn_text: dict[tuple[str, str, int], list[Strip]] = {}  # header and labels, by text, look, width
        self._on_screen: dict[int, Strip] = {}  # the line last drawn at each row of the pane

    # ------------------------------------------------------------------ what the pane shows

    def show(self, item: Item, *, colour_later: bool = False) -> None:
        """Show an item, scrolled to its top; with colour_later its code stays plain until `colour()`."""
        header = Text(clean(item.id), "bold")
        task_type = item.task_type or self.rubric.task_type_of(item.fields)
        if task_type:
            header.append(f"  · {clean(task_type)}", "dim")
        if item.split:
            header.append(f"  · {clean(item.split)} split", "dim")
        self._header = header
        self._shown = []
        for field in self.rubric.fields:
            value = item.fields.get(field.name)
            missing = value in (None, "")
            if missing and not field.required:
                continue  # an optional field the item does not have
            rows = self._field_rows(field)
            if rows.set_text(display_text(value) if not missing else "(empty)", colour_later=colour_later):
                self._colour_in_steps(field.name, rows)
            self._shown.append(field)
        self._parts = [(header, "")]
        for field in self._shown:
            self._parts += [(Text(field.label), "label"), (self._rows[field.name], _LOOK_OF_KIND[field.kind])]
        self._built_width = -1
        if self.scroll_offset.y:
            self.scroll_to(y=0, animate=False, immediate=True)  # draws the whole pane anew
            self._build(refresh=False)
        else:
            self._build()

    def colour(self) -> None:
        """Colour the code shown plain until now (the first item, once painted)."""
        changed = False
        for field in self._shown:
            rows = self._rows[field.name]
            if rows.colour_pending:
                changed = True
                if rows.colour():
                    self._colour_in_steps(field.name, rows)
        if changed:
            self._refresh_changed()

    def _field_rows(self, field: ItemField) -> FieldRows:
        rows = self._rows.get(field.name)
        if rows is None or (rows.kind, rows.language) != (field.kind, language_for(field.kind, field.language)):
            rows = self._rows[field.name] = FieldRows(field.kind, field.language)
        return rows

    def _colour_in_steps(self, name: str, rows: FieldRows) -> None:
        self.run_worker(rows.colour_in_steps(self._refresh_changed), exclusive=True, group=f"highlight-{name}",
                        exit_on_error=False)

    # ------------------------------------------------------------------ what tests and screens read

    def shows_field(self, name: str) -> bool:
        """Whether the item's field is shown (an optional field the item lacks is not)."""
        return any(field.name == name for field in self._shown)

    def field_text(self, name: str) -> str:
        """The text a shown field holds, including what is scrolled out of view ("" when not shown)."""
        return self._rows[name].text if self.shows_field(name) else ""

    def field_rows(self, name: str) -> FieldRows:
        return self._rows[name]

    @property
    def text(self) -> str:
        """Everything the pane shows as plain text, each field unwrapped."""
        parts = [self._header.plain]
        for field in self._shown:
            parts += [field.label, self._rows[field.name].text]
        return "\n".join(parts)

    # ------------------------------------------------------------------ drawing

    def on_resize(self) -> None:
        self._build()

    def notify_style_update(self) -> None:
        """New styles (another theme): everything is drawn again in its new colours."""
        super().notify_style_update()
        self._drawn_text.clear()
        for rows in self._rows.values():
            rows.forget_rows()
        self._on_screen.clear()
        self.refresh()

    def _build(self, *, refresh: bool = True) -> None:
        """Work out where each part starts at the pane's width and how far the pane scrolls; with refresh, draw
        again the lines on screen that changed."""
        width = self.scrollable_content_region.width
        if width <= 0:  # not laid out yet: built when first drawn
            return
        console = self.app.console
        starts = [0]
        for part, look in self._parts:
            if isinstance(part, FieldRows):
                height = part.row_count(width, console)
            else:  # a blank line above the header and above each label, as their top margin
                height = 1 + len(self._drawn(part, look, width))
            starts.append(starts[-1] + height)
        self._starts, self._built_width = starts, width
        size = Size(width, starts[-1])
        if size != self.virtual_size:
            # No layout of the screen: only the scrollbar's reach changes (it appearing or going is a layout).
            self.set_reactive(ScrollView.virtual_size, size)
            self._scroll_update(size)
        if refresh:
            self._refresh_changed()

    def _refresh_changed(self) -> None:
        """Draw again, and send to the terminal, only the run of lines on screen that changed."""
        if self._built_width != self.scrollable_content_region.width:
            self.refresh()
            return
        top = round(self.scroll_offset.y)
        changed = [y for y in range(self.scrollable_content_region.height)
                   if (before := self._on_screen.get(y)) is None or before != self._line(top + y)]
        if changed:
            self.refresh_lines(top + changed[0], changed[-1] - changed[0] + 1)

    def _drawn(self, text: Text, look: str, width: int) -> list[Strip]:
        """The header or a label drawn as a Static would draw it, kept for its text, look and width."""
        key = (text.markup, look, width)
        drawn = self._drawn_text.get(key)
        if drawn is None:
            style = self._look_style(look)
            padding = RichStyle(bgcolor=style.background.rich_color if style.background else None)
            drawn = [strip.adjust_cell_length(width, padding)
                     for strip in Visual.to_strips(self, visualize(self, text, markup=False), width, None, style)]
            if len(self._drawn_text) > 64:
                self._drawn_text.clear()
            self._drawn_text[key] = drawn
        return drawn

    def _look_style(self, look: str) -> Any:
        return self.get_visual_style(f"item-pane--{look}") if look else self.visual_style

    def _line(self, index: int) -> Strip:
        """Line `index` of everything the pane holds, at the width it was built for."""
        width = self._built_width
        part_index = bisect_right(self._starts, index) - 1
        if part_index >= len(self._parts):
            return Strip.blank(width, self._look_style("").rich_style)
        part, look = self._parts[part_index]
        offset = index - self._starts[part_index]
        if isinstance(part, FieldRows):
            return part.row(offset, width, self.app.console, self._look_style(look).rich_style)
        if offset == 0:
            return Strip.blank(width, self._look_style("").rich_style)
        return self._drawn(part, look, width)[offset - 1]

    def render_line(self, y: int) -> Strip:
        if self._built_width != self.scrollable_content_region.width:  # first drawn, or a new width
            self._build(refresh=False)
        strip = self._line(y + round(self.scroll_offset.y))
        self._on_screen[y] = strip
        return strip


def prepare_item(rubric: Rubric, item: Item) -> None:
    """Do the slow part of showing an item (syntax colours) ahead of time; runs in a thread."""
    for field in rubric.fields:
        value = item.fields.get(field.name)
        if value not in (None, ""):
            prepare(display_text(value), field.kind, field.language)
