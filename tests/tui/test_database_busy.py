"""The rating app while another process holds the database: it waits, says so, keeps every key and never crashes."""

from __future__ import annotations

from dataclasses import replace

import pytest

from judge_tui.tui.screens.rating import RatingScreen
from tests.faults.locker import Locker
from tests.narrowing import present
from tests.tui.screen_text import screen_text
from tests.waiting import app_until

SIZE = (80, 24)


@pytest.mark.slow
async def test_keys_pressed_while_another_process_writes_are_saved_afterwards(make_app, filled_store, db_path,
                                                                               clock, saved_mark_stays):
    app = make_app("cis")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        session = screen.session
        assert present(session.state).item.id == "B001"
        with Locker(db_path) as locker:
            clock.advance(20)
            await pilot.press("3", "2", "3", "3")  # every dimension of B001, while the database is held
            assert present(session.state).edit.scores == {"r": 0.75, "a": 0.5, "t": 0.75, "l": 0.75}
            await pilot.press("enter")  # submitted: the next item opens at once
            assert present(session.state).item.id == "B002"
            await pilot.press("2")
            await app_until(pilot, lambda: "database busy" in screen_text(app), "the busy notice shown")
            assert "database busy (another program writes): changes kept, saved later" in screen_text(app)
            assert filled_store.rating("B001", "EXP001") is None
            assert filled_store.draft("B002", "EXP001") is None
            assert "B001 saved" not in screen_text(app)  # kept, not saved: the status line does not say saved
            await pilot.press("left")  # back to B001: shown as submitted, from what is kept
            assert present(session.state).item.id == "B001"
            assert present(session.state).submitted is not None
            await pilot.press("right")
            assert present(session.state).item.id == "B002"
            assert present(session.state).edit.scores == {"r": 0.5}
            locker.release()
            # said once it is written
            await app_until(pilot, lambda: "B001 saved" in screen_text(app), "B001 said saved")
            assert filled_store.rating("B001", "EXP001") is not None
            await app_until(pilot, lambda: not session.pending, "every kept change written")
            await app_until(pilot, lambda: "database busy" not in screen_text(app), "the busy notice gone")
        rating = filled_store.rating("B001", "EXP001")
        assert rating is not None
        assert rating.scores == {"r": 0.75, "a": 0.5, "t": 0.75, "l": 0.75}
        assert rating.seconds == 20.0
        assert filled_store.draft("B002", "EXP001").scores == {"r": 0.5}
        assert "1 rated" in screen_text(app) or "1/3 rated" in screen_text(app)  # compact beside "B001 saved"
    assert app.return_code in (None, 0)


@pytest.mark.slow
async def test_the_idle_timer_save_waits_instead_of_crashing(make_app, filled_store, db_path, clock):
    app = make_app("cis")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await pilot.press("1")
        with Locker(db_path):
            clock.advance(7)
            for _ in range(5):
                screen.tick()  # the 5-second save, as the screen's timer runs it
            assert screen.session.pending
            assert screen.session.waiting_for == "busy"
            await pilot.pause()
            assert "database busy" in screen_text(app)
        await app_until(pilot, lambda: not screen.session.pending, "every kept change written")
    assert filled_store.draft("B001", "EXP001").seconds == 7.0


@pytest.mark.slow
async def test_quitting_while_the_database_is_held_leaves_once_the_changes_are_saved(make_app, filled_store,
                                                                                     db_path):
    app = make_app("cis")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        with Locker(db_path) as locker:
            await pilot.press("3")
            await pilot.press("q")
            await pilot.pause()
            assert app.is_running
            assert "closes" in screen_text(app)  # the notice, however it wraps
            locker.release()
            await app_until(pilot, lambda: not app.is_running, "the app closed")
    assert filled_store.draft("B001", "EXP001").scores == {"r": 0.75}


@pytest.mark.slow
async def test_a_full_disk_mid_session_keeps_the_changes_and_says_so(make_app, filled_store):
    app = make_app("cis")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        session = screen.session
        # SQLite's own size limit fails writes exactly as a full disk does (SQLITE_FULL).
        filled_store.conn.execute(f"PRAGMA max_page_count = {filled_store.scalar('PRAGMA page_count')}")
        session.set_notes("a long note, " * 2000)  # needs new pages
        await pilot.press("3")
        assert session.pending
        assert session.waiting_for == "full"
        assert session.state.edit.scores == {"r": 0.75}
        full = "disk full: changes kept, saved once space is freed"
        await app_until(pilot, lambda: full in screen_text(app), "the disk-full notice shown")
        filled_store.conn.execute("PRAGMA max_page_count = 1073741823")  # space freed
        await app_until(pilot, lambda: not session.pending, "every kept change written")
    draft = filled_store.draft("B001", "EXP001")
    assert draft.scores == {"r": 0.75}
    assert draft.notes.startswith("a long note, ")


