"""judge-tui import: JSON, JSONL and CSV items, good and bad, through the real command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from judge_tui.store import Store
from judge_tui.transfer.importing import ImportFailed, import_items
from tests.formats_helpers import (
    binary_item,
    cis_item,
    exercise_item,
    line_of,
    run,
    table_counts,
    write_jsonl,
)
from tests.narrowing import present


@pytest.fixture
def new_db(tmp_path: Path) -> Path:
    """Where a new database goes: the file does not exist yet."""
    return tmp_path / "j.db"


def test_jsonl_import_then_reimport_changes_nothing(tmp_path: Path, new_db: Path, capsys):
    path = write_jsonl(tmp_path / "subs.jsonl", [cis_item(f"B{i:03d}", i) for i in range(1, 6)])
    code, out, err = run(capsys, "import", path, "--rubric", "cis", "--db", new_db)
    assert (code, err) == (0, "")
    assert "5 added, 0 unchanged" in out
    before = table_counts(new_db)
    code, out, _err = run(capsys, "import", path, "--rubric", "cis", "--db", new_db)
    assert code == 0
    assert "0 added, 5 unchanged" in out
    assert table_counts(new_db) == before
    with Store(new_db) as store:
        item = present(store.item("B002"))
        assert item.task_type == "Email Validator"
        assert item.fields["rationale"] == "My approach number 2."
        assert "id" not in item.fields
        assert [i.id for i in store.iter_items("cis")] == [f"B{i:03d}" for i in range(1, 6)]


def test_json_array_with_splits_and_rubric_guessed(tmp_path: Path, new_db: Path, capsys):
    rows = [{**binary_item(f"P{i}", i), "split": "dev" if i % 2 else "test"} for i in range(4)]
    path = tmp_path / "items.json"
    path.write_text(json.dumps(rows, indent=2))
    code, out, _err = run(capsys, "import", path, "--db", new_db)  # binary fields: the rubric is evident
    assert code == 0
    assert "rubric binary" in out
    with Store(new_db) as store:
        assert [i.split for i in store.iter_items("binary")] == ["test", "dev", "test", "dev"]
    code, out, _err = run(capsys, "import", path, "--db", new_db, "--split", "train")
    assert code == 0
    assert "4 moved to another split" in out
    with Store(new_db) as store:
        assert {i.split for i in store.iter_items("binary")} == {"train"}


def test_csv_with_column_mapping(tmp_path: Path, new_db: Path, capsys):
    path = tmp_path / "ex.csv"
    path.write_text(
        "case,level,skill,doc,teacher_says,generated\n"
        'E1,A2,Time expressions,<document>We meet at noon.</document>,Use time words.,'
        '"<exercise>We meet <blank answer=""at"" student-answer=""""/> noon.</exercise>"\n'
        "E2,C1,Figurative language,<document>x</document>,Use idioms.,no container here\n")
    code, out, err = run(capsys, "import", path, "--rubric", "exercise-quality", "--db", new_db,
                         "--map", "id=case", "--map", "cefr_level=level", "--map", "focus=skill",
                         "--map", "source_document=doc", "--map", "instruction=teacher_says",
                         "--map", "exercise=generated")
    assert code == 0, err
    with Store(new_db) as store:
        first = present(store.item("E1"))
        assert first.fields["cefr_level"] == "A2"
        assert first.fields["exercise"].startswith("<exercise>We meet <blank answer=\"at\"")
        assert "case" not in first.fields
        assert "level" not in first.fields
        rubric_scores = present(store.item("E2")).fields["exercise"]
        assert rubric_scores == "no container here"


def test_csv_map_to_missing_column_and_bad_map(tmp_path: Path, new_db: Path, capsys):
    path = tmp_path / "b.csv"
    path.write_text("id,query,criterion,response\nP1,q,c,r\n")
    code, _out, err = run(capsys, "import", path, "--rubric", "binary", "--db", new_db, "--map", "response=answer")
    assert code == 1
    assert f"{path}:1: --map names column 'answer', which is not in the header" in err
    code, _out, err = run(capsys, "import", path, "--rubric", "binary", "--db", new_db, "--map", "response")
    assert code == 1
    assert "--map expects FIELD=KEY" in err
    assert not new_db.exists() or table_counts(new_db)["items"] == 0


