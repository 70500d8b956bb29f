"""The status line, the key bar and the score summary: each look drawn once and kept, and a changed line sent
to the terminal from its first changed cell. What the terminal holds after every key must be what a full
redraw shows."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual._compositor import Compositor
from textual.geometry import Region
from textual.strip import Strip

from judge_tui.tui.screens.rating import RatingScreen
from judge_tui.tui.widgets.key_bar import KeyBar
from judge_tui.tui.widgets.recurring_static import RecurringStatic, first_changed_cell
from judge_tui.tui.widgets.rubric_panel import ScoreSummary
from judge_tui.tui.widgets.status_line import StatusLine

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


async def test_the_terminal_holds_what_a_full_redraw_shows_after_every_key(make_app, monkeypatch):
    app = make_app("cis")
    repainted: list[Region | None] = []  # None: the whole screen
    partial, full = Compositor.render_partial_update, Compositor.render_full_update

    def recording_partial(self: Compositor):  # type: ignore[no-untyped-def]
        repainted.extend(self._dirty_regions)  # noqa: SLF001
        return partial(self)

    def recording_full(self: Compositor, *args, **kwargs):  # type: ignore[no-untyped-def]
        repainted.append(None)
        return full(self, *args, **kwargs)

    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        terminal = cells(screen._compositor.render_strips())  # noqa: SLF001
        monkeypatch.setattr(Compositor, "render_partial_update", recording_partial)
        monkeypatch.setattr(Compositor, "render_full_update", recording_full)
        status, key_bar = screen.query_one(StatusLine), screen.query_one(KeyBar)
        for key in ["3", "2", "3", "3", "u", "3", "enter", "3", "down", "g", "2"]:
            repainted.clear()
            await pilot.press(key)
            await pilot.pause()
            await pilot.pause()
            whole = cells(screen._compositor.render_strips())  # noqa: SLF001
            if None in repainted:
                terminal = whole
                continue
            for region in repainted:
                assert region is not None
                for y in region.line_range:
                    terminal[y][region.x:region.right] = whole[y][region.x:region.right]
            assert terminal == whole, key
        # The lines kept for each look are the lines a widget that has kept nothing draws.
        for widget in (status, key_bar, screen.query_one(ScoreSummary)):
            kept = widget.render_lines(widget.size.region)
            widget._drawn_looks.clear()  # noqa: SLF001
            widget.refresh()
            assert cells(widget.render_lines(widget.size.region)) == cells(kept)


async def test_a_score_key_sends_the_status_line_from_its_mark_on(make_app, monkeypatch):
    """The status line is sent from where "saving…" begins, so that the frame of a score key spans the
    rubric's columns rather than the whole screen."""
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        regions: list[Region] = []
        partial = Compositor.render_partial_update

        def recording(self: Compositor):  # type: ignore[no-untyped-def]
            regions.extend(self._dirty_regions)  # noqa: SLF001
            return partial(self)

        monkeypatch.setattr(Compositor, "render_partial_update", recording)
        before = str(screen.query_one(StatusLine).render())
        await pilot.press("3")
        await pilot.pause()
        status_row = [region for region in regions if region.y == 0]
        assert status_row
        assert status_row[0].x == 1 + cell_len(before)  # after the padding and the line as it was


def test_a_recurring_static_is_a_text_widget():
    widget = RecurringStatic()
    assert widget.shows(Text())
    assert str(widget.render()) == ""


def dimmed(bar: KeyBar, label: str) -> bool:
    content = bar.content
    at = content.plain.index(label)
    return any(start <= at < end and "dim" in str(style) for start, end, style in content.spans)


async def test_the_key_bar_dims_the_keys_that_cannot_act_after_each_key(make_app):
    """The keys are checked again only when what decides them changes: undo usable after the first score,
    submit after the last, both again on the next item; only the note's keys while it is edited."""
    app = make_app("cis", auto_submit=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        bar = app.screen.query_one(KeyBar)
        assert dimmed(bar, "Undo") and dimmed(bar, "Submit")
        await pilot.press("3")
        await pilot.pause()
        assert not dimmed(bar, "Undo") and dimmed(bar, "Submit")
        await pilot.press("2", "3")
        await pilot.pause()
        assert dimmed(bar, "Submit")
        await pilot.press("3")
        await pilot.pause()
        assert not dimmed(bar, "Submit")
        await pilot.press("u")  # the last score undone: submit cannot act again
        await pilot.pause()
        assert dimmed(bar, "Submit") and not dimmed(bar, "Undo")
        await pilot.press("3", "enter")
        await pilot.pause()
        assert dimmed(bar, "Undo") and dimmed(bar, "Submit")  # the next item
        await pilot.press("n")  # the note has the keys
        await pilot.pause()
        assert "Submit" not in bar.content.plain or dimmed(bar, "Submit")
        await pilot.press("escape")
        await pilot.pause()
        assert dimmed(bar, "Undo") and dimmed(bar, "Submit")