def test_changes_kept_while_the_database_is_held_are_written_in_order(filled_store, rubrics, clock, db_path):
    from judge_tui.tui.session import RatingSession

    session = RatingSession(filled_store, rubrics["cis"], "EXP001", clock=clock)
    session.resume()
    with Locker(db_path):
        for point in (0.25, 0.5, 0.75):
            session.set_score("r", point)
        assert len(session.pending) == 1  # newer drafts of one item replace the one waiting
        for dimension in ("a", "t", "l"):
            session.set_score(dimension, 1.0)
        session.submit()
        session.set_flag(True, "test output is truncated")  # after the submit, on the submitted item
        assert present(session.open_next_unrated()).item.id == "B002"  # B001 counts as rated, though not yet written
        session.skip()  # B002 set aside
        assert [(w.item_id, w.rating is not None) for w in session.pending] == [
            ("B001", False), ("B001", True), ("B001", True), ("B002", False)]  # draft, rating, its flag, skip
        assert not session.save_pending()
        assert session.waiting_for == "busy"
    assert session.save_pending()
    assert session.waiting_for == ""
    rating = filled_store.rating("B001", "EXP001")
    assert rating.scores["r"] == 0.75
    assert rating.scores["a"] == 1.0
    assert rating.flagged
    assert rating.flag_reason == "test output is truncated"  # a submitted item's flag
    assert filled_store.draft("B001", "EXP001") is None
    assert filled_store.draft("B002", "EXP001").skipped


@pytest.mark.slow
async def test_a_database_that_stops_taking_writes_mid_session_keeps_the_changes(make_app, filled_store):
    app = make_app("cis")
    async with app.run_test(size=(120, 24)) as pilot:
        session = app.screen.session
        filled_store.conn.execute("PRAGMA query_only = ON")  # writes now fail as on a disk remounted read-only
        await pilot.press("3", "2")
        assert session.pending
        assert session.state.edit.scores == {"r": 0.75, "a": 0.5}
        refused = "cannot save (attempt to write a readonly database)"
        await app_until(pilot, lambda: refused in screen_text(app), "the cannot-save notice shown")
        filled_store.conn.execute("PRAGMA query_only = OFF")
        await app_until(pilot, lambda: not session.pending, "every kept change written")
        await app_until(pilot, lambda: "cannot save" not in screen_text(app), "the cannot-save notice gone")
    assert filled_store.draft("B001", "EXP001").scores == {"r": 0.75, "a": 0.5}


async def test_a_new_reviewer_on_a_database_that_takes_no_writes_gets_a_message_not_a_traceback(make_app,
                                                                                                filled_store, capfd):
    app = make_app("cis", reviewer=None)
    async with app.run_test(size=SIZE) as pilot:
        filled_store.conn.execute("PRAGMA query_only = ON")  # as a database on a disk remounted read-only
        await pilot.press("a", "enter")
        await app_until(pilot, lambda: not app.is_running, "the app closed")
    assert app.return_code == 1
    printed = " ".join(capfd.readouterr().err.split())  # the console wraps long lines
    assert "cannot be changed: the file, its folder or the disk is read-only" in printed
    assert "Traceback" not in printed
    filled_store.conn.execute("PRAGMA query_only = OFF")
    assert filled_store.rater("a") is None


async def test_a_new_rubric_version_while_another_process_writes_gets_a_message_not_a_traceback(
        filled_store, db_path, rubrics, clock, capfd):
    from judge_tui.model.settings import Settings
    from judge_tui.tui.app import JudgeTuiApp

    changed = replace(rubrics["cis"], version="2")  # a new rubric version
    filled_store.conn.execute("PRAGMA busy_timeout = 50")  # instead of the usual 10 s wait
    with Locker(db_path):
        app = JudgeTuiApp(filled_store, changed, reviewer="EXP001", settings=Settings(judge_in_background=False),
                          clock=clock)
        async with app.run_test(size=SIZE) as pilot:
            await app_until(pilot, lambda: not app.is_running, "the app closed")
    assert app.return_code == 1
    printed = " ".join(capfd.readouterr().err.split())
    assert "is busy: another program" in printed
    assert "run it again" in printed
    assert "Traceback" not in printed


@pytest.mark.slow
async def test_the_counts_include_the_changes_kept_while_the_database_is_busy(make_app, filled_store, db_path):
    app = make_app("cis")
    async with app.run_test(size=(120, 24)) as pilot:
        session = app.screen.session
        with Locker(db_path):
            await pilot.press("3", "2", "3", "3", "enter")  # B001 submitted, kept
            await pilot.press("s")  # B002 set aside, kept
            await app_until(pilot, lambda: "database busy" in screen_text(app), "the busy notice shown")
            assert session.pending
            assert filled_store.rating("B001", "EXP001") is None
            assert session.progress() == {"rated": 1, "skipped": 1, "flagged": 0, "total": 3}
            assert "1/3 rated · 1 skipped" in screen_text(app)
        await app_until(pilot, lambda: not session.pending, "every kept change written")
        assert session.progress() == {"rated": 1, "skipped": 1, "flagged": 0, "total": 3}
