"""Faults of the machine end in a clear message with what to do, never a traceback, and lose nothing."""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

import pytest

from judge_tui.model.records import Rating
from judge_tui.model.rubrics import get_rubric
from judge_tui.store import Store
from tests.faults.conftest import no_traceback, remount, run, write_items
from tests.faults.locker import Locker


def _database(path: Path, items: int, *, ratings: int = 0, prefix: str = "P") -> Path:
    """A judge-tui database of `items` binary items, the first `ratings` of them rated by EXP001 and a judge."""
    rubric = get_rubric("binary")
    with Store(path) as store:
        version = store.ensure_rubric_version(rubric)
        from judge_tui.model.records import Item

        store.add_items([Item(id=f"{prefix}{n}", rubric="binary", fields={"query": "q" * 300, "criterion": "c",
                                                                          "response": f"r{n}" + "r" * 300})
                         for n in range(items)])
        store.ensure_rater("EXP001", "human")
        store.ensure_rater("JUDGE", "judge", model="claude-test")
        store.save_ratings([Rating(item_id=f"{prefix}{n}", rater_id=rater, rubric_version_id=version,
                                   scores={"label": 1.0}, overall=1.0, verdict="PASS", notes="fine", seconds=3.0)
                            for n in range(ratings) for rater in ("EXP001", "JUDGE")])
    return path


def _count(path: Path, table: str) -> int:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        conn.close()


def _fill(folder: Path) -> None:
    """Take every free byte of the file system holding folder."""
    with (folder / "filler").open("wb") as f:
        try:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        except OSError:
            pass


# ---------------------------------------------------------------------------------------------- a full disk


def test_import_onto_a_full_disk_says_so_and_keeps_the_database_as_it_was(tmp_path, disk, hermetic_home):
    db = _database(disk("1m") / "study.db", 5)
    proc = run("import", write_items(tmp_path / "many.jsonl", 3000, prefix="N"), "--rubric", "binary", "--db", db,
               home=hermetic_home)
    assert proc.returncode == 1
    no_traceback(proc)
    assert f"the disk holding {db} is full" in proc.stderr
    assert "Free some space" in proc.stderr
    assert _count(db, "items") == 5


@pytest.mark.slow
def test_merge_onto_a_full_disk_says_so_and_keeps_the_database_as_it_was(tmp_path, disk, hermetic_home):
    db = _database(disk("1m") / "lead.db", 5)
    other = _database(tmp_path / "expert.db", 3000, ratings=3000, prefix="X")
    proc = run("merge", other, "--db", db, home=hermetic_home)
    assert proc.returncode == 1
    no_traceback(proc)
    assert "is full" in proc.stderr
    assert _count(db, "items") == 5
    assert _count(db, "ratings") == 0


def test_export_onto_a_full_disk_says_so_and_leaves_no_partial_file(tmp_path, disk, hermetic_home):
    db = _database(tmp_path / "study.db", 50, ratings=50)
    folder = disk("256k")
    _fill(folder)
    proc = run("export", "--db", db, "-o", folder / "ratings.jsonl", home=hermetic_home)
    assert proc.returncode == 1
    no_traceback(proc)
    assert "no space left on the disk" in proc.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["filler"]


# ---------------------------------------------------------------------------------------------- read-only


