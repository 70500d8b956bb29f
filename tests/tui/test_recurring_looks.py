"""The status line, the key bar and the score summary: each look drawn once and kept, and a changed line sent
to the terminal from its first changed cell. What the terminal holds after every key must be what a full
redraw shows."""

from __future__ import annotations

from typing import Any

import pytest
from rich.cells import cell_len
from rich.text import Text
from textual.content import Content
from textual.geometry import Region
from textual.strip import Strip

from judge_tui.tui.screens.rating import RatingScreen
from judge_tui.tui.widgets.key_bar import KeyBar
from judge_tui.tui.widgets.recurring_static import RecurringStatic, first_changed_cell
from judge_tui.tui.widgets.rubric_panel import ScoreSummary
from judge_tui.tui.widgets.status_line import StatusLine
from judge_tui.tui.widgets.styled_lines import styling_of
from tests.narrowing import present
from tests.tui.test_styled_lines import given_to_the_screen, styled_by_textual

Cells = list[list[tuple[str, object]]]


def cells(strips: list[Strip]) -> Cells:
    rows = []
    for strip in strips:
        row: list[tuple[str, object]] = []
        for segment in strip:
            for char in segment.text:
                row.extend([(char, segment.style)] + [("", segment.style)] * (cell_len(char) - 1))
        rows.append(row)
    return rows


def test_the_first_changed_cell_of_two_lines():
    base = Text("3 rated · 0 skipped")
    assert first_changed_cell(base, Text("3 rated · 0 skipped")) == 19
    assert first_changed_cell(base, Text("4 rated · 0 skipped")) == 0
    assert first_changed_cell(base, Text("3 rated · 0 skipped │ saving…")) == 19
    styled = Text("3 rated · 0 skipped")
    styled.stylize("dim", 8, 9)
    assert first_changed_cell(base, styled) == 8  # same characters, a style from the ninth
    assert first_changed_cell(Text("日 0:05 x"), Text("日 0:06 x")) == 6  # counted in cells, not characters
    assert first_changed_cell(base, Text("3 rated · 0 skipped", "bold")) == 0


def watch_refreshes(widget: RecurringStatic) -> list[Region | None]:
    """The regions a widget asks Textual to draw again (None: the whole widget)."""
    asked: list[Region | None] = []
    refresh = widget.refresh

    def recording(*regions: Region, **kwargs: Any) -> RecurringStatic:
        asked.extend(regions or [None])
        return refresh(*regions, **kwargs)

    widget.refresh = recording  # type: ignore[method-assign]  # records what the widget asks to redraw
    return asked


@pytest.mark.slow
async def test_what_a_key_redraws_is_all_that_changed_after_every_key(make_app):
    """A line redrawn from its first changed cell: the cells before it are the same as before the key, and the
    lines kept for each look are the lines a widget that has kept nothing draws."""
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        widgets = [screen.query_one(StatusLine), screen.query_one(KeyBar), screen.query_one(ScoreSummary)]
        asked = {widget: watch_refreshes(widget) for widget in widgets}
        shown = {widget: cells(widget.render_lines(widget.size.region)) for widget in widgets}
        for key in ["3", "2", "3", "3", "u", "3", "enter", "3", "down", "g", "2"]:
            for regions in asked.values():
                regions.clear()
            await pilot.press(key)
            await pilot.pause()
            await pilot.pause()
            for widget in widgets:
                now = cells(widget.render_lines(widget.size.region))
                if now != shown[widget] and None not in asked[widget]:
                    assert asked[widget], (key, widget)
                    start = min(region.x for region in asked[widget] if region is not None)
                    assert [row[:start] for row in now] == [row[:start] for row in shown[widget]], (key, widget)
                widget.forget_looks()
                assert cells(widget.render_lines(widget.size.region)) == now, (key, widget)
                shown[widget] = now


