"""The user's keymap (settings.json, as a user writes it) remaps the keys of the judge screen, the agreement summary,
the disagreement browser and its revision-note dialog as it remaps the rating screen's: the app starts as the
command starts it, the remapped key acts, the key it replaced no longer does, and the key bar and captions name
the key as bound. A keymap giving one key to two bindings of one screen is refused at start, saying which."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import ContentSwitcher, Label, Static

from judge_tui.cli.launch import prepare
from judge_tui.cli.parser import build_parser, main
from judge_tui.tui.app import JudgeTuiApp
from judge_tui.tui.keys import keymap_problems
from judge_tui.tui.screens.calibrate import CalibrationApp, CalibrationScreen
from judge_tui.tui.screens.disagreements import DisagreementScreen, RevisionNoteScreen
from judge_tui.tui.screens.item import ItemScreen
from judge_tui.tui.screens.rating import RatingScreen
from judge_tui.tui.screens.summary import SummaryScreen
from tests import test_agreement_screens
from tests.calibration.fixtures import build_study
from tests.test_agreement_screens import REVIEWER, settle
from tests.tui.test_key_bar_everywhere import bar
from tests.waiting import app_until

rated_db = test_agreement_screens.rated_db  # 24 items submitted by the reviewer, a colleague and a judge


def write_keymap(home: Path, keymap: dict[str, str]) -> None:
    (home / "settings.json").write_text(json.dumps({"keymap": keymap, "judge_in_background": False}))


def texts(screen) -> str:
    return "\n".join(str(w.render()) for w in screen.query(Static))


@pytest.mark.slow
async def test_the_summary_the_disagreements_and_the_note_answer_to_the_remapped_keys(hermetic_home, rated_db):
    write_keymap(hermetic_home, {"open-disagreements": "D", "refresh-summary": "ctrl+r", "close-summary": "b",
                                 "open-item": "o", "mark-revision": "M", "unmark-revision": "U",
                                 "close-disagreements": "h", "cancel-revision-note": "ctrl+g"})
    launch = prepare(build_parser().parse_args(
        ["rate", "--db", str(rated_db), "--reviewer", REVIEWER, "--rubric", "exercise-quality"]))
    app = JudgeTuiApp(launch.store, launch.rubric, reviewer=launch.reviewer, settings=launch.settings)
    with launch.store:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, RatingScreen)
            await pilot.press("a")
            await settle(app, pilot)
            summary = app.screen
            assert isinstance(summary, SummaryScreen)
            assert bar(app) == "D Disagreements  ^r Refresh  b Back"
            assert "D: the items where you and the judge disagree most" in texts(summary)
            await pilot.press("d", "escape")  # the keys the keymap moved do nothing here now
            await settle(app, pilot)
            assert app.screen is summary
            await pilot.press("D")
            await settle(app, pilot)
            browser = app.screen
            assert isinstance(browser, DisagreementScreen)
            assert bar(app) == "o Open item  M Mark for revision  U Unmark  h Back"
            assert "o: open the item · M: mark it as a reason to revise the rubric" in texts(browser)
            item = browser.current
            assert item is not None
            await pilot.press("enter", "m", "escape")
            await pilot.pause()
            assert app.screen is browser
            assert item not in browser.marks

            await pilot.press("M")
            await pilot.pause()
            dialog = app.screen
            assert isinstance(dialog, RevisionNoteScreen)
            assert "Enter: save · ^g: cancel" in [str(label.render()) for label in dialog.query(Label)]
            await pilot.press("escape")  # cancel-revision-note moved to ctrl+g
            await pilot.pause()
            assert app.screen is dialog
            await pilot.press("ctrl+g")
            await pilot.pause()
            assert app.screen is browser
            assert item not in browser.marks
            await pilot.press("M", "x", "enter")
            await app_until(pilot, lambda: item in launch.store.revision_marks("exercise-quality"), "the mark")
            assert "(U: remove)" in texts(browser)
            await pilot.press("u")
            await pilot.pause()
            assert item in browser.marks
            await pilot.press("U")
            await app_until(pilot, lambda: item not in launch.store.revision_marks("exercise-quality"),
                            "the mark removed")

            await pilot.press("o")
            await pilot.pause()
            assert isinstance(app.screen, ItemScreen)
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is browser
            await pilot.press("q")  # close-disagreements is h alone now
            await pilot.pause()
            assert app.screen is browser
            await pilot.press("h")
            await pilot.pause()
            assert app.screen is summary
            await pilot.press("b")
            await pilot.pause()
            assert isinstance(app.screen, RatingScreen)


async def test_the_judge_screen_answers_to_the_remapped_keys(hermetic_home, tmp_path: Path, rubrics):
    write_keymap(hermetic_home, {"cal-edit-rubric": "E", "cal-items": "I", "cal-validity-key": "V",
                                 "cal-overview-key": "O", "cal-close": "b"})
    path = build_study(tmp_path / "study.db", rubrics["binary"])
    launch = prepare(build_parser().parse_args(
        ["calibrate", "--db", str(path), "--reviewer", "lead", "--rubric", "binary"]), lead=True)
    app = CalibrationApp(launch.store, launch.rubric, "lead", settings=launch.settings)
    with launch.store:
        async with app.run_test(size=(80, 24)) as pilot:
            screen = app.screen
            assert isinstance(screen, CalibrationScreen)
            await app_until(pilot, lambda: screen.standing is not None and not screen.computing, "the figures")
            await pilot.pause()
            # Textual lists a remapped binding after the others (as on the rating screen): the entries, in any order.
            assert set(bar(app).split("  ")) == {"E Rubric", "t Prompt", "x Example", "a α δ", "I Items",
                                                 "V Validity", "b Back"}
            status = str(screen.query_one("#cal-status", Static).render())
            assert "No change under trial · E rubric · t prompt · x example" in status
            switcher = screen.query_one(ContentSwitcher)
            await pilot.press("i", "v", "escape", "q")  # the keys the keymap moved do nothing now
            await pilot.pause()
            assert switcher.current == "cal-overview"
            assert app.screen is screen
            assert app.is_running
            await pilot.press("I")
            await pilot.pause()
            assert switcher.current == "cal-items"
            await pilot.press("O")
            await pilot.pause()
            assert switcher.current == "cal-overview"
            await pilot.press("V")
            await pilot.pause()
            assert switcher.current == "cal-validity"
            await pilot.press("b")
            await pilot.pause()
        assert not app.is_running


def test_a_key_given_to_two_bindings_of_one_screen_is_refused_at_start(hermetic_home, tmp_path: Path, rubrics,
                                                                       capsys):
    path = build_study(tmp_path / "study.db", rubrics["binary"])
    write_keymap(hermetic_home, {"cal-keep": "j"})
    assert main(["calibrate", "--db", str(path), "--reviewer", "lead", "--rubric", "binary"]) == 1
    err = capsys.readouterr().err
    assert "settings.json: keymap: key 'j' is given to both 'cal-judge' and 'cal-keep' on the judge screen" in err
    assert "Traceback" not in err

    write_keymap(hermetic_home, {"mark-revision": "u"})
    assert main(["rate", "--db", str(path), "--reviewer", "alice", "--rubric", "binary"]) == 1
    err = capsys.readouterr().err
    assert ("keymap: key 'u' is given to both 'mark-revision' and 'unmark-revision' on the disagreement browser"
            in err)


def test_a_key_the_list_or_the_note_takes_first_is_refused_at_start(hermetic_home, tmp_path: Path, capsys):
    write_keymap(hermetic_home, {"mark-revision": "down", "cancel-revision-note": "x"})
    assert main(["rate", "--db", str(tmp_path / "x.db"), "--reviewer", "EXP001"]) == 1
    err = capsys.readouterr().err
    assert ("'mark-revision': 'down' moves in the list of items on the disagreement browser, so it would never act: "
            "choose another key") in err
    assert "'cancel-revision-note': 'x' is typed into the note on the revision-note dialog" in err
    assert "Traceback" not in err


def test_one_key_may_act_on_different_screens():
    # D opens the disagreements on the summary and closes the judge screen: never both on one screen.
    assert keymap_problems({"open-disagreements": "D", "cal-close": "D", "cal-keep": "d"}) == []


@pytest.mark.slow
async def test_a_change_under_trial_is_kept_with_the_remapped_key_the_caption_names(hermetic_home, tmp_path: Path,
                                                                                    rubrics):
    from judge_tui.judge.calibration import apply_change, check_change, judge_texts, open_trial

    write_keymap(hermetic_home, {"cal-keep": "ctrl+k", "cal-revert": "X"})
    path = build_study(tmp_path / "study.db", rubrics["binary"])
    launch = prepare(build_parser().parse_args(
        ["calibrate", "--db", str(path), "--reviewer", "lead", "--rubric", "binary"]), lead=True)
    with launch.store as store:
        files = judge_texts(store, launch.rubric)
        rubric_text, template_text = files.texts()
        change = check_change(store, launch.rubric, files, rubric_text, template_text + "\nBe brief.\n")
        apply_change(store, launch.rubric, files, change, "briefer answers", ["P06"])
        app = CalibrationApp(store, launch.rubric, "lead", settings=launch.settings)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = app.screen
            assert isinstance(screen, CalibrationScreen)
            await app_until(pilot, lambda: screen.standing is not None and not screen.computing, "the figures")
            await pilot.pause()
            assert {"^k Keep", "X Revert"} <= set(bar(app).split("  "))
            status = " ".join(str(screen.query_one("#cal-status", Static).render()).split())
            assert "briefer answers · ^k keeps, X reverts" in status
            await pilot.press("K", "R")  # the keys the keymap moved: nothing kept, nothing asked
            await pilot.pause()
            assert app.screen is screen
            assert open_trial(store, "binary") is not None
            await pilot.press("ctrl+k")
            await app_until(pilot, lambda: open_trial(store, "binary") is None, "the change kept")


async def test_the_leads_notice_names_the_keys_as_bound(hermetic_home, rated_db):
    """The notice a lead gets at start names the keys that settle disagreements and show the team, as the keymap
    has them."""
    write_keymap(hermetic_home, {"adjudicate": "C", "agreement": "A"})
    launch = prepare(build_parser().parse_args(
        ["rate", "--db", str(rated_db), "--reviewer", REVIEWER, "--rubric", "exercise-quality", "--lead"]))
    app = JudgeTuiApp(launch.store, launch.rubric, reviewer=launch.reviewer, settings=launch.settings,
                      lead=True)
    with launch.store:
        async with app.run_test(size=(120, 40)) as pilot:
            notice = await app_until(pilot, lambda: next((n for n in app.notices if n.startswith("Lead:")), None),
                                     "the lead's notice shown")
            assert notice.startswith("Lead: C settles the items where experts disagree; A shows the team")


@pytest.mark.slow
async def test_a_remapped_key_keeps_its_place_in_the_key_bar(hermetic_home, rated_db):
    """Textual lists a binding the keymap moved after the others; the key bar keeps the screen's order."""
    write_keymap(hermetic_home, {"open-disagreements": "D", "skip": "S"})
    launch = prepare(build_parser().parse_args(
        ["rate", "--db", str(rated_db), "--reviewer", REVIEWER, "--rubric", "exercise-quality"]))
    app = JudgeTuiApp(launch.store, launch.rubric, reviewer=launch.reviewer, settings=launch.settings)
    with launch.store:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            assert "⏎ Submit  S Skip  ! Flag" in bar(app)
            await pilot.press("a")
            await settle(app, pilot)
            assert bar(app) == "D Disagreements  r Refresh  esc Back"
