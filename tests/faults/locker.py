"""Another process holding a judge-tui database's write lock (as a long merge or import does) until released."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_SCRIPT = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
if sys.argv[2] == "exclusive":
    conn.execute("PRAGMA locking_mode=EXCLUSIVE")  # after its first write, not even a reader gets in
conn.execute("BEGIN IMMEDIATE")
conn.execute("INSERT INTO meta (key, value) VALUES ('held_by', 'another process')"
             " ON CONFLICT (key) DO UPDATE SET value = excluded.value")
print("locked", flush=True)
sys.stdin.readline()
conn.execute("COMMIT")
print("released", flush=True)
"""


class Locker:
    """`with Locker(path):` another process holds BEGIN IMMEDIATE on the database; release() commits.

    exclusive: the other process holds SQLite's exclusive locking mode, which shuts out readers as well."""

    def __init__(self, path: Path, *, exclusive: bool = False) -> None:
        self.path = path
        self.exclusive = exclusive
        self.process: subprocess.Popen[str] | None = None

    def __enter__(self) -> Locker:
        self.process = subprocess.Popen([sys.executable, "-c", _SCRIPT, str(self.path),
                                         "exclusive" if self.exclusive else "write"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        assert self.process.stdout.readline().strip() == "locked"
        return self

    def release(self) -> None:
        if self.process is not None and self.process.poll() is None:
            assert self.process.stdin is not None
            assert self.process.stdout is not None
            self.process.stdin.write("\n")
            self.process.stdin.flush()
            assert self.process.stdout.readline().strip() == "released"
            self.process.wait(timeout=30)

    def __exit__(self, *exc: object) -> None:
        self.release()
