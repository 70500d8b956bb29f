"""`judge-tui check` on a healthy database in a read-only folder or on read-only media says it found no damage
and that the file is read-only; only SQLite's integrity check may call a database damaged.

The folder is made read-only for real: by its permissions when the tests run as a user, and by a read-only
bind mount when they run as root (whom permissions do not stop); read-only media is a tmpfs remounted ro.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.faults.conftest import REPO, no_traceback, remount, run

pytestmark = pytest.mark.slow


@pytest.fixture
def read_only_folder(tmp_path: Path) -> Iterator[Callable[[Path], Path]]:
    """read_only_folder(folder) -> the same files, in a folder this process cannot write to."""
    undo: list[Callable[[], object]] = []

    def make(folder: Path) -> Path:
        if os.geteuid() != 0:
            folder.chmod(0o555)
            undo.append(lambda: folder.chmod(0o755))
            return folder
        view = tmp_path / f"{folder.name}-ro"
        view.mkdir()
        for args in (["mount", "--bind", str(folder), str(view)], ["mount", "-o", "remount,bind,ro", str(view)]):
            if subprocess.run(args, capture_output=True).returncode != 0:
                pytest.skip("running as root without the right to mount: no real way to make a folder read-only")
            undo.append(lambda: subprocess.run(["umount", "-l", str(view)], check=False))
        return view

    yield make
    for step in reversed(undo):
        step()


def _healthy(folder: Path, home: Path) -> Path:
    """A WAL database closed cleanly (no -wal, no -shm left), as `judge-tui import` leaves it."""
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "study.db"
    proc = run("import", REPO / "data" / "binary.jsonl", "--db", db, home=home)
    assert proc.returncode == 0, proc.stderr
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
    assert sorted(p.name for p in folder.iterdir()) == ["study.db"]
    return db


def _says_read_only_not_damaged(db: Path, home: Path) -> None:
    proc = run("check", "--db", db, home=home)
    no_traceback(proc)
    assert "damaged" not in proc.stdout + proc.stderr
    assert proc.returncode == 0, proc.stderr
    assert f"{db}: no damage found (read-only: checked where it is, nothing written)" in proc.stdout
    assert run("report", "--db", db, "--format", "json", home=home).returncode in (0, 1)  # reads it too


def test_check_in_a_read_only_folder(tmp_path: Path, hermetic_home: Path, read_only_folder):
    db = _healthy(tmp_path / "laptop", hermetic_home)
    seen = read_only_folder(db.parent) / db.name
    _says_read_only_not_damaged(seen, hermetic_home)
    assert sorted(p.name for p in seen.parent.iterdir()) == ["study.db"]


def test_check_on_read_only_media(tmp_path: Path, hermetic_home: Path, disk):
    media = disk("4m")
    shutil.copy(_healthy(tmp_path / "laptop", hermetic_home), media / "study.db")
    remount(media, "ro")
    _says_read_only_not_damaged(media / "study.db", hermetic_home)


def test_a_damaged_database_on_read_only_media_is_still_called_damaged(tmp_path: Path, hermetic_home: Path, disk):
    source = _healthy(tmp_path / "laptop", hermetic_home)
    with source.open("r+b") as f:  # a page of the items table overwritten, as a failing disk would
        f.seek(4096 * 5)
        f.write(b"\xde\xad\xbe\xef" * 1024)
    media = disk("4m")
    shutil.copy(source, media / "study.db")
    remount(media, "ro")
    proc = run("check", "--db", media / "study.db", home=hermetic_home)
    no_traceback(proc)
    assert proc.returncode == 1
    assert "is damaged" in proc.stdout


def test_changes_still_in_the_wal_file_on_read_only_media_ask_for_a_copy(tmp_path: Path, hermetic_home: Path, disk):
    db = _healthy(tmp_path / "laptop", hermetic_home)
    writer = sqlite3.connect(db)  # a process killed before its checkpoint leaves its changes in -wal
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute("INSERT INTO meta (key, value) VALUES ('note', 'written last')")
    writer.commit()
    media = disk("4m")
    for name in ("study.db", "study.db-wal", "study.db-shm"):
        shutil.copy(db.parent / name, media / name)
    writer.close()
    remount(media, "ro")
    proc = run("check", "--db", media / "study.db", home=hermetic_home)
    no_traceback(proc)
    assert "damaged" not in proc.stdout + proc.stderr
    assert proc.returncode == 0 or "copy it and its -wal file to a writable folder" in proc.stderr, proc.stderr
