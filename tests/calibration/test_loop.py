"""The calibration loop end to end in the real app: a scripted $EDITOR changes the judge prompt, the change is
saved with its reason, the dev split is re-judged in the background by a local program, the paired comparison
updates, the change is kept; a second change to the rubric is reverted and its files come back byte for byte."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from judge_tui.judge.backends.command import CommandBackend
from judge_tui.judge.calibration import JudgeTexts, judge_texts, open_trial
from judge_tui.judge.history import history_lines
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.store.rubric_choice import resolve_rubric
from judge_tui.tui.screens.calibrate import CalibrationApp, CalibrationScreen
from judge_tui.tui.widgets.dialogs import AskScreen
from tests.calibration.fixtures import HERE, JUDGE_CMD, MODEL, build_study, judge_dev
from tests.waiting import app_until

GUARD = "Rule: HONEY IS NOT VEGAN."


def editor(old: str, new: str) -> str:
    return " ".join(shlex.quote(part) for part in (sys.executable, str(HERE / "edit_file.py"), old, new))


async def _answer(pilot, app, *lines: str) -> None:
    await app_until(pilot, lambda: isinstance(app.screen, AskScreen), "the question")
    for line in lines:
        if line:
            await pilot.press(*line)
        await pilot.press("enter")


@pytest.fixture
def study_db(tmp_path: Path, rubrics: dict[str, Rubric]) -> Path:
    path = build_study(tmp_path / "study.db", rubrics["binary"])
    judge_dev(path)
    return path


@pytest.mark.slow  # a real judge program per item, twice over the dev split
async def test_the_loop_twice_edit_rejudge_compare_keep_then_revert(study_db, monkeypatch):
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", editor("# Part 3.", f"{GUARD} # Part 3."))
    with Store(study_db) as store:
        rubric = resolve_rubric("binary", store)

        def in_force() -> JudgeTexts:
            return judge_texts(store, resolve_rubric("binary", store))

        app = CalibrationApp(store, rubric, "lead", settings=Settings(judge_concurrency=3),
                             make_backend=lambda: CommandBackend(JUDGE_CMD, model=MODEL))
        async with app.run_test(size=(120, 40)) as pilot:
            screen = app.screen
            assert isinstance(screen, CalibrationScreen)
            await app_until(pilot, lambda: screen.standing is not None, "the first figures")
            assert screen.standing.previous is None
            assert len(screen.standing.misaligned) == 6  # the honey items

            # Round one: the prompt gets a guard; the reason's items come from the revision marks (P06).
            await pilot.press("t")
            await _answer(pilot, app, "guard: honey is not vegan", "")
            trial = open_trial(store, "binary")
            assert trial is not None
            assert trial.items == ("P06",)
            assert GUARD in in_force().template_text
            new_judge = f"judge:cmd-fake:binary@{trial.after}"
            await app_until(pilot, lambda: store.judge_job_counts(new_judge)["done"] == 12,
                            "the dev split re-judged")
            await app_until(pilot, lambda: screen.standing.comparison is not None
                        and screen.standing.comparison.items == 12, "the comparison over every dev item")
            comparison = screen.standing.comparison
            assert comparison.alignment == (0.5, 1.0)  # the guard fixed every honey item
            assert screen.standing.misaligned == ()
            assert any("50.0% → 100.0%" in line for line in screen.standing.comparison_lines)
            await pilot.press("K")
            await pilot.pause()
            assert open_trial(store, "binary") is None

            # Round two: a rubric change, reverted.
            before = in_force().texts()
            monkeypatch.setenv("EDITOR", editor("If you are unsure", "When unsure"))
            await pilot.press("e")
            await _answer(pilot, app, "softer wording", "")
            second = open_trial(store, "binary")
            assert second is not None
            assert second.before == trial.after
            assert in_force().rubric_text != before[0]
            await pilot.press("R")
            await _answer(pilot, app, "no better on dev")
            await pilot.pause()
            assert in_force().texts() == before  # character for character
            assert open_trial(store, "binary") is None
            assert resolve_rubric("binary", store).content_hash == rubric.content_hash  # in force again
            await pilot.press("q")

        history = "\n".join(history_lines(store, "binary"))
        assert "reason: guard: honey is not vegan" in history
        assert "items: P06" in history
        assert "kept  " in history
        assert "reverted  " in history
        assert "reason: no better on dev" in history
        assert "reason: softer wording" in history
        # Both versions' judgments stay.
        assert store.judge_job_counts(f"judge:cmd-fake:binary@{trial.before}")["done"] == 12
        assert store.judge_job_counts(new_judge)["done"] == 12
        # The test split never entered the loop.
        test_items = {f"P{n:02d}" for n in range(17, 21)}
        judged = {r.item_id for r in store.iter_ratings(rubric="binary", kind="judge")}
        assert not judged & test_items
