"""Flags reach the lead: from the rating session onto the rating, through every export, bundle and merge,
into the report's flagged section and `judge-tui flags`."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest

from judge_tui.cli import main
from judge_tui.model.records import Draft, Rating
from judge_tui.store import Store, migrations
from judge_tui.transfer.bundle import export_bundle, import_bundle
from judge_tui.transfer.merge import merge_database
from judge_tui.tui.session import RatingSession
from tests.narrowing import present
from tests.tui.conftest import FakeClock, make_items

REASON = "tests never run the eviction path"
SKIP_REASON = '=HYPERLINK("x") \x1b]0;owned\x07 task text is cut off'


def _rate(session: RatingSession, value: float = 0.75) -> None:
    for dimension in "ratl":
        session.set_score(dimension, value)


def _expert_database(store: Store, rubrics, clock: FakeClock) -> None:
    """EXP001 flags B001 and submits it, rates B002 unflagged, and flags and skips B003."""
    session = RatingSession(store, rubrics["cis"], "EXP001", clock=clock)
    assert present(session.resume()).item.id == "B001"
    session.set_flag(True, REASON)
    _rate(session)
    clock.advance(30)
    session.submit()
    assert present(session.open_next_unrated()).item.id == "B002"
    _rate(session, 0.5)
    session.submit()
    assert present(session.open_next_unrated()).item.id == "B003"
    session.set_flag(True, SKIP_REASON)
    session.skip()


def _flags(store: Store) -> list[tuple[str, str, str, str]]:
    return [(f.item_id, f.rater_id, f.state, f.reason) for f in store.flags()]


EXPECTED = [("B001", "EXP001", "rated", REASON), ("B003", "EXP001", "skipped", SKIP_REASON)]


def test_submitting_moves_the_flag_and_its_reason_onto_the_rating(filled_store, rubrics, clock, db_path):
    _expert_database(filled_store, rubrics, clock)
    rating = filled_store.rating("B001", "EXP001")
    assert rating.flagged
    assert rating.flag_reason == REASON
    assert rating.seconds == 30.0
    assert filled_store.draft("B001", "EXP001") is None  # nothing of B001 is left in drafts
    assert not filled_store.rating("B002", "EXP001").flagged
    assert _flags(filled_store) == EXPECTED
    assert filled_store.progress("EXP001", "cis") == {"rated": 2, "skipped": 1, "flagged": 2, "total": 3}
    # A new session shows the flag from the rating.
    again = RatingSession(Store(db_path), rubrics["cis"], "EXP001", clock=clock)
    state = again.open(filled_store.item("B001"))
    assert state.edit.flagged
    assert state.edit.flag_reason == REASON


def test_flagging_a_submitted_item_changes_its_rating(filled_store, rubrics, clock):
    session = RatingSession(filled_store, rubrics["cis"], "EXP001", clock=clock)
    session.resume()
    _rate(session)
    session.submit()
    session.set_flag(True, "second thoughts")
    assert filled_store.rating("B001", "EXP001").flag_reason == "second thoughts"
    assert filled_store.draft("B001", "EXP001") is None
    session.set_flag(False)
    assert not filled_store.rating("B001", "EXP001").flagged
    assert session.undo()
    assert filled_store.rating("B001", "EXP001").flagged  # undo brings the flag back
    assert filled_store.rating("B001", "EXP001").scores["r"] == 0.75  # the rest of the rating untouched


def _export(store: Store, out, fmt: str, capsys, rater: str = "EXP001") -> str:
    assert main(["export", "--db", str(store.path), "--format", fmt, "--rater", rater, "--rubric", "cis",
                 "-o", str(out)]) == 0
    return capsys.readouterr().err


def _import(path, db, capsys, rater: str = "EXP001") -> tuple[str, str]:
    assert main(["import-ratings", str(path), "--db", str(db), "--rater", rater, "--kind", "human"]) == 0
    captured = capsys.readouterr()
    return captured.out, captured.err


def _fresh(tmp_path, rubrics, name: str = "fresh.db"):
    fresh = tmp_path / name
    with Store(fresh) as store:
        store.add_items(make_items(rubrics["cis"]))
    return fresh


FORMATS = ["jsonl", "csv", "rating-form"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_flags_survive_export_and_import_in_every_format(filled_store, rubrics, clock, tmp_path, capsys, fmt):
    """The rated item's flag and the skipped item's flag and reason both come back, the latter never as a rating."""
    _expert_database(filled_store, rubrics, clock)
    out = tmp_path / f"out.{fmt}"
    said = _export(filled_store, out, fmt, capsys)
    assert f"wrote 2 ratings and 1 item skipped or flagged without a rating to {out} ({fmt})" in said
    fresh = _fresh(tmp_path, rubrics)
    summary, _ = _import(out, fresh, capsys)
    assert "ratings: 2 added" in summary
    assert "skipped or flagged without a rating: 1 added" in summary
    with Store(fresh) as store:
        assert _flags(store) == EXPECTED
        assert not present(store.rating("B002", "EXP001")).flagged
        assert store.rating("B003", "EXP001") is None  # a mark, not a rating with no scores
        draft = present(store.draft("B003", "EXP001"))
        assert (draft.skipped, draft.flagged, draft.flag_reason, draft.scores) == (True, True, SKIP_REASON, {})
        assert store.progress("EXP001", "cis") == {"rated": 2, "skipped": 1, "flagged": 2, "total": 3}
    again, _ = _import(out, fresh, capsys)  # importing the same file twice changes nothing
    assert "skipped or flagged without a rating: 0 added, 0 updated, 1 unchanged" in again


def _set_aside_only(store: Store) -> None:
    """EXP002 flags B002 with unsubmitted scores and notes, and skips B003 without a flag; rates nothing."""
    store.ensure_rater("EXP002", "human")
    store.save_draft(Draft("B002", "EXP002", scores={"r": 0.5}, notes="unsubmitted thoughts", seconds=40,
                           flagged=True, flag_reason="which task is this?"))
    store.save_draft(Draft("B003", "EXP002", skipped=True))


def test_each_format_writes_a_mark_as_a_row_without_scores(filled_store, tmp_path, capsys):
    _set_aside_only(filled_store)
    texts = {}
    for fmt in FORMATS:
        out = tmp_path / f"marks.{fmt}"
        assert "wrote 0 ratings and 2 items skipped or flagged without a rating" in _export(
            filled_store, out, fmt, capsys, "EXP002")
        texts[fmt] = out.read_text()
        assert "unsubmitted thoughts" not in texts[fmt]
        assert "0.5" not in texts[fmt]  # never unsubmitted work
    rows = [json.loads(line) for line in texts["jsonl"].splitlines()]
    assert rows[0] == {"item_id": "B002", "rater": "EXP002", "kind": "human", "rubric": "cis", "rubric_version": None,
                       "scores": {}, "overall": None, "verdict": None, "notes": "", "seconds": None, "repeat": 0,
                       "flagged": True, "flag_reason": "which task is this?", "skipped": False}
    assert (rows[1]["item_id"], rows[1]["skipped"], rows[1]["flagged"]) == ("B003", True, False)
    lines = texts["csv"].splitlines()
    assert lines[0].endswith(",flagged,flag_reason,skipped")
    assert lines[1] == "B002,EXP002,human,cis,,,,,,,,,,0,,yes,which task is this?,"
    assert lines[2] == "B003,EXP002,human,cis,,,,,,,,,,0,,,,yes"
    form = json.loads(texts["rating-form"])
    assert form["ratings"] == []  # every entry there is scored (000's readers want that); marks go apart
    assert form["unrated"] == [
        {"submission_id": "B002", "task_type": "Fibonacci", "skipped": False, "flagged": True,
         "flag_reason": "which task is this?"},
        {"submission_id": "B003", "task_type": form["unrated"][1]["task_type"], "skipped": True, "flagged": False,
         "flag_reason": ""}]
    assert form["total_time_minutes"] is None


@pytest.mark.parametrize("fmt", FORMATS)
def test_marks_without_any_rating_import_as_marks(filled_store, rubrics, tmp_path, capsys, fmt):
    _set_aside_only(filled_store)
    out = tmp_path / f"marks.{fmt}"
    _export(filled_store, out, fmt, capsys, "EXP002")
    fresh = _fresh(tmp_path, rubrics)
    summary, _ = _import(out, fresh, capsys, "EXP002")
    assert "skipped or flagged without a rating: 2 added" in summary
    assert "ratings:" not in summary
    with Store(fresh) as store:
        assert [(f.item_id, f.state, f.reason) for f in store.flags()] == [("B002", "unrated", "which task is this?")]
        assert store.draft("B002", "EXP002") == Draft("B002", "EXP002", flagged=True, flag_reason="which task is this?",
                                                      updated_at=present(store.draft("B002", "EXP002")).updated_at)
        assert present(store.draft("B003", "EXP002")).skipped
        assert not present(store.draft("B003", "EXP002")).flagged
        assert store.count_ratings("EXP002") == 0


def test_an_imported_mark_keeps_a_draft_and_leaves_a_rated_item_alone(filled_store, rubrics, clock, tmp_path, capsys):
    _expert_database(filled_store, rubrics, clock)
    out = tmp_path / "exp001.jsonl"
    _export(filled_store, out, "jsonl", capsys)
    fresh = _fresh(tmp_path, rubrics)
    with Store(fresh) as store:  # on this machine EXP001 has a draft of B003 with scores, and rated B001 already
        store.ensure_rater("EXP001", "human")
        store.save_draft(Draft("B003", "EXP001", scores={"r": 0.25}, notes="half done", seconds=12))
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    rows.append({**rows[-1], "item_id": "B001"})  # a skip of an item the file also rates
    out.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert main(["import-ratings", str(out), "--db", str(fresh)]) == 1
    assert "duplicate rating of item 'B001' (first at line 1)" in capsys.readouterr().err
    out.write_text("\n".join(json.dumps(r) for r in rows[:-1]) + "\n")
    summary, _ = _import(out, fresh, capsys)
    assert "skipped or flagged without a rating: 0 added, 1 updated" in summary
    with Store(fresh) as store:
        draft = present(store.draft("B003", "EXP001"))
        assert (draft.skipped, draft.flagged, draft.flag_reason) == (True, True, SKIP_REASON)
        assert (draft.scores, draft.notes, draft.seconds) == ({"r": 0.25}, "half done", 12)  # nothing lost
    rated_later = tmp_path / "rated_later.jsonl"  # the expert went back and rated the skipped item
    rated_later.write_text(json.dumps({"item_id": "B003", "scores": {"r": 0.5, "a": 0.5, "t": 0.5, "l": 0.5}}) + "\n")
    marks_only = _fresh(tmp_path, rubrics, "marks_only.db")
    _import(out, marks_only, capsys)
    _import(rated_later, marks_only, capsys)
    with Store(marks_only) as store:  # the skip is over: nothing counts B003 as skipped any more
        assert store.draft("B003", "EXP001") is None
        assert store.progress("EXP001", "cis") == {"rated": 3, "skipped": 0, "flagged": 1, "total": 3}
    mark_of_rated = tmp_path / "late.jsonl"
    mark_of_rated.write_text(json.dumps({**rows[-1], "item_id": "B002"}) + "\n")
    summary, warnings = _import(mark_of_rated, fresh, capsys)
    assert "item 'B002' is rated by EXP001 here already; the file's skip without a rating is left out" in warnings
    with Store(fresh) as store:
        assert store.draft("B002", "EXP001") is None
        assert not present(store.rating("B002", "EXP001")).flagged


@pytest.mark.parametrize("row, problem", [
    ({"item_id": "B003", "scores": {"r": 0.5, "a": 0.5, "t": 0.5, "l": 0.5}, "skipped": True},
     "item 'B003': a skipped item has no scores: remove its scores, or set \"skipped\" to false"),
    ({"item_id": "B003", "scores": {}, "skipped": "maybe"}, "item 'B003': \"skipped\" must be true or false"),
    ({"item_id": "B003", "scores": {}}, "item 'B003': missing score for r, a, t, l"),
])
def test_a_mark_that_makes_no_sense_is_an_error_at_its_line(filled_store, tmp_path, capsys, row, problem):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(row) + "\n")
    assert main(["import-ratings", str(path), "--db", str(filled_store.path), "--rater", "EXP001",
                 "--kind", "human"]) == 1
    err = capsys.readouterr().err
    assert f"{path}:1: {problem}" in err
    assert "Traceback" not in err
    assert filled_store.draft("B003", "EXP001") is None


def test_flags_survive_bundle_import_and_merge(filled_store, rubrics, clock, tmp_path):
    _expert_database(filled_store, rubrics, clock)
    bundle = tmp_path / "exp001.bundle.db"
    export_bundle(filled_store, "EXP001", bundle)
    with Store(tmp_path / "lead.db") as lead:
        result = import_bundle(lead, bundle)
        assert result.added["ratings"] == 2
        assert result.added["set_aside"] == 1
        assert _flags(lead) == EXPECTED
        assert lead.draft("B003", "EXP001") == Draft("B003", "EXP001", skipped=True, flagged=True,
                                                     flag_reason=SKIP_REASON, updated_at=present(lead.draft(
                                                         "B003", "EXP001")).updated_at)
        again = import_bundle(lead, bundle)  # nothing twice
        assert not again.changed
        assert again.problems == 0
    with Store(tmp_path / "lead2.db") as lead:
        merge_database(lead, filled_store.path)
        assert _flags(lead) == EXPECTED


def test_a_flag_that_differs_is_a_merge_conflict_and_ours_is_kept(filled_store, rubrics, clock, tmp_path):
    _expert_database(filled_store, rubrics, clock)
    lead_path = tmp_path / "lead.db"
    with Store(lead_path) as lead:
        merge_database(lead, filled_store.path)
    rating = filled_store.rating("B001", "EXP001")
    filled_store.save_rating(Rating(**{**rating.__dict__, "flag_reason": "another reason"}))
    with Store(lead_path) as lead:
        result = merge_database(lead, filled_store.path)
        assert [(c.item_id, c.ours["flag_reason"], c.theirs["flag_reason"]) for c in result.rating_conflicts] == [
            ("B001", REASON, "another reason")]
        assert present(lead.rating("B001", "EXP001")).flag_reason == REASON


def test_a_database_from_before_flags_moved_onto_ratings_is_upgraded(tmp_path, rubrics):
    """m005_rating_flags: a submitted item's flag moves from its draft onto the rating; seconds may be NULL."""
    path = tmp_path / "old.db"
    with Store(path) as store:
        store.add_items(make_items(rubrics["cis"]))
        store.ensure_rater("EXP001", "human")
        version = store.ensure_rubric_version(rubrics["cis"])
    with sqlite3.connect(path) as conn:  # back to the schema before m005, as an older judge-tui left it
        # Its views on ratings came later (m014) and go too: SQLite will not rebuild a table a view reads.
        conn.execute("DELETE FROM _sqlite_migrations WHERE name IN ('m005_rating_flags', 'm014_current_ratings')")
        conn.execute("DROP VIEW current_ratings")
        conn.execute("DROP VIEW rubric_version_order")
        conn.execute("DROP TABLE ratings")
        conn.execute(migrations_m001_ratings())
        conn.execute("CREATE INDEX ratings_by_rater ON ratings (rater_id, item_id)")
        conn.execute("INSERT INTO ratings (item_id, rater_id, rubric_version_id, scores, seconds, created_at,"
                     " updated_at) VALUES ('B001', 'EXP001', ?, '{\"r\": 1}', 12, 'x', 'x')", [version])
        conn.execute("INSERT INTO drafts (item_id, rater_id, flagged, flag_reason, updated_at)"
                     " VALUES ('B001', 'EXP001', 1, 'old flag', 'x'), ('B002', 'EXP001', 1, 'unrated', 'x')")
        conn.execute("INSERT INTO judge_jobs (item_id, rater_id, rubric_version_id, rating_id, created_at,"
                     " updated_at) VALUES ('B001', 'EXP001', ?, 1, 'x', 'x')", [version])
    with Store(path) as store:
        assert not migrations.pending(store.db)
        rating = present(store.rating("B001", "EXP001"))
        assert rating.flagged
        assert rating.flag_reason == "old flag"
        assert rating.seconds == 12
        assert store.draft("B001", "EXP001") is None
        assert [(f.item_id, f.state) for f in store.flags()] == [("B001", "rated"), ("B002", "unrated")]
        indexes = {r[1] for r in store.conn.execute("PRAGMA index_list(ratings)")}
        assert "ratings_by_rater" in indexes
        assert any(i.startswith("sqlite_autoindex") for i in indexes)
        assert store.conn.execute("PRAGMA foreign_key_check").fetchall() == []
        assert store.scalar("SELECT rating_id FROM judge_jobs") == 1  # the judge job still points at its rating
        store.conn.execute("UPDATE ratings SET seconds = NULL")  # unknown is allowed now


