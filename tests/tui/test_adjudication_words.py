"""What the adjudication screen says around the scores: its status line at 80 and 120 columns, and the caption
under the scores, which names the keys the user's keymap binds."""

from __future__ import annotations

import pytest

from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.tui.screens.adjudication import AdjudicationApp, AdjudicationScreen
from judge_tui.tui.widgets.key_bar import KeyBar
from tests.narrowing import screen_of
from tests.tui.screen_text import screen_text, widget_text
from tests.tui.test_refused_score_keys import disagreement_db

RULE = "experts differ by more than ±0.15"
ONE_LINE = f"Adjudication  cis · item 1 of 2 where {RULE} · 0 settled · lead lead"


def status_lines(shown: str) -> list[str]:
    """The lines of text above the item's first line (its id, B001), without the panel's edge."""
    lines = shown.splitlines()
    above = lines[:next(n for n, line in enumerate(lines) if "B001" in line or "B002" in line)]
    return [line.strip() for line in above if line.strip(" ▏")]


async def test_at_80_columns_the_status_line_keeps_every_part_on_two_lines(tmp_path, rubrics):
    path = disagreement_db(tmp_path, rubrics["cis"])
    with Store(path) as store:
        app = AdjudicationApp(store, rubrics["cis"], "lead")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            status = status_lines(screen_text(app))
            assert status == ["Adjudication  cis · item 1 of 2 · 0 settled · lead lead", f"items where {RULE}"]
            await pilot.press("0", "0", "0", "0", "enter")  # B001 settled: on to B002
            await pilot.pause()
            status = status_lines(screen_text(app))
            assert status[0] == "Adjudication  cis · item 2 of 2 · 1 settled · lead lead", status


@pytest.mark.slow
async def test_at_120_columns_the_status_line_is_one_line_and_follows_a_resize(tmp_path, rubrics):
    path = disagreement_db(tmp_path, rubrics["cis"])
    with Store(path) as store:
        app = AdjudicationApp(store, rubrics["cis"], "lead")
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            assert status_lines(screen_text(app)) == [ONE_LINE]
            await pilot.resize_terminal(80, 24)
            await pilot.pause()
            assert RULE in "\n".join(status_lines(screen_text(app)))
            await pilot.resize_terminal(120, 40)
            await pilot.pause()
            assert status_lines(screen_text(app)) == [ONE_LINE]


async def test_a_long_lead_id_wraps_rather_than_running_off_the_edge(tmp_path, rubrics):
    lead = "lead-reviewer-of-the-spring-study-2026"
    path = disagreement_db(tmp_path, rubrics["cis"])
    with Store(path) as store:
        app = AdjudicationApp(store, rubrics["cis"], lead)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            status = " ".join(status_lines(screen_text(app)))
    for part in ("item 1 of 2", "0 settled", f"lead {lead}", RULE):
        assert part in status, status


# Free keys on the rating screen too: the adjudication screen shares its binding ids.
MOVED = {"prev-dimension": "e", "next-dimension": "d", "submit": "ctrl+s", "prev-item": "b", "next-item": "m"}


async def test_the_caption_names_the_keys_of_the_users_keymap_and_they_act(tmp_path, rubrics):
    path = disagreement_db(tmp_path, rubrics["cis"])
    with Store(path) as store:
        app = AdjudicationApp(store, rubrics["cis"], "lead", settings=Settings(keymap=MOVED))
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            screen = screen_of(app, AdjudicationScreen)
            shown = widget_text(app)  # the caption on one line, as a wide terminal shows it
            assert "e/d dimension; ^s saves; b/m other items" in shown, shown
            assert "↑/↓" not in shown
            assert "Enter saves" not in shown
            assert "^s Save consensus" in str(screen.query_one(KeyBar).render())
            await pilot.press("d")
            assert screen.cursor == 1
            await pilot.press("e")
            assert screen.cursor == 0
            await pilot.press("m")
            assert screen.current is not None
            assert screen.current.item_id == "B002"
            await pilot.press("b", "0", "0", "0", "0", "ctrl+s")
            await pilot.pause()
        assert store.rating("B001", "consensus") is not None


async def test_with_the_default_keys_the_caption_names_the_arrows_and_enter(tmp_path, rubrics):
    path = disagreement_db(tmp_path, rubrics["cis"])
    with Store(path) as store:
        app = AdjudicationApp(store, rubrics["cis"], "lead")
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            assert "↑/↓ dimension; ⏎ saves; ←/→ other items" in widget_text(app)


async def test_the_back_key_follows_the_keymap(tmp_path, rubrics):
    """`leave-adjudication` is one of the keymap's ids: its key leaves, Escape then does not, and the key bar names
    it."""
    path = disagreement_db(tmp_path, rubrics["cis"])
    with Store(path) as store:
        app = AdjudicationApp(store, rubrics["cis"], "lead", settings=Settings(keymap={"leave-adjudication": "b"}))
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            screen = screen_of(app, AdjudicationScreen)
            assert "b Back" in str(screen.query_one(KeyBar).render())
            await pilot.press("escape")
            await pilot.pause()
            assert app.return_code is None
            await pilot.press("b")
            await pilot.pause()
            assert app.return_code == 0


def test_a_back_key_that_clashes_on_the_adjudication_screen_is_refused():
    from judge_tui.tui.keys import keymap_problems

    assert keymap_problems({"leave-adjudication": "b"}) == []
    assert keymap_problems({"leave-adjudication": "a"}) == [
        "key 'a' is given to both 'agreement' and 'leave-adjudication' on the adjudication screen"]
    assert keymap_problems({"leave-adjudication": "escape", "agreement": "escape"})[-1] == (
        "key 'escape' is given to both 'agreement' and 'leave-adjudication' on the adjudication screen")
