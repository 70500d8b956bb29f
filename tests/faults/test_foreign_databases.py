"""A database judge-tui must not use (another program's, a newer judge-tui's, not SQLite at all) stays untouched."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from judge_tui.store import Store, StoreError
from tests.faults.conftest import no_traceback, run, write_items


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("command", [["report"], ["export"], ["import", "ITEMS", "--rubric", "binary"], ["rate"]])
def test_another_programs_sqlite_file_is_refused_and_left_unchanged(tmp_path: Path, hermetic_home: Path,
                                                                   command: list[str]):
    other = tmp_path / "photos.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE photos (path TEXT, taken TEXT)")
        conn.execute("INSERT INTO photos VALUES ('a.jpg', '2024')")
    conn.close()
    before = _digest(other)
    items = write_items(tmp_path / "items.jsonl", 2)
    proc = run(*[str(items) if part == "ITEMS" else part for part in command], "--db", other, home=hermetic_home)
    assert proc.returncode == 1
    no_traceback(proc)
    assert "of another program (tables photos), not a judge-tui database" in proc.stderr
    assert "left it unchanged" in proc.stderr
    assert _digest(other) == before
    assert not Path(f"{other}-wal").exists()
    assert not Path(f"{other}-shm").exists()
    with sqlite3.connect(other) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["photos"]


def test_a_database_upgraded_by_a_newer_judge_tui_is_refused(tmp_path: Path, hermetic_home: Path):
    path = tmp_path / "lead.db"
    Store(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO _sqlite_migrations (migration_set, name, applied_at)"
                     " VALUES ('judge_tui', 'm999_from_the_future', '2030-01-01')")
    conn.close()
    before = _digest(path)
    proc = run("report", "--db", path, home=hermetic_home)
    assert proc.returncode == 1
    no_traceback(proc)
    assert "upgraded by a newer judge-tui (it has m999_from_the_future" in proc.stderr
    assert _digest(path) == before
    with pytest.raises(StoreError, match="newer judge-tui"):
        Store(path)


def test_a_file_that_is_not_sqlite_is_refused_before_sqlite_opens_it(tmp_path: Path, hermetic_home: Path):
    notes = tmp_path / "notes.db"
    notes.write_text("my notes, not a database\n")
    proc = run("import", write_items(tmp_path / "i.jsonl", 2), "--rubric", "binary", "--db", notes,
               home=hermetic_home)
    assert proc.returncode == 1
    no_traceback(proc)
    assert "not a SQLite database file" in proc.stderr
    assert notes.read_text() == "my notes, not a database\n"


def test_an_empty_file_becomes_a_new_database(tmp_path: Path):
    path = tmp_path / "new.db"
    path.touch()
    with Store(path) as store:
        assert store.count_items("binary") == 0


def test_a_database_whose_first_set_up_was_cut_short_is_set_up(tmp_path: Path):
    path = tmp_path / "new.db"
    with sqlite3.connect(path) as conn:  # what sqlite-utils creates before the first migration's transaction
        conn.execute("CREATE TABLE _sqlite_migrations (id INTEGER PRIMARY KEY, migration_set TEXT, name TEXT,"
                     " applied_at TEXT)")
    conn.close()
    with Store(path) as store:
        assert store.count_items("binary") == 0


def test_a_database_another_process_is_writing_to_opens_without_waiting(tmp_path: Path):
    from tests.faults.locker import Locker

    path = tmp_path / "study.db"
    Store(path).close()
    with Locker(path), Store(path) as store:
        store.conn.execute("PRAGMA busy_timeout = 0")  # opening took no lock, and reading needs none
        assert store.get_meta("held_by") is None


def _photos(path: Path) -> Path:
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE photos (path TEXT, taken TEXT)")
    conn.close()
    return path


def _newer(path: Path) -> Path:
    Store(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO _sqlite_migrations (migration_set, name, applied_at)"
                     " VALUES ('judge_tui', 'm999_from_the_future', '2030-01-01')")
    conn.close()
    return path


@pytest.mark.parametrize(("make", "said"), [
    (lambda p: p.write_bytes(b""), "holds no judge-tui database: it is empty"),  # a 0-byte file
    (_photos, "is a SQLite database of another program (tables photos), not a judge-tui database"),
    (_newer, "was upgraded by a newer judge-tui (it has m999_from_the_future"),
])
def test_check_tells_a_judge_tui_database_from_everything_else(tmp_path: Path, hermetic_home: Path, make, said: str,
                                                                capsys: pytest.CaptureFixture[str]):
    from judge_tui.cli import main

    path = tmp_path / "which.db"
    make(path)
    before = _digest(path)
    assert main(["check", "--db", str(path)]) == 1
    out, err = capsys.readouterr()
    assert said in err
    assert "no damage found" not in out + err
    assert _digest(path) == before
    Store(tmp_path / "ours.db").close()
    assert main(["check", "--db", str(tmp_path / "ours.db")]) == 0
    assert "no damage found" in capsys.readouterr().out


@pytest.mark.parametrize("command", [
    ["judge", "--backend", "replay", "--replay", "ANSWERS"],
    ["rubric-change", "binary", "--reason", "clearer", "--items", "P0"],
    ["export", "--bundle", "-o", "OUT"],
])
def test_a_command_that_needs_a_database_never_creates_one(tmp_path: Path, hermetic_home: Path, command: list[str],
                                                           capsys: pytest.CaptureFixture[str]):
    from judge_tui.cli import main

    answers = tmp_path / "answers.jsonl"
    answers.write_text('{"item_id": "P0", "answer": {"label": "PASS"}}\n')
    typo = tmp_path / "stduy.db"
    args = [str(answers) if a == "ANSWERS" else str(tmp_path / "b.db") if a == "OUT" else a for a in command]
    assert main([*args, "--db", str(typo)]) == 1
    assert f"{typo}: no such database" in capsys.readouterr().err
    assert list(tmp_path.glob("stduy.db*")) == []


def test_an_import_that_imports_nothing_fails_and_leaves_no_database(tmp_path: Path, hermetic_home: Path,
                                                                    capsys: pytest.CaptureFixture[str]):
    """A promptfoo run in which the provider failed on every test: no item to import."""
    import json

    from judge_tui.cli import main

    results = json.loads((Path(__file__).parents[1] / "fixtures" / "promptfoo_v2_binary.json").read_text())
    for entry in results["results"]["results"]:
        entry["error"], entry["response"] = "API error: 500 Internal Server Error", None
    failed = tmp_path / "failed.json"
    failed.write_text(json.dumps(results))
    db = tmp_path / "new.db"
    assert main(["import", str(failed), "--rubric", "binary", "--db", str(db)]) == 1
    err = capsys.readouterr().err
    assert f"nothing imported from {failed}" in err
    assert "no item is left to import" in err
    assert "the provider failed on this test (API error: 500 Internal Server Error)" in err
    assert list(tmp_path.glob("new.db*")) == []