def migrations_m001_ratings() -> str:
    from judge_tui.store.schema import _SCHEMA_V1

    return next(s for s in _SCHEMA_V1.split(";") if "CREATE TABLE ratings" in s)


def test_report_lists_the_flagged_items(filled_store, rubrics, clock, tmp_path, capsys):
    _expert_database(filled_store, rubrics, clock)
    filled_store.ensure_rater("judge:m:cis@1", "judge")
    version = filled_store.ensure_rubric_version(rubrics["cis"])
    for item_id in ("B001", "B002"):
        filled_store.save_rating(Rating(item_id, "judge:m:cis@1", version, {d: 0.5 for d in "ratl"}, overall=0.5))
    db = str(filled_store.path)
    assert main(["report", "--db", db, "--rubric", "cis"]) == 0
    text = capsys.readouterr().out
    section = text[text.index("Flagged items (2)"):]
    assert f"B001  EXP001  rated    {REASON}" in section
    assert "B003  EXP001  skipped  =HYPERLINK(\"x\") task text is cut off" in section  # escape stripped
    assert "\x1b" not in text
    assert main(["report", "--db", db, "--rubric", "cis", "--format", "markdown"]) == 0
    assert f"| B001 | EXP001 | rated | {REASON} |" in capsys.readouterr().out
    assert main(["report", "--db", db, "--rubric", "cis", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(f["item_id"], f["state"], f["reason"]) for f in data["flagged_items"]] == [
        ("B001", "rated", REASON), ("B003", "skipped", SKIP_REASON)]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "judge_tui", *args], capture_output=True, text=True, check=False)


