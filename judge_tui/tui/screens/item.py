"""One item in full, read-only: opened from the disagreement browser to read what the scores were about."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static

from judge_tui.model.records import Item
from judge_tui.model.rubrics import Rubric
from judge_tui.model.textsafe import clean
from judge_tui.tui.keys import RATING_BINDINGS
from judge_tui.tui.widgets.item_pane import SCROLLS, ItemPane
from judge_tui.tui.widgets.key_bar import KeyBar


class ItemScreen(Screen[None]):
    AUTO_FOCUS = ""

    DEFAULT_CSS = """
    ItemScreen #item-title { height: 1; padding: 0 1; background: $panel; text-style: bold; }
    ItemScreen ItemPane { padding: 0 1; }
    """

    # The rating screen's scroll keys (same binding ids, so a keymap moves them here too), and the arrows.
    BINDINGS = [
        *(b for b in RATING_BINDINGS if b.action.startswith("scroll_item")),
        Binding("down", "scroll_item('scroll_down')", "Line down", show=False, id="item-arrow-down"),
        Binding("up", "scroll_item('scroll_up')", "Line up", show=False, id="item-arrow-up"),
        Binding("escape,q", "close", "Back", id="close-item"),
    ]

    def __init__(self, rubric: Rubric, item: Item) -> None:
        super().__init__()
        self.rubric = rubric
        self.item = item

    def compose(self) -> ComposeResult:
        yield Static(id="item-title", markup=False)
        yield ItemPane(self.rubric, id="item-view")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one(ItemPane).show(self.item)
        self.query_one("#item-title", Static).update(Text(
            f"Item {clean(self.item.id)} · {clean(self.rubric.id)} · ↑/↓ {self._scroll_keys()} scroll"))

    def _scroll_keys(self) -> str:
        """The page keys as the user's keymap binds them (the scroll keys are the rating screen's): pgup/pgdn."""
        first: dict[str | None, str] = {}
        for active in self.active_bindings.values():
            first.setdefault(active.binding.id, self.app.get_key_display(active.binding))
        return "/".join(key for key in (first.get("scroll-up"), first.get("scroll-down")) if key)

    def action_scroll_item(self, how: str) -> None:
        if how in SCROLLS:
            getattr(self.query_one(ItemPane), how)(animate=False)

    def action_close(self) -> None:
        self.dismiss()
