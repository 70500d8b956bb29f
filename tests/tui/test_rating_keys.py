"""The rating screen driven by real key presses (Pilot), checked on screen and in the database."""

from __future__ import annotations

import pytest
from textual.app import App

from judge_tui.model.records import Rating
from judge_tui.store import Store
from judge_tui.tui.messages import JudgeStatusLine
from judge_tui.tui.screens.rating import RatingScreen
from judge_tui.tui.session import RatingSession
from judge_tui.tui.widgets.status_line import StatusLine
from tests.narrowing import present
from tests.tui.screen_text import screen_text, widget_text
from tests.waiting import app_until

SIZE = (120, 40)


async def shown(pilot) -> str:
    """The screen as the reviewer sees it, once pending messages and notifications are drawn."""
    await pilot.pause()
    return screen_text(pilot.app)


def _session(app: App[object]) -> RatingSession:
    assert isinstance(app.screen, RatingScreen)
    return app.screen.session


async def test_k_dimensions_take_k_plus_one_keys(make_app, filled_store, clock, saved_mark_stays):
    app = make_app("cis")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert present(_session(app).state).item.id == "B001"
        clock.advance(33)
        await pilot.press("3", "2", "3", "3")
        assert filled_store.draft("B001", "EXP001").scores == {"r": 0.75, "a": 0.5, "t": 0.75, "l": 0.75}
        assert "CIS 0.6875" in widget_text(app)  # the exact mean, not "0.69"
        await pilot.press("enter")
        assert present(_session(app).state).item.id == "B002"
        assert "B002" in await shown(pilot)
        assert "1 rated" in await shown(pilot)
        assert "B001 saved: CIS 0.6875" in await shown(pilot)
    rating = filled_store.rating("B001", "EXP001")
    assert rating.overall == pytest.approx(0.6875)
    assert rating.seconds == 33.0
    assert rating.source == "app"


async def test_a_submitted_rating_is_said_saved_in_the_status_line_once_on_disk(make_app, filled_store,
                                                                               monkeypatch):
    """No notification widget per submit: the status line says "✓ B001 saved: CIS 0.6875" where "saving…" was,
    only once the rating is written, and for a few seconds. The line is read as each mark is set (not after a
    pause that a busy machine may stretch past the mark's time), and its going is waited for."""
    monkeypatch.setattr("judge_tui.tui.screens.rating.SAVED_SHOWN_FOR", 0.3)
    app = make_app("cis")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = app.screen
        status = screen.query_one(StatusLine)
        await pilot.press("3", "2", "3", "3")
        marks: list[tuple[str, bool, str]] = []  # each mark set: its item, whether the rating was on disk, the line
        original = status.set_saved

        def set_saved(item_id: str, overall: str = "") -> None:
            written = filled_store.rating("B001", "EXP001") is not None
            original(item_id, overall)
            marks.append((item_id, written, widget_text(status)))

        monkeypatch.setattr(status, "set_saved", set_saved)
        await pilot.press("enter")
        await pilot.pause()
        said = [(written, line) for item_id, written, line in marks if item_id == "B001"]
        assert said, marks
        written, line = said[0]
        assert "✓ B001 saved: CIS 0.6875" in line
        assert "saving…" not in line
        assert written is True  # said saved only with the rating on disk
        assert not app.notices  # no toast is mounted for a submit
        await app_until(pilot, lambda: "saved" not in widget_text(status), "the saved mark gone")
        assert marks[-1][0] == ""  # taken away by its timer


async def test_three_point_and_pass_fail_keys(make_app, filled_store):
    app = make_app("exercise-quality")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("4")  # off a three-point scale: explained, not applied
        assert filled_store.draft("E001", "EXP001") is None
        text = await shown(pilot)  # the notice wraps
        assert "points (0, 0.5, 1): use the" in text
        assert "0→0, 1→0.5, 2→1." in text
        await pilot.press("2", "1", "0", "enter")
    rating = filled_store.rating("E001", "EXP001")
    assert rating.scores == {"structural_validity": 1.0, "difficulty_match": 1.0, "instruction_clarity": 0.5,
                             "learning_objective_alignment": 0.0}
    app = make_app("binary")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("1", "f", "enter")
    assert filled_store.rating("P001", "EXP001").scores == {"label": 0.0}
    assert filled_store.rating("P001", "EXP001").verdict == "FAIL"