def test_every_bad_row_is_reported_with_its_line_and_nothing_is_imported(tmp_path: Path, new_db: Path, capsys):
    good = cis_item("B001", 1)
    missing = {k: v for k, v in cis_item("B002", 2).items() if k not in ("task", "rationale")}
    lines = [
        json.dumps(good),
        "",
        "{not json",
        json.dumps(missing),
        json.dumps(cis_item("B001", 5)),
        json.dumps({**cis_item("B004"), "split": "holdout"}),
        json.dumps(["an", "array"]),
        json.dumps({**cis_item("x"), "id": ""}),
        json.dumps({k: v for k, v in cis_item("n").items() if k != "id"}),
        json.dumps({**cis_item("y"), "id": True}),
    ]
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    code, out, err = run(capsys, "import", path, "--rubric", "cis", "--db", new_db)
    assert code == 1
    assert out == ""
    assert "Traceback" not in err
    assert f"judge-tui: nothing imported from {path}: 8 errors\n" in err
    for message in [
        f"{path}:3: not valid JSON: Expecting property name enclosed in double quotes (column 2)",
        f"{path}:4: item 'B002': missing required field \"rationale\" (rubric cis)",
        f"{path}:5: duplicate id 'B001' (first at line 1)",
        f"{path}:6: split 'holdout' is not one of train, dev, test",
        f"{path}:7: expected a JSON object on this line, found an array",
        f"{path}:8: the item id is empty",
        f"{path}:9: missing required field \"id\"",
        f"{path}:10: the item id must be text or a whole number, not True",
    ]:
        assert message in err
    # listed in line order, one per line
    reported = [line.split(":")[1] for line in err.splitlines()[1:]]
    assert reported == ["3", "4", "5", "6", "7", "8", "9", "10"]
    assert not new_db.exists()  # the database this import would have created is not left behind


def test_error_list_is_capped(tmp_path: Path, new_db: Path, capsys):
    # Some rows have the fields, so each row without them is its own error (none has them: one error).
    path = write_jsonl(tmp_path / "many.jsonl", [cis_item("B"), *({"id": f"B{i}"} for i in range(30))])
    code, _out, err = run(capsys, "import", path, "--rubric", "cis", "--db", new_db)
    assert code == 1
    assert err.count("missing required field") == 20
    assert "... and 10 more errors" in err


def test_conflicts_with_the_database(tmp_path: Path, new_db: Path, capsys):
    write_jsonl(tmp_path / "a.jsonl", [binary_item("P1", 1)])
    assert run(capsys, "import", tmp_path / "a.jsonl", "--rubric", "binary", "--db", new_db)[0] == 0
    changed = write_jsonl(tmp_path / "b.jsonl", [binary_item("P2", 2), binary_item("P1", 99)])
    code, _out, err = run(capsys, "import", changed, "--rubric", "binary", "--db", new_db)
    assert code == 1
    assert f"{changed}:2: item 'P1' already exists with different content" in err
    other = write_jsonl(tmp_path / "c.jsonl", [{**cis_item("P1")}])
    code, _out, err = run(capsys, "import", other, "--rubric", "cis", "--db", new_db)
    assert f"{other}:1: item 'P1' already exists under rubric 'binary'" in err
    assert table_counts(new_db)["items"] == 1


