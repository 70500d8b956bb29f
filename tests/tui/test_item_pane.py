"""The item pane: one widget drawn line by line. A new item changes its lines and how far it scrolls, never the
layout of the screen; only the rows on screen are drawn; fields wrap, number and hide as they always have."""

from __future__ import annotations

import pytest
from textual.geometry import Region

from judge_tui.model.records import Item
from judge_tui.tui.screens.rating import RatingScreen
from judge_tui.tui.widgets.item_pane import ItemPane
from tests.narrowing import present
from tests.tui.layouts import Layouts


def on_screen(pane: ItemPane) -> list[str]:
    """The pane's lines as the screen shows them now."""
    return [pane.render_line(y).text.rstrip() for y in range(pane.scrollable_content_region.height)]


def every_line(pane: ItemPane) -> list[str]:
    """All of the pane's lines, scrolled out of view or not."""
    return [pane.line(y).text.rstrip() for y in range(pane.virtual_size.height)]


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_the_next_item_is_shown_without_a_layout_of_the_screen(make_app, size):
    app = make_app("cis")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        pane = screen.query_one(ItemPane)
        await pilot.press("3", "2", "4", "1")
        await pilot.pause()
        layouts = Layouts(screen)
        await pilot.press("enter")
        for _ in range(3):  # and the frames after it: no second layout follows the first
            await pilot.pause()
        assert present(screen.session.state).item.id == "B002"
        assert layouts.count == 0
        shown = "\n".join(on_screen(pane))
        assert "B002  · Fibonacci" in shown
        assert "fib(n - 1)" in shown


@pytest.mark.slow
@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_items_that_need_the_scrollbar_and_items_that_do_not_wrap_alike(make_app, size):
    """The scrollbar's column is always kept (Textual's stable gutter, empty when the item fits): an item that
    needs the bar after one that does not, or the reverse, wraps at the same width and draws the same lines."""
    app = make_app("cis")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        short = Item(id="FITS", rubric="cis", fields={"task": "t", "rationale": "r", "source_code": "x = 1",
                                                         "test_code": "", "test_results": "ok"})
        long = Item(id="OVERFLOWS", rubric="cis", fields={**short.fields, "source_code": "\n".join(
            f"x_{i} = {i}" for i in range(80))})
        screen.session.store.add_items([short, long])
        pane = screen.query_one(ItemPane)
        widths = set()
        for item, overflows in ((short, False), (long, True), (short, False), (long, True)):
            screen.session.open(item)
            screen.show_item()  # what a key that opens an item does
            for _ in range(3):
                await pilot.pause()
            assert (pane.virtual_size.height > pane.scrollable_content_region.height) == overflows
            assert pane.shows_thumb == pane.allow_vertical_scroll == overflows
            widths.add(pane.text_width)
            assert pane.text_width == pane.size.width - 1  # the scroll column's (size holds the padding)
            assert on_screen(pane)[1].startswith(item.id)
        assert len(widths) == 1



    """A 5,000-line submission: its rows become Strips only as they come into view."""
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        code = "\n".join(f"value_{i} = {i}" for i in range(5000))
        long_item = Item(id="LONG", rubric="cis", fields={"task": "t", "rationale": "r", "source_code": code,
                                                          "test_code": "", "test_results": "ok"})
        screen.session.store.add_items([long_item])
        screen.session.open(long_item)
        screen.show_item()  # what a key that opens an item does
        await pilot.pause()
        pane = screen.query_one(ItemPane)
        rows = pane.field_rows("source_code")
        assert pane.virtual_size.height > 5000
        assert 0 < rows.drawn_rows <= pane.scrollable_content_region.height
        await pilot.press("end")
        await pilot.pause()
        assert "5000 │ value_4999 = 4999" in on_screen(pane)
        assert rows.drawn_rows <= 2 * pane.scrollable_content_region.height


async def test_code_has_a_numbered_gutter_and_text_wraps_at_words(make_app):
    app = make_app("cis")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        pane = app.screen.query_one(ItemPane)
        drawn = every_line(pane)
        assert " 1 │ class Counter:" in drawn
        assert ' 2 │     """Counts calls."""' in drawn
        # The task, wrapped at a word boundary at the pane's width, every word kept.
        task = "Build a fixed-size cache that evicts the entry used longest ago."
        lines = pane.text.splitlines()
        assert task in lines
        width = pane.scrollable_content_region.width
        assert max(len(line) for line in drawn) <= width
        start = next(y for y, line in enumerate(drawn) if line.startswith("Build a"))
        joined = " ".join(drawn[start:start + 3])
        assert task in joined


async def test_a_missing_required_field_says_empty_and_optional_ones_are_hidden(make_app):
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        item = Item(id="GAPS", rubric="cis", fields={"task": "t", "rationale": "", "source_code": "x = 1"})
        screen.session.store.add_items([item])
        screen.session.open(item)
        screen.show_item()
        await pilot.pause()
        pane = screen.query_one(ItemPane)
        required = {f.name: f.required for f in screen.rubric.fields}
        for name, value in (("task", "t"), ("source_code", "x = 1")):
            assert pane.shows_field(name)
            assert pane.field_text(name) == value
        for name in ("rationale", "test_code", "test_results"):
            if required[name]:
                assert pane.shows_field(name)
                assert pane.field_text(name) == "(empty)"
            else:
                assert not pane.shows_field(name)
        assert ("(empty)" in every_line(pane)) == any(required[n] for n in ("rationale", "test_code", "test_results"))