async def test_submit_before_every_dimension_is_scored_explains_why(make_app, filled_store):
    app = make_app("cis")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("4", "down", "down", "enter")
        assert present(_session(app).state).item.id == "B001"
        assert app.screen.cursor == "a"  # moved to the first dimension still to score
        assert "Not yet: score A · Architecture" in await shown(pilot)
    assert filled_store.rating("B001", "EXP001") is None


async def test_undo_and_moving_between_dimensions(make_app, filled_store):
    app = make_app("cis")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("1", "2", "up", "4")  # R=0.25, A=0.50, then back up to A and change it to 1.00
        assert filled_store.draft("B001", "EXP001").scores == {"r": 0.25, "a": 1.0}
        await pilot.press("u")
        assert filled_store.draft("B001", "EXP001").scores == {"r": 0.25, "a": 0.5}
        assert app.screen.cursor == "a"  # on the dimension the undo changed
        await pilot.press("u", "u")
        assert filled_store.draft("B001", "EXP001").scores == {}
        await pilot.press("u")
        assert "Nothing to undo" in await shown(pilot)


async def test_previous_next_and_skip(make_app, filled_store):
    app = make_app("cis")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("left")
        assert "This is the first item." in await shown(pilot)
        await pilot.press("right", "2")
        assert present(_session(app).state).item.id == "B002"
        await pilot.press("left")
        assert present(_session(app).state).item.id == "B001"
        await pilot.press("s")
        assert present(_session(app).state).item.id == "B002"
        assert present(_session(app).state).edit.scores == {"r": 0.5}  # its draft came back with it
        assert "1 skipped" in await shown(pilot)
    assert filled_store.draft("B001", "EXP001").skipped


@pytest.mark.slow
async def test_flag_with_reason_and_unflag(make_app, filled_store):
    app = make_app("cis")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("!")
        await pilot.press(*"odd test")
        await pilot.press("enter")
        draft = filled_store.draft("B001", "EXP001")
        assert draft.flagged
        assert draft.flag_reason == "odd test"
        assert "⚑ flagged: odd test" in await shown(pilot)
        assert "1 flagged" in await shown(pilot)
        await pilot.press("!")
        assert not filled_store.draft("B001", "EXP001").flagged
        await pilot.press("!", "escape")  # cancelled: no flag
        assert not filled_store.draft("B001", "EXP001").flagged


@pytest.mark.slow
async def test_note_is_saved_as_typed_and_undone_in_one_step(make_app, filled_store):
    app = make_app("cis")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("n", *"tests miss eviction", "escape")
        assert filled_store.draft("B001", "EXP001").notes == "tests miss eviction"
        await pilot.press("3")  # keys act on the rubric again
        assert filled_store.draft("B001", "EXP001").scores == {"r": 0.75}
        await pilot.press("u", "u")
        assert filled_store.draft("B001", "EXP001").notes == ""


async def test_quit_and_resume_on_the_same_item_with_drafts_and_time(make_app, filled_store, clock):
    app = make_app("cis")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("right", "1", "1")
        clock.advance(61)
        await pilot.press("q")
    assert filled_store.draft("B002", "EXP001").seconds == 61.0
    clock.advance(500)  # time away from the app is not counted
    app = make_app("cis")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert present(_session(app).state).item.id == "B002"
        assert present(_session(app).state).edit.scores == {"r": 0.25, "a": 0.25}
        assert "⏱ 1:01" in await shown(pilot)
        assert app.screen.cursor == "t"  # focus on the first unscored dimension