@pytest.mark.slow
def test_flags_command_lists_every_flag(filled_store, rubrics, clock, tmp_path):
    _expert_database(filled_store, rubrics, clock)
    db = str(filled_store.path)
    piped = _cli("flags", "--db", db)
    assert piped.returncode == 0, piped.stderr
    assert "Flagged items (2)" in piped.stdout
    assert REASON in piped.stdout  # full width on a pipe: never cut
    assert "\x1b" not in piped.stdout
    assert "task text is cut off" in piped.stdout
    out = tmp_path / "flags.csv"
    done = _cli("flags", "--db", db, "-o", str(out))  # the format from the file name
    assert done.returncode == 0, done.stderr
    rows = out.read_text().splitlines()
    assert rows[0] == "item_id,rater,state,reason,task_type,split,rubric,updated_at"
    assert rows[2].startswith('B003,EXP001,skipped,"\'=HYPERLINK(""x"")')  # a spreadsheet will not run it
    as_json = json.loads(_cli("flags", "--db", db, "--format", "json", "--rater", "EXP001").stdout)
    assert [f["item_id"] for f in as_json] == ["B001", "B003"]
    wrong = _cli("flags", "--db", db, "--rater", "EXP009")
    assert wrong.returncode == 1
    assert "--rater 'EXP009': no such rater" in wrong.stderr
    assert "Traceback" not in wrong.stderr


def test_a_flag_survives_the_whole_road_to_the_lead(filled_store, rubrics, clock, tmp_path, capsys):
    """Submit -> export -> import on another machine -> bundle -> the lead's import -> a merge upstream."""
    _expert_database(filled_store, rubrics, clock)
    exported = tmp_path / "exp001.csv"
    assert main(["export", "--db", str(filled_store.path), "--rater", "EXP001", "-o", str(exported)]) == 0
    laptop = tmp_path / "laptop.db"
    with Store(laptop) as store:
        store.add_items(make_items(rubrics["cis"]))
    assert main(["import-ratings", str(exported), "--db", str(laptop), "--rater", "EXP001", "--kind", "human"]) == 0
    bundle = tmp_path / "exp001.bundle.db"
    assert main(["export", "--bundle", "--db", str(laptop), "--rater", "EXP001", "-o", str(bundle)]) == 0
    assert main(["import", "--bundle", str(bundle), "--db", str(tmp_path / "lead.db")]) == 0
    assert main(["merge", str(tmp_path / "lead.db"), "--db", str(tmp_path / "study.db")]) == 0
    capsys.readouterr()
    with Store(tmp_path / "study.db") as study:
        assert _flags(study) == EXPECTED  # the skipped item's flag made the whole road too
