"""Queue orders in the real app: a balanced order survives kill -9 of a real process, and Pilot quit/resume,
serving the stored order with no item repeated or lost; and no frame of a balanced session shows the judge."""

from __future__ import annotations

import signal

import pytest

from judge_tui.analysis.queue_orders import prepare_queue
from judge_tui.model.records import Item, Rating
from judge_tui.model.settings import AgreementSettings, Settings
from judge_tui.store import Store
from judge_tui.tui.app import JudgeTuiApp
from judge_tui.tui.screens.rating import RatingScreen
from judge_tui.tui.widgets.status_line import StatusLine
from tests.narrowing import screen_of
from tests.tui.screen_text import screen_text, widget_text
from tests.tui.test_kill_and_resume import TerminalApp
from tests.waiting import wait_until

JUDGE = "judge:secret-model"
N = 12


def judged_study(store: Store, rubric) -> list[str]:
    """N binary items, every third FAIL by the judge, whose critique and note are planted secrets."""
    version = store.ensure_rubric_version(rubric)
    ids = [f"Q{n:03d}" for n in range(1, N + 1)]
    store.add_items([Item(id=i, rubric="binary", fields={"query": f"question {i}", "criterion": "c", "response": "r"})
                     for i in ids])
    store.ensure_rater(JUDGE, "judge")
    for n, item_id in enumerate(ids):
        label = "FAIL" if n % 3 == 0 else "PASS"
        scores = {"label": 0.0 if label == "FAIL" else 1.0}
        store.save_rating(Rating(item_id=item_id, rater_id=JUDGE, rubric_version_id=version, scores=scores,
                                 overall=scores["label"], verdict=label, notes=f"SECRET-NOTE-{item_id}",
                                 details={"critique": f"SECRET-CRITIQUE-{item_id}"}))
    return ids


@pytest.mark.slow
async def test_balanced_order_survives_kill_9_and_resume(tmp_path, rubrics, hermetic_home, clock):
    db_path = tmp_path / "study.db"
    with Store(db_path) as store:
        judged_study(store, rubrics["binary"])
        prepare_queue(store, rubrics["binary"], "EXP001", "balanced")  # what the app will find, unchanged
        order = [i for i, _, _ in store.queue_entries("EXP001", "binary")]
    app = TerminalApp(["rate", "--db", str(db_path), "--reviewer", "EXP001", "--rubric", "binary",
                       "--order", "balanced"], hermetic_home)
    try:
        for item_id in order[:3]:
            app.wait_for_output(item_id.encode())
            app.type("p")
        with Store(db_path) as reader:
            wait_until(lambda: reader.progress("EXP001", "binary", total=N)["rated"] == 3,
                       "three ratings saved")
    finally:
        app.kill()
    assert app.process.returncode == -signal.SIGKILL

    with Store(db_path) as store:
        resumed = JudgeTuiApp(store, rubrics["binary"], reviewer="EXP001", clock=clock,
                              settings=Settings(judge_in_background=False, queue_order="balanced"))
        seen: list[str] = []
        async with resumed.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            screen = resumed.screen
            assert isinstance(screen, RatingScreen)
            while screen.session.state is not None and len(seen) < N:
                item_id = screen.session.state.item.id
                if store.rating(item_id, "EXP001") is not None:
                    break
                seen.append(item_id)
                await pilot.press("p")
                await pilot.pause()
        assert seen == order[3:]  # the stored order, resumed where the killed process stopped
        rated = [d.item_id for d in store.draws("binary", ["EXP001"])]
        assert sorted(rated) == sorted(order)
        assert len(set(rated)) == N  # each once, none lost


@pytest.mark.slow
async def test_no_frame_of_a_balanced_session_shows_the_judge(tmp_path, rubrics, clock):
    with Store(tmp_path / "study.db") as store:
        judged_study(store, rubrics["binary"])
        app = JudgeTuiApp(store, rubrics["binary"], reviewer="EXP002", clock=clock,
                          settings=Settings(judge_in_background=False, queue_order="balanced"))
        frames = []
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await pilot.pause()
            for key in ["right", "left", "s", "p", "f", "p", "left", "right", *("p" * N)]:
                await pilot.press(key)
                await pilot.pause()
                frames.append(screen_text(app) + widget_text(app))
        assert store.progress("EXP002", "binary", total=N)["rated"] == N
    for frame in frames:
        assert "SECRET" not in frame
        assert JUDGE not in frame
        assert "secret-model" not in frame
        assert "balanced" not in frame.lower()
        assert "stratum" not in frame.lower()


