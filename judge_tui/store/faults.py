"""Faults of the machine (a busy, read-only, full or damaged database; a file that cannot be written) as messages.

cli.main turns any sqlite3 or OS error that reaches it into one of these: what happened, that the command's
changes were rolled back (every write is one transaction), and what to do. No command catches them itself.
"""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

from judge_tui.store.core import BUSY_TIMEOUT

DAMAGED = (
    "{db} is damaged ({error}); this command changed nothing. See what is wrong with `judge-tui check --db {db}`, "
    "then restore the file from a backup or rebuild it by merging the experts' databases or bundles into a new one "
    "(judge-tui merge)"
)


READ_ONLY = (
    "{db} cannot be changed: the file, its folder or the disk is read-only. Commands that only read (report, "
    "export, history) work on it; to change it, make it writable (chmod u+w) or copy it somewhere writable and "
    "pass --db with the copy"
)


def describe_sqlite(exc: sqlite3.Error, db: Path) -> str:
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    error = str(exc)
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return (f"{db} is busy: another program (a merge, an import, a judge?) has been writing to it for over "
                f"{BUSY_TIMEOUT:.0f} s. This command changed nothing; run it again once the other has finished")
    if code == sqlite3.SQLITE_FULL:
        return (f"the disk holding {db} is full ({error}); this command's changes were rolled back and nothing "
                "saved before is lost. Free some space and run it again")
    if code == sqlite3.SQLITE_READONLY:
        return READ_ONLY.format(db=db)
    if code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return DAMAGED.format(db=db, error=error)
    if code == sqlite3.SQLITE_IOERR:
        return f"cannot read or write {db} ({error}): check the disk and run the command again"
    if code == sqlite3.SQLITE_CANTOPEN:
        return f"cannot open {db} ({error}): check that the file and its folder exist and can be read"
    return f"{db}: database error ({error})"


def describe_os(exc: OSError) -> str:
    where = exc.filename2 or exc.filename or "a file"  # a rename names its target second
    reason = exc.strerror or str(exc)
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"{where}: no space left on the disk; free some space and run the command again"
    if exc.errno == errno.EROFS:
        return f"{where}: the disk is read-only; write to a writable folder instead"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"{where}: permission denied; choose a file or folder you may write to, or change its permissions"
    if exc.errno == errno.EISDIR:
        return f"{where} is a folder; give a file name"
    if exc.errno == errno.ENOENT:
        return f"{where}: no such file or folder"
    return f"{where}: {reason}"
