"""Scales with more than ten points on the rating screen: each point typed as two digits (01 to 17 for seventeen
categories, 01 to 10 for the whole numbers 1 to 10), whole numbers up to 9 typed as themselves, and digits that
make no point set nothing and say which keys do."""

from __future__ import annotations

import dataclasses

import pytest

from judge_tui.model.records import Item
from judge_tui.model.rubrics import Scale
from judge_tui.tui.keys import point_codes
from tests.tui.screen_text import screen_text

RELATIONS = [f"relation-{n:02d}" for n in range(1, 18)]


def scale_app(make_app, filled_store, rubrics, scale: Scale):
    """An app on a one-dimension rubric with this scale, two items to rate."""
    rubric = dataclasses.replace(rubrics["pairwise"], id="wide", scale=scale, side_by_side=[])
    rubrics["wide"] = rubric
    filled_store.ensure_rubric_version(rubric)
    filled_store.add_items([Item(id=f"V{n:03d}", rubric="wide", fields={"prompt": "p", "response_a": "a",
                                                                        "response_b": "b"}) for n in (1, 2)])
    return make_app("wide", auto_submit=False)


def test_codes_fit_the_scale() -> None:
    assert list(point_codes(Scale(kind="categories", order="nominal", categories=RELATIONS))) == [
        f"{n:02d}" for n in range(1, 18)]
    assert list(point_codes(Scale(kind="integers", lowest=0, highest=6))) == [str(n) for n in range(7)]
    assert list(point_codes(Scale(kind="integers", lowest=1, highest=10))) == [f"{n:02d}" for n in range(1, 11)]
    assert list(point_codes(Scale(kind="quarter"))) == ["0", "1", "2", "3", "4"]
    assert point_codes(Scale(kind="pass_fail")) == {}


async def test_seventeen_categories_are_typed_as_two_digits(make_app, filled_store, rubrics):
    app = scale_app(make_app, filled_store, rubrics, Scale(kind="categories", order="nominal", categories=RELATIONS))
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await pilot.press("1")
        await pilot.pause()
        assert "1: now the second digit (10 to 17)" in screen_text(app)
        draft = filled_store.draft("V001", "EXP001")
        assert draft is None or not draft.scores
        await pilot.press("7")
        await pilot.pause()
        assert filled_store.draft("V001", "EXP001").scores == {"preference": 1.0}  # the 17th, the last
        await pilot.press("0", "3")
        await pilot.pause()
        assert filled_store.draft("V001", "EXP001").scores == {"preference": pytest.approx(2 / 16)}


@pytest.mark.parametrize("keys", [("2",), ("1", "8")])
async def test_digits_that_make_no_category_set_nothing_and_say_which_keys_do(make_app, filled_store, rubrics, keys):
    app = scale_app(make_app, filled_store, rubrics, Scale(kind="categories", order="nominal", categories=RELATIONS))
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await pilot.press("0", "5", *keys)
        await pilot.pause()
        shown = screen_text(app)
        assert f"{''.join(keys)} is not a category of this rubric" in shown
        assert "two keys each" in shown
        assert filled_store.draft("V001", "EXP001").scores == {"preference": pytest.approx(4 / 16)}  # 05 kept


async def test_whole_numbers_are_typed_as_themselves(make_app, filled_store, rubrics):
    app = scale_app(make_app, filled_store, rubrics, Scale(kind="integers", lowest=1, highest=10))
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await pilot.press("1", "0")
        await pilot.pause()
        assert filled_store.draft("V001", "EXP001").scores == {"preference": 1.0}  # 10
        await pilot.press("0", "4")
        await pilot.pause()
        assert filled_store.draft("V001", "EXP001").scores == {"preference": pytest.approx(3 / 9)}  # 4


async def test_whole_numbers_up_to_nine_take_one_key(make_app, filled_store, rubrics):
    app = scale_app(make_app, filled_store, rubrics, Scale(kind="integers", lowest=0, highest=6))
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await pilot.press("4")
        await pilot.pause()
        assert filled_store.draft("V001", "EXP001").scores == {"preference": pytest.approx(4 / 6)}
        await pilot.press("7")
        await pilot.pause()
        assert "runs from 0 to 6: type" in screen_text(app)
        assert filled_store.draft("V001", "EXP001").scores == {"preference": pytest.approx(4 / 6)}



def test_a_keymap_clashes_with_a_digit_only_where_the_scale_types_it() -> None:
    from judge_tui.tui.keys import keymap_problems

    keymap = {"skip": "7"}  # 7 names no point of 0 to 6, but is a second digit of 17 categories
    assert not [p for p in keymap_problems(keymap, Scale(kind="integers", lowest=0, highest=6)) if "'7'" in p]
    wide = Scale(kind="categories", order="nominal", categories=RELATIONS)
    assert any("key '7' is given to both" in p for p in keymap_problems(keymap, wide))


async def test_the_adjudication_screen_types_two_digits_too(tmp_path, rubrics):
    """ann chose the first of seventeen categories, bob the last: the lead settles on the twelfth with 1 then 2."""
    from judge_tui.model.records import CONSENSUS_RATER
    from judge_tui.store import Store
    from judge_tui.tui.screens.adjudication import AdjudicationApp, AdjudicationScreen
    from tests.narrowing import screen_of
    from tests.tui.test_refused_score_keys import disagreement_db

    wide = Scale(kind="categories", order="nominal", categories=RELATIONS)
    rubric = dataclasses.replace(rubrics["pairwise"], scale=wide)
    with Store(disagreement_db(tmp_path, rubric)) as store:
        app = AdjudicationApp(store, rubric, "lead")
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await pilot.press("1")
            await pilot.pause()
            assert "1: now the second digit (10 to 17)" in screen_text(app)
            assert not screen_of(app, AdjudicationScreen).choice
            await pilot.press("2", "enter")
            await pilot.pause()
        consensus = store.rating("W001", CONSENSUS_RATER)
        assert consensus is not None
        assert consensus.scores == {"preference": pytest.approx(11 / 16)}
