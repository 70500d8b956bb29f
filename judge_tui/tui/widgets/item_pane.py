"""The item being rated, laid out field by field as its rubric describes."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from judge_tui.model.records import Item
from judge_tui.model.rubrics import Rubric
from judge_tui.model.textsafe import clean
from judge_tui.tui.widgets.field_view import FieldView, prepare


def field_text(value: object) -> str:
    """An item field as display text: strings as written, anything else as indented JSON; always cleaned."""
    if value is None:
        return ""
    if isinstance(value, str):
        return clean(value)
    return clean(json.dumps(value, indent=2, ensure_ascii=False))


# The scroll actions a screen may pass on to the item pane (the rating screen's and the item screen's keys).
SCROLLS = ("scroll_page_down", "scroll_page_up", "scroll_down", "scroll_up", "scroll_home", "scroll_end")


class ItemPane(VerticalScroll, can_focus=False):
    """Scrolls with the rating screen's keys, so the arrow keys stay free for the rubric."""

    def __init__(self, rubric: Rubric, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rubric = rubric

    def compose(self) -> ComposeResult:
        yield Static(id="item-header", markup=False)
        for field in self.rubric.fields:
            yield Static(Text(field.label), classes="field-label", id=f"label-{field.name}")
            yield FieldView(field.kind, field.language, id=f"field-{field.name}", classes=f"field-{field.kind}")

    def show(self, item: Item, *, colour_later: bool = False) -> None:
        """Show an item; with colour_later its code stays plain until `colour()` (see FieldView.set_text)."""
        header = Text(clean(item.id), "bold")
        task_type = item.task_type or self.rubric.task_type_of(item.fields)
        if task_type:
            header.append(f"  · {clean(task_type)}", "dim")
        if item.split:
            header.append(f"  · {clean(item.split)} split", "dim")
        self.query_one("#item-header", Static).update(header)
        for field in self.rubric.fields:
            value = item.fields.get(field.name)
            missing = value in (None, "")
            label = self.query_one(f"#label-{field.name}", Static)
            view = self.query_one(f"#field-{field.name}", FieldView)
            label.display = view.display = not (missing and not field.required)
            view.set_text(field_text(value) if not missing else "(empty)", colour_later=colour_later)
        self.scroll_home(animate=False)

    def colour(self) -> None:
        for view in self.query(FieldView):
            if view.colour_pending:
                view.colour()


def prepare_item(rubric: Rubric, item: Item) -> None:
    """Do the slow part of showing an item (syntax colours) ahead of time; runs in a thread."""
    for field in rubric.fields:
        value = item.fields.get(field.name)
        if value not in (None, ""):
            prepare(field_text(value), field.kind, field.language)
