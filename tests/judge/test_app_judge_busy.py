"""The app's background judge beside another process: it waits while that one holds the database (a real second
process holds BEGIN IMMEDIATE), records its answers once it lets go, and its status follows the queue as a judge in
another process works through it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.tui.app import JudgeTuiApp
from judge_tui.tui.screens.rating import RatingScreen
from tests.faults.locker import Locker
from tests.judge import fake_anthropic as fa
from tests.judge.conftest import API_KEY, add_cis_items
from tests.narrowing import present, screen_of
from tests.tui.screen_text import screen_text
from tests.waiting import app_until

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
async def test_the_background_judge_starts_once_another_process_lets_go(
        fake: fa.FakeAnthropic, tmp_path: Path, rubrics: dict[str, Rubric]) -> None:
    rubric = rubrics["cis"]
    path = tmp_path / "app.db"
    with Store(path) as store:
        ids = add_cis_items(store, rubric, 3)
        store.ensure_rater("EXP001", "human")  # opening the rating screen writes nothing then
        with Locker(path) as locker:  # held before the app starts, through the judge's start
            app = JudgeTuiApp(store, rubric, reviewer="EXP001", settings=Settings(judge_model="claude-sonnet-5"))
            async with app.run_test(size=(120, 40)) as pilot:
                await app_until(pilot, lambda: app.judge_status == "judge: waiting (database busy)",
                                "the judge waiting for the database")
                assert "judge: waiting (database busy)" in screen_text(app)
                await pilot.press("3")  # the keys act meanwhile
                assert present(screen_of(app, RatingScreen).session.state).edit.scores == {"r": 0.75}
                locker.release()
                await app_until(pilot, lambda: f"{len(ids)} done" in app.judge_status, "every item judged")
                await pilot.press("q")
    assert len(fake.message_requests()) == len(ids)


@pytest.mark.slow
async def test_judge_results_that_arrive_while_another_process_writes_are_recorded_afterwards(
        fake: fa.FakeAnthropic, tmp_path: Path, rubrics: dict[str, Rubric]) -> None:
    rubric = rubrics["cis"]
    path = tmp_path / "app.db"
    fake.latency = 1.0  # the answers come back while the database is held
    with Store(path) as store:
        ids = add_cis_items(store, rubric, 4)
        app = JudgeTuiApp(store, rubric, reviewer="EXP001",
                          settings=Settings(judge_model="claude-sonnet-5", judge_concurrency=2))
        async with app.run_test(size=(120, 40)) as pilot:
            await app_until(pilot, lambda: "running" in app.judge_status, "a judgment running")
            with Locker(path) as locker:
                await app_until(pilot, lambda: "database busy" in app.judge_status,
                                "the judge waiting for the database")
                await pilot.press("3")  # the keys act meanwhile
                assert present(screen_of(app, RatingScreen).session.state).edit.scores == {"r": 0.75}
                assert not list(store.iter_ratings(kind="judge"))
                locker.release()
                await app_until(pilot, lambda: f"{len(ids)} done" in app.judge_status, "every item judged")
            assert "database busy" not in app.judge_status
            await pilot.press("q")
        assert sorted(r.item_id for r in store.iter_ratings(kind="judge")) == sorted(ids)
    assert len(fake.message_requests()) == len(ids)  # each item judged once: no answer lost, none paid twice


@pytest.mark.slow
async def test_the_judge_status_catches_up_with_a_judge_in_another_process(tmp_path: Path, rubrics,
                                                                           hermetic_home: Path) -> None:
    """The app's judge has no key here; `judge-tui judge` in another process, with one, does the whole queue."""
    rubric = rubrics["cis"]
    path = tmp_path / "app.db"
    server = fa.FakeAnthropic(api_key=API_KEY).start()
    try:
        with Store(path) as store:
            ids = add_cis_items(store, rubric, 3)
            app = JudgeTuiApp(store, rubric, reviewer="EXP001", settings=Settings(judge_model="claude-sonnet-5"))
            async with app.run_test(size=(120, 40)) as pilot:
                # Once the app's judge has tried and handed its jobs back, every item is queued.
                await app_until(pilot, lambda: app.background_judge is not None
                                and bool(app.background_judge.runner.state.offline)
                                and app.judge_status == f"judge: {len(ids)} queued · no API key",
                                "the app's judge waiting for a key, every item queued")
                env = {**os.environ, "ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.url,
                       "JUDGE_TUI_HOME": str(hermetic_home), "PYTHONPATH": str(ROOT)}
                headless = subprocess.run(
                    [sys.executable, "-m", "judge_tui", "judge", "--db", str(path), "--rubric", "cis", "--model",
                     "claude-sonnet-5"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
                assert headless.returncode == 0, headless.stderr
                await app_until(pilot, lambda: f"0 queued · {len(ids)} done" in app.judge_status,
                                "the other process's judgments counted")
                assert f"0 queued · {len(ids)} done" in screen_text(app)
                await pilot.press("q")
    finally:
        server.stop()
    assert len(server.message_requests()) == len(ids)
