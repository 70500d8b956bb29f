"""The rating screen with an assignment (judge-tui assign): it serves the reviewer's queue, in its order, and
counts progress against it; a reviewer without one rates every item as before. Real keys through Pilot."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from judge_tui.model.records import Item, Rating
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.transfer.assignment import Options, assign
from judge_tui.tui.app import JudgeTuiApp
from judge_tui.tui.messages import JudgeStatusLine
from judge_tui.tui.screens.rating import RatingScreen
from judge_tui.tui.widgets.status_line import StatusLine
from tests.tui.conftest import FIELDS, FakeClock
from tests.tui.screen_text import screen_text
from tests.waiting import app_until

SIZE = (120, 40)
SMALL = (80, 24)


@pytest.fixture
def team_store(tmp_path: Path, rubrics: dict[str, Rubric]) -> Iterator[Store]:
    """12 CIS items (three task types), planned for ann and bob with half of them rated by both."""
    rubric = rubrics["cis"]
    with Store(tmp_path / "ann.db") as store:
        store.ensure_rubric_version(rubric)
        store.add_items([Item(id=f"B{n:03d}", rubric="cis", fields=dict(FIELDS["cis"][n % 3]),
                              task_type=str(FIELDS["cis"][n % 3]["task_type"])) for n in range(1, 13)])
        assign(store, rubric, Options("cis", ("ann", "bob"), overlap=0.5, seed=0))
        yield store


def queue(store: Store, rater: str) -> list[str]:
    plan = store.current_plan("cis")
    assert plan is not None
    return [item for _r, item, _p, _o in store.assigned_items(plan["id"], rater)]


def app_for(store: Store, rubric: Rubric, reviewer: str, clock: FakeClock) -> JudgeTuiApp:
    return JudgeTuiApp(store, rubric, reviewer=reviewer, settings=Settings(judge_in_background=False), clock=clock)


def status_line(app: JudgeTuiApp) -> str:
    return str(app.screen.query_one(StatusLine).render())


def current(app: JudgeTuiApp) -> str:
    assert isinstance(app.screen, RatingScreen)
    assert app.screen.session.state is not None
    return app.screen.session.state.item.id


@pytest.mark.slow
async def test_the_queue_serves_the_assigned_items_in_order_and_counts_against_them(team_store, rubrics):
    mine = queue(team_store, "ann")
    assert len(mine) == 9  # 6 shared + 3 of her own
    clock = FakeClock()
    app = app_for(team_store, rubrics["cis"], "ann", clock)
    served = []
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert "0 rated · 0 skipped · 0 flagged · 9 assigned to you" in status_line(app)
        for done in range(1, len(mine) + 1):
            served.append(current(app))
            clock.advance(20)
            await pilot.press("2", "2", "2", "2", "enter")
            await pilot.pause()
            if done == len(mine):  # nothing left: the finish screen asks for her name and notes; later
                await pilot.press("escape")
                await pilot.pause()
            assert f"{done} rated · 0 skipped · 0 flagged · 9 assigned to you" in status_line(app)
        assert "Finish later with F." in screen_text(app)  # then that every item of her assignment is rated
    assert served == mine  # her queue, in its order: none of bob's items, nothing twice
    assert team_store.progress("ann", "cis", plan=team_store.assignment_of("ann", "cis"))["rated"] == 9


@pytest.mark.slow
async def test_paging_follows_the_queue_and_a_restart_resumes_in_it(team_store, rubrics):
    mine = queue(team_store, "ann")
    clock = FakeClock()
    app = app_for(team_store, rubrics["cis"], "ann", clock)
    async with app.run_test(size=SIZE) as pilot:
        assert current(app) == mine[0]
        await pilot.press("right", "right")
        assert current(app) == mine[2]
        await pilot.press("left")
        assert current(app) == mine[1]
        await pilot.press("3")  # a draft, then quit
    again = app_for(team_store, rubrics["cis"], "ann", clock)
    async with again.run_test(size=SIZE):
        assert current(again) == mine[1]


async def test_work_outside_the_assignment_is_not_progress_on_it(team_store, rubrics):
    outside = next(i for i in queue(team_store, "bob") if i not in queue(team_store, "ann"))
    version = team_store.ensure_rubric_version(rubrics["cis"])
    team_store.ensure_rater("ann", "human")
    team_store.save_rating(Rating(item_id=outside, rater_id="ann", rubric_version_id=version,
                                  scores={"r": 1.0, "a": 1.0, "t": 1.0, "l": 1.0}, overall=1.0, seconds=5.0))
    app = app_for(team_store, rubrics["cis"], "ann", FakeClock())
    async with app.run_test(size=SIZE):
        assert "0 rated · 0 skipped · 0 flagged · 9 assigned to you" in status_line(app)


async def test_a_reviewer_without_an_assignment_rates_every_item_as_before(team_store, rubrics):
    app = app_for(team_store, rubrics["cis"], "cat", FakeClock())  # not in the plan
    async with app.run_test(size=SIZE) as pilot:
        assert current(app) == "B001"
        assert "0 rated · 0 skipped · 0 flagged · 12 total" in status_line(app)
        await pilot.press("2", "2", "2", "2", "enter")
        assert current(app) == "B002"


async def test_at_80x24_the_compact_line_says_the_count_is_of_the_assignment(team_store, rubrics, monkeypatch):
    monkeypatch.setattr("judge_tui.tui.screens.rating.SAVED_SHOWN_FOR", 0.05)  # the "✓ B001 saved" mark gone
    clock = FakeClock()
    app = app_for(team_store, rubrics["cis"], "ann", clock)
    async with app.run_test(size=SMALL) as pilot:
        first = current(app)
        await pilot.press("1", "1", "1", "1", "enter")
        status = app.screen.query_one(StatusLine)  # says "✓ saved" as the rating reaches the disk, then not
        await app_until(pilot, lambda: team_store.rating(first, "ann") is not None and not status.saved[0],
                        f"{first} on disk and its saved mark gone")
        assert screen_text(app).splitlines()[0].startswith("1 rated · 0 skipped · 0 flagged · 9 assigned to you")
        app.post_message(JudgeStatusLine("judge: 18 queued · 2 running · 30 done · offline"))  # no longer fits
        await pilot.pause()
        top = screen_text(app).splitlines()[0]
        assert top.startswith("1/9 assigned rated │")
        assert "judge: 18 queued" in top