@pytest.mark.slow
def test_a_database_on_read_only_media_can_be_read_and_merged_from_but_not_changed(tmp_path, disk,
                                                                                   hermetic_home):
    media = disk("8m")
    expert = _database(media / "expert.db", 20, ratings=20)
    remount(media, "ro")
    report = run("report", "--db", expert, home=hermetic_home)
    assert report.returncode == 0, report.stderr
    exported = run("export", "--db", expert, home=hermetic_home)
    assert exported.returncode == 0
    assert len(exported.stdout.splitlines()) == 40
    for command in (["import", write_items(tmp_path / "i.jsonl", 2, prefix="N"), "--rubric", "binary"], ["split"],
                    ["rate", "--reviewer", "EXP001"], ["judge", "--backend", "command", "--cmd", "false"]):
        proc = run(*command, "--db", expert, home=hermetic_home)
        assert proc.returncode == 1, proc.stderr
        no_traceback(proc)
        assert f"{expert} cannot be changed: the file, its folder or the disk is read-only" in proc.stderr
    lead = tmp_path / "lead.db"
    merged = run("merge", expert, "--db", lead, home=hermetic_home)
    assert merged.returncode == 0, merged.stderr
    assert _count(lead, "ratings") == 40


def test_export_into_a_read_only_folder_or_onto_a_folder_is_a_clear_error(tmp_path, disk, hermetic_home):
    db = _database(tmp_path / "study.db", 5, ratings=5)
    media = disk("1m")
    remount(media, "ro")
    proc = run("export", "--db", db, "-o", media / "out.jsonl", home=hermetic_home)
    assert proc.returncode == 1
    no_traceback(proc)
    assert "read-only" in proc.stderr
    folder = tmp_path / "exports"
    folder.mkdir()
    proc = run("export", "--db", db, "-o", folder, home=hermetic_home)
    assert proc.returncode == 1
    no_traceback(proc)
    assert f"{folder} is a folder; give a file name" in proc.stderr
    assert list(folder.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["disk0", "exports", "study.db"]


# ---------------------------------------------------------------------------------------------- damage


def _damage(path: Path) -> None:
    """Overwrite ten pages in the middle of the file, as a failing disk would."""
    middle = path.stat().st_size // 4096 // 2  # the rows' pages, wherever a new table moves them
    with path.open("r+b") as f:
        for page in range(middle - 5, middle + 5):
            f.seek(page * 4096)
            f.write(b"\xde\xad\xbe\xef" * 256)


@pytest.mark.slow
def test_a_damaged_database_is_named_as_such_and_a_full_check_is_offered(tmp_path, hermetic_home):
    db = _database(tmp_path / "study.db", 600, ratings=600)
    _damage(db)
    for command in (["export"], ["split"], ["import", write_items(tmp_path / "i.jsonl", 2, prefix="N"),
                                            "--rubric", "binary"],
                    ["merge", _database(tmp_path / "expert.db", 3, ratings=3, prefix="E")]):
        proc = run(*command, "--db", db, home=hermetic_home)
        assert proc.returncode == 1, (command, proc.stdout)
        no_traceback(proc)
        assert f"{db} is damaged (database disk image is malformed)" in proc.stderr
        assert f"judge-tui check --db {db}" in proc.stderr
    check = run("check", "--db", db, home=hermetic_home)
    assert check.returncode == 1
    assert "is damaged" in check.stdout
    healthy = run("check", "--db", _database(tmp_path / "fine.db", 10), home=hermetic_home)
    assert healthy.returncode == 0
    assert "no damage found" in healthy.stdout


# ---------------------------------------------------------------------------------------------- a busy database


@pytest.mark.slow
def test_a_command_waiting_too_long_for_another_process_says_so(tmp_path, hermetic_home):
    db = _database(tmp_path / "study.db", 3)
    with Locker(db):
        proc = run("import", write_items(tmp_path / "i.jsonl", 2, prefix="N"), "--rubric", "binary", "--db", db,
                   home=hermetic_home)
    assert proc.returncode == 1
    no_traceback(proc)
    assert f"{db} is busy: another program" in proc.stderr
    assert "run it again" in proc.stderr
    assert _count(db, "items") == 3


# ---------------------------------------------------------------------------------------------- settings, rubrics


def test_a_settings_file_that_is_not_utf8_or_nested_too_deep_is_a_clear_error(tmp_path, hermetic_home):
    db = _database(tmp_path / "study.db", 3)
    settings = hermetic_home / "settings.json"
    for content, message in ((b"\xff\xfe{\"idle_seconds\": 60}", "is not UTF-8 text"),
                             (b"[" * 100_000 + b"]" * 100_000, "is nested too deeply")):
        settings.write_bytes(content)
        proc = run("rate", "--db", db, "--reviewer", "EXP001", home=hermetic_home)
        assert proc.returncode == 1
        no_traceback(proc)
        assert f"{settings}: settings file {message}" in proc.stderr


@pytest.mark.slow
def test_a_broken_rubric_file_makes_only_that_rubric_unusable(tmp_path, hermetic_home):
    folder = hermetic_home / "rubrics"
    folder.mkdir()
    broken = folder / "mine.rubric.toml"
    broken.write_text('id = "mine"\nname = 3\n')
    listed = run("rubrics", home=hermetic_home)
    assert listed.returncode == 0
    no_traceback(listed)
    assert listed.stderr.count(str(broken)) == 1
    assert "field name" in listed.stderr
    assert "binary" in listed.stdout
    assert "cis" in listed.stdout
    db = tmp_path / "study.db"
    imported = run("import", write_items(tmp_path / "i.jsonl", 2), "--rubric", "binary", "--db", db,
                   home=hermetic_home)
    assert imported.returncode == 0, imported.stderr
    assert str(broken) in imported.stderr
    assert _count(db, "items") == 2
    needed = run("import", tmp_path / "i.jsonl", "--rubric", "mine", "--db", db, home=hermetic_home)
    assert needed.returncode == 1
    assert "unknown rubric 'mine'" in needed.stderr
    assert str(broken) in needed.stderr


def test_judge_on_a_full_disk_says_so(tmp_path, disk, hermetic_home):
    folder = disk("3m")
    db = _database(folder / "study.db", 2000)
    _fill(folder)
    filler = folder / "filler"
    os.truncate(filler, max(0, filler.stat().st_size - 200_000))  # room to open the database, not to judge
    answer = tmp_path / "answer.py"
    answer.write_text("import sys\nsys.stdin.read()\nprint('{\"reasoning\": \"ok\", \"label\": \"PASS\"}')\n")
    proc = run("judge", "--db", db, "--rubric", "binary", "--backend", "command", "--cmd",
               f"{sys.executable} {answer}", home=hermetic_home)
    assert proc.returncode == 1
    no_traceback(proc)
    assert f"the disk holding {db} is full" in proc.stderr


def test_a_full_disk_at_opening_says_so(tmp_path, disk, hermetic_home):
    folder = disk("3m")
    db = _database(folder / "study.db", 200)
    _fill(folder)
    proc = run("report", "--db", db, home=hermetic_home)
    assert proc.returncode == 1
    no_traceback(proc)
    assert "the disk may be full" in proc.stderr


_EXCLUSIVE = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA locking_mode=EXCLUSIVE")
conn.execute("BEGIN EXCLUSIVE")
conn.execute("INSERT INTO meta (key, value) VALUES ('held_by', 'x') ON CONFLICT (key) DO UPDATE SET value = 'x'")
print("locked", flush=True)
sys.stdin.readline()
"""


@pytest.mark.slow
def test_a_database_another_program_holds_exclusively_is_busy_not_a_wrong_path(tmp_path, hermetic_home):
    import subprocess
    import sys

    db = _database(tmp_path / "study.db", 3)
    holder = subprocess.Popen([sys.executable, "-c", _EXCLUSIVE, str(db)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "locked"
        proc = run("status", "--db", db, home=hermetic_home)
    finally:
        holder.kill()
        holder.wait()
    assert proc.returncode == 1
    no_traceback(proc)
    assert proc.stderr.startswith(f"judge-tui: {db} is busy: another program")
    assert "run it again" in proc.stderr
    assert "Check the path" not in proc.stderr
    assert "cannot open" not in proc.stderr
