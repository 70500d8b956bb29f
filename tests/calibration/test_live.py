"""A change made on the judge screen reaches the whole running app at once: the rating screen's rubric panel and
the app's background judge use the version in force, without a restart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge_tui.judge.calibration import open_trial
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.store.rubric_choice import resolve_rubric
from judge_tui.tui.app import JudgeTuiApp
from judge_tui.tui.screens.calibrate import CalibrationScreen
from judge_tui.tui.screens.rating import RatingScreen
from judge_tui.tui.widgets.rubric_panel import RubricPanel
from tests.calibration.fixtures import build_study
from tests.calibration.test_loop import _answer, editor
from tests.judge import fake_anthropic as fa
from tests.narrowing import present, screen_of
from tests.waiting import app_until

OLD_ANCHOR = "explicitly and implicitly."
NEW_ANCHOR = "explicitly and implicitly; honey is never vegan."


def _panel(app: JudgeTuiApp) -> str:
    return " ".join(app.screen.query_one(RubricPanel).text.split())  # as read, not as wrapped


def _system(request: fa.Recorded) -> str:
    return json.dumps(request.body.get("system"))


@pytest.mark.slow  # the fake API judges the study twice over
async def test_after_keep_the_rating_screen_and_the_background_judge_use_the_new_rubric(
        fake: fa.FakeAnthropic, tmp_path: Path, rubrics: dict[str, Rubric], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", editor(OLD_ANCHOR, NEW_ANCHOR))
    path = build_study(tmp_path / "study.db", rubrics["binary"])
    with Store(path) as store:
        rubric = resolve_rubric("binary", store)
        app = JudgeTuiApp(store, rubric, reviewer="lead", lead=True,
                          settings=Settings(judge_model="claude-sonnet-5", judge_concurrency=2))
        async with app.run_test(size=(120, 40)) as pilot:
            await app_until(pilot, lambda: "20 done" in app.judge_status, "the first judge over every item")
            first_judge = app.background_judge
            assert OLD_ANCHOR in _panel(app)
            assert NEW_ANCHOR not in _panel(app)

            await pilot.press("J")
            await app_until(pilot, lambda: isinstance(app.screen, CalibrationScreen), "the judge screen")
            screen = screen_of(app, CalibrationScreen)
            await app_until(pilot, lambda: screen.standing is not None, "the first figures")
            await pilot.press("e")
            await _answer(pilot, app, "honey named in the PASS anchor", "")
            trial = open_trial(store, "binary")
            assert trial is not None
            await app_until(pilot, lambda: isinstance(app.screen, CalibrationScreen),
                            "back on the judge screen")
            await pilot.press("K")
            await pilot.pause()
            assert open_trial(store, "binary") is None
            await pilot.press("escape")
            await app_until(pilot, lambda: isinstance(app.screen, RatingScreen), "back on the rating screen")

            # The rating screen shows the new anchor, without a restart.
            await pilot.pause()
            assert NEW_ANCHOR in _panel(app)
            assert screen_of(app, RatingScreen).session.version_id == present(store.rubric_version_by_hash(
                resolve_rubric("binary", store).content_hash))["id"]
            # The app's background judge started again under the new prompt, over every item (the judge
            # screen's re-judge covers the dev split only: a test item's request comes from the app's judge).
            assert app.background_judge is not first_judge
            assert present(app.background_judge).judge.prompt.version == trial.after
            await app_until(pilot, lambda: any("a vegan breakfast 18" in json.dumps(r.body.get("messages"))
                                               and NEW_ANCHOR in _system(r) for r in fake.message_requests()),
                            "a test item judged under the change")
            await pilot.press("q")
        sent_after = [r for r in fake.message_requests() if NEW_ANCHOR in _system(r)]
        assert len({json.dumps(r.body.get("messages")) for r in sent_after}) == 20
