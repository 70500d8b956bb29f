"""Folding the rubric (toggle-rubric) and back: the item pane is laid out for its new width before the screen's
layout, and the rows it drew at the width it comes back to are kept, not drawn again."""

from __future__ import annotations

import pytest
from rich.console import Console
from rich.style import Style
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.geometry import Region
from textual.strip import Strip

from judge_tui.tui.screens.rating import RatingScreen
from judge_tui.tui.widgets.columns import Columns, RubricColumn
from judge_tui.tui.widgets.field_rows import FieldKind, FieldRows
from judge_tui.tui.widgets.item_pane import ItemPane
from judge_tui.tui.widgets.rubric_panel import RubricPanel, ScoreSummary

PROSE = "A fixed-size cache that keeps the most recently used entries and drops the oldest one when it is full. " * 4


def every_line(pane: ItemPane) -> list[str]:
    return [pane.line(y).text.rstrip() for y in range(pane.virtual_size.height)]


CODE = "\n".join(f"def step_{n}(state):\n    return state + {n}  # " + "x" * 70 for n in range(12))


def drawn(rows: FieldRows, width: int, console: Console) -> list[Strip]:
    return [rows.row(y, width, console, Style()) for y in range(rows.row_count(width, console))]


def test_rows_drawn_at_a_width_are_found_again_when_the_width_comes_back():
    console = Console(width=200)
    kinds: tuple[tuple[FieldKind, str], ...] = (("text", PROSE), ("code", CODE))
    for kind, text in kinds:
        rows = FieldRows(kind)
        rows.set_text(text)
        narrow = drawn(rows, 60, console)
        drawn(rows, 110, console)  # the rubric folded: the whole width
        again = drawn(rows, 60, console)
        assert all(a is b for a, b in zip(narrow, again, strict=True))  # the same strips, not drawn anew
        fresh = FieldRows(kind)
        fresh.set_text(text)
        assert [s.text for s in again] == [s.text for s in drawn(fresh, 60, console)]


def test_rows_kept_for_another_view_are_forgotten_with_the_text():
    console = Console(width=200)
    rows = FieldRows("code")
    rows.set_text(CODE)
    drawn(rows, 60, console)
    drawn(rows, 110, console)
    rows.set_text("print('other')")
    assert [s.text.rstrip() for s in drawn(rows, 60, console)] == ["1 │ print('other')"]


def test_code_scrolled_sideways_and_back_finds_its_rows_drawn():
    console = Console(width=200)
    rows = FieldRows("code")
    rows.set_text(CODE)
    rows.set_view(unwrapped=True, x=0)
    first = drawn(rows, 60, console)
    rows.set_view(unwrapped=True, x=15)
    moved = drawn(rows, 60, console)
    assert [s.text for s in moved] != [s.text for s in first]
    rows.set_view(unwrapped=True, x=0)
    assert all(a is b for a, b in zip(first, drawn(rows, 60, console), strict=True))


@pytest.mark.slow
async def test_folding_the_rubric_lays_the_item_out_for_its_new_width_before_the_screen_is_drawn(make_app):
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        pane = screen.query_one(ItemPane)
        narrow_width, narrow_lines = pane.text_width, every_line(pane)
        screen.action_toggle_rubric()  # no frame yet: the pane already knows how far it will scroll
        wide = pane.virtual_size
        await pilot.pause()
        assert wide.width == pane.text_width > narrow_width
        assert wide.height == pane.virtual_size.height
        screen.action_toggle_rubric()
        assert pane.virtual_size.width == narrow_width
        await pilot.pause()
        assert pane.text_width == narrow_width
        assert every_line(pane) == narrow_lines


async def test_scores_given_while_the_rubric_is_folded_show_in_it_once_unfolded_or_beside_the_note(make_app):
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        await pilot.press("z", "3", "4")
        await pilot.pause()
        await pilot.press("n")  # the note box opens in the rubric's column, with the rubric as it is now
        await pilot.pause()
        summary = screen.query_one(ScoreSummary)
        assert "R .75 · A 1 · ▸T – · L –" in Content.from_markup(str(summary.border_title)).plain
        assert "2 of 4 scored" in str(summary.content)
        await pilot.press("escape", "2")
        await pilot.pause()
        await pilot.press("z")
        await pilot.pause()
        assert "R .75 · A 1 · T .5 · ▸L –" in Content.from_markup(str(summary.border_title)).plain
        assert "3 of 4 scored" in str(summary.content)
        shown = screen.query_one(RubricPanel).text
        assert "0.75  R ·" in shown, shown
        assert "1.00  A ·" in shown, shown
        assert "0.50  T ·" in shown, shown


async def test_the_columns_draw_their_own_lines_as_textual_does_and_once_per_size(make_app):
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        body, side = screen.query_one(Columns), screen.query_one(RubricColumn)
        for widget, textual_s_own in ((body, Horizontal.render_lines), (side, Vertical.render_lines)):
            crop = Region(0, 0, widget.size.width, widget.size.height)
            kept = widget.render_lines(crop)
            assert kept == textual_s_own(widget, crop)
            await pilot.press("z", "z")  # folded and back: found again, not drawn anew
            await pilot.pause()
            assert all(a is b for a, b in zip(kept, widget.render_lines(crop), strict=True))
