"""The rating screen's key bar is drawn once for each state of what its keys depend on (the screen's
`keys_state`, the focus, the width): whatever state comes back, the bar shows what asking Textual for every
binding shows."""

from __future__ import annotations

from typing import Any

from textual.screen import Screen

from judge_tui.tui.screens.rating import RatingScreen
from judge_tui.tui.widgets.key_bar import KeyBar
from judge_tui.tui.widgets.recurring_static import look_of


async def test_a_state_met_again_shows_the_bar_for_the_bindings_now(make_app, monkeypatch):
    app = make_app("cis", auto_submit=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        bar = screen.query_one(KeyBar)
        asked = 0
        active_bindings = Screen.active_bindings

        def counted(self: Screen[Any]) -> Any:
            nonlocal asked
            asked += 1
            return active_bindings.fget(self)  # type: ignore[attr-defined]  # the property's getter

        monkeypatch.setattr(Screen, "active_bindings", property(counted))
        asked_by_item = []
        for item_keys in (["3", "2", "u", "2", "3", "3"], ["3", "2", "u", "2", "3", "3"], ["n", "x", "escape", "3"]):
            asked = 0
            for key in item_keys:
                await pilot.press(key)
                await pilot.pause()
                before = asked
                assert look_of(bar.content) == look_of(bar.describe(screen)), (item_keys, key)
                asked = before  # the check's own question not counted
            asked_by_item.append(asked)
            await pilot.press("3", "3", "3", "3", "enter")  # the next item
            await pilot.pause()
        assert asked_by_item[0] > 0
        assert asked_by_item[1] == 0  # the same states again: drawn from what was drawn for them
        await pilot.resize_terminal(100, 30)  # another width: the keys asked for again, and right
        await pilot.pause()
        await pilot.press("3")
        await pilot.pause()
        assert look_of(bar.content) == look_of(bar.describe(screen))
