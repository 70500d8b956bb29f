"""The item pane's scrollbar: put together from rows drawn once, it looks exactly as Textual draws it, and a new
item of another length moves its thumb without a row of it being drawn again."""

from __future__ import annotations

import pytest
from textual.scrollbar import ScrollBar, ScrollBarRender

from judge_tui.model.records import Item
from judge_tui.tui.screens.rating import RatingScreen
from judge_tui.tui.widgets.item_pane import ItemPane
from judge_tui.tui.widgets.scroll_bar import RowScrollBar


def items_of_other_lengths(count: int) -> list[Item]:
    """CIS items whose code is 30, 37, 44, ... lines long: each moves the thumb somewhere new."""
    return [Item(id=f"L{n:02d}", rubric="cis",
                 fields={"task": "t", "rationale": "r", "test_code": "", "test_results": "ok",
                         "source_code": "\n".join(f"x_{i} = {i}" for i in range(30 + 7 * n))})
            for n in range(count)]


def segments(strips: list) -> list[list[tuple[str, object]]]:  # noqa: ANN001
    return [[(segment.text, segment.style) for segment in strip] for strip in strips]


def as_textual_draws_it(bar: ScrollBar) -> list[list[tuple[str, object]]]:
    """The bar's rows drawn afresh by Textual's own ScrollBar (its renderable and a widget's styling)."""
    bar._layout_cache.clear()  # noqa: SLF001 - the renderable Textual keeps
    bar._set_dirty()  # noqa: SLF001 - and the rows
    return segments(ScrollBar.render_lines(bar, bar.size.region))


async def opened(screen: RatingScreen, pilot, item: Item) -> None:  # noqa: ANN001
    """What a key that opens an item does, then its frame."""
    screen.session.open(item)
    screen._show_item()  # noqa: SLF001
    await pilot.pause()


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_the_bar_looks_as_textual_draws_it_at_every_length_and_scroll(make_app, size):
    app = make_app("cis")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        screen.session.store.add_items(items_of_other_lengths(8))
        pane = screen.query_one(ItemPane)
        for item in items_of_other_lengths(8):
            await opened(screen, pilot, item)
            bar = pane.vertical_scrollbar
            assert isinstance(bar, RowScrollBar) and pane.show_vertical_scrollbar
            for _ in range(3):
                drawn = segments(bar.render_lines(bar.size.region))
                assert drawn == as_textual_draws_it(bar), (item.id, pane.scroll_offset)
                screen.action_scroll_item("scroll_down")  # a line at a time: the thumb moves by eighths
                screen.action_scroll_item("scroll_page_down")
                await pilot.pause()


async def test_enter_to_items_of_other_lengths_draws_no_row_of_the_bar_again(make_app, monkeypatch):
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        screen.session.store.add_items(items_of_other_lengths(6))
        await opened(screen, pilot, items_of_other_lengths(6)[0])
        drawn = []
        original = ScrollBarRender.__rich_console__

        def counted(self, console, options):  # noqa: ANN001, ANN202
            drawn.append(self.position)
            return original(self, console, options)

        monkeypatch.setattr(ScrollBarRender, "__rich_console__", counted)
        pane = screen.query_one(ItemPane)
        thumbs = set()
        for item in items_of_other_lengths(6)[1:]:
            await opened(screen, pilot, item)
            bar = pane.vertical_scrollbar
            thumbs.add(tuple(strip.text for strip in bar.render_lines(bar.size.region)))
        assert len(thumbs) == 5  # the thumb moved each time
        assert drawn == []


async def test_another_theme_redraws_the_bar_in_its_colours(make_app):
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        screen.session.store.add_items(items_of_other_lengths(1))
        await opened(screen, pilot, items_of_other_lengths(1)[0])
        bar = screen.query_one(ItemPane).vertical_scrollbar
        before = segments(bar.render_lines(bar.size.region))
        app.theme = "textual-light"
        await pilot.pause()
        await pilot.pause()
        drawn = segments(bar.render_lines(bar.size.region))
        assert drawn != before
        assert drawn == as_textual_draws_it(bar)
