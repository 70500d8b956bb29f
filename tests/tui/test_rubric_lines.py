"""The rubric panel drawn line by line: what a key redraws matches a full redraw, with no layout of the screen,
and a key's changes reach the terminal in one frame."""

from __future__ import annotations

import dataclasses

import pytest
from textual.geometry import Region

from judge_tui.tui.screens.rating import RatingScreen
from judge_tui.tui.widgets.rubric_panel import RubricPanel, ScoreSummary
from judge_tui.tui.widgets.status_line import StatusLine
from tests.tui.layouts import Layouts


def drawn(panel: RubricPanel) -> list[list[tuple[str, object]]]:
    return [[(segment.text, segment.style) for segment in line] for line in panel.lines]


def drawn_afresh(panel: RubricPanel) -> list[list[tuple[str, object]]]:
    """The panel's lines as a panel that has kept nothing would draw them."""
    panel.forget_drawn()
    return drawn(panel)


@pytest.mark.slow
@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
@pytest.mark.parametrize("rubric_id", ["cis", "exercise-quality", "binary"])
async def test_the_lines_a_key_redraws_match_a_full_redraw(make_app, rubric_id, size):
    app = make_app(rubric_id, auto_submit=False)
    keys = {"cis": ["3", "2", "down", "4", "up", "g", "1", "g", "right", "2"],
            "exercise-quality": ["1", "2", "up", "3", "g", "right", "1"],
            "binary": ["p", "up", "f", "g", "right", "p"]}[rubric_id]
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        panel = app.screen.query_one(RubricPanel)
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
            after_key = drawn(panel)
            assert after_key == drawn_afresh(panel), key
            assert panel.virtual_size.height == len(after_key)


async def test_a_score_key_lays_nothing_out_and_shows_its_changes_at_once(make_app):
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        layouts = Layouts(screen)
        for key, scored in zip("323", (1, 2, 3), strict=True):
            await pilot.press(key)
            await pilot.pause()
            assert layouts.count == 0, key
            # The score, the count under the rubric and "saving…" or "saved".
            assert screen.query_one(RubricPanel).text.count("▶") == 1
            assert f"{scored} of 4 scored" in str(screen.query_one(ScoreSummary).content)
            assert screen.query_one(StatusLine).line(compact=False).plain


