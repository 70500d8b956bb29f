"""The store's connection: opening the database, transactions, plain queries and the meta table.

Every area of the store (items, ratings, the judge queue...) is a class built on StoreCore.

Opening checks, before anything is written, that the file is a judge-tui database this version understands:
a SQLite file of another program, or one upgraded by a newer judge-tui, is refused and left as it was. These
checks read the file's header and schema only, so they cost the same on 10 items as on a million.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self
from urllib.parse import quote

from judge_tui.store.common import StoreError
from judge_tui.store.schema import load_sqlite_utils, migrations

if TYPE_CHECKING:
    import sqlite_utils

BUSY_TIMEOUT = 10.0  # seconds a write waits for another process's transaction before failing
SQLITE_HEADER = b"SQLite format 3\x00"
_WAIT_CODES = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}


def is_busy(exc: BaseException) -> bool:
    """Another connection holds the write lock (SQLITE_BUSY or SQLITE_LOCKED): waiting will help."""
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(exc, sqlite3.OperationalError) and code is not None and code & 0xFF in _WAIT_CODES


def is_full(exc: BaseException) -> bool:
    """The disk (or the database's size limit) is full: freeing space will help."""
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(exc, sqlite3.OperationalError) and code is not None and code & 0xFF == sqlite3.SQLITE_FULL


def read_only_uri(path: Path, *, immutable: bool = False) -> str:
    """A URI opening path read-only; immutable also needs no -shm file (a database on read-only media)."""
    return "file:" + quote(str(path.resolve())) + "?mode=ro" + ("&immutable=1" if immutable else "")


def connect_read_only(path: Path, wait: float = BUSY_TIMEOUT) -> sqlite3.Connection:
    """A read-only connection, even to a WAL database on read-only media (where SQLite cannot make its -shm)."""
    conn = sqlite3.connect(read_only_uri(path), uri=True, timeout=wait)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError:
        conn.close()
    wal = Path(f"{path}-wal")
    if wal.exists() and wal.stat().st_size > 0:
        # immutable would ignore the changes still in the -wal file: better no answer than a wrong one.
        raise StoreError(f"{path}: cannot read it where it is (read-only, with changes still in {wal.name}); "
                         "copy it and its -wal file to a writable folder and use the copy")
    return sqlite3.connect(read_only_uri(path, immutable=True), uri=True, timeout=BUSY_TIMEOUT)


def writable(path: Path) -> bool:
    """Can this process change the file and create its -wal and -shm files beside it?"""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


NOT_SQLITE = ("{path}: cannot open: not a SQLite database file (judge-tui left it unchanged). Check the path, or "
              "pass --db with another file")


def check_header(path: Path) -> None:
    """Refuse a non-empty file that is not SQLite at all, before SQLite is asked to open it. Only for a file no
    connection of this process has open: closing the file here drops this process's SQLite locks on it."""
    try:
        with path.open("rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return
    except IsADirectoryError:
        raise StoreError(f"{path}: cannot open: a folder, not a database file") from None
    if head and head != SQLITE_HEADER:
        raise StoreError(NOT_SQLITE.format(path=path))


def check_schema(conn: sqlite3.Connection, path: Path) -> set[str]:
    """Refuse another program's database and one a newer judge-tui has upgraded; both stay as they are.

    Returns the names of the migrations the database has: none for a new (empty) database.
    """
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
              if not r[0].startswith("sqlite_")}
    applied = set()
    others: set[str] = set()  # migration sets of other programs using sqlite-utils
    if "_sqlite_migrations" in tables:
        for migration_set, name in conn.execute("SELECT migration_set, name FROM _sqlite_migrations"):
            if migration_set == migrations.name:
                applied.add(name)
            else:
                others.add(migration_set)
    if not applied and not others and not tables - {"_sqlite_migrations"}:
        return applied  # a new database (or one whose first set-up was cut short): judge-tui sets it up
    if not applied:
        shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
        if others:
            shown += f"; migrations of {', '.join(sorted(map(str, others)))}"
        raise StoreError(
            f"{path} is a SQLite database of another program (tables {shown}), not a judge-tui database; "
            "judge-tui left it unchanged. Pass --db with a judge-tui database or a new file name")
    unknown = sorted(applied - set(migrations.names))
    if unknown:
        from judge_tui import __version__

        raise StoreError(
            f"{path} was upgraded by a newer judge-tui (it has {', '.join(unknown)}, which judge-tui "
            f"{__version__} does not know); judge-tui left it unchanged. Use the newer judge-tui "
            "(pip install -U judge-tui)")
    return applied


class StoreCore:
    """One connection to a judge-tui database, migrated on opening. It belongs to the thread that opened it.

    A file this process cannot write (read-only file, folder or media) is opened read-only: commands that
    only read work as usual, and a write fails with SQLite's "readonly database" error.
    """

    def __init__(self, path: Path | str, *, only_reading: bool = False, opening_wait: float = BUSY_TIMEOUT) -> None:
        """only_reading: the command never writes, so a missing or empty file is refused rather than set up, and
        the file's journal mode is left as it is (a bundle stays one file). An older judge-tui's database is
        still upgraded, so that it can be read. opening_wait: seconds opening waits for another program's lock
        (then SQLite's busy error); later writes wait BUSY_TIMEOUT."""
        self.path = Path(path)
        memory = str(path) == ":memory:"
        if not memory:
            # Not check_header: opening and closing the file from Python would drop the SQLite locks this
            # process holds on it (POSIX locks are per process), so another program could take this database
            # for unused and delete the -wal and -shm files from under the connections open here. SQLite
            # itself refuses a file that is not a database (SQLITE_NOTADB, below), before writing anything.
            if self.path.is_dir():
                raise StoreError(f"{path}: cannot open: a folder, not a database file")
            if only_reading and not self.path.exists():
                raise StoreError(f"{path}: no such database")
            if not self.path.exists():
                self.path.parent.mkdir(parents=True, exist_ok=True)
        self.read_only = not memory and self.path.exists() and not writable(self.path)
        conn = None
        try:
            conn = self._connect(str(path), opening_wait)
            applied = check_schema(conn, self.path)
            if not applied and only_reading:
                raise StoreError(f"{path} holds no judge-tui database yet (it is empty); judge-tui left it "
                                 f"unchanged. Import items into it first (judge-tui import FILE --db {path}), or "
                                 "check the path")
            if not self.read_only and not only_reading:
                conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT * 1000)}")
            self.conn = conn
            if not set(migrations.names) <= applied:
                if self.read_only:
                    raise StoreError(f"{path} is read-only and was made by an older judge-tui: make it writable "
                                     "once (judge-tui upgrades it), or open a writable copy")
                migrations.apply(self.db)
        except BaseException as exc:
            if conn is not None:
                conn.close()
            if not isinstance(exc, sqlite3.DatabaseError):
                raise
            code = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF
            if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
                raise  # another process holds it (an exclusive lock): a fault of the moment, not of the path
            if code == sqlite3.SQLITE_NOTADB:
                raise StoreError(NOT_SQLITE.format(path=path)) from None
            if code in (sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR):
                raise StoreError(f"{path}: cannot open ({exc}): the disk may be full or failing. Free some space "
                                 "(judge-tui needs room for the database's -wal and -shm files) and try again"
                                 ) from None
            raise StoreError(f"{path}: cannot open as a judge-tui database ({exc}). Check the path, or pass --db "
                             "with another file") from None

    @cached_property
    def db(self) -> sqlite_utils.Database:
        """The connection as sqlite-utils sees it (for migrations); sqlite-utils loads on first use."""
        load_sqlite_utils()
        import sqlite_utils

        # No sqlite-utils plugins: loading them scans every installed package (~40 ms at each start).
        return sqlite_utils.Database(self.conn, execute_plugins=False)

    def _connect(self, path: str, wait: float) -> sqlite3.Connection:
        if not self.read_only:
            return sqlite3.connect(path, timeout=wait)
        return connect_read_only(self.path, wait)

    def damage(self) -> str:
        """SQLite's quick check of every page ("" when sound). It reads the whole file: not for the app's start."""
        try:
            problems = [row[0] for row in self.conn.execute("PRAGMA quick_check")]
        except sqlite3.DatabaseError as exc:
            return str(exc)
        return "" if problems == ["ok"] else "; ".join(problems[:3])

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ transactions

    @contextmanager
    def waiting_at_most(self, seconds: float) -> Iterator[None]:
        """Writes inside give up after this many seconds if another process holds the database (is_busy)."""
        self.conn.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")
        try:
            yield
        finally:
            self.conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT * 1000)}")

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; nested use joins the outer one. Rolls back on any exception."""
        if self.conn.in_transaction:
            yield self.conn
            return
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.rollback()
            raise
        else:
            self.conn.commit()

    def query(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> list[dict[str, Any]]:
        cursor = self.conn.execute(sql, params)
        names = [d[0] for d in cursor.description or ()]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        row = self.conn.execute(sql, params).fetchone()
        return row[0] if row else None

    def rows_for_ids(self, sql: str, ids: Iterable[str]) -> Iterator[tuple[Any, ...]]:
        """The rows of sql, whose "IN ({ids})" is filled with these ids 500 at a time (SQLite limits parameters)."""
        ids = list(dict.fromkeys(ids))
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            # Not `yield from`: a generator left unfinished (memory ran out) and closed after the connection
            # would close the cursor too, which raises on a closed database.
            for row in self.conn.execute(sql.format(ids=",".join("?" * len(chunk))), chunk):  # noqa: UP028
                yield row

    # ------------------------------------------------------------------ meta

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        value = self.scalar("SELECT value FROM meta WHERE key = ?", [key])
        return default if value is None else value

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [key, value],
            )