async def test_terminal_losing_focus_pauses_the_timer(make_app, clock):
    from textual import events

    app = make_app("cis")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        clock.advance(10)
        app.post_message(events.AppBlur())
        await pilot.pause()
        clock.advance(300)
        assert _session(app).timer.elapsed() == 10.0
        app.post_message(events.AppFocus())
        await pilot.pause()
        clock.advance(2)
        assert _session(app).timer.elapsed() == 12.0


@pytest.mark.slow
async def test_keymap_remaps_keys_and_help_follows(make_app, filled_store):
    app = make_app("cis", keymap={"submit": "ctrl+s", "score-4": "9"})
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("9", "9", "9", "9", "enter")
        assert filled_store.rating("B001", "EXP001") is None
        await pilot.press("ctrl+s")
        assert filled_store.rating("B001", "EXP001").scores == {"r": 1.0, "a": 1.0, "t": 1.0, "l": 1.0}
        await pilot.press("?")
        help_text = await shown(pilot)
        assert "Save the rating, open the next unrated item" in help_text
        assert "^s" in help_text
        await pilot.press("escape")
        assert isinstance(app.screen, RatingScreen)


async def test_agreement_key_opens_the_summary_screen(make_app):
    from judge_tui.tui.screens.summary import SummaryScreen

    app = make_app("cis")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, SummaryScreen)


async def test_judge_status_message_reaches_the_status_line(make_app):
    app = make_app("cis")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        app.post_message(JudgeStatusLine("judge: 18 queued · offline [bold]x"))
        await pilot.pause()
        assert "judge: 18 queued · offline [bold]x" in await shown(pilot)


async def test_a_judge_status_arriving_as_the_app_exits_is_ignored(make_app):
    """As the app exits, Textual stops each screen's timers and removes its widgets while the app still handles
    its messages: a judge status arriving then finds no status line, and must not fail the app (it raised
    NoMatches)."""
    app = make_app("cis")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        screen.ticker.stop()  # as the exit prunes the screen: its timers first, then its widgets
        await pilot.pause()  # a tick sent before the timer stopped is handled, as the exit lets it be
        await screen.query_one(StatusLine).remove()
        app.post_message(JudgeStatusLine("judge: 3 queued"))
        await pilot.pause()
        assert app.is_running
        assert app.judge_status == "judge: 3 queued"  # kept for a rating screen to come
    assert app.return_code in (None, 0)


async def test_reviewer_is_asked_once_and_remembered(make_app, filled_store):
    app = make_app("cis", reviewer=None)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press(*"a b", "enter")
        assert "Not yet" in await shown(pilot)
        await pilot.press("backspace", "backspace", "enter")
        assert isinstance(app.screen, RatingScreen)
        assert _session(app).reviewer == "a"
    assert filled_store.get_meta("reviewer_id") == "a"
    assert filled_store.rater("a")["kind"] == "human"


