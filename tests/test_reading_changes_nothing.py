"""A command that only reads never creates or changes a database: not a mistyped path, not an empty file,
not another program's SQLite file; and an import of a file that holds nothing makes no database."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from tests.faults.conftest import REPO, no_traceback, run

pytestmark = pytest.mark.slow

READING = [["report"], ["export"], ["history"], ["status"], ["flags"], ["failures"], ["certify"]]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize(("name", "text"), [("empty.jsonl", ""), ("blank.jsonl", "  \n\n"), ("list.json", "[]\n"),
                                            ("header.csv", "id,query,criterion,response\n")])
@pytest.mark.parametrize("command", ["import", "import-ratings"])
def test_a_file_holding_nothing_makes_no_database(tmp_path: Path, hermetic_home: Path, name: str, text: str,
                                                  command: str):
    source = tmp_path / name
    source.write_text(text)
    db = tmp_path / "new.db"
    how = ["--rubric", "binary"] if command == "import" else ["--rater", "ann", "--kind", "human"]
    proc = run(command, source, *how, "--db", db, home=hermetic_home)
    assert proc.returncode == 1
    no_traceback(proc)
    assert f"the file holds no {'items' if command == 'import' else 'ratings'}" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


@pytest.mark.parametrize("command", READING)
def test_a_mistyped_database_is_not_created(tmp_path: Path, hermetic_home: Path, command: list[str]):
    typo = tmp_path / "typo.db"
    proc = run(*command, "--db", typo, home=hermetic_home)
    assert proc.returncode == 1
    no_traceback(proc)
    assert f"{typo}: no such database" in proc.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", READING)
def test_an_empty_file_is_not_given_a_schema(tmp_path: Path, hermetic_home: Path, command: list[str]):
    empty = tmp_path / "empty.db"
    empty.touch()
    proc = run(*command, "--db", empty, home=hermetic_home)
    assert proc.returncode == 1
    no_traceback(proc)
    assert "holds no judge-tui database yet (it is empty); judge-tui left it unchanged" in proc.stderr
    assert empty.stat().st_size == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.db"]


@pytest.mark.parametrize("command", [*READING, ["import", "ITEMS", "--rubric", "binary"]])
def test_another_programs_migrated_database_is_left_alone(tmp_path: Path, hermetic_home: Path, command: list[str]):
    """A file holding only sqlite-utils' record of another program's migrations is that program's, not new."""
    other = tmp_path / "notes.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE _sqlite_migrations (migration_set TEXT, name TEXT, applied_at TEXT)")
        conn.execute("INSERT INTO _sqlite_migrations VALUES ('notes_app', 'm001_initial', '2026-01-01')")
    conn.close()
    before = _digest(other)
    items = REPO / "data" / "binary.jsonl"
    proc = run(*[items if part == "ITEMS" else part for part in command], "--db", other, home=hermetic_home)
    assert proc.returncode == 1
    no_traceback(proc)
    assert "a SQLite database of another program" in proc.stderr
    assert "migrations of notes_app" in proc.stderr
    assert _digest(other) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]


def test_reading_a_bundle_leaves_its_bytes_as_they_were(tmp_path: Path, hermetic_home: Path):
    db, bundle = tmp_path / "ann.db", tmp_path / "ann.bundle.db"
    for args in (["import", REPO / "data" / "binary.jsonl", "--db", db],
                 ["import-ratings", REPO / "data" / "binary.labels.jsonl", "--rater", "ann", "--kind", "human",
                  "--db", db],
                 ["export", "--bundle", "--rater", "ann", "-o", bundle, "--db", db]):
        assert run(*args, home=hermetic_home).returncode == 0
    before = _digest(bundle)
    for command in READING:
        proc = run(*command, "--db", bundle, home=hermetic_home)
        no_traceback(proc)
    assert _digest(bundle) == before
    assert not Path(f"{bundle}-wal").exists()
