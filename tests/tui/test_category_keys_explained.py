"""Keys 5 to 9 on a rubric of three categories: they set nothing, and the expert is told which keys do (as 0 and
4 already were), rather than left wondering why the key did nothing."""

from __future__ import annotations

import pytest

from judge_tui.model.records import Item
from tests.tui.screen_text import screen_text


@pytest.fixture
def pairwise_app(make_app, filled_store, rubrics):
    filled_store.ensure_rubric_version(rubrics["pairwise"])
    filled_store.add_items([Item(id=f"W{n:03d}", rubric="pairwise",
                                 fields={"prompt": "Name a prime.", "response_a": "7", "response_b": "9"})
                            for n in (1, 2)])
    return make_app("pairwise", auto_submit=False)


@pytest.mark.parametrize("key", ["5", "6", "7", "8", "9"])
async def test_a_key_beyond_the_categories_names_the_keys_that_act_and_sets_nothing(pairwise_app, filled_store,
                                                                                    key):
    async with pairwise_app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.press(key)
        await pilot.pause()
        shown = screen_text(pairwise_app)
        assert "3 categories" in shown
        assert "1→A" in shown
        assert "3→tie" in shown
        draft = filled_store.draft("W001", "EXP001")
        assert draft is None or not draft.scores


async def test_a_key_beyond_the_categories_keeps_the_category_chosen(pairwise_app, filled_store):
    async with pairwise_app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.press("3")  # tie
        await pilot.press("9")
        await pilot.pause()
        assert "3 categories" in screen_text(pairwise_app)
        assert filled_store.draft("W001", "EXP001").scores == {"preference": 1.0}
