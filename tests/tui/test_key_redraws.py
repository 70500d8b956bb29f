"""Keys redraw only what they change (a scrollbar's rows that move, widgets whose content changed, each item line
worked out once a frame): whatever is left as it was must be what a redraw of everything shows."""

from __future__ import annotations

from typing import Any

import pytest
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.widgets import TextArea

from judge_tui.model.records import Item
from judge_tui.store import Store
from judge_tui.tui.screens import rating
from judge_tui.tui.screens.rating import RatingScreen
from judge_tui.tui.widgets.item_pane import ItemPane
from judge_tui.tui.widgets.key_bar import KeyBar
from judge_tui.tui.widgets.notes_editor import NotesEditor
from judge_tui.tui.widgets.rubric_panel import RubricPanel, ScoreSummary
from judge_tui.tui.widgets.status_line import StatusLine


def code_of(lines: int) -> str:
    return "\n".join(f"def step_{n}(state):  # {'x' * (n % 50)}\n    return state + {n}" for n in range(lines // 2))


LENGTHS = (12, 70, 30, 140, 44, 8)  # items of other lengths, so that the scrollbar's thumb changes between them


@pytest.fixture
def long_items(filled_store: Store) -> None:
    fields = {"task_type": "LRU Cache", "task": "Build a cache.", "rationale": "A dict.", "test_code": "",
              "test_results": "1 passed"}
    filled_store.add_items([Item(id=f"L{n:03d}", rubric="cis", fields={**fields, "source_code": code_of(lines)},
                                 task_type="LRU Cache") for n, lines in enumerate(LENGTHS)])


def segments(lines: list[Strip]) -> list[list[tuple[str, object]]]:
    return [[(segment.text, segment.style) for segment in line] for line in lines]


async def redrawn_whole(pilot, screen: RatingScreen) -> str:
    """The screen after every widget on it, and the scrollbars, are drawn anew."""
    for widget in screen.walk_children(with_self=True):
        widget.refresh()
    for widget in (screen.query_one(ItemPane), screen.query_one(RubricPanel)):
        if widget.show_vertical_scrollbar:
            widget.vertical_scrollbar.refresh()
    await pilot.pause()
    return pilot.app.export_screenshot()


async def settled(pilot) -> str:
    """The screen once what the key left for after its frame is done (the commit, the next item drawn ahead):
    the same three looks in a row, since on a loaded machine one idle look can come before that work has run."""
    drawn, same = "", 0
    for _ in range(40):
        await pilot.pause()
        drawn, before = pilot.app.export_screenshot(), drawn
        same = same + 1 if drawn == before else 0
        if same == 2:
            break
    return drawn


STEPS = ["3", "2", "3", "3", "enter", "3", "2", "3", "3", "enter", "pagedown", "3", "2", "3", "3", "enter",
         "z", "3", "2", "3", "3", "enter", "z", "theme", "3", "2", "3", "3", "enter", "narrow", "3", "2", "3",
         "3", "enter", "wide", "n", "a", "b", "escape", "3", "2", "3", "3", "enter", "u", "end", "home", "g",
         "w", "z", "l", "l", "h", "enter", "z", "n", "c", "enter", "escape", "3", "enter"]


@pytest.mark.slow
async def test_what_each_key_leaves_undrawn_is_what_a_whole_redraw_shows(make_app, long_items, monkeypatch):
    monkeypatch.setattr(rating, "SAVED_SHOWN_FOR", 3600.0)  # the "saved" mark stays while the screen is compared
    app = make_app("cis", auto_submit=False)
    async with app.run_test(size=(84, 26)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        pane = screen.query_one(ItemPane)
        thumbs = set()
        for step in STEPS:
            if step == "theme":
                app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
            elif step == "narrow":
                await pilot.resize_terminal(80, 24)
            elif step == "wide":
                await pilot.resize_terminal(84, 26)
            else:
                await pilot.press(step)
            drawn = await settled(pilot)
            if pane.shows_thumb:
                thumbs.add((pane.virtual_size.height, pane.scrollable_content_region.height))
            whole = await redrawn_whole(pilot, screen)
            assert drawn == whole, step
            editor = screen.query_one(NotesEditor)
            if editor.region.width:  # the note box gives what Textual's text area draws, as it is now
                crop = Region(0, 0, *editor.region.size)
                assert segments(editor.render_lines(crop)) == segments(TextArea.render_lines(editor, crop)), step
        assert len(thumbs) >= 4  # the scroll column's thumb was resized between items: the test tests something


async def test_a_line_of_text_hands_the_screen_only_its_changed_cells(make_app, monkeypatch):
    """A score key's frame draws the rectangle around all it draws: the status line hands over the cells its
    "saving…" changed, not the whole line, so that the rectangle stays clear of the item pane; and, drawing its
    own lines, hands them to the screen at once (not from its own message loop, a moment and a frame later)."""
    app = make_app("cis", auto_submit=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        status, keys = screen.query_one(StatusLine), screen.query_one(KeyBar)
        await settled(pilot)
        for line in (status, keys):
            line.take_changed()  # whatever the first paint left
        handed: list[Region] = []
        refresh = screen.refresh

        def noting(*regions: Region, **kwargs: Any) -> Any:
            handed.extend(regions)
            return refresh(*regions, **kwargs)

        monkeypatch.setattr(screen, "refresh", noting)
        before = status.content.plain
        status.set_saving(not status.saving)
        after = status.content.plain
        assert len(handed) == 1
        changed = handed[0]
        first = next((n for n, (a, b) in enumerate(zip(before, after, strict=False)) if a != b),
                     min(len(before), len(after)))  # the mark added (or taken off) at the end
        assert changed.y == status.content_region.y and changed.height == 1
        assert changed.x == status.content_region.x + first > status.content_region.x
        assert changed.right == status.content_region.right
        assert status.take_changed() is None  # handed over already
        assert keys.take_changed() is None  # nothing changed there
        summary = screen.query_one(ScoreSummary)
        summary.take_changed()
        summary.border_title = "R .75 · ▸A –"  # the scores in the rule above it: the whole widget drawn again
        assert summary.take_changed() == summary.region
        await pilot.press("3")
        assert status.take_changed() is None and keys.take_changed() is None  # the key's frame drew them


async def test_the_screens_own_lines_are_its_background_as_textual_draws_it(make_app):
    app = make_app("cis", auto_submit=False)
    async with app.run_test(size=(84, 26)) as pilot:
        await pilot.pause()
        screen = app.screen
        for change in ("", "theme", "resize", "short"):
            if change == "theme":
                app.theme = "textual-light"
            elif change == "resize":
                await pilot.resize_terminal(100, 30)
            elif change == "short":
                await pilot.resize_terminal(80, 24)
            await pilot.pause()
            width, height = screen.size
            for crop in (Region(0, 0, width, height), Region(3, 2, 10, 4), Region(width - 7, height - 3, 7, 3)):
                screen.refresh()  # Textual's own drawing of the screen, from scratch
                assert segments(screen.render_lines(crop)) == segments(Screen.render_lines(screen, crop)), change