async def test_a_score_key_sends_the_status_line_from_its_mark_on(make_app):
    """The status line is sent from where "saving…" begins, so that the frame of a score key spans the
    rubric's columns rather than the whole screen."""
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        status = screen.query_one(StatusLine)
        regions = watch_refreshes(status)
        before = str(status.render())
        await pilot.press("3")
        await pilot.pause()
        assert regions
        assert None not in regions
        assert present(regions[0]).x == cell_len(before)  # where the line as it was ends (in the widget's content)


async def test_rich_text_is_drawn_as_textual_converts_it(make_app):
    """The looks' text is converted with each style converted once: the Content is Textual's own conversion."""
    from rich.style import Style as RichStyle

    from judge_tui.tui.widgets.recurring_static import as_content

    app = make_app("cis")
    async with app.run_test(size=(120, 40)):
        text = Text("3 rated · 0 skipped │ ⏱ 0:05 │ saving…", style="bold")
        for start, end, style in ((0, 7, "bold"), (8, 9, "dim"), (20, 21, "dim"), (22, 28, "green"),
                                  (31, 38, "italic reverse"), (2, 5, RichStyle(color="red", underline=True))):
            text.stylize(style, start, end)
        for _again in range(2):  # the second time from the styles converted before
            converted = as_content(text, app.console, app.ansi_theme)
            expected = Content.from_rich_text(text, console=app.console)
            assert converted.plain == expected.plain
            assert converted.spans == expected.spans
            assert list(converted.render_segments()) == list(expected.render_segments())


async def test_a_line_drawn_ahead_is_the_line_textual_draws(make_app):
    """The status line draws its own lines (so that a look can be drawn before it shows: its "saving…"): segment
    for segment what Textual draws, in every theme, for text that looks like markup too; and every line of text
    gives a frame the part it asks for cut from the whole line."""
    app = make_app("cis")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        status, keys = screen.query_one(StatusLine), screen.query_one(KeyBar)
        assert styling_of(status) is not None  # drawn by the widget itself: this test tests something
        status.set_judge("judge: [bold red]3 queued[/] \x1b[31m")
        for theme in ("textual-dark", "textual-light", "gruvbox"):
            app.theme = theme
            await pilot.pause()
            for widget in (status, keys):
                widget.forget_looks()
                assert given_to_the_screen(widget) == styled_by_textual(widget), (theme, type(widget).__name__)
                whole = cells(widget.render_lines(Region(0, 0, *widget.region.size)))
                part = Region(30, 0, 40, 1)
                assert cells(widget.render_lines(part)) == [row[30:70] for row in whole], theme

            # "saving…" drawn ahead, before it shows, then shown: the lines Textual draws for it.
            ahead = Text("drawn ahead │ saving…")
            ahead.stylize("italic", 14)
            status.prepare_look(ahead)
            status.show_look(ahead)
            assert given_to_the_screen(status) == styled_by_textual(status), theme


async def test_the_line_with_saving_is_drawn_before_the_key(make_app, monkeypatch):
    """Once a frame has shown the status line, the line the next score key shows ("saving…" at its end) is worked
    out and drawn ahead: the key only sends it."""
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        status = screen.query_one(StatusLine)
        await pilot.press("3")
        status.set_time(status.seconds + 60, status.timer_state)  # a tick: a line not shown before, "saving…" too
        for _ in range(3):
            await pilot.pause()
        assert not status.saving
        drawn_at_key: list[str] = []
        render_strips = Content.render_strips

        def drawing(content: Content, *args: Any, **kwargs: Any) -> list[Strip]:
            if "saving…" in content.plain:
                drawn_at_key.append(content.plain)
            return render_strips(content, *args, **kwargs)

        monkeypatch.setattr(Content, "render_strips", drawing)
        monkeypatch.setattr(status, "_widest_that_fits", lambda width: pytest.fail("worked out at the key"))
        screen.action_score(2)
        assert status.saving and "saving…" in status.content.plain
        status.render_lines(Region(0, 0, *status.region.size))  # as the key's frame asks
        assert drawn_at_key == []
