"""Nothing silently altered: item text stored exactly as written, every odd value refused with FILE:LINE."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from judge_tui.store import Store
from tests.formats_helpers import binary_item, cis_item, run, table_counts, write_jsonl
from tests.narrowing import present

TRICKY_TEXT = ["'--' starts a SQL comment", "'=' * 40", "'+1' is a string", "'@decorator", "''quoted twice"]


@pytest.fixture
def new_db(tmp_path: Path) -> Path:
    """Where a new database goes: the file does not exist yet."""
    return tmp_path / "j.db"


def _csv(path: Path, rows: list[dict]) -> Path:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


def test_csv_and_jsonl_items_are_stored_exactly_and_hash_alike(tmp_path: Path, capsys):
    rows = [{**binary_item(f"P{i}", i), "response": text} for i, text in enumerate(TRICKY_TEXT)]
    from_csv, from_jsonl = tmp_path / "a.db", tmp_path / "b.db"
    assert run(capsys, "import", _csv(tmp_path / "items.csv", rows), "--rubric", "binary", "--db", from_csv)[0] == 0
    assert run(capsys, "import", write_jsonl(tmp_path / "items.jsonl", rows), "--rubric", "binary",
               "--db", from_jsonl)[0] == 0
    with Store(from_csv) as a, Store(from_jsonl) as b:
        for i, text in enumerate(TRICKY_TEXT):
            assert present(a.item(f"P{i}")).fields["response"] == text
            assert present(a.item(f"P{i}")).content_hash == present(b.item(f"P{i}")).content_hash


def test_a_hand_written_ratings_csv_keeps_its_quotes_but_our_export_round_trips(tmp_path: Path, new_db: Path, capsys):
    run(capsys, "import", write_jsonl(tmp_path / "items.jsonl", [binary_item("P1"), binary_item("P2")]),
        "--rubric", "binary", "--db", new_db)
    hand = tmp_path / "hand.csv"
    hand.write_text("item_id,label,notes\nP1,PASS,'-v' means verbose\nP2,FAIL,'=SUM(A1)\n", encoding="utf-8")
    code, _out, err = run(capsys, "import-ratings", hand, "--rater", "EXP001", "--kind", "human", "--db", new_db)
    assert code == 0, err
    with Store(new_db) as store:
        assert present(store.rating("P1", "EXP001")).notes == "'-v' means verbose"
        assert present(store.rating("P2", "EXP001")).notes == "'=SUM(A1)"
    exported = tmp_path / "out.csv"
    assert run(capsys, "export", "--format", "csv", "--rater", "EXP001", "-o", exported, "--db", new_db)[0] == 0
    assert "''=SUM(A1)" in exported.read_text()  # protected from spreadsheets on the way out
    other = tmp_path / "other.db"
    run(capsys, "import", tmp_path / "items.jsonl", "--rubric", "binary", "--db", other)
    code, _out, err = run(capsys, "import-ratings", exported, "--rater", "EXP001", "--kind", "human", "--db", other)
    assert code == 0, err
    with Store(other) as store:
        assert present(store.rating("P1", "EXP001")).notes == "'-v' means verbose"
        assert present(store.rating("P2", "EXP001")).notes == "'=SUM(A1)"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("NaN", "NaN (not a number JSON allows) is not a value judge-tui can store"),
        ("-Infinity", "-Infinity (not a number JSON allows)"),
        ("1e400", "the number 1e400 (too large to hold)"),
        ("9" * 5000, "a whole number of 5000 digits"),
    ],
    ids=["nan", "infinity", "huge-float", "huge-int"],
)
def test_values_json_cannot_carry_are_refused_at_their_line(tmp_path: Path, new_db: Path, capsys, value, message):
    good = json.dumps(binary_item("P1"))
    bad = json.dumps(binary_item("P2"))[:-1] + f', "extra": {value}}}'
    path = tmp_path / "items.jsonl"
    path.write_text(good + "\n" + bad + "\n", encoding="utf-8")
    code, _out, err = run(capsys, "import", path, "--rubric", "binary", "--db", new_db)
    assert code == 1
    assert f"{path}:2: {message}" in err
    assert "Traceback" not in err
    array = tmp_path / "items.json"
    array.write_text("[\n" + good + ",\n" + bad + "\n]\n", encoding="utf-8")
    code, _out, err = run(capsys, "import", array, "--rubric", "binary", "--db", new_db)
    assert code == 1
    assert f"{array}:3: {message}" in err
    assert not new_db.exists() or table_counts(new_db)["items"] == 0


def test_objects_where_text_is_expected_and_repeated_keys_are_refused(tmp_path: Path, new_db: Path, capsys):
    path = tmp_path / "items.jsonl"
    path.write_text(
        json.dumps({**binary_item("P1"), "criterion": {"a": 1}}) + "\n"
        + json.dumps({**binary_item("P2"), "response": ["x"]}) + "\n"
        + '{"id": "P3", "query": "q", "criterion": "c", "response": "first", "response": "second"}\n',
        encoding="utf-8",
    )
    code, _out, err = run(capsys, "import", path, "--rubric", "binary", "--db", new_db)
    assert code == 1
    assert f"{path}:1: item 'P1': field 'criterion' must be text, not an object" in err
    assert f"{path}:2: item 'P2': field 'response' must be text, not a list" in err
    assert f"{path}:3: the key 'response' appears twice in one object: keep one" in err


def test_odd_numbers_in_ratings_are_refused_at_their_line(tmp_path: Path, new_db: Path, capsys):
    run(capsys, "import", write_jsonl(tmp_path / "items.jsonl", [cis_item(f"B{i}", i) for i in range(1, 6)]),
        "--rubric", "cis", "--db", new_db)
    full = {"r": 0.5, "a": 0.5, "t": 0.5, "l": 0.5}
    ratings = tmp_path / "judge.jsonl"
    ratings.write_text(
        json.dumps({"item_id": "B1", "scores": full, "repeat": 1e20}) + "\n"
        + json.dumps({"item_id": "B2", "scores": {**full, "r": "0.7_5"}}) + "\n"
        + json.dumps({"item_id": "B3", "scores": {**full, "r": "１"}}) + "\n"
        + json.dumps({"item_id": "B4", "scores": full, "seconds": "1_000"}) + "\n"
        + json.dumps({"item_id": "B5", "scores": full, "seconds": 1e300}) + "\n",
        encoding="utf-8",
    )
    before = table_counts(new_db)
    code, _out, err = run(capsys, "import-ratings", ratings, "--rater", "judge:x", "--kind", "judge", "--db", new_db)
    assert code == 1, err
    assert "Traceback" not in err, err
    assert f"{ratings}:1: item 'B1': repeat must be a number from 0 to 1000" in err
    assert f"{ratings}:2: item 'B2': r: '0.7_5' is not a score" in err
    assert f"{ratings}:3: item 'B3': r: '１' is not a score" in err
    assert f"{ratings}:4: item 'B4': seconds: '1_000' is not a number" in err
    assert f"{ratings}:5: item 'B5': seconds must be a number from 0 to 604800" in err
    assert table_counts(new_db) == before


def test_rating_form_minutes_beyond_reason_are_refused(tmp_path: Path, new_db: Path, capsys):
    run(capsys, "import", write_jsonl(tmp_path / "items.jsonl", [cis_item("B1", 1)]), "--rubric", "cis", "--db", new_db)
    form = tmp_path / "rating_form.json"
    form.write_text(json.dumps({"expert_id": "EXP001", "ratings": [
        {"submission_id": "B1", "r_score": 0.5, "a_score": 0.5, "t_score": 0.5, "l_score": 0.5,
         "time_spent_minutes": 1e300}]}, indent=2), encoding="utf-8")
    code, _out, err = run(capsys, "import-ratings", form, "--rater", "EXP001", "--kind", "human", "--db", new_db)
    assert code == 1
    assert "time_spent_minutes must be a number of minutes from 0 to 10080, not 1e+300" in err


def test_promptfoo_component_results_that_are_not_a_list(tmp_path: Path, new_db: Path, capsys):
    results = {"evalId": "e", "results": {"version": 3, "results": [
        {"vars": binary_item("P1"), "response": {"output": "Beans"}, "provider": {"id": "echo"},
         "gradingResult": {"pass": True, "score": 1, "componentResults": 5}}]}}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results, indent=2), encoding="utf-8")
    code, _out, err = run(capsys, "import", path, "--rubric", "binary", "--db", new_db)
    assert "gradingResult.componentResults is not a list" in err
    assert "Traceback" not in err
    assert code == 1


def test_a_header_only_csv_writes_nothing(tmp_path: Path, new_db: Path, capsys):
    path = tmp_path / "empty.csv"
    path.write_text("id,query,criterion,response\n", encoding="utf-8")
    code, _out, err = run(capsys, "import", path, "--rubric", "binary", "--db", new_db)
    assert code == 1
    assert "the file holds no items" in err
    assert not new_db.exists()  # not even an empty database