async def test_a_new_item_is_shown_from_its_top(make_app):
    app = make_app("cis")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        pane = app.screen.query_one(ItemPane)
        await pilot.press("end")
        assert pane.scroll_y > 0
        await pilot.press("3", "2", "4", "1", "enter")
        await pilot.pause()
        assert app.screen.session.state.item.id == "B002"
        assert pane.scroll_y == 0
        assert on_screen(pane)[:2] == ["", "B002  · Fibonacci"]


async def test_a_resize_wraps_the_rows_again(make_app):
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        pane = app.screen.query_one(ItemPane)
        wide = pane.virtual_size.height
        await pilot.resize_terminal(60, 40)
        await pilot.pause()
        await pilot.pause()
        width = pane.scrollable_content_region.width
        assert pane.virtual_size.height > wide
        assert all(len(line) <= width for line in every_line(pane))
        assert "Build a fixed-size" in on_screen(pane)


async def test_the_next_item_is_laid_out_and_drawn_ahead_so_enter_only_swaps_it_in(make_app):
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        await app.workers.wait_for_complete([w for w in app.workers if w.group == "prepare"])
        await pilot.pause()
        pane = screen.query_one(ItemPane)
        assert pane.prepared_item is not None
        assert pane.prepared_item.id == "B002"
        await pilot.press("3", "2", "4", "1", "enter")
        assert screen.session.state.item.id == "B002"
        # Shown at once from what was drawn ahead: its rows on screen were drawn before the frame.
        assert pane.field_rows("source_code").drawn_rows
        await pilot.pause()
        assert "B002  · Fibonacci" in on_screen(pane)


async def test_another_theme_redraws_the_pane_in_its_colours(make_app):
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        pane = app.screen.query_one(ItemPane)
        code_row = next(y for y, line in enumerate(on_screen(pane)) if line.startswith(" 1 │ class Counter"))
        before = pane.render_line(code_row)
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await pilot.pause()
        await pilot.pause()
        after = pane.render_line(code_row)
        assert after.text == before.text
        assert after != before  # not the strips drawn in the last theme's colours
        backgrounds = {segment.style.bgcolor for segment in after if segment.style and segment.style.bgcolor}
        assert backgrounds  # the code's lighter background, in the new theme


@pytest.mark.parametrize("scroll", [0, 4])
async def test_the_pane_drawn_whole_shows_the_lines_at_its_scroll_and_width(make_app, scroll):
    """Textual asks for all of the pane's lines at once (the width and scroll looked up once for them all): they
    are the item's lines from the scroll on, and after a resize, the item laid out again at the new width."""
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        pane = app.screen.query_one(ItemPane)
        for size in [(80, 24), (100, 30)]:  # the first item is longer than the pane at both
            await pilot.resize_terminal(*size)
            await pilot.pause()
            pane.scroll_to(y=scroll, animate=False, immediate=True)
            await pilot.pause()
            text_end = pane.styles.padding.left + pane.text_width  # the scroll column after it
            drawn = [strip.crop(0, text_end).text.strip() for strip in pane.render_lines(pane.region.reset_offset)]
            expected = [line.strip() for line in every_line(pane)[scroll:scroll + len(drawn)]]
            assert round(pane.scroll_offset.y) == scroll
            assert drawn == expected + [""] * (len(drawn) - len(expected))
            assert max(len(line) for line in every_line(pane)) <= pane.text_width


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
async def test_the_scroll_column_is_drawn_as_textual_s_scrollbar_draws_it(make_app, theme):
    """The pane draws its scroll column with its lines; cell for cell it is what Textual's own scrollbar draws
    for the same item height, pane height and scroll, at the top, the middle and the end, folded or not."""
    app = make_app("cis")
    async with app.run_test(size=(100, 30)) as pilot:
        app.theme = theme
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        pane = screen.query_one(ItemPane)
        thumbs = set()
        for fold in (False, True):
            if fold:
                await pilot.press("z")
                await pilot.pause()
            assert pane.shows_thumb  # the first item is taller than the pane
            column = pane.styles.padding.left + pane.text_width  # the scroll column, after the text
            height = pane.scrollable_content_region.height
            seen = {}
            for y in (0, pane.max_scroll_y // 2, pane.max_scroll_y):
                pane.scroll_to(y=y, animate=False, immediate=True)
                await pilot.pause()
                rows = pane.render_lines(pane.region.reset_offset)[:height]
                seen[(pane.virtual_size.height, y)] = [[(s.text, s.style) for s in row.crop(column, column + 1)]
                                                       for row in rows]
            # Textual's scrollbar on the same pane (styled as before it drew its own), given the same sizes
            pane.styles.overflow_y = "auto"
            await pilot.pause()
            bar = pane.vertical_scrollbar
            for (virtual, y), cells in seen.items():
                bar.window_virtual_size, bar.window_size, bar.position = virtual, height, y
                bar.refresh()
                await pilot.pause()
                assert bar.size.height == height
                expected = [[(s.text, s.style) for s in row] for row in bar.render_lines(Region(0, 0, 1, height))]
                assert cells == expected, (fold, virtual, height, y)
                thumbs.add(str(cells))
            pane.styles.overflow_y = "hidden"
            await pilot.pause()
        assert len(thumbs) >= 4  # the thumb moved and was resized: the test compares something