async def test_blind_rule_on_screen(make_app, filled_store, rubrics):
    version = filled_store.ensure_rubric_version(rubrics["cis"])
    filled_store.ensure_rater("judge:m:cis@1", "judge")
    filled_store.ensure_rater("EXP002", "human")
    filled_store.save_rating(Rating("B001", "judge:m:cis@1", version, {"r": 0, "a": 0, "t": 0, "l": 0},
                                    overall=0.0, details={"reasoning": "JUDGE-REASONING"}))
    filled_store.save_rating(Rating("B001", "EXP002", version, {"r": 1, "a": 1, "t": 1, "l": 1}, overall=1.0,
                                    notes="OTHER-EXPERT-NOTE"))
    app = make_app("cis", reveal_after_submit=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        shown = widget_text(app)
        assert "JUDGE-REASONING" not in shown
        assert "OTHER-EXPERT-NOTE" not in shown
        assert "judge:m" not in shown
        await pilot.press("2", "2", "2", "2", "enter", "left")
        assert present(_session(app).state).item.id == "B001"
        assert "JUDGE-REASONING" in widget_text(app)
        assert "OTHER-EXPERT-NOTE" in widget_text(app)
    app = make_app("cis")  # reveal is opt-in
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("left")
        assert present(_session(app).state).item.id == "B001"
        assert "JUDGE-REASONING" not in widget_text(app)


async def test_every_item_rated(make_app, filled_store):
    app = make_app("binary")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("p", "enter", "f", "enter")
        await pilot.press("escape")  # the finish screen, offered once: later
        assert "Every item is rated" in await shown(pilot)
    with Store(filled_store.path) as again:
        assert again.progress("EXP001", "binary") == {"rated": 2, "skipped": 0, "flagged": 0, "total": 2}


async def test_item_scrolls_with_keys_while_arrows_stay_on_the_rubric(make_app):
    from judge_tui.tui.widgets.item_pane import ItemPane

    app = make_app("cis")
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.screen.query_one(ItemPane)
        await pilot.press("pagedown")
        assert pane.scroll_y > 0
        await pilot.press("home")
        assert pane.scroll_y == 0
        await pilot.press("j", "j")
        assert pane.scroll_y == 2
        await pilot.press("end")
        assert pane.scroll_y == pane.max_scroll_y
        await pilot.press("down")
        assert pane.scroll_y == pane.max_scroll_y
        assert app.screen.cursor == "a"


async def test_time_is_saved_every_few_seconds_without_any_key(make_app, filled_store, clock):
    from judge_tui.tui.screens.rating import SAVE_TIME_EVERY

    app = make_app("cis")
    async with app.run_test(size=SIZE) as pilot:
        # The screen's own one-second timer may tick at any moment too: only the fake clock decides.
        for _ in range(int(SAVE_TIME_EVERY) - 1):
            clock.advance(1)
            app.screen.tick()
        assert filled_store.draft("B001", "EXP001") is None
        clock.advance(1)
        app.screen.tick()
        await pilot.pause()
        assert filled_store.draft("B001", "EXP001").seconds == SAVE_TIME_EVERY
        assert "⏱ 0:05" in await shown(pilot)


async def test_an_idle_reviewer_causes_no_writes(make_app, filled_store, clock):
    app = make_app("cis", idle_seconds=60)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        written = filled_store.draft("B001", "EXP001")
        changes = filled_store.db.execute("select total_changes()").fetchone()[0]
        for _ in range(35 * 60):  # 35 minutes away from the keyboard, tick by tick
            clock.advance(1)
            app.screen.tick()
        assert filled_store.db.execute("select total_changes()").fetchone()[0] - changes <= 12
        assert filled_store.draft("B001", "EXP001").seconds == 60.0 != written.seconds
        assert "(idle, paused)" in await shown(pilot)


async def test_a_submitted_item_shows_its_time_stopped(make_app, filled_store, clock):
    app = make_app("binary", auto_submit=False)
    async with app.run_test(size=SIZE) as pilot:
        clock.advance(7)
        await pilot.press("p", "enter")
        clock.advance(30)
        await pilot.press("left")  # back on the submitted item
        assert present(_session(app).state).item.id == "P001"
        clock.advance(100)
        app.screen.tick()
        assert "⏱ 0:07 (submitted, stopped)" in await shown(pilot)
        assert filled_store.draft("P001", "EXP001") is None  # looking records nothing
        await pilot.press("f")  # a change: the time counts on from the rating's
        clock.advance(3)
        app.screen.tick()
        assert "⏱ 0:10" in await shown(pilot)
        assert "stopped" not in await shown(pilot)
        await pilot.press("u")  # back to the rating as submitted: held again
        assert "⏱ 0:07 (submitted, stopped)" in await shown(pilot)
    assert filled_store.rating("P001", "EXP001").seconds == 7.0


async def test_idle_time_is_not_counted(make_app, clock):
    app = make_app("cis", idle_seconds=60)
    async with app.run_test(size=SIZE) as pilot:
        clock.advance(600)  # ten minutes without a key
        assert _session(app).timer.elapsed() == 60.0
        await pilot.press("2")  # back: the clock runs again from here
        clock.advance(5)
        assert _session(app).timer.elapsed() == 65.0
        assert "(idle, paused)" not in await shown(pilot)


async def test_while_the_note_is_edited_the_key_bar_shows_its_keys_and_trailing_lines_are_dropped(
        make_app, filled_store):
    app = make_app("cis")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", *"ok", "enter", "enter")
        key_bar = (await shown(pilot)).splitlines()[-1]
        assert "Done" in key_bar
        assert "Submit" not in key_bar
        assert "Skip" not in key_bar
        assert "Enter: new line · Esc: done" in await shown(pilot)
        await pilot.press("escape")
        assert filled_store.draft("B001", "EXP001").notes == "ok"
        assert app.screen.query_one("#notes").text == "ok"
        assert "Submit" in (await shown(pilot)).splitlines()[-1]


async def test_ctrl_c_says_in_plain_words_how_to_quit(make_app):
    app = make_app("cis")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("ctrl+c")
        text = await shown(pilot)
        assert "to quit." in text
        assert "[b]" not in text
        assert "q" in text.split("to quit.")[0][-12:]


async def test_the_welcome_dialog_takes_q_in_an_id_and_escape_leaves(make_app, filled_store):
    app = make_app("cis", reviewer=None)
    async with app.run_test(size=SIZE) as pilot:
        assert "Esc quits" in await shown(pilot)
        await pilot.press("escape")
        await pilot.pause()
        assert not app.is_running
    assert filled_store.get_meta("reviewer_id") is None
    app = make_app("cis", reviewer=None)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("q", "a", "enter")
        assert _session(app).reviewer == "qa"


@pytest.mark.slow
async def test_one_key_decides_and_moves_on_when_there_is_one_dimension(make_app, filled_store):
    app = make_app("binary")  # auto_submit is on by default
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("p")
        assert filled_store.rating("P001", "EXP001").verdict == "PASS"
        assert present(_session(app).state).item.id == "P002"
        await pilot.press("u")  # nothing to undo here: the way back is said
        assert "← goes back" in await shown(pilot)
        await pilot.press("left", "f")  # back, and the other decision
        assert filled_store.rating("P001", "EXP001").verdict == "FAIL"
        assert present(_session(app).state).item.id == "P002"
    app = make_app("cis")  # several dimensions: Enter still submits
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3", "3", "3", "3")
        assert filled_store.rating("B001", "EXP001") is None


async def test_auto_submit_off_takes_the_score_then_enter(make_app, filled_store):
    app = make_app("binary", auto_submit=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("p")
        assert filled_store.rating("P001", "EXP001") is None
        assert filled_store.draft("P001", "EXP001").scores == {"label": 1.0}
        await pilot.press("enter")
        assert filled_store.rating("P001", "EXP001").verdict == "PASS"


async def test_the_start_notice_waits_for_the_welcome_dialog_to_close(make_app):
    app = make_app("cis", reviewer=None)
    app.notice = "NOTICE-ABOUT-THE-DEMO"
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        assert "NOTICE-ABOUT-THE-DEMO" not in await shown(pilot)  # it would hide the id's input at 80×24
        await pilot.press("E", "X", "P", "enter")
        await pilot.pause()
        assert "NOTICE-ABOUT-THE-DEMO" in await shown(pilot)


async def test_a_reviewer_pressing_a_leads_key_is_told_the_key_as_bound(make_app):
    """The notice for the lead's keys (adjudicate, the judge screen) names the keys the keymap binds to them."""
    app = make_app("cis", keymap={"adjudicate": "C", "calibrate": "ctrl+j"})
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("C", "ctrl+j")
        await pilot.pause()
        said = " ".join(app.notices)
        assert "or with C after `judge-tui rate --lead`" in said
        assert "or with ^j after `judge-tui rate --lead`" in said
        assert "with c after" not in said
        assert "with J after" not in said
