"""A score key that sets nothing says why, on both screens where scores are typed: on the adjudication screen
(a lead settling the experts' disagreements) as on the rating screen, with one wording, naming the keys the
user's keymap gives. The adjudication screen's key bar and score caption name the keys that act there."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from judge_tui.model.records import Item
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.tui.screens.adjudication import AdjudicationApp, AdjudicationScreen
from judge_tui.tui.widgets.key_bar import KeyBar
from tests.narrowing import screen_of
from tests.team_fixtures import binary_item, exercise_item, rate
from tests.tui.conftest import make_items
from tests.tui.screen_text import screen_text

QUARTER = ("This scale has 5 points (0.00, 0.25, 0.50, 0.75, 1.00): use the keys 0→0.00, 1→0.25, 2→0.50, "
           "3→0.75, 4→1.00.")
THREE_POINT = "This scale has 3 points (0, 0.5, 1): use the keys 0→0, 1→0.5, 2→1."
CATEGORIES = "This scale has 3 categories: use the keys 1→A, 2→B, 3→tie."
PASS_FAIL = "This rubric is PASS/FAIL: press p for PASS or f for FAIL."


def pairwise_item(n: int) -> Item:
    return Item(id=f"W{n:03d}", rubric="pairwise",
                fields={"prompt": "Name a prime.", "response_a": "7", "response_b": "9"})


def disagreement_db(tmp_path: Path, rubric: Rubric) -> Path:
    """Two experts, ann and bob, a whole scale apart on every judged dimension of two items."""
    items = {"cis": lambda: make_items(rubric)[:2], "exercise-quality": lambda: [exercise_item(1), exercise_item(2)],
             "binary": lambda: [binary_item(1), binary_item(2)],
             "pairwise": lambda: [pairwise_item(1), pairwise_item(2)]}[rubric.id]()
    path = tmp_path / f"{rubric.id}-lead.db"
    with Store(path) as store:
        store.ensure_rubric_version(rubric)
        store.add_items(items)
        for rater, score in (("ann", 0.0), ("bob", 1.0)):
            rate(store, rubric, rater, "human",
                 {item.id: {d.id: score for d in rubric.judged_dimensions} for item in items})
    return path


def database_rows(path: Path) -> list[str]:
    """Every row of every table, read by a second connection from the file itself."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return list(db.iterdump())


@pytest.mark.slow
@pytest.mark.parametrize(("rubric_id", "keys", "said"), [
    ("cis", ["7", "9"], ["7 is not a point of this scale. " + QUARTER, "9 is not a point of this scale. " + QUARTER]),
    ("cis", ["p"], ["p sets PASS only on a PASS/FAIL rubric. " + QUARTER]),
    ("exercise-quality", ["3"], ["3 is not a point of this scale. " + THREE_POINT]),
    ("pairwise", ["5", "0", "f"], ["5 is not a category of this rubric. " + CATEGORIES,
                                   "0 is not a category of this rubric. " + CATEGORIES,
                                   "f sets FAIL only on a PASS/FAIL rubric. " + CATEGORIES]),
    ("binary", ["2"], ["2 sets a score only on a scale of points or categories. " + PASS_FAIL]),
])
async def test_a_key_outside_the_scale_on_the_adjudication_screen_says_why_and_changes_nothing(
        tmp_path, rubrics, rubric_id, keys, said):
    rubric = rubrics[rubric_id]
    path = disagreement_db(tmp_path, rubric)
    with Store(path) as store:
        app = AdjudicationApp(store, rubric, "lead")
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await pilot.pause()
            screen = screen_of(app, AdjudicationScreen)
            before, cursor, rows = dict(screen.choice), screen.cursor, database_rows(path)
            for key in keys:
                await pilot.press(key)
            await pilot.pause()
            assert app.notices == said
            assert (screen.choice, screen.cursor) == (before, cursor)
            assert database_rows(path) == rows
            assert store.rating(screen.items[0].item_id, "consensus") is None


async def test_the_adjudication_screen_names_the_keys_that_act_on_categories(tmp_path, rubrics):
    """On categories the keys are 1 to k: the caption under the scores says so (it read 0 = A, 1 = B, ...,
    so a lead pressing 1 for B set A), and the key bar lists them, with nothing about keys that do nothing."""
    pairwise = rubrics["pairwise"]
    path = disagreement_db(tmp_path, pairwise)
    with Store(path) as store:
        app = AdjudicationApp(store, pairwise, "lead")
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            shown = screen_text(app)
            assert "1 = A, 2 = B, 3 = tie" in shown
            assert "0 = A" not in shown
            bar = str(app.screen.query_one(KeyBar).render())
            assert bar.startswith("123 score  ⏎ Save consensus"), bar
            await pilot.press("2", "enter")  # the caption's 2: B
            await pilot.pause()
        saved = store.rating("W001", "consensus")
        assert saved is not None
        assert pairwise.scale.label(saved.scores["preference"]) == "B"


@pytest.mark.parametrize(("rubric_id", "starts"), [("cis", "01234 score  ⏎"), ("binary", "p PASS  f FAIL  ⏎")])
async def test_the_adjudication_key_bar_lists_the_score_keys_of_the_scale_at_80_columns(tmp_path, rubrics,
                                                                                       rubric_id, starts):
    path = disagreement_db(tmp_path, rubrics[rubric_id])
    with Store(path) as store:
        app = AdjudicationApp(store, rubrics[rubric_id], "lead")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            bar = str(app.screen.query_one(KeyBar).render())
    assert bar.startswith(starts), bar
    assert bar.rstrip().endswith("esc Back"), bar  # whole, within 80 columns


KEYMAP = {"score-1": "x", "pass": "y"}


async def test_both_screens_name_the_keys_of_the_users_keymap(tmp_path, rubrics, make_app):
    """The rating screen's sentence is unchanged with the default keys, and names a remapped key as it is
    pressed; the adjudication screen says the same sentence after its own."""
    async with make_app("reasoning-trace").run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.press("p")
        await pilot.pause()
        assert pilot.app.notices[-1] == QUARTER
    async with make_app("reasoning-trace", keymap=KEYMAP).run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.press("p", "y")  # p is no key of anything now; y is PASS's key, refused on a quarter scale
        await pilot.pause()
        assert pilot.app.notices == [QUARTER.replace("1→0.25", "x→0.25")]
    async with make_app("binary", keymap=KEYMAP).run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.press("2")
        await pilot.pause()
        assert pilot.app.notices[-1] == "This rubric is PASS/FAIL: press y for PASS or f for FAIL."

    path = disagreement_db(tmp_path, rubrics["cis"])
    with Store(path) as store:
        app = AdjudicationApp(store, rubrics["cis"], "lead", settings=Settings(keymap=KEYMAP))
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await pilot.pause()
            await pilot.press("y")
            await pilot.pause()
            assert app.notices == ["y sets PASS only on a PASS/FAIL rubric. " + QUARTER.replace("1→0.25", "x→0.25")]
            assert "0 = 0.00, x = 0.25" in screen_text(app)
