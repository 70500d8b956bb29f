"""A pairwise item on the rating screen: both responses readable (side by side when wide, stacked when not), the
categories keyed 1 to 3 with their names shown, and the responses drawn literally whatever they hold."""

from __future__ import annotations

import pytest

from judge_tui.model.records import Item
from judge_tui.tui.screens.rating import RatingScreen
from judge_tui.tui.widgets.item_pane import ItemPane
from tests.tui.screen_text import screen_text

PAIRS = [
    {"prompt": "Explain in two sentences why the sky is blue.",
     "response_a": "Sunlight scatters off air molecules, and short blue wavelengths scatter far more than red "
                   "ones (Rayleigh scattering). So blue light reaches our eyes from every part of the sky.",
     "response_b": "Because it reflects the ocean. [bold]Water[/bold] is blue, so the sky is blue too.\x1b]0;pwned\x07"},
    {"prompt": "Name a prime number above 10.", "response_a": "11", "response_b": "13 [@click=app.quit]quit[/]"},
]


@pytest.fixture
def pairwise_app(make_app, filled_store, rubrics):
    filled_store.ensure_rubric_version(rubrics["pairwise"])
    filled_store.add_items([Item(id=f"W{n:03d}", rubric="pairwise", fields=fields)
                            for n, fields in enumerate(PAIRS, start=1)])
    return make_app("pairwise", auto_submit=False)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_pairwise_rating_screen(snap_compare, pairwise_app, size):
    assert snap_compare(pairwise_app, press=["2"], terminal_size=size)


async def test_keys_one_to_three_choose_a_b_and_tie(pairwise_app, filled_store):
    async with pairwise_app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.press("3")
        assert filled_store.draft("W001", "EXP001").scores == {"preference": 1.0}
        assert "tie" in screen_text(pairwise_app)
        await pilot.press("1", "enter")
        assert filled_store.rating("W001", "EXP001").verdict == "A"
        await pilot.press("0")  # not a category: said so, nothing set
        await pilot.pause()
        assert "3 categories" in screen_text(pairwise_app) and "3→tie" in screen_text(pairwise_app)
        await pilot.press("4")
        assert filled_store.draft("W002", "EXP001") is None or not filled_store.draft("W002", "EXP001").scores


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_both_responses_are_shown_whole_and_literally(pairwise_app, size):
    async with pairwise_app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = pairwise_app.screen
        assert isinstance(screen, RatingScreen)
        pane = screen.query_one(ItemPane)
        shown = "\n".join(pane._line(y).text for y in range(pane.virtual_size.height))  # noqa: SLF001 - every row
        flat = " ".join(shown.replace("│", " ").split())
        assert "Response A" in shown and "Response B" in shown
        for word in ("Rayleigh", "scattering).", "[bold]Water[/bold]", "every part of the sky."):
            assert word in flat
        assert "pwned" not in shown and "\x1b" not in shown
        side_by_side = any("Response A" in line and "Response B" in line for line in shown.splitlines())
        assert side_by_side == (size == (120, 40))
