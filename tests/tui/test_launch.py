"""`judge-tui rate`: demo on an empty database, rubric and reviewer choice, clear errors for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from judge_tui.cli import launch, main
from judge_tui.model.errors import UserError
from judge_tui.model.records import Item, Rating
from judge_tui.store import Store
from judge_tui.tui.keys import keymap_problems
from tests.narrowing import present
from tests.waiting import app_until

REPO = Path(__file__).resolve().parents[2]


def test_default_rubric_is_the_one_with_most_items_preferring_cis(filled_store):
    assert launch.choose_rubric(filled_store, None).id == "cis"  # 3 items, more than any other
    assert launch.choose_rubric(filled_store, "binary").id == "binary"


def test_rubric_without_items_is_a_clear_error(tmp_path, rubrics):
    with Store(tmp_path / "x.db") as store:
        store.add_items([Item(id="P1", rubric="binary", fields={"query": "q", "criterion": "c", "response": "r"})])
        with pytest.raises(UserError, match="no items for rubric 'cis'.*binary \\(1\\).*judge-tui import"):
            launch.choose_rubric(store, "cis")


def test_reviewer_given_once_is_remembered(store):
    assert launch.choose_reviewer(store, None) is None  # the app will ask
    assert launch.choose_reviewer(store, "EXP007") == "EXP007"
    assert launch.choose_reviewer(store, None) == "EXP007"
    with pytest.raises(UserError, match="no spaces"):
        launch.choose_reviewer(store, "has space")
    with pytest.raises(UserError, match="no spaces"):
        launch.choose_reviewer(store, "EXP007\n")  # `$` alone would let a trailing newline through


def test_keymap_problems():
    assert keymap_problems({"submit": "ctrl+s"}) == []
    assert keymap_problems({"sumbit": "x"}) == ["unknown binding id 'sumbit'"]
    assert keymap_problems({"submit": "s"}) == ["key 's' is given to both 'submit' and 'skip'"]


@pytest.mark.parametrize(
    ("keys", "problem"),
    [
        ("Enter", "'submit': unknown key 'Enter': key names are lower case ('enter')"),
        ("not_a_real_key", "'submit': unknown key 'not_a_real_key'"),
        ("ctrl+i", "'submit': 'ctrl+i' reaches the app as 'tab' in a terminal: bind 'tab' instead"),
        ("ctrl+m", "'submit': 'ctrl+m' reaches the app as 'enter' in a terminal"),
        ("ctrl+q", "'submit': 'ctrl+q' is reserved: it quits the app"),
        ("ctrl+c", "'submit': 'ctrl+c' is reserved"),
        ("shift+x", "'submit': 'shift+x' is typed as 'X': bind 'X'"),
        ("", "'submit' is given no key"),
        (" , ", "'submit' is given no key"),
    ],
)
def test_keymap_refuses_keys_that_leave_an_action_without_a_working_key(keys, problem):
    found = keymap_problems({"submit": keys})
    assert len(found) == 1, found
    assert found[0].startswith(problem), found


@pytest.mark.parametrize("keys", ["enter,ctrl+s", "f5", "backspace", "X", "alt+x", "insert", "ctrl+shift+up", "é"])
def test_keymap_accepts_keys_a_terminal_sends(keys):
    assert keymap_problems({"submit": keys}) == []


def test_a_character_and_its_key_name_are_one_key():
    assert keymap_problems({"skip": "exclamation_mark"}) == [
        "key 'exclamation_mark' is given to both 'skip' and 'flag'"]
    assert keymap_problems({"flag": "exclamation_mark"}) == []


def test_bad_keymap_is_reported_without_traceback(hermetic_home, tmp_path, capsys):
    (hermetic_home / "settings.json").write_text(json.dumps({"keymap": {"flag": "q"}}))
    assert main(["rate", "--db", str(tmp_path / "x.db"), "--reviewer", "EXP001"]) == 1
    err = capsys.readouterr().err
    assert "settings.json: keymap: key 'q' is given to both 'flag' and 'quit'" in err
    assert "Traceback" not in err


def test_errors_quoting_user_input_reach_the_terminal_without_escape_sequences(hermetic_home, tmp_path, capsys,
                                                                                 rubrics):
    with Store(tmp_path / "x.db") as store:
        store.add_items([Item(id="P1", rubric="binary", fields={"query": "q", "criterion": "c", "response": "r"})])
        version = store.ensure_rubric_version(rubrics["binary"])
        for rater, kind in (("EXP001", "human"), ("judge:m", "judge")):
            store.ensure_rater(rater, kind)
            store.save_rating(Rating(item_id="P1", rater_id=rater, rubric_version_id=version, scores={"label": 1.0}))
    assert main(["import", str(tmp_path / "items\x1b]0;pwned\x07\x1b[2J.jsonl"), "--db", str(tmp_path / "x.db")]) == 1
    err = capsys.readouterr().err
    assert "items.jsonl: no such file" in err
    assert "pwned" not in err  # the title change and screen clear are gone
    assert "\x1b" not in err
    assert "\x07" not in err
    with pytest.raises(SystemExit):
        main(["report", "--db", str(tmp_path / "x.db"), "--split", "dev\x1b]0;pwned\x07\x1b[2J"])
    err = capsys.readouterr().err
    assert "unknown split 'dev'" in err
    assert "pwned" not in err
    assert "\x1b" not in err
    assert "\x07" not in err


@pytest.mark.parametrize("command", [["report"], ["rate"], ["judge"], ["adjudicate"],
                                     ["import", "f.jsonl"]])
def test_a_mistyped_split_is_named_as_unknown(command, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([*command, "--db", str(tmp_path / "x.db"), "--split", "tset"])
    assert exit_.value.code == 2
    assert "argument --split: unknown split 'tset': use train, dev, test" in capsys.readouterr().err
    assert not (tmp_path / "x.db").exists()


def _start(home: Path, stamp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real command in a subprocess, told to exit once the first item is on screen."""
    return subprocess.run(
        [sys.executable, "-m", "judge_tui", *args], cwd=REPO, capture_output=True, text=True, timeout=60,
        env={"JUDGE_TUI_HOME": str(home), "JUDGE_TUI_EXIT_AFTER_FIRST_PAINT": str(stamp),
             "PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "TERM": "xterm-256color"},
    )


@pytest.mark.slow
def test_first_start_opens_the_demo_in_its_own_database_and_the_study_starts_without_it(hermetic_home, tmp_path,
                                                                                          capsys):
    stamp = tmp_path / "painted"
    done = _start(hermetic_home, stamp, "--reviewer", "EXP001")
    assert done.returncode == 0, done.stderr
    assert stamp.is_file()  # the app painted its first item (the stamp is new in this test's folder)
    demo_db, study_db = hermetic_home / "demo.db", hermetic_home / "judge-tui.db"
    assert f"loaded into its own database, {demo_db}" in done.stderr
    assert f"your own study goes in {study_db}" in done.stderr
    assert not study_db.exists()  # the study's database is not even created
    with Store(demo_db) as store:
        assert store.count_items("cis") > 0
        assert store.get_meta("reviewer_id") == "EXP001"
    # The lead's own P01 (the demo has a P01 too) goes into the study's database without a clash...
    items = tmp_path / "mine.jsonl"
    items.write_text(json.dumps({"id": "P01", "query": "q", "criterion": "c", "response": "my own"}) + "\n")
    assert main(["import", str(items), "--rubric", "binary"]) == 0
    assert "1 added" in capsys.readouterr().out
    with Store(study_db) as store:
        assert store.count_items() == 1
        assert store.rater("demo-expert") is None
        assert store.rater("demo-judge") is None
    # ... and from now on `judge-tui` opens the study.
    stamp.unlink()
    done = _start(hermetic_home, stamp, "--reviewer", "EXP001")
    assert done.returncode == 0, done.stderr
    assert "demo" not in done.stderr
    assert stamp.exists()
    with Store(study_db) as store:
        assert store.get_meta("reviewer_id") == "EXP001"


@pytest.mark.slow
def test_judge_tui_demo_opens_the_demo_whatever_the_study_holds(hermetic_home, tmp_path, rubrics):
    with Store(hermetic_home / "judge-tui.db") as store:
        store.add_items([Item(id="MY1", rubric="binary", fields={"query": "q", "criterion": "c", "response": "r"})])
    stamp = tmp_path / "painted"
    done = _start(hermetic_home, stamp, "demo", "--reviewer", "EXP001")
    assert done.returncode == 0, done.stderr
    assert stamp.exists()
    assert "loaded into its own database" in done.stderr
    with Store(hermetic_home / "judge-tui.db") as store:
        assert store.count_items() == 1


def test_a_named_database_is_never_filled_with_the_demo(hermetic_home, tmp_path, capsys):
    missing = tmp_path / "typo.db"
    assert main(["rate", "--db", str(missing), "--reviewer", "EXP001"]) == 1
    err = capsys.readouterr().err
    assert f"{missing}: no such database" in err
    assert "judge-tui demo" in err
    assert not missing.exists()
    empty = tmp_path / "empty.db"
    Store(empty).close()
    assert main(["--db", str(empty), "--reviewer", "EXP001"]) == 1
    err = capsys.readouterr().err
    assert f"{empty} has no items yet" in err
    assert "judge-tui demo" in err
    with Store(empty) as store:
        assert store.count_items() == 0
    assert not (hermetic_home / "demo.db").exists()


async def test_the_status_line_names_the_demo_database(hermetic_home):
    from judge_tui.model.settings import Settings
    from judge_tui.transfer.demo_loading import open_demo
    from judge_tui.tui.app import JudgeTuiApp
    from judge_tui.tui.widgets.status_line import StatusLine

    store, _added = open_demo()
    with store:
        app = JudgeTuiApp(store, launch.choose_rubric(store, None), reviewer="EXP001",
                          settings=Settings(judge_in_background=False))
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            assert str(app.screen.query_one(StatusLine).render()).startswith("demo database  │  0 rated")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_the_demos_imported_judge_is_not_queued_and_no_key_is_said(hermetic_home, size):
    """The demo as the README's first command opens it, without an API key: its judge's ratings are imported, so
    nothing waits for a judge that cannot run, and the status line says why the judge does not run."""
    from judge_tui.transfer.demo_loading import open_demo
    from judge_tui.tui.app import JudgeTuiApp
    from judge_tui.tui.widgets.status_line import StatusLine

    store, _added = open_demo()
    with store:
        app = JudgeTuiApp(store, launch.choose_rubric(store, None), reviewer="EXP001")
        async with app.run_test(size=size) as pilot:
            await app_until(pilot, lambda: app.background_judge is not None and app.judge_status,
                            "the background judge's status")
            line = str(app.screen.query_one(StatusLine).render())
            assert "judge: 25 imported · no API key" in line
            assert "queued" not in line
            assert "offline" not in line
            assert store.judge_job_counts(present(app.background_judge).rater_id)["queued"] == 0
            await pilot.press("q")


@pytest.mark.slow
async def test_the_demo_experts_ratings_never_settle_a_newcomers_study(hermetic_home, clock):
    """The demo ships an example expert who agrees with the demo judge; a newcomer's first ratings must not
    be told that "the study's questions are settled" on the strength of that fictitious expert."""
    from judge_tui.model.settings import Settings
    from judge_tui.transfer.demo_loading import open_demo
    from judge_tui.tui.app import JudgeTuiApp

    store, _added = open_demo()
    with store:
        app = JudgeTuiApp(store, launch.choose_rubric(store, None), reviewer="EXP001", clock=clock,
                          settings=Settings(judge_in_background=False, stop_notice=True))
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await pilot.pause()
            for _ in range(3):  # three items, every dimension scored
                await pilot.press("2", "2", "2", "2", "enter")
                await app.workers.wait_for_complete()
                await pilot.pause()
            assert store.count_ratings("EXP001", "cis") == 3
            assert not [n for n in app.notices if "settled" in n]


def test_the_demo_is_counted_as_the_readme_counts_it(hermetic_home):
    from judge_tui.transfer.demo_loading import open_demo

    store, _added = open_demo()
    with store:
        contents = launch.demo_contents(store)
    assert contents.startswith("25 items of rubric cis, and smaller sets for --rubric (")
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert "bundled demo (25 code submissions" in readme


def test_asking_the_study_database_for_demo_ratings_says_where_they_are(hermetic_home, capsys):
    from judge_tui.transfer.demo_loading import open_demo

    store, _added = open_demo()
    store.close()
    assert main(["export", "--rater", "EXP001", "-o", str(hermetic_home / "mine.jsonl")]) == 1
    err = capsys.readouterr().err
    assert "no such database" in err
    assert f"Ratings made in the demo are in the demo's own database: add --db {hermetic_home / 'demo.db'}" in err
    assert not (hermetic_home / "mine.jsonl").exists()


@pytest.mark.slow
@pytest.mark.parametrize("exclusive", [False, True], ids=["write-lock", "exclusive-lock"])
def test_the_app_says_at_once_that_another_program_holds_the_database(filled_store, db_path, capsys, exclusive):
    """Under another program's long write (a merge), start-up's one write (remembering --reviewer) waits a moment,
    not the whole busy timeout on a blank screen: the app never starts, and says why. Under an exclusive lock even
    opening the database waits only that moment (the busy timeout's message would say "for over 10 s")."""
    from tests.faults.locker import Locker

    filled_store.close()
    with Locker(db_path, exclusive=exclusive):
        assert main(["rate", "--db", str(db_path), "--reviewer", "EXP009"]) == 1
    err = capsys.readouterr().err
    assert err == (f"judge-tui: {db_path} is busy: another program (a merge, an import, a judge?) is writing to it, so"
                   " the app cannot start on it now. Start it again once the other has finished\n")
    with Store(db_path) as store:
        assert launch.choose_reviewer(store, None) != "EXP009"  # nothing was written


@pytest.mark.slow
def test_the_app_takes_the_terminals_own_size_over_an_exported_columns(filled_store, db_path, hermetic_home):
    """COLUMNS=40 LINES=10 exported (a shell profile) in a 100 x 30 terminal: the app draws 100 x 30, not the
    "too small" screen of a 40 x 10 window."""
    import fcntl
    import os
    import pty
    import re
    import select
    import struct
    import termios

    from tests.waiting import wait_until

    filled_store.close()
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    app = subprocess.Popen(
        [sys.executable, "-m", "judge_tui", "rate", "--db", str(db_path), "--reviewer", "EXP001"], cwd=REPO,
        stdin=slave, stdout=slave, stderr=slave,
        env={"JUDGE_TUI_HOME": str(hermetic_home), "PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO),
             "TERM": "xterm-256color", "COLUMNS": "40", "LINES": "10"})
    os.close(slave)
    drawn = bytearray()

    def read_what_is_there() -> bytes:
        while select.select([master], [], [], 0)[0]:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the app has gone
                break
            if not chunk:
                break
            drawn.extend(chunk)
        return bytes(drawn)

    try:
        # The first screen: the reviewer on the status line, or the notice of a window too small.
        wait_until(lambda: b"window larger" in read_what_is_there() or b"EXP001" in read_what_is_there(),
                   "the app's first screen")
    finally:
        os.write(master, b"\x11")  # ctrl+q
        try:
            # Read on while it quits: with the terminal's buffer full, its writes, and so the app, would stop.
            wait_until(lambda: read_what_is_there() is not None and app.poll() is not None, "the app to quit")
        finally:
            if app.poll() is None:
                app.kill()
                app.wait()
            read_what_is_there()
            os.close(master)
    assert b"window larger" not in drawn  # the "too small" screen of a 40 x 10 terminal
    rows = [int(row) for row in re.findall(rb"\x1b\[(\d+);\d+H", drawn)]
    columns = [int(column) for column in re.findall(rb"\x1b\[\d+;(\d+)H", drawn)]
    assert max(rows) == 30
    assert max(columns) <= 100
    assert max(columns) > 40
