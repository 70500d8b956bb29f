"""Input a user can get wrong: every mistake is one clear message at FILE:LINE, and nothing is written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from judge_tui.store import Store
from judge_tui.transfer.importing import MAX_FILE_BYTES, import_items
from tests.formats_helpers import FIXTURES, cis_item, run, table_counts, write_jsonl
from tests.narrowing import present

FORM = json.loads((FIXTURES / "rating_form.json").read_text())


@pytest.fixture
def cis_db(tmp_path: Path) -> Path:
    """A database holding the CIS submissions C001-C003 the rating form rates."""
    path = tmp_path / "study.db"
    with Store(path) as store:
        import_items(store, write_jsonl(tmp_path / "c.jsonl", [cis_item(f"C00{i}", i - 1) for i in (1, 2, 3)]), "cis")
    return path


def cli(tmp_path: Path, *args: object) -> subprocess.CompletedProcess[str]:
    """judge-tui in a real process, with its own home folder."""
    env = {**os.environ, "JUDGE_TUI_HOME": str(tmp_path / "home"), "PYTHONPATH": str(Path.cwd())}
    env.pop("JUDGE_TUI_DB", None)
    return subprocess.run([sys.executable, "-m", "judge_tui", *map(str, args)], capture_output=True, text=True,
                          errors="replace", env=env, timeout=120, stdin=subprocess.DEVNULL)


# --------------------------------------------------------------------------- who rated


def test_a_rating_form_is_filed_under_its_expert_id_as_a_person(tmp_path: Path, cis_db: Path):
    proc = cli(tmp_path, "import-ratings", FIXTURES / "rating_form.json", "--db", cis_db)
    assert proc.returncode == 0, proc.stderr
    assert "ratings: 3 added, 0 updated, 0 unchanged (EXP001)" in proc.stdout
    assert proc.stderr == ""
    with Store(cis_db) as store:
        assert present(store.rater("EXP001"))["kind"] == "human"
        assert present(store.rating("C001", "EXP001")).scores == {"r": 0.75, "a": 0.75, "t": 0.5, "l": 0.75}


def test_a_known_rater_keeps_its_kind_and_a_file_naming_nobody_asks_for_rater(tmp_path: Path, cis_db: Path, capsys):
    judge_rows = [{"item_id": "C001", "scores": {"r": 0.5}}]
    path = write_jsonl(tmp_path / "judge.jsonl", judge_rows)
    code, _out, err = run(capsys, "import-ratings", path, "--db", cis_db)
    assert code == 1
    assert err == (f"judge-tui: {path}: the file does not say whose ratings these are; pass --rater NAME "
                   f"(and --kind human or judge)\n")
    code, _out, err = run(capsys, "import-ratings", path, "--rater", "judge:m:cis@1", "--db", cis_db)
    assert code == 1
    assert "say whether 'judge:m:cis@1' is a person or a judge: pass --kind human" in err
    assert run(capsys, "import-ratings", path, "--rater", "judge:m:cis@1", "--kind", "judge", "--db", cis_db)[0] == 0
    code, _out, err = run(capsys, "import-ratings", FIXTURES / "judge_output.json", "--db", cis_db)
    assert code == 1
    assert err.endswith("the file does not say whose ratings these are; pass --rater NAME\n")
    path = write_jsonl(tmp_path / "judge2.jsonl", [{"item_id": "C002", "scores": {"r": 0.25}}])
    code, _out, err = run(capsys, "import-ratings", path, "--rater", "judge:m:cis@1", "--db", cis_db)
    assert code == 0, err  # the rater is known as a judge
    # judge-tui's own export names rater and kind on every row
    rows = [{"item_id": "C003", "rater": "EXP7", "kind": "human", "scores": {"r": 1, "a": 1, "t": 1, "l": 1}}]
    code, out, err = run(capsys, "import-ratings", write_jsonl(tmp_path / "own.jsonl", rows), "--db", cis_db)
    assert code == 0, err
    with Store(cis_db) as store:
        assert present(store.rater("EXP7"))["kind"] == "human"
        assert present(store.rater("judge:m:cis@1"))["kind"] == "judge"


@pytest.mark.slow
def test_a_failed_import_leaves_no_new_database_and_keeps_an_existing_one(tmp_path: Path, cis_db: Path):
    new = tmp_path / "new.db"
    proc = cli(tmp_path, "import-ratings", FIXTURES / "rating_form.json", "--db", new)
    assert proc.returncode == 1
    assert "none of the item ids in this file is in the database" in proc.stderr
    assert not new.exists()
    assert list(tmp_path.glob("new.db*")) == []
    bad = write_jsonl(tmp_path / "bad.jsonl", [{"id": "X1"}])
    proc = cli(tmp_path, "import", bad, "--rubric", "cis", "--db", new)
    assert proc.returncode == 1
    assert not new.exists()
    before = table_counts(cis_db)
    proc = cli(tmp_path, "import", bad, "--rubric", "cis", "--db", cis_db)
    assert proc.returncode == 1
    assert table_counts(cis_db) == before


# --------------------------------------------------------------------------- what a file holds


def test_a_broken_line_is_reported_even_when_the_rubric_cannot_be_guessed(tmp_path: Path, capsys):
    path = tmp_path / "items.jsonl"
    path.write_text('{"id": "Z1", "text": "hello"}\n{"id": "Z2", \n')
    code, _out, err = run(capsys, "import", path, "--db", tmp_path / "x.db")
    assert code == 1
    assert f"{path}:2: not valid JSON: Expecting property name enclosed in double quotes (column 14)" in err
    assert f"{path}: pass --rubric NAME to say which rubric these items are rated against" in err
    ratings = tmp_path / "ratings.jsonl"
    ratings.write_text('{"item_id": "Q1", "scores": {"r": 0.5}}\n{"item_id": \n')
    code, _out, err = run(capsys, "import-ratings", ratings, "--rater", "E1", "--kind", "human",
                          "--db", tmp_path / "x.db")
    assert code == 1
    assert f"{ratings}:2: not valid JSON" in err
    assert "none of the item ids in this file is in the database" in err


@pytest.mark.parametrize(("where", "line"), [
    ('{"id": "Z1", "query": "caf\\ud800", "criterion": "c", "response": "r"}', 1),
    ('{"id": "Z1\\udfff", "query": "q", "criterion": "c", "response": "r"}', 1),
    ('{"id": "Z1", "query": "q", "criterion": "c", "response": "r", "\\ud83d": "key"}', 1),
])
def test_a_lone_surrogate_escape_in_an_item_is_an_error_not_a_traceback(tmp_path: Path, where: str, line: int):
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps({"id": "Z0", "query": "q", "criterion": "c", "response": "r"}) + "\n" + where + "\n")
    proc = cli(tmp_path, "import", path, "--rubric", "binary", "--db", tmp_path / "s.db")
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert f"{path}:2: the escape \\u" in proc.stderr
    assert "is half of a UTF-16 surrogate pair, not a character" in proc.stderr
    assert not (tmp_path / "s.db").exists()


def test_a_lone_surrogate_in_a_note_or_the_form_is_an_error(tmp_path: Path, cis_db: Path, capsys):
    path = write_jsonl(tmp_path / "r.jsonl", [{"item_id": "C001", "scores": {"r": 0.5, "a": 0.5, "t": 0.5, "l": 0.5},
                                                "notes": "fine \ud800"}])
    code, _out, err = run(capsys, "import-ratings", path, "--rater", "E1", "--kind", "human", "--db", cis_db)
    assert code == 1
    assert f"{path}:1: the escape \\ud800 is half of a UTF-16 surrogate pair" in err
    form = tmp_path / "form.json"
    form.write_text(json.dumps({**FORM, "expert_id": "EXP\udc01"}))
    code, _out, err = run(capsys, "import-ratings", form, "--db", cis_db)
    assert code == 1
    assert "Traceback" not in err
    assert "cannot name a rater; pass --rater NAME" in err
    code, _out, err = run(capsys, "import-ratings", form, "--rater", "EXP001", "--db", cis_db)
    assert code == 1
    assert f"{form}:1: the escape \\udc01 is half of a UTF-16 surrogate pair" in err
    with Store(cis_db) as store:
        assert store.rater("E1") is None
        assert store.rater("EXP001") is None


def test_a_cut_off_rating_form_is_one_error_at_its_end(tmp_path: Path, cis_db: Path, capsys):
    text = json.dumps({**FORM, "ratings": FORM["ratings"] * 30}, indent=2)
    cut = text[: len(text) * 2 // 3]
    path = tmp_path / "rating_form.json"
    path.write_text(cut)
    code, _out, err = run(capsys, "import-ratings", path, "--db", cis_db)
    last = cut.count("\n") + 1
    assert code == 1
    assert err == (f"judge-tui: nothing imported from {path}: 1 error\n"
                   f"{path}:{last}: the file ends early at line {last}: its JSON stops before every object and "
                   f"array is closed (was it cut off while saving or copying?)\n")
    renamed = tmp_path / "form.txt"  # the name does not decide it
    renamed.write_text(cut)
    code, _out, err = run(capsys, "import-ratings", renamed, "--rater", "EXP001", "--kind", "human", "--db", cis_db)
    assert code == 1
    assert "1 error\n" in err
    assert f"{renamed}:{last}: the file ends early" in err


# --------------------------------------------------------------------------- what can be read


@pytest.mark.slow
def test_devices_pipes_and_folders_are_refused_without_reading(tmp_path: Path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for target in ("/dev/zero", fifo):
        proc = cli(tmp_path, "import", target, "--rubric", "cis", "--db", tmp_path / "s.db")
        assert proc.returncode == 1
        assert proc.stderr == (f"judge-tui: {target}: not a regular file (a device, pipe or socket); judge-tui "
                               f"reads files saved on disk: save the data to a file first\n")
    proc = cli(tmp_path, "import-ratings", "/dev/zero", "--rater", "E", "--kind", "human", "--db", tmp_path / "s.db")
    assert proc.returncode == 1
    assert "not a regular file" in proc.stderr
    proc = cli(tmp_path, "import", tmp_path, "--rubric", "cis", "--db", tmp_path / "s.db")
    assert proc.returncode == 1
    assert f"{tmp_path}: is a folder, not a file" in proc.stderr
    assert not (tmp_path / "s.db").exists()


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path: Path):
    huge = tmp_path / "huge.jsonl"
    with huge.open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: takes no room on disk
    proc = cli(tmp_path, "import", huge, "--rubric", "cis", "--db", tmp_path / "s.db")
    assert proc.returncode == 1
    assert proc.stderr == (f"judge-tui: {huge}: larger than 2 GB, the most judge-tui imports at once; "
                           f"split it into smaller files\n")


# --------------------------------------------------------------------------- what a file states


@pytest.mark.parametrize(("stated", "warned"), [(0.63, False), (0.62, False), (0.625, False), (0.64, True)])
def test_the_forms_overall_rounded_to_two_decimals_is_not_a_difference(cis_db: Path, tmp_path: Path, capsys,
                                                                        stated: float, warned: bool):
    row = {**FORM["ratings"][0], "r_score": 0.75, "a_score": 0.5, "t_score": 0.5, "l_score": 0.75,
           "expert_cis": stated}  # CIS 0.625
    path = tmp_path / "form.json"
    path.write_text(json.dumps({**FORM, "ratings": [row]}))
    code, _out, err = run(capsys, "import-ratings", path, "--rater", "EXP001", "--kind", "human", "--db", cis_db)
    assert code == 0, err
    assert ("the file's overall" in err) is warned


def test_a_file_name_that_is_not_utf8_imports(tmp_path: Path):
    name = os.fsdecode(b"caf\xe9.jsonl")  # bytes a Latin-1 system wrote, not UTF-8
    path = write_jsonl(tmp_path / name, [{"id": "Z1", "query": "q", "criterion": "c", "response": "r"}])
    proc = cli(tmp_path, "import", path, "--rubric", "binary", "--db", tmp_path / "s.db")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    with Store(tmp_path / "s.db") as store:
        assert store.conn.execute("SELECT source FROM items").fetchone()[0] == "import:caf\ufffd.jsonl"


def test_the_judge_sees_only_the_optional_fields_an_item_has(rubrics):
    from judge_tui.judge.prompts import render_item_fields

    fields = {"task_type": "Fibonacci", "rationale": "A loop.", "source_code": "def fib(n): ..."}
    shown = render_item_fields(rubrics["cis"], fields)
    assert "### Source code" in shown
    assert "### Rationale" in shown
    assert "### Tests" not in shown
    assert "### Test output" not in shown
    assert "(empty)" not in shown
