"""Finishing a study: the finish screen (Pilot, fake clock), the name and summary notes it keeps (the real
SQLite file), the rating form the real CLI writes from them, and that form imported back exactly; bundles and
merges carry the finish, and a bad finish row is refused."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import Input, TextArea

from judge_tui.model.records import Rating
from judge_tui.store import Finish, Store
from judge_tui.transfer.merge import MergeRefused, merge_database
from judge_tui.tui.screens.finish import FinishScreen
from judge_tui.tui.screens.rating import RatingScreen
from tests.narrowing import present
from tests.tui.conftest import make_items
from tests.tui.screen_text import screen_text, widget_text

SIZE = (80, 24)
NAME = "Ann Lee"
SUMMARY = "Fibonacci solutions skip negative input.\nRate limiters keep global state."


def cli(home: Path, *args: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "JUDGE_TUI_HOME": str(home), "PYTHONPATH": str(Path.cwd())}
    env.pop("JUDGE_TUI_DB", None)
    return subprocess.run([sys.executable, "-m", "judge_tui", *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=120, stdin=subprocess.DEVNULL)


def exported_form(home: Path, db: Path, out: Path) -> dict:
    done = cli(home, "export", "--db", db, "--format", "rating-form", "--rater", "EXP001", "--rubric", "cis",
               "-o", out)
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text(encoding="utf-8"))


async def _rate_all_and_finish(app, clock) -> str:
    """B001 with a ten-minute break, B002 and B003 straight; the finish screen opens by itself."""
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3", "2")
        clock.advance(40)
        await pilot.press("3")
        clock.advance(600)  # a break: 90 s of it count as reading
        await pilot.press("3", "enter")  # B001: 130 s
        clock.advance(75)
        await pilot.press("4", "4", "3", "4", "enter")  # B002: 75 s
        clock.advance(61)
        await pilot.press("1", "2", "1", "1", "enter")  # B003: 61 s; no unrated item left
        await pilot.pause()
        assert isinstance(app.screen, FinishScreen)
        shown = screen_text(app)
        await pilot.press(*NAME, "enter", *SUMMARY.split("\n")[0], "enter", *SUMMARY.split("\n")[1], "ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, RatingScreen)
    return shown


async def test_keys_typed_in_a_burst_after_the_name_go_into_the_notes(make_app, filled_store, db_path):
    """The name, Enter and the notes typed faster than the screen answers (as a terminal delivers a fast typist's
    keys or a paste): every key reaches the app before the first is handled."""
    from textual import events

    app = make_app("cis")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("F")
        await pilot.pause()
        assert isinstance(app.screen, FinishScreen)
        notes = "Off by one at the edges."
        for key in [*NAME, "enter", *notes]:
            name = {"enter": "enter", " ": "space", ".": "full_stop"}.get(key, key)
            app.post_message(events.Key(name, None if key == "enter" else key))
        await pilot.pause()
        await pilot.pause()
        assert app.screen.query_one("#finish-name", Input).value == NAME
        assert app.screen.query_one("#finish-notes", TextArea).text == notes
        await pilot.press("ctrl+s")
        await pilot.pause()
    with Store(db_path) as store:
        finish = store.finish("EXP001", "cis")
    assert finish is not None
    assert finish.summary_notes == notes


@pytest.mark.slow
async def test_finish_keeps_name_and_notes_and_the_form_carries_them_back_exactly(
        make_app, filled_store, clock, db_path, hermetic_home, tmp_path, rubrics):
    shown = await _rate_all_and_finish(make_app("cis", reading_seconds=90), clock)
    assert "Rated 3 of 3 items · time 4:26 (4.44 min in the rating form)" in shown
    assert "0 flagged · 0 skipped" in shown
    finish = filled_store.finish("EXP001", "cis")
    assert finish is not None
    assert finish.summary_notes == SUMMARY
    assert finish.finished_at.endswith("Z")
    assert filled_store.rater("EXP001")["display_name"] == NAME
    seconds = {i: filled_store.rating(i, "EXP001").seconds for i in ("B001", "B002", "B003")}
    assert seconds == {"B001": 130.0, "B002": 75.0, "B003": 61.0}

    form = exported_form(hermetic_home, db_path, tmp_path / "rating_form.json")
    assert form["expert_name"] == NAME
    assert form["expert_id"] == "EXP001"
    assert form["summary_notes"] == SUMMARY
    assert form["completion_date"] == finish.finished_at
    minutes = [entry["time_spent_minutes"] for entry in form["ratings"]]
    assert minutes == [2.17, 1.25, 1.02]  # 130 s, 75 s, 61 s
    assert form["total_time_minutes"] == round(sum(minutes), 2) == 4.44  # the 4.44 the finish screen said
    assert "unrated" not in form

    # The expert hands the form back: imported into the lead's database, it exports to the same form.
    lead = tmp_path / "lead.db"
    with Store(lead) as store:
        store.ensure_rubric_version(rubrics["cis"])
        store.add_items(make_items(rubrics["cis"]))
    done = cli(hermetic_home, "import-ratings", "--db", lead, tmp_path / "rating_form.json")
    assert done.returncode == 0, done.stderr
    again = exported_form(hermetic_home, lead, tmp_path / "again.json")
    assert again == form


@pytest.mark.slow
async def test_a_skipped_item_is_counted_and_left_out_of_the_ratings(make_app, filled_store, clock, db_path,
                                                                     hermetic_home, tmp_path):
    app = make_app("cis")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("s")  # B001 set aside
        clock.advance(30)
        await pilot.press("3", "3", "3", "3", "enter")  # B002
        await pilot.press("!")
        await pilot.pause()
        await pilot.press(*"odd", "enter")  # B003 flagged
        await pilot.press("2", "2", "2", "2", "enter")
        await pilot.pause()
        assert isinstance(app.screen, RatingScreen)  # B001 waits: not offered yet
        await pilot.press("F")
        await pilot.pause()
        assert isinstance(app.screen, FinishScreen)
        shown = screen_text(app)
        assert "Rated 2 of 3 items" in shown
        assert "1 flagged · 1 skipped" in shown
        await pilot.press("escape")  # later
        await pilot.pause()
        assert isinstance(app.screen, RatingScreen)
    assert filled_store.finish("EXP001", "cis") is None
    form = exported_form(hermetic_home, db_path, tmp_path / "form.json")
    assert [e["submission_id"] for e in form["ratings"]] == ["B002", "B003"]
    assert all({"r_score", "a_score", "t_score", "l_score"} <= set(e) for e in form["ratings"])
    assert form["unrated"] == [{"submission_id": "B001", "task_type": "LRU Cache", "skipped": True,
                                "flagged": False, "flag_reason": ""}]
    back = tmp_path / "back.db"
    with Store(back) as store:  # the skipped item travels back as a skip
        from judge_tui.model.rubrics import load_rubrics

        rubric = load_rubrics()["cis"][0]
        store.ensure_rubric_version(rubric)
        store.add_items(make_items(rubric))
    assert cli(hermetic_home, "import-ratings", "--db", back, tmp_path / "form.json").returncode == 0
    with Store(back) as store:
        assert [m.item_id for m in store.set_aside("cis", "EXP001")] == ["B001"]


async def test_the_finish_screen_shows_no_judge_figure(make_app, filled_store, clock):
    filled_store.ensure_rater("judge:x:cis@p1", "judge")
    version = filled_store.ensure_rubric_version(make_app("cis").rubric)
    filled_store.save_rating(Rating("B001", "judge:x:cis@p1", version, {"r": 0.25, "a": 0.25, "t": 0.25, "l": 0.25},
                                    overall=0.25, notes="JUDGE REASONING", source="judge"))
    app = make_app("cis")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("F")
        await pilot.pause()
        assert isinstance(app.screen, FinishScreen)
        shown = widget_text(app)  # everything the finish screen holds
        assert "Rated 0 of 3 items" in shown
        assert "JUDGE" not in shown
        assert "judge" not in shown.lower()
        assert "0.25" not in shown


def _finished_expert(db: Path, rubrics, notes: str, at: str) -> None:
    with Store(db) as store:
        version = store.ensure_rubric_version(rubrics["cis"])
        store.add_items(make_items(rubrics["cis"]))
        store.ensure_rater("ann", "human")
        store.save_rating(Rating("B001", "ann", version, {"r": 1.0, "a": 1.0, "t": 1.0, "l": 1.0}, overall=1.0,
                                 seconds=60.0, source="app"))
        store.save_finish(Finish("ann", "cis", notes, at), name=NAME)


@pytest.mark.slow
def test_bundles_and_merges_carry_the_finish(tmp_path, rubrics, hermetic_home):
    laptop, lead, bundle = tmp_path / "ann.db", tmp_path / "lead.db", tmp_path / "ann.bundle"
    _finished_expert(laptop, rubrics, SUMMARY, "2026-01-15T14:30:00Z")
    with Store(lead) as store:
        store.ensure_rater("ann", "human")  # assigned before: a name not yet known
    assert cli(hermetic_home, "export", "--db", laptop, "--bundle", "--rater", "ann", "-o", bundle).returncode == 0
    done = cli(hermetic_home, "import", "--db", lead, "--bundle", bundle)
    assert done.returncode == 0, done.stderr
    with Store(lead) as store:
        assert store.finish("ann", "cis") == Finish("ann", "cis", SUMMARY, "2026-01-15T14:30:00Z")
        assert present(store.rater("ann"))["display_name"] == NAME
    with Store(laptop) as store:  # she finishes again, with more to say
        store.save_finish(Finish("ann", "cis", SUMMARY + "\nAnd LRU tests skip capacity 1.", "2026-01-16T09:00:00Z"))
    with Store(lead) as store:
        merge_database(store, laptop)
        assert present(store.finish("ann", "cis")).finished_at == "2026-01-16T09:00:00Z"
        merge_database(store, bundle)  # an older finish does not replace a newer one
        assert present(store.finish("ann", "cis")).summary_notes.endswith("capacity 1.")


def test_a_merge_refuses_a_bad_finish_row_and_writes_nothing(tmp_path, rubrics):
    laptop, lead = tmp_path / "ann.db", tmp_path / "lead.db"
    _finished_expert(laptop, rubrics, SUMMARY, "2026-01-15T14:30:00Z")
    with sqlite3.connect(laptop) as conn:
        conn.execute("UPDATE study_finishes SET finished_at = 'yesterday'")
    conn.close()
    with Store(lead) as store:
        with pytest.raises(MergeRefused, match=r"study_finishes row \(rater 'ann', rubric 'cis'\).*yesterday"):
            merge_database(store, laptop)
        assert store.finish("ann", "cis") is None
        assert store.rater("ann") is None


def test_an_older_database_keeps_its_imported_summary_notes(tmp_path):
    db = tmp_path / "old.db"
    with Store(db) as store:
        store.ensure_rater("ann", "human")
    with sqlite3.connect(db) as conn:  # as an imported form left it before finishes had their table
        conn.execute("DROP TABLE study_finishes")
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm013_study_finishes'")
        conn.execute("INSERT INTO meta (key, value) VALUES ('summary_notes:ann:cis', 'patterns'),"
                     " ('completion_date:ann:cis', '2026-01-15T14:30:00Z')")
    conn.close()
    with Store(db) as store:
        assert store.finish("ann", "cis") == Finish("ann", "cis", "patterns", "2026-01-15T14:30:00Z")
        assert store.get_meta("summary_notes:ann:cis") is None


@pytest.mark.slow
async def test_a_busy_database_keeps_the_name_and_notes_for_another_try(make_app, filled_store, db_path):
    from tests.faults.locker import Locker

    app = make_app("cis")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("F")
        await pilot.pause()
        await pilot.press(*NAME, "enter", *"patterns")
        with Locker(db_path):  # another process (a merge) holds the database
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert isinstance(app.screen, RatingScreen)
            assert "not be saved yet" in screen_text(app)
        assert filled_store.finish("EXP001", "cis") is None
        await pilot.press("F")
        await pilot.pause()
        await pilot.press("ctrl+s")  # what was typed is still there
        await pilot.pause()
    assert filled_store.finish("EXP001", "cis").summary_notes == "patterns"
    assert filled_store.rater("EXP001")["display_name"] == NAME


def test_an_unrated_entry_with_scores_or_no_mark_is_refused():
    from judge_tui.formats import rating_form

    text = json.dumps({"expert_id": "EXP001", "ratings": [], "unrated": [
        {"submission_id": "B001", "skipped": True},
        {"submission_id": "B002", "skipped": True, "r_score": 0.5},
        {"submission_id": "B003"}]}, indent=2)
    parsed = rating_form.read(text)
    assert [r.item_id for r in parsed.records] == ["B001"]
    assert parsed.records[0].skipped
    b002, b003 = (next(n for n, line in enumerate(text.splitlines(), 1) if f'"{item}"' in line) for item in ("B002", "B003"))
    assert [p.line for p in parsed.problems] == [b002 - 1, b003 - 1]  # the line each entry opens on
    assert len(parsed.problems) == 2
    assert all("\"unrated\" entry" in p.message for p in parsed.problems)
