"""Every write the app makes while another process holds the database waits a moment at most, says "database
busy", keeps the change and writes it once the other lets go: the app never stops on one (a real second process
holds BEGIN IMMEDIATE)."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_tui.store import Store
from judge_tui.tui.screens.adjudication import AdjudicationApp, AdjudicationScreen
from judge_tui.tui.screens.disagreements import DisagreementScreen
from judge_tui.tui.screens.rating import RatingScreen
from tests.faults.locker import Locker
from tests.narrowing import present, screen_of
from tests.test_adjudication import _cis_db
from tests.test_agreement_screens import Host, rated_db, screen_text, settle  # noqa: F401 - rated_db: a fixture
from tests.waiting import app_until

BUSY = "database busy (another program writes): changes kept, saved later"


def _messages(app) -> list[str]:  # noqa: ANN001
    return list(app.notices)  # the notices shown


@pytest.mark.slow
async def test_a_consensus_saved_while_another_process_writes_is_kept_and_saved_afterwards(tmp_path: Path,
                                                                                          rubrics) -> None:
    path = _cis_db(tmp_path, rubrics)
    with Store(path) as store:
        app = AdjudicationApp(store, rubrics["cis"], "lead")
        async with app.run_test(size=(120, 30), notifications=True) as pilot:
            await pilot.pause()
            screen = screen_of(app, AdjudicationScreen)
            with Locker(path) as locker:
                await pilot.press("3", "3", "enter")
                await pilot.pause()
                assert present(screen.current).item_id == "B002"  # the lead goes on
                assert BUSY in _messages(app)
                assert store.rating("B001", "consensus") is None
                await pilot.press("escape")  # not closed with a consensus unsaved
                assert app.is_running
                locker.release()
                await app_until(pilot, lambda: store.rating("B001", "consensus") is not None,
                                "the consensus written")
            await app_until(pilot, lambda: any(m.startswith("B001: consensus saved") for m in _messages(app)),
                            "the consensus said saved")
            await pilot.press("escape")
            await app_until(pilot, lambda: not app.is_running, "the app closed")
        assert present(store.rating("B001", "consensus")).scores["a"] == 0.75


@pytest.mark.slow
async def test_revision_marks_made_while_another_process_writes_are_kept_in_order(rated_db: Path):  # noqa: F811
    with Store(rated_db) as store:
        app = Host(store)
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await settle(app, pilot)
            await pilot.press("d")
            await settle(app, pilot)
            screen = app.screen
            assert isinstance(screen, DisagreementScreen)
            first = screen.current
            with Locker(rated_db) as locker:
                await pilot.press("m", *"too lenient", "enter")
                assert BUSY in _messages(app)
                assert screen_text(screen).count("too lenient")  # shown at once
                await pilot.press("u")  # and taken back, after it, in order
                await pilot.press("m", *"too harsh", "enter")
                assert store.revision_marks("exercise-quality") == {}
                locker.release()
                await app_until(pilot, lambda: f"{first}: revision mark saved" in _messages(app)
                                and store.revision_marks("exercise-quality") == {first: "too harsh"},
                                "the last revision mark written and said saved")
            assert app.is_running


@pytest.mark.slow
async def test_the_settled_mark_found_while_another_process_writes_is_kept_and_said_once(tmp_path: Path, rubrics,
                                                                                        clock):
    """The study is found settled (a thread, after a rating is on disk) just as another process takes the lock."""
    from judge_tui.analysis.stopping import study_settledness
    from judge_tui.model.records import Rating
    from judge_tui.model.settings import AgreementSettings, Settings
    from judge_tui.tui.app import JudgeTuiApp
    from tests.tui.test_queue_order_app import agreeing_study

    rubric = rubrics["binary"]
    # Targets that 50 items can settle by decisions valid at any time (as in test_queue_order_app).
    agreement = AgreementSettings(tpr_tnr_target=0.5, kappa_substantial=0.4, kappa_moderate=0.3,
                                  alignment_well_calibrated=0.7, alignment_minor_drift=0.6,
                                  alignment_significant_drift=0.5)
    path = tmp_path / "study.db"
    with Store(path) as store:
        labels = agreeing_study(store, rubric, n=50, fail_every=2)
        version = store.ensure_rubric_version(rubric)
        store.ensure_rater("EXP001", "human")
        for item_id, label in labels.items():  # the expert has rated every item, agreeing with the judge
            value = 0.0 if label == "FAIL" else 1.0
            store.save_rating(Rating(item_id=item_id, rater_id="EXP001", rubric_version_id=version,
                                     scores={"label": value}, overall=value, verdict=label))
        found = study_settledness(store, rubric, agreement)
        assert found is not None
        assert found.settled
        app = JudgeTuiApp(store, rubric, reviewer="EXP001", clock=clock,
                          settings=Settings(judge_in_background=False, agreement=agreement))
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await pilot.pause()
            screen = screen_of(app, RatingScreen)
            with Locker(path) as locker:
                screen.show_settledness(found)  # as the study's thread hands it over
                screen.show_settledness(found)  # and again after the next rating
                await pilot.pause()
                said = [m for m in _messages(app) if "questions are settled" in m]
                assert len(said) == 1
                assert BUSY in _messages(app)
                assert store.settled_after("binary") is None
                locker.release()
                await app_until(pilot, lambda: store.settled_after("binary") == found.ratings,
                                "the settled mark written")
            assert store.get_meta("stop_notice_shown:binary:EXP001") == str(found.ratings)
            assert app.is_running
