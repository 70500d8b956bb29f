"""The real app judges in the background while the expert rates, blind, and says when it is offline."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.tui.app import JudgeTuiApp
from judge_tui.tui.screens.rating import RatingScreen
from tests.judge import fake_anthropic as fa
from tests.judge.conftest import add_cis_items
from tests.narrowing import present
from tests.tui.screen_text import widget_text
from tests.waiting import app_until


@pytest.mark.slow
async def test_app_judges_in_the_background_and_keeps_the_results_hidden(
    fake: fa.FakeAnthropic, tmp_path: Path, rubrics: dict[str, Rubric]
) -> None:
    rubric = rubrics["cis"]

    with Store(tmp_path / "app.db") as store:
        ids = add_cis_items(store, rubric, 4)
        app = JudgeTuiApp(store, rubric, reviewer="EXP001",
                          settings=Settings(judge_model="claude-sonnet-5", judge_concurrency=2))
        async with app.run_test(size=(120, 40)) as pilot:
            await app_until(pilot, lambda: f"{len(ids)} done" in app.judge_status, "every item judged")
            judge_ratings = list(store.iter_ratings(kind="judge"))
            assert sorted(r.item_id for r in judge_ratings) == sorted(ids)
            assert isinstance(app.screen, RatingScreen)
            shown = widget_text(app)
            assert f"judge: 0 queued · {len(ids)} done" in shown  # the status line
            for rating in judge_ratings:  # blind: no judge reasoning before the expert has rated
                assert rating.notes
                assert rating.notes not in shown
            await pilot.press("3")  # keys still act while and after the judge runs
            assert present(app.screen.session.state).edit.scores
            await pilot.press("q")
    assert len(fake.message_requests()) == len(ids)


async def test_app_says_the_judge_has_no_api_key(tmp_path: Path, rubrics: dict[str, Rubric]) -> None:
    rubric = rubrics["cis"]

    with Store(tmp_path / "nokey.db") as store:
        ids = add_cis_items(store, rubric, 3)
        app = JudgeTuiApp(store, rubric, reviewer="EXP001", settings=Settings())
        async with app.run_test(size=(120, 40)) as pilot:
            # Once the judge has tried and handed its jobs back, the line has settled.
            await app_until(pilot, lambda: app.background_judge is not None
                            and bool(app.background_judge.runner.state.offline)
                            and app.judge_status == f"judge: {len(ids)} queued · no API key",
                            "the judge waiting for a key, every item queued")
            assert app.judge_status in widget_text(app)
            await pilot.press("q")
        assert store.count_ratings() == 0  # nothing judged and nothing lost: the jobs wait in the queue
        assert len(store.judge_jobs(present(app.background_judge).rater_id)) == len(ids)


@pytest.mark.slow
async def test_in_a_team_only_the_leads_app_judges_by_default(
    fake: fa.FakeAnthropic, tmp_path: Path, rubrics: dict[str, Rubric], hermetic_home: Path
) -> None:
    """The lead plans the study and hands ann her share as a bundle; ann rates on her laptop with a key in her
    shell. Her app leaves the judging to the lead's database (each item judged once, not once per laptop),
    unless her settings say true; the lead's app judges."""
    from judge_tui.cli import main
    from judge_tui.judge.worker import LEFT_TO_THE_LEAD, judges_in_background

    rubric = rubrics["cis"]
    lead_db, ann_db, bundle = tmp_path / "lead.db", tmp_path / "ann.db", tmp_path / "ann.bundle.db"
    with Store(lead_db) as store:
        ids = add_cis_items(store, rubric, 4)
    assert main(["assign", "--db", str(lead_db), "--rubric", "cis", "--experts", "ann,bob"]) == 0
    assert main(["export", "--db", str(lead_db), "--bundle", "--for", "ann", "-o", str(bundle)]) == 0
    assert main(["import", "--db", str(ann_db), "--bundle", str(bundle)]) == 0

    with Store(ann_db) as store:
        app = JudgeTuiApp(store, rubric, reviewer="ann", settings=Settings(judge_model="claude-sonnet-5"))
        async with app.run_test(size=(120, 40)) as pilot:
            await app_until(pilot, lambda: app.judge_status == LEFT_TO_THE_LEAD,
                            "the judging left to the lead")
            assert LEFT_TO_THE_LEAD in widget_text(app)
            assert app.background_judge is None
            await pilot.press("q")
        assert store.judge_jobs() == []
        assert fake.message_requests() == []

        # Her settings can still say so: then her app judges on her machine.
        app = JudgeTuiApp(store, rubric, reviewer="ann",
                          settings=Settings(judge_model="claude-sonnet-5", judge_in_background=True))
        async with app.run_test(size=(120, 40)) as pilot:
            await app_until(pilot, lambda: "done" in app.judge_status and " 0 queued" in app.judge_status,
                            "the queue judged")
            await pilot.press("q")
    asked_by_ann = len(fake.message_requests())
    assert asked_by_ann > 0

    with Store(lead_db) as store:
        # The lead's database holds the whole plan: judged there, even for a lead who rates a share too.
        assert main(["assign", "--db", str(lead_db), "--rubric", "cis", "--experts", "ann,lead"]) == 0
        assert store.assignment_of("lead", "cis") is not None
        assert judges_in_background(Settings(), store, "cis", "lead")
        assert not judges_in_background(Settings(judge_in_background=False), store, "cis", "lead")
        app = JudgeTuiApp(store, rubric, reviewer="lead", settings=Settings(judge_model="claude-sonnet-5"))
        async with app.run_test(size=(120, 40)) as pilot:
            await app_until(pilot, lambda: f"{len(ids)} done" in app.judge_status, "every item judged")
            await pilot.press("q")
    assert len(fake.message_requests()) - asked_by_ann == len(ids)
