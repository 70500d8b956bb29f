"""The judge screen of a study whose prompt in force has judged nothing yet (or not the dev items imported since):
it says what j would judge and with what, and j judges them in the background."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_tui.judge.backends.command import CommandBackend
from judge_tui.judge.prompts import JudgePrompt
from judge_tui.judge.runner import judge_rater_id
from judge_tui.model.records import Item
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.store.rubric_choice import resolve_rubric
from judge_tui.tui.screens.calibrate import CalibrationApp, CalibrationScreen
from tests.calibration.fixtures import JUDGE_CMD, MODEL, build_study, judge_dev
from tests.narrowing import screen_of
from tests.tui.screen_text import widget_text
from tests.waiting import app_until


def _app(store: Store, rubric: Rubric) -> CalibrationApp:
    return CalibrationApp(store, rubric, "lead", settings=Settings(judge_concurrency=3),
                          make_backend=lambda: CommandBackend(JUDGE_CMD, model=MODEL, pass_env=["FAKE_JUDGE_FAIL"]))


@pytest.mark.slow  # the judge program over the dev split
async def test_j_judges_the_dev_split_when_the_prompt_in_force_has_judged_nothing(tmp_path: Path, rubrics):
    path = build_study(tmp_path / "study.db", rubrics["binary"])
    with Store(path) as store:
        rubric = resolve_rubric("binary", store)
        app = _app(store, rubric)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = screen_of(app, CalibrationScreen)
            assert isinstance(screen, CalibrationScreen)
            await app_until(pilot, lambda: screen.standing is not None, "the first figures")
            assert screen.standing.judge is None
            assert screen.unjudged == 12
            shown = " ".join(widget_text(app).split())
            assert "j judges the 12 dev items not judged yet with cmd-fake" in shown
            assert "Press j to judge the 12 dev items prompt" in shown
            assert "12 calls to the local program" in shown
            assert "(no tokens, no price)" in shown

            await pilot.press("j")
            await app_until(pilot, lambda: screen.standing.judge is not None
                        and store.judge_job_counts(screen.standing.judge)["done"] == 12, "the dev split judged")
            await app_until(pilot, lambda: screen.unjudged == 0 and screen.standing.figures, "the figures")
            assert "judging dev:" in " ".join(widget_text(app).split())
            assert len(screen.standing.misaligned) == 6  # the honey items, now there is a judge to compare
            assert not screen.check_action("judge_split", ())  # nothing left to judge: j is off the key bar
            await pilot.press("q")
        judged = {r.item_id for r in store.iter_ratings(rubric="binary", kind="judge")}
        assert judged == {f"P{n:02d}" for n in range(5, 17)}  # the dev split only: never train or test


@pytest.mark.slow  # the judge program, twice
async def test_j_judges_dev_items_imported_after_the_judge_ran(tmp_path: Path, rubrics):
    path = build_study(tmp_path / "study.db", rubrics["binary"])
    with Store(path) as store:
        rubric = resolve_rubric("binary", store)
        app = _app(store, rubric)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = screen_of(app, CalibrationScreen)
            await app_until(pilot, lambda: screen.standing is not None, "the first figures")
            await pilot.press("j")
            await app_until(pilot, lambda: screen.unjudged == 0 and screen.standing.judge is not None,
                            "judged")
            await pilot.press("q")
        store.add_items([Item(id=f"N{n}", rubric="binary", split="dev",
                              fields={"query": "q", "criterion": "vegan", "response": f"tofu {n}"}) for n in (1, 2)])
        app = _app(store, rubric)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = screen_of(app, CalibrationScreen)
            await app_until(pilot, lambda: screen.standing is not None, "the figures")
            assert screen.unjudged == 2
            assert "Press j to judge the 2 dev items" in " ".join(widget_text(app).split())
            await pilot.press("j")
            await app_until(pilot, lambda: screen.unjudged == 0 and not screen.computing,
                            "the new items judged")
            await pilot.press("q")
        assert {"N1", "N2"} <= {r.item_id for r in store.iter_ratings(rubric="binary", kind="judge")}


@pytest.mark.slow  # the judge program, twice over the dev split
async def test_failed_judgments_are_counted_and_j_tries_them_again(tmp_path: Path, rubrics, monkeypatch):
    path = build_study(tmp_path / "study.db", rubrics["binary"])
    monkeypatch.setenv("FAKE_JUDGE_FAIL", "1")
    with Store(path) as store:
        rubric = resolve_rubric("binary", store)
        app = _app(store, rubric)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = screen_of(app, CalibrationScreen)
            await app_until(pilot, lambda: screen.standing is not None, "the first figures")
            await pilot.press("j")
            await app_until(pilot, lambda: "12 failed" in screen.judge_line, "every judgment failed")
            assert "judge-tui failures shows why" in " ".join(widget_text(app).split())
            await pilot.press("q")
        monkeypatch.delenv("FAKE_JUDGE_FAIL")
        app = _app(store, rubric)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = screen_of(app, CalibrationScreen)
            await app_until(pilot, lambda: screen.standing is not None, "the figures")
            assert screen.unjudged == 12
            assert screen.failed == 12  # failed ones still count as not judged
            shown = " ".join(widget_text(app).split())
            assert "12 of them failed before (judge-tui failures shows why) and are tried again" in shown
            await pilot.press("j")
            await app_until(pilot, lambda: screen.unjudged == 0 and screen.standing.judge is not None,
                            "judged at last")
            await pilot.press("q")
        assert store.judge_job_counts(screen.standing.judge) == {"queued": 0, "running": 0, "done": 12, "failed": 0}


async def test_the_offer_counts_the_jobs_already_queued_for_other_splits(tmp_path: Path, rubrics):
    path = build_study(tmp_path / "study.db", rubrics["binary"])
    with Store(path) as store:
        rubric = resolve_rubric("binary", store)
        # The rating screen's background judge queued every item, of every split, for the same judge.
        prompt = JudgePrompt.for_rubric(rubric, store)
        rater = judge_rater_id(MODEL, "binary", prompt.version)
        store.ensure_rater(rater, "judge", model=MODEL, prompt_version=prompt.version)
        assert store.enqueue_judge_jobs(rater, store.ensure_rubric_version(rubric), "binary") == 20
        app = _app(store, rubric)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = screen_of(app, CalibrationScreen)
            await app_until(pilot, lambda: screen.standing is not None, "the figures")
            assert (screen.unjudged, screen.queued_elsewhere) == (12, 8)
            shown = " ".join(widget_text(app).split())
            assert "Press j to judge the 12 dev items prompt " in shown
            assert "20 calls to the local program" in shown
            assert "(8 of them for items of other splits, already in this judge's queue)" in shown
            await pilot.press("q")


@pytest.mark.slow  # the judge program over the dev split, then a Pilot session
async def test_the_offer_says_when_the_judge_shown_is_another_model_than_j_judges_with(tmp_path: Path, rubrics):
    path = build_study(tmp_path / "study.db", rubrics["binary"])
    judge_dev(path)  # the judge command with the lead's program, model cmd-fake
    with Store(path) as store:
        rubric = resolve_rubric("binary", store)
        app = CalibrationApp(store, rubric, "lead", settings=Settings(),
                             make_backend=lambda: CommandBackend(JUDGE_CMD, model="another-model"))
        async with app.run_test(size=(120, 40)) as pilot:
            screen = screen_of(app, CalibrationScreen)
            await app_until(pilot, lambda: screen.standing is not None and not screen.computing, "the figures")
            shown_judge = screen.standing.judge
            assert shown_judge is not None
            assert shown_judge.startswith(f"judge:{MODEL}:")
            assert screen.unjudged == 12  # j would judge them again, as another judge
            shown = " ".join(widget_text(app).split())
            assert "j judges the 12 dev items not judged yet with another-model" in shown
            assert f"The judge shown, {shown_judge}, is another model or backend: j makes another judge" in shown
            await pilot.press("q")
