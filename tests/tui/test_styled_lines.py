"""The item pane's and the rubric panel's lines as Textual styles them, kept with the lines they draw: the screen
is the same, and a line shown again (the next item's first screenful, the next card) is not styled again."""

from __future__ import annotations

from functools import partial

import pytest
from textual._styles_cache import StylesCache
from textual.app import App
from textual.geometry import Region
from textual.widget import Widget

from judge_tui.tui.screens.rating import RatingScreen
from judge_tui.tui.widgets.item_pane import ItemPane
from judge_tui.tui.widgets.rubric_panel import RubricPanel


def segments(strips) -> list[list[tuple[str, object]]]:  # noqa: ANN001
    return [[(segment.text, segment.style) for segment in strip] for strip in strips]


def as_textual_styles_them(widget: Widget) -> list[list[tuple[str, object]]]:
    """The widget's lines styled afresh by Textual (its styles cache, as for any widget)."""
    widget._styles_cache.clear()  # noqa: SLF001
    return segments(Widget.render_lines(widget, Region(0, 0, *widget.region.size)))


@pytest.fixture
def styled_again(monkeypatch):
    """Each line of the item pane or the rubric panel that gets styled (Textual's StylesCache.render_line)."""
    calls: list[object] = []
    original = StylesCache.render_line

    def counted(self, styles, y, size, content_size, padding, base_background, background, render_content_line,  # noqa: ANN001, ANN202, PLR0913
                *args):  # noqa: ANN002
        owner = getattr(render_content_line, "__self__", None)
        if isinstance(owner, ItemPane | RubricPanel) or isinstance(render_content_line, partial):
            calls.append(y)
        return original(self, styles, y, size, content_size, padding, base_background, background,
                        render_content_line, *args)

    monkeypatch.setattr(StylesCache, "render_line", counted)
    return calls


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_the_lines_are_textuals_styling_of_them_after_keys_and_scrolls(make_app, size):
    app = make_app("cis")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        pane, panel = screen.query_one(ItemPane), screen.query_one(RubricPanel)
        for keys in (["3"], ["2", "pagedown"], ["3", "3"], ["enter"], ["pagedown", "pagedown"], ["1", "enter"]):
            await pilot.press(*keys)
            for _ in range(2):
                await pilot.pause()
            for widget in (pane, panel):
                region = Region(0, 0, *widget.region.size)
                assert segments(widget.render_lines(region)) == as_textual_styles_them(widget), (keys, widget)


async def test_enter_to_an_item_drawn_ahead_styles_no_line_of_the_pane_or_panel(make_app, styled_again, monkeypatch):
    app = make_app("cis")
    styled_before_the_frame: list[list[object]] = []
    display = App._display

    def frame(self, screen, update):  # noqa: ANN001, ANN202
        styled_before_the_frame.append(list(styled_again))
        return display(self, screen, update)

    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        await pilot.press("3", "2", "3", "3")
        await app.workers.wait_for_complete()  # the next item is drawn ahead of time, its first card too
        await pilot.pause()
        styled_again.clear()
        monkeypatch.setattr(App, "_display", frame)
        await pilot.press("enter")
        await pilot.pause()
        assert screen.session.state.item.id == "B002"
        assert styled_before_the_frame[0] == []  # (after its frame, the item after it is drawn ahead)


async def test_a_key_that_brings_back_a_look_shown_before_styles_no_line_again(make_app, styled_again):
    """A score, undone, and given again: the panel's lines are those it showed a moment ago."""
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        await pilot.press("3", "u")
        await pilot.pause()
        styled_again.clear()
        await pilot.press("3")
        await pilot.pause()
        assert screen.session.state.edit.scores
        assert styled_again == []
