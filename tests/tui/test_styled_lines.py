"""The item pane and the rubric panel style their own lines and keep them (styled_lines): what they give the
screen must be, segment for segment, what Textual's own styling of the same lines gives, after whatever came
before (another theme, width, scroll, guidance, item, an undo, lines styled ahead of time)."""

from __future__ import annotations

import pytest
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from judge_tui.tui.screens.rating import RatingScreen
from judge_tui.tui.widgets.item_pane import ItemPane
from judge_tui.tui.widgets.rubric_panel import RubricPanel
from judge_tui.tui.widgets.styled_lines import Styling, styling_of


def segments(lines: list) -> list[list[tuple[str, object]]]:
    return [[(segment.text, segment.style) for segment in line] for line in lines]


def given_to_the_screen(widget: Widget) -> list[list[tuple[str, object]]]:
    """What the widget gives the screen for all of it, as the screen asks (a whole widget on screen)."""
    return segments(widget.render_lines(Region(0, 0, *widget.region.size)))


def styled_by_textual(widget: Widget) -> list[list[tuple[str, object]]]:
    """The same lines styled afresh by Textual (its own styling of each line the widget draws)."""
    widget.refresh()  # nothing Textual styled before is kept
    return segments(Widget.render_lines(widget, Region(0, 0, *widget.region.size)))


def assert_drawn_as_textual_would(screen: RatingScreen, step: str) -> None:
    for widget in (screen.query_one(ItemPane), screen.query_one(RubricPanel)):
        if not widget.region.width:  # hidden (the rubric folded)
            continue
        assert styling_of(widget) is not None, step  # the pane styles its own lines: this test tests something
        ours = given_to_the_screen(widget)
        assert given_to_the_screen(widget) == ours, step  # and again, as kept while nothing changed
        assert ours == styled_by_textual(widget), (step, type(widget).__name__)


STEPS = ["3", "2", "enter", "theme", "3", "g", "2", "u", "u", "pagedown", "j", "end", "home", "enter", "z", "3",
         "w", "l", "h", "z", "narrow", "3", "wide", "enter", "theme", "g", "right", "left"]


@pytest.mark.slow
@pytest.mark.parametrize("rubric_id", ["cis", "exercise-quality"])
async def test_every_line_given_to_the_screen_is_textuals_own_styling(make_app, rubric_id):
    app = make_app(rubric_id, auto_submit=False)
    async with app.run_test(size=(110, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        assert_drawn_as_textual_would(screen, "first item")
        for step in STEPS:
            if step == "theme":
                app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
            elif step == "narrow":
                await pilot.resize_terminal(84, 26)
            elif step == "wide":
                await pilot.resize_terminal(110, 30)
            else:
                await pilot.press(step)
            await pilot.pause()
            await pilot.pause()  # and the next item drawn ahead, the next card
            assert_drawn_as_textual_would(screen, step)


async def test_lines_styled_ahead_are_the_ones_the_next_item_shows(make_app, monkeypatch):
    app = make_app("cis", auto_submit=False)
    styled_now: list[Strip] = []
    style = Styling.style

    def counted(self: Styling, line: Strip) -> Strip:
        styled = style(self, line)
        styled_now.append(styled)
        return styled

    monkeypatch.setattr(Styling, "style", counted)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        pane = screen.query_one(ItemPane)
        for key in "3333":
            await pilot.press(key)
            await pilot.pause()
        await app.workers.wait_for_complete([w for w in app.workers if w.group == "prepare"])
        await pilot.pause()
        upcoming = pane.prepared_item
        assert upcoming is not None
        styled_now.clear()
        await pilot.press("enter")
        assert pane.text.startswith(upcoming.id)
        # The next item's first screenful and its first card were styled ahead: no line it shows was styled
        # since the key (the card the next key focuses is, after the frame).
        shown = [line for widget in (pane, screen.query_one(RubricPanel))
                 for line in widget.render_lines(Region(0, 0, *widget.region.size))]
        assert len(shown) > 40
        assert [line.text for line in shown if any(line is styled for styled in styled_now)] == []
        assert_drawn_as_textual_would(screen, "the prepared item")


async def test_styles_it_does_not_draw_are_left_to_textual(make_app):
    """A border (or tint, opacity, vertical padding): Textual styles every line, as before."""
    app = make_app("cis", auto_submit=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        pane = app.screen.query_one(ItemPane)
        pane.styles.border = ("round", "red")
        pane.styles.tint = "blue 20%"
        await pilot.pause()
        assert styling_of(pane) is None
        lines = given_to_the_screen(pane)
        assert lines == styled_by_textual(pane)
        assert "╭" in "".join(text for text, _style in lines[0])
