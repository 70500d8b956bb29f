"""Every write the app makes while another process holds the database waits a moment at most, says "database
busy", keeps the change and writes it once the other lets go: the app never stops on one (a real second process
holds BEGIN IMMEDIATE)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.tui.app import JudgeTuiApp
from judge_tui.tui.screens.adjudication import AdjudicationApp
from tests.faults.locker import Locker
from tests.judge import fake_anthropic as fa
from tests.judge.conftest import add_cis_items, fake  # noqa: F401 - the fake API server, a fixture
from tests.test_adjudication import _cis_db
from tests.tui.screen_text import screen_text

BUSY = "database busy (another program writes): changes kept, saved later"


async def _until(predicate, pilot, timeout: float = 30.0) -> None:  # noqa: ANN001
    """Let the app run until predicate() holds (a bound, not a timing assertion)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "the app never got there"
        await pilot.pause(0.05)


def _messages(app) -> list[str]:  # noqa: ANN001
    return [n.message for n in app._notifications]  # noqa: SLF001 - the notices shown


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
                await _until(lambda: app.judge_status == "judge: waiting (database busy)", pilot)
                assert "judge: waiting (database busy)" in screen_text(app)
                await pilot.press("3")  # the keys act meanwhile
                assert app.screen.session.state.edit.scores == {"r": 0.75}
                locker.release()
                await _until(lambda: f"{len(ids)} done" in app.judge_status, pilot)
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
            await _until(lambda: "running" in app.judge_status, pilot)
            with Locker(path) as locker:
                await _until(lambda: "database busy" in app.judge_status, pilot)
                await pilot.press("3")  # the keys act meanwhile
                assert app.screen.session.state.edit.scores == {"r": 0.75}
                assert not list(store.iter_ratings(kind="judge"))
                locker.release()
                await _until(lambda: f"{len(ids)} done" in app.judge_status, pilot)
            assert "database busy" not in app.judge_status
            await pilot.press("q")
        assert sorted(r.item_id for r in store.iter_ratings(kind="judge")) == sorted(ids)
    assert len(fake.message_requests()) == len(ids)  # each item judged once: no answer lost, none paid twice


@pytest.mark.slow
async def test_a_consensus_saved_while_another_process_writes_is_kept_and_saved_afterwards(tmp_path: Path,
                                                                                          rubrics) -> None:
    path = _cis_db(tmp_path, rubrics)
    with Store(path) as store:
        app = AdjudicationApp(store, rubrics["cis"], "lead")
        async with app.run_test(size=(120, 30), notifications=True) as pilot:
            await pilot.pause()
            screen = app.screen
            with Locker(path) as locker:
                await pilot.press("3", "3", "enter")
                await pilot.pause()
                assert screen.current.item_id == "B002"  # the lead goes on
                assert BUSY in _messages(app)
                assert store.rating("B001", "consensus") is None
                await pilot.press("escape")  # not closed with a consensus unsaved
                assert app.is_running
                locker.release()
                await _until(lambda: store.rating("B001", "consensus") is not None, pilot)
            await _until(lambda: any(m.startswith("B001: consensus saved") for m in _messages(app)), pilot)
            await pilot.press("escape")
            await _until(lambda: not app.is_running, pilot)
        assert store.rating("B001", "consensus").scores["a"] == 0.75