async def test_the_card_the_next_key_focuses_is_drawn_before_the_key(make_app, monkeypatch):
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.pause()
        panel = app.screen.query_one(RubricPanel)
        drawn_cards: list[str] = []
        card_text = RubricPanel.card_text

        def counting(self, dim, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003
            drawn_cards.append(dim.id)
            return card_text(self, dim, *args, **kwargs)

        monkeypatch.setattr(RubricPanel, "card_text", counting)
        await pilot.press("3")  # R scored: A takes the focus, drawn after the first item's paint
        assert "a" not in drawn_cards
        await pilot.pause()
        drawn_cards.clear()
        await pilot.press("2")  # A scored: T takes the focus, drawn while the reviewer read A
        assert "t" not in drawn_cards
        assert panel.text.count("→") >= 5  # T's anchors are on screen


async def test_the_next_items_first_card_is_drawn_before_enter(make_app, monkeypatch):
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        for key in "3233":
            await pilot.press(key)
            await pilot.pause()
        drawn_cards: list[tuple[str, str]] = []
        card_text = RubricPanel.card_text

        def counting(self, dim, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003
            if kwargs.get("focused"):
                drawn_cards.append((dim.id, kwargs["task_type"]))
            return card_text(self, dim, *args, **kwargs)

        monkeypatch.setattr(RubricPanel, "card_text", counting)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.session.state.item.id == "B002"
        assert ("r", "Fibonacci") not in drawn_cards  # drawn while the reviewer read B001
        assert ("r", "Email Validator") in drawn_cards  # and B003's, once B002 is on screen


async def test_another_theme_redraws_the_panel_in_its_colours(make_app):
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        panel = app.screen.query_one(RubricPanel)
        before = drawn(panel)
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await pilot.pause()
        await pilot.pause()
        after = drawn(panel)
        assert after != before
        assert after == drawn_afresh(panel)


async def test_enter_shows_the_next_item_with_no_layout(make_app):
    """The next item needs no layout of the screen: the item pane and the rubric panel change only their lines
    and how far they scroll."""
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        for key in "3233":
            await pilot.press(key)
            await pilot.pause()
        layouts = Layouts(app.screen)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.session.state.item.id == "B002"
        assert layouts.count == 0


async def test_a_score_key_sends_only_the_panel_lines_it_changed(make_app, monkeypatch):
    """The run of lines a key changed is handed to the screen, which draws it in the key's frame; the panel does
    not also have Textual repaint it from its own message loop (a frame later, the same lines again)."""
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.pause()
        panel = app.screen.query_one(RubricPanel)
        before = list(panel.lines)
        refreshed: list[tuple[int, int]] = []
        monkeypatch.setattr(panel, "refresh_lines", lambda start, count=1: refreshed.append((start, count)))
        taken: list[Region | None] = []
        take = panel.take_changed

        def noted() -> Region | None:
            taken.append(take())
            return taken[-1]

        monkeypatch.setattr(panel, "take_changed", noted)
        await pilot.press("3")  # R folds, A unfolds: the title above them is not sent again
        after = panel.lines
        assert refreshed == []
        assert len(taken) == 1 and taken[0] is not None
        shown, top = panel.scrollable_content_region, round(panel.scroll_offset.y)
        start, end = taken[0].y - shown.y + top, taken[0].bottom - shown.y + top
        assert (taken[0].x, taken[0].width) == (shown.x, shown.width)
        first_change = next(y for y, (old, new) in enumerate(zip(before, after, strict=False)) if old != new)
        assert start == first_change > 0
        assert all(before[y] == after[y] for y in range(start))
        assert end in (max(len(before), len(after)), top + shown.height) or before[end:] == after[end:]


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
async def test_the_panel_drawn_whole_shows_its_lines_at_its_scroll(make_app, size):
    """Textual asks for all of the panel's lines at once (the width and scroll looked up once for them all): they
    are the panel's lines from its scroll on, at its width."""
    app = make_app("cis", auto_submit=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        panel = app.screen.query_one(RubricPanel)
        await pilot.press("down", "down", "down")
        await pilot.pause()
        top = round(panel.scroll_offset.y)
        width = panel.scrollable_content_region.width  # (the scrollbar's column beside it, when shown)
        drawn = [strip.text[:width] for strip in panel.render_lines(panel.region.reset_offset)]
        expected = [line.text for line in panel.lines[top:top + len(drawn)]]
        assert top > 0 or size == (120, 40)
        assert drawn[:len(expected)] == expected


@pytest.mark.parametrize("last_key", ["0", "1", "3", "4"])
async def test_the_last_dimensions_card_is_drawn_ahead_with_every_score(make_app, monkeypatch, last_key):
    """A score key on the last dimension leaves it focused, showing the score given: that card is drawn ahead
    for each score, whichever the reviewer gives."""
    app = make_app("cis", auto_submit=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        panel = app.screen.query_one(RubricPanel)
        for key in "323":  # R, A and T scored: L, the last, has the focus
            await pilot.press(key)
            await pilot.pause()
        for _ in range(8):  # its cards drawn one at a time
            await pilot.pause()
        drawn_cards: list[str] = []
        card_text = RubricPanel.card_text

        def counting(self, dim, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003
            drawn_cards.append(dim.id)
            return card_text(self, dim, *args, **kwargs)

        monkeypatch.setattr(RubricPanel, "card_text", counting)
        await pilot.press(last_key)
        await pilot.pause()
        assert drawn_cards == []
        focused = next(line for line in panel.text.splitlines() if "▶" in line)
        assert "L ·" in focused and "—" not in focused  # the score shows on the focused card


async def test_a_new_version_of_the_rubric_shows_its_own_anchors_on_cards_drawn_ahead(make_app):
    """Cards still to be drawn ahead for the last version are not drawn (they would be kept under the keys the
    new version's cards are found by)."""
    app = make_app("cis", auto_submit=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        for key in "323":  # L, the last, has the focus
            await pilot.press(key)
        panel = screen.query_one(RubricPanel)
        rubric = screen.rubric
        panel.forget_drawn()
        # Its cards for every score asked for, and the new version in force before they are all drawn.
        panel.prepare_card("l", None, guidance_on=screen.guidance_on, task_type="LRU Cache",
                           keys={point: str(n) for n, point in enumerate(rubric.scale.points)},
                           values=rubric.scale.points)
        dimensions = [dataclasses.replace(d, anchors={label: f"new meaning {label}" for label in rubric.scale.labels})
                      for d in rubric.dimensions]
        screen.use_rubric(dataclasses.replace(rubric, dimensions=dimensions))
        for _ in range(8):
            await pilot.pause()
        await pilot.press("4")
        await pilot.pause()
        assert "new meaning" in panel.text
        assert "Excellent" not in panel.text
