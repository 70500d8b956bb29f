"""The judge screen while another process holds the database (a real second process holds BEGIN IMMEDIATE): a
change, its keep and its revert wait, say so, change nothing meanwhile (files included), and are done once the
other lets go."""

from __future__ import annotations

import pytest

from judge_tui.judge.calibration import JudgeTexts, judge_texts, open_trial
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.store.rubric_choice import resolve_rubric
from judge_tui.tui.screens.calibrate import CalibrationApp, CalibrationScreen
from tests.calibration.test_loop import GUARD, _answer, editor, study_db  # noqa: F401 - study_db: a fixture
from tests.faults.locker import Locker
from tests.waiting import app_until

BUSY = "database busy (another program writes): changes kept, saved later"


def _said(app) -> list[str]:  # noqa: ANN001
    return list(app.notices)  # the notices shown


@pytest.mark.slow
async def test_a_change_its_keep_and_a_revert_wait_for_another_process(study_db, monkeypatch):  # noqa: F811
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", editor("# Part 3.", f"{GUARD} # Part 3."))
    with Store(study_db) as store:
        rubric = resolve_rubric("binary", store)
        def in_force() -> JudgeTexts:
            return judge_texts(store, resolve_rubric("binary", store))

        first = in_force()
        app = CalibrationApp(store, rubric, "lead", settings=Settings(), make_backend=None)
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            screen = app.screen
            assert isinstance(screen, CalibrationScreen)
            await app_until(pilot, lambda: screen.standing is not None, "the first figures")
            with Locker(study_db) as locker:
                await pilot.press("t")
                await _answer(pilot, app, "guard: honey is not vegan", "")
                await app_until(pilot, lambda: f"The change waits: {BUSY}" in _said(app), "said to wait")
                assert open_trial(store, "binary") is None
                assert in_force() == first  # nothing changed while the database is held
                locker.release()
                await app_until(pilot, lambda: open_trial(store, "binary") is not None, "the change saved")
            assert GUARD in in_force().template_text
            with Locker(study_db) as locker:
                await pilot.press("K")
                await app_until(pilot, lambda: f"Keeping the change waits: {BUSY}" in _said(app),
                                "said to wait")
                assert open_trial(store, "binary") is not None
                await pilot.press("escape")  # not left with the keep undone, without a word
                assert app.screen is screen
                assert "still waits for the database" in _said(app)[-1]
                locker.release()
                await app_until(pilot, lambda: open_trial(store, "binary") is None, "kept")

            monkeypatch.setenv("EDITOR", editor("If you are unsure", "When unsure"))
            rubric_before = in_force().rubric_text
            await pilot.press("e")
            await _answer(pilot, app, "softer wording", "")
            await app_until(pilot, lambda: open_trial(store, "binary") is not None, "the second change saved")
            with Locker(study_db) as locker:
                await pilot.press("R")
                await _answer(pilot, app, "no better on dev")
                await app_until(pilot, lambda: f"The revert waits: {BUSY}" in _said(app), "said to wait")
                assert in_force().rubric_text != rubric_before  # not reverted while the database is held
                locker.release()
                await app_until(pilot, lambda: open_trial(store, "binary") is None, "reverted")
            assert in_force().rubric_text == rubric_before
            assert app.is_running
            await pilot.press("q")
