"""Every CSV judge-tui writes follows RFC 4180: a cell holding a carriage return, a line feed, a comma or a quote is
quoted, so a note with a bare carriage return (an old Mac's line end, a pasted log) stays in its row, and the
ratings export imports back exactly."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from judge_tui.formats import csv_rows
from judge_tui.model.records import Item, Rating
from judge_tui.store import Store
from tests.formats_helpers import run

NOTES = {"C1": "first\rsecond", "C2": "dos\r\nline", "C3": "unix\nline, \"quoted\"", "C4": "\r"}
REASON = "unclear\rtwice"
JUDGE = "judge:m:cis@1"


@pytest.fixture
def noted_db(tmp_path: Path, rubrics) -> Path:
    path = tmp_path / "notes.db"
    with Store(path) as store:
        version = store.ensure_rubric_version(rubrics["cis"])
        store.add_items([Item(item_id, "cis", {"task": item_id}, task_type="Parser") for item_id in NOTES])
        store.ensure_rater("EXP001", "human")
        store.ensure_rater(JUDGE, "judge")
        for item_id, note in NOTES.items():
            store.save_rating(Rating(item_id, "EXP001", version, dict.fromkeys("ratl", 0.5), overall=0.5, notes=note,
                                     flagged=item_id == "C1", flag_reason=REASON if item_id == "C1" else ""))
            store.save_rating(Rating(item_id, JUDGE, version, dict.fromkeys("ratl", 1.0), overall=1.0, notes=note))
    return path


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text, newline="")))


def test_a_carriage_return_is_quoted_like_a_line_feed():
    assert csv_rows.csv_line(["a\rb", "c\nd", "e,f", 'g"h', "plain", None, 0.5]) == (
        '"a\rb","c\nd","e,f","g""h",plain,,0.5\n')
    assert csv_rows.csv_line([""]) == '""\n'  # a row of one empty cell is not a blank line


def test_the_ratings_export_keeps_each_note_in_its_row_and_imports_back_exactly(noted_db: Path, tmp_path: Path,
                                                                                 rubrics, capsys):
    out = tmp_path / "ratings.csv"
    code, _out, err = run(capsys, "export", "--format", "csv", "--rater", "EXP001", "-o", out, "--db", noted_db)
    assert code == 0, err
    rows = _rows(out.read_bytes().decode("utf-8"))
    assert [(r["item_id"], csv_rows.unprotect(r["notes"])) for r in rows] == list(NOTES.items())
    assert rows[0]["flag_reason"] == REASON

    fresh = tmp_path / "fresh.db"
    with Store(fresh) as store:
        store.ensure_rubric_version(rubrics["cis"])
        store.add_items([Item(item_id, "cis", {"task": item_id}, task_type="Parser") for item_id in NOTES])
    code, _out, err = run(capsys, "import-ratings", out, "--rater", "EXP001", "--db", fresh)
    assert code == 0, err
    with Store(fresh) as store:
        back = {r.item_id: (r.notes, r.flag_reason) for r in store.iter_ratings(rater_ids=["EXP001"])}
    assert back == {item_id: (note, REASON if item_id == "C1" else "") for item_id, note in NOTES.items()}


def test_the_flags_csv_keeps_a_reason_in_its_row(noted_db: Path, tmp_path: Path, capsys):
    out = tmp_path / "flags.csv"
    code, _out, err = run(capsys, "flags", "--format", "csv", "-o", out, "--db", noted_db)
    assert code == 0, err
    rows = _rows(out.read_bytes().decode("utf-8"))
    assert [(r["item_id"], r["reason"]) for r in rows] == [("C1", REASON)]


def test_the_item_report_csv_keeps_each_note_in_its_row(noted_db: Path, tmp_path: Path, capsys):
    out = tmp_path / "items.csv"
    code, _out, err = run(capsys, "report", "--items", "--format", "csv", "-o", out, "--db", noted_db)
    assert code == 0, err
    rows = _rows(out.read_bytes().decode("utf-8"))
    assert [(r["item_id"], r["human_notes"], r["judge_notes"]) for r in rows] == [
        (item_id, csv_rows.protect(f"EXP001: {note}"), csv_rows.protect(f"{JUDGE}: {note}"))
        for item_id, note in NOTES.items()]
