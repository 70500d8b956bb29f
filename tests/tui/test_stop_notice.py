"""The stop notice when the pool cannot settle every target: it names the target that holds the study up and
why, and says nothing of which way any target went."""

from __future__ import annotations

import pytest

from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.tui.app import JudgeTuiApp
from judge_tui.tui.screens.rating import RatingScreen
from judge_tui.tui.widgets.status_line import StatusLine
from tests.narrowing import screen_of
from tests.tui.test_queue_order_app import agreeing_study


@pytest.mark.slow
async def test_the_notice_names_the_target_the_pool_cannot_settle(tmp_path, rubrics, clock):
    """Twelve items, the expert agreeing with the judge on each: with every item rated, kappa still cannot be
    decided by a rule valid at any time (twelve items are too few), so the notice comes once the pool is rated
    and says kappa holds it up; the settled count in the status line is a count only."""
    with Store(tmp_path / "study.db") as store:
        labels = agreeing_study(store, rubrics["binary"], n=12, fail_every=3)
        app = JudgeTuiApp(store, rubrics["binary"], reviewer="EXP001", clock=clock,
                          settings=Settings(judge_in_background=False, queue_order="balanced"))
        statuses, notices = [], []
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await pilot.pause()
            rating_screen = screen_of(app, RatingScreen)  # the finish screen opens over it once the last item is rated
            session = rating_screen.session
            while session.state is not None and store.rating(session.state.item.id, "EXP001") is None:
                notices = [n for n in app.notices if "settled" in n]
                assert not notices  # nothing before the pool is rated: one more rating could settle it
                await pilot.press("f" if labels[session.state.item.id] == "FAIL" else "p")
                await app.workers.wait_for_complete()
                await pilot.pause()
                statuses.append(rating_screen.query_one(StatusLine).line(compact=False).plain)
            notices = [n for n in app.notices if "settled" in n]
        assert len(notices) == 1
        notice = notices[0]
        assert "settled as far as this pool allows" in notice
        assert "κ of label ≥ 0.61: every item of the pool is compared: only new items can settle it" in notice
        assert "the lead may add items" in notice
        assert store.settled_after("binary") is None  # not every target is decided: nothing to record
        for text in (notice, *statuses):  # which targets, never which way
            assert " met" not in text
            assert "PASS" not in text
            assert "FAIL" not in text
        assert any("questions settled" in line for line in statuses)
