"""One rating session per reviewer and database: a second window of the same reviewer is refused at its start.

Two windows of one reviewer on one database would each keep their own view of the same drafts and ratings, and
the later submit would silently replace the earlier one. The lock is the operating system's (a POSIX record lock
on one byte per reviewer of `<database>-sessions`, beside the database), so it ends with the process that holds
it: a window that crashed or was killed never locks its reviewer out, and nothing has to be cleaned up.

Where no such lock can be had (Windows, a read-only folder, an in-memory database) the session goes ahead
unlocked: a database that cannot be written cannot be overwritten either.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]  # no record locks there: sessions go unlocked


class ReviewerBusy(Exception):
    """This reviewer already has a rating session open on this database (in another process)."""


def _byte_of(reviewer: str) -> int:
    """The byte of the lock file that stands for this reviewer (a 40-bit hash: two ids never meet in practice)."""
    return int.from_bytes(hashlib.sha256(reviewer.encode("utf-8")).digest()[:5], "big")


class ReviewerLock:
    """Held from `acquire()` until `release()` or the end of the process."""

    def __init__(self, database: Path, reviewer: str) -> None:
        self.path = Path(f"{database}-sessions")
        self.reviewer = reviewer
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock, or raise ReviewerBusy; goes ahead unlocked where no lock can be had."""
        if fcntl is None or self._fd is not None:
            return
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:
            return  # a read-only folder: the database cannot be written from here either
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, _byte_of(self.reviewer))
        except OSError:
            os.close(fd)
            raise ReviewerBusy(self.reviewer) from None
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the file drops the process's locks on it
            self._fd = None