def agreeing_study(store: Store, rubric, n: int = 40, fail_every: int = 5) -> dict[str, str]:
    """n binary items, the judge's label on each (every fail_every-th FAIL), for an expert who agrees with it."""
    version = store.ensure_rubric_version(rubric)
    labels = {f"S{k:03d}": "FAIL" if k % fail_every == 0 else "PASS" for k in range(1, n + 1)}
    store.add_items([Item(id=i, rubric="binary", fields={"query": i, "criterion": "c", "response": "r"})
                     for i in labels])
    store.ensure_rater(JUDGE, "judge")
    for item_id, label in labels.items():
        scores = {"label": 0.0 if label == "FAIL" else 1.0}
        store.save_rating(Rating(item_id=item_id, rater_id=JUDGE, rubric_version_id=version, scores=scores,
                                 overall=scores["label"], verdict=label))
    return labels


@pytest.mark.slow
async def test_you_may_stop_once_every_target_is_decided_and_the_report_says_after_how_many(tmp_path, rubrics,
                                                                                           clock):
    from judge_tui.analysis.report import build_report
    from judge_tui.analysis.report_render.as_text import render_text

    notice = "The study's questions are settled with the"
    with Store(tmp_path / "study.db") as store:
        labels = agreeing_study(store, rubrics["binary"], n=50, fail_every=2)
        # Targets that 50 items can settle by decisions valid at any time: TPR/TNR above 0.5 (25 FAILs), kappa
        # at least 0.4, alignment at least 70%.
        targets = AgreementSettings(tpr_tnr_target=0.5, kappa_substantial=0.4, kappa_moderate=0.3,
                                    alignment_well_calibrated=0.7, alignment_minor_drift=0.6,
                                    alignment_significant_drift=0.5)
        app = JudgeTuiApp(store, rubrics["binary"], reviewer="EXP001", clock=clock,
                          settings=Settings(judge_in_background=False, queue_order="balanced", agreement=targets))
        statuses, notices = [], []
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await pilot.pause()
            session = screen_of(app, RatingScreen).session
            for _ in range(len(labels)):
                if session.state is None:
                    break
                await pilot.press("f" if labels[session.state.item.id] == "FAIL" else "p")
                await app.workers.wait_for_complete()
                await pilot.pause()
                statuses.append(app.screen.query_one(StatusLine).line(compact=False).plain)
                notices = [n for n in app.notices if notice in n]
                if notices:
                    rated_when_told = store.count_ratings()  # the judge's, and the expert's so far
                    break
        assert len(notices) == 1
        assert "further ratings are optional" in notices[0]
        settled_with = store.settled_after("binary")
        assert settled_with is not None
        assert settled_with < len(labels)
        assert f"settled with the {settled_with} ratings" in notices[0]
        # counted with the rating just submitted (looked at once it is on disk, not one behind)
        assert settled_with == rated_when_told - len(labels)
        assert any("questions settled" in line for line in statuses)
        for line in statuses:  # a count of decided targets, never which way they went
            assert "met" not in line
            assert "FAIL" not in line
            assert "PASS" not in line
        text = render_text(build_report(store, rubrics["binary"], settings=app.settings.agreement), width=120)
        assert f"Decided after {settled_with} ratings" in text


@pytest.mark.slow
async def test_stop_notice_false_says_nothing(tmp_path, rubrics, clock):
    with Store(tmp_path / "study.db") as store:
        labels = agreeing_study(store, rubrics["binary"], n=20)
        app = JudgeTuiApp(store, rubrics["binary"], reviewer="EXP001", clock=clock,
                          settings=Settings(judge_in_background=False, stop_notice=False))
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await pilot.pause()
            session = screen_of(app, RatingScreen).session
            while session.state is not None and store.rating(session.state.item.id, "EXP001") is None:
                await pilot.press("f" if labels[session.state.item.id] == "FAIL" else "p")
                await app.workers.wait_for_complete()
                await pilot.pause()
            assert not [n for n in app.notices if "settled" in n]
        assert store.settled_after("binary") is None


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_balanced_session_snapshot(snap_compare, tmp_path, rubrics, clock, size):
    """The blind rule, by snapshot: a balanced session with the judge's secrets planted on every item, three
    ratings in, shows the settled count and nothing of the judge (the SVG is also searched for the secrets)."""
    store = Store(tmp_path / "study.db")
    judged_study(store, rubrics["binary"])
    app = JudgeTuiApp(store, rubrics["binary"], reviewer="EXP002", clock=clock,
                      settings=Settings(judge_in_background=False, queue_order="balanced", auto_submit=False))

    async def rate_three(pilot) -> None:
        for _ in range(3):
            await pilot.press("p", "enter")
            await app.workers.wait_for_complete()
            await pilot.pause()
        app.clear_notifications()
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=rate_three)
    store.close()


def test_balanced_snapshots_hold_no_secret():
    from pathlib import Path

    shots = list((Path(__file__).parent / "__snapshots__").rglob("*balanced_session_snapshot*"))
    assert shots, "run test_balanced_session_snapshot first"
    for shot in shots:
        text = shot.read_text(encoding="utf-8")
        assert "SECRET" not in text
        assert "secret" not in text