def test_csv_problems(tmp_path: Path, new_db: Path, capsys):
    path = tmp_path / "bad.csv"
    path.write_text("id,query,criterion,response\nP1,q,c,r\nP2,q,c\n\"P3,q,c,r\n")
    code, _out, err = run(capsys, "import", path, "--rubric", "binary", "--db", new_db)
    assert code == 1
    assert f"{path}:3: row has 3 cells but the header has 4 columns" in err
    assert f"{path}:4: not valid CSV" in err
    path.write_text("id,query,,response\nP1,q,c,r\n")
    code, _out, err = run(capsys, "import", path, "--rubric", "binary", "--db", new_db)
    assert f"{path}:1: the header row has an empty column name" in err
    path.write_text("")
    code, _out, err = run(capsys, "import", path, "--rubric", "binary", "--db", new_db)
    assert f"{path}:1: the file is empty" in err
    # A column the rubric needs is missing altogether: said once, at the header, with what to do.
    path.write_text("id,query,answer\nP1,q,r\nP2,q,r\n")
    code, _out, err = run(capsys, "import", path, "--rubric", "binary", "--db", new_db)
    assert code == 1
    assert "1 error\n" in err
    assert (f"{path}:1: the header has no column for \"criterion\" or \"response\", which rubric binary needs: "
            "use --map criterion=KEY --map response=KEY, where each KEY is the column that holds the field, or a "
            "template that builds it from the columns with {COLUMN} in it, such as --map 'response=... {answer} ...' "
            "(columns: id, query, answer)") in err
    code, _out, err = run(capsys, "import", path, "--rubric", "binary", "--db", new_db, "--map", "response=answer")
    assert code == 1
    assert f"{path}:1: the header has no column for \"criterion\", which" in err
    assert not new_db.exists() or table_counts(new_db)["items"] == 0


def test_json_array_problems_name_element_lines(tmp_path: Path, new_db: Path, capsys):
    rows = [binary_item("P1"), "just text", {k: v for k, v in binary_item("P3").items() if k != "response"}]
    text = json.dumps(rows, indent=2)
    path = tmp_path / "items.json"
    path.write_text(text)
    code, _out, err = run(capsys, "import", path, "--rubric", "binary", "--db", new_db)
    assert code == 1
    assert f"{path}:{line_of(text, 'just text')}: expected an item object, found a string" in err
    path.write_text(json.dumps({"items": rows}))
    code, _out, err = run(capsys, "import", path, "--rubric", "binary", "--db", new_db, "--format", "json")
    assert f"{path}:1: expected a JSON array of item objects, found an object" in err
    path.write_text(text[:-40])
    code, _out, err = run(capsys, "import", path, "--rubric", "binary", "--db", new_db)
    last = text[:-40].count(chr(10)) + 1
    assert f"{path}:{last}: the file ends early at line {last}: its JSON stops before every object" in err
    path.write_bytes(b'[{"id": "P1",\n "query": "caf\xe9"}]')
    code, _out, err = run(capsys, "import", path, "--rubric", "binary", "--db", new_db)
    assert f"{path}:2: not UTF-8 text (byte 0xe9)" in err
    assert not new_db.exists()


def test_unknown_rubric_missing_file_and_unguessable_rubric(tmp_path: Path, new_db: Path, capsys):
    path = write_jsonl(tmp_path / "x.jsonl", [{"id": "1", "text": "hello"}])
    code, _out, err = run(capsys, "import", path, "--rubric", "nope", "--db", new_db)
    assert code == 1
    assert "unknown rubric 'nope'" in err
    code, _out, err = run(capsys, "import", path, "--db", new_db)
    assert code == 1
    assert "pass --rubric NAME" in err
    code, _out, err = run(capsys, "import", tmp_path / "absent.jsonl", "--db", new_db)
    assert code == 1
    assert "absent.jsonl: no such file" in err


def test_exercise_items_keep_cefr_and_focus(store: Store, tmp_path: Path):
    path = write_jsonl(tmp_path / "ex.jsonl", [exercise_item("E1", "A2", "Common vocabulary")])
    result = import_items(store, path, "exercise-quality")
    assert result.items["added"] == 1
    assert present(store.item("E1")).fields["focus"] == "Common vocabulary"
    with pytest.raises(ImportFailed) as failed:
        import_items(store, path, "cis")
    assert failed.value.problems[0].message.startswith(
        'no item has "task_type", "rationale" or "source_code", which rubric cis needs')


def test_real_subprocess_reports_errors_without_traceback(tmp_path: Path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(binary_item("P1")) + "\n" + json.dumps({"id": "P2", "query": "q"}) + "\n")
    env = {**os.environ, "JUDGE_TUI_HOME": str(tmp_path / "home"), "PYTHONPATH": str(Path.cwd())}
    proc = subprocess.run([sys.executable, "-m", "judge_tui", "import", str(path), "--rubric", "binary",
                           "--db", str(tmp_path / "s.db")], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert f"{path}:2: item 'P2': missing required field \"criterion\", \"response\" (rubric binary)" in proc.stderr
    assert proc.stdout == ""
