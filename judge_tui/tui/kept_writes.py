"""Writes the app makes besides the rating session's drafts and ratings (a consensus, a revision mark, the
study's settled mark): written at once when the database takes them within a moment, else kept in order and
written by the app's retry each second once the other process lets go, so a key never waits for a merge or an
import in another window and the app never stops on one.

The rating session keeps its own drafts and ratings the same way (RatingSession.pending); both say why with
WAITING.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any
from weakref import WeakKeyDictionary

from textual.app import App

from judge_tui.store import Store
from judge_tui.store.core import is_busy, is_full

WRITE_WAIT = 0.1  # seconds a write may hold up the screen before it is kept for later

WAITING = {  # what the app says while changes wait to be saved (waiting_reason)
    "busy": "database busy (another program writes): changes kept, saved later",
    "full": "disk full: changes kept, saved once space is freed",
}


def waiting_reason(exc: sqlite3.OperationalError) -> str:
    """Why a write must wait: "busy" (another process writes), "full" (disk) or "error: <SQLite's message>"."""
    return "busy" if is_busy(exc) else "full" if is_full(exc) else f"error: {exc}"


def short_reason(reason: str) -> str:
    """The reason in a few words, for the judge's part of the status line."""
    return {"busy": "database busy", "full": "disk full"}.get(reason, reason.removeprefix("error: "))


def waiting_text(reason: str) -> str:
    if not reason:
        return ""
    return WAITING.get(reason, f"cannot save ({reason.removeprefix('error: ')}): changes kept, saved later")


@dataclass(frozen=True)
class KeptWrite:
    change: Callable[[], object]
    saved: str  # said once a write that had to wait is done ("" for nothing)


class KeptWrites:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.pending: list[KeptWrite] = []
        self.waiting_for = ""  # as RatingSession.waiting_for
        self.saved_late: list[str] = []  # what was written after waiting, for the app to say

    def write(self, change: Callable[[], object], saved: str = "") -> bool:
        """Write now, or keep it (behind any write already waiting); True when written now."""
        self.pending.append(KeptWrite(change, saved))
        if len(self.pending) > 1:
            return False  # in order: the retry writes it after those before it
        return self.flush(late=False)

    def flush(self, *, late: bool = True) -> bool:
        """Write the kept changes, oldest first; True when none is left waiting."""
        while self.pending:
            write = self.pending[0]
            try:
                with self.store.waiting_at_most(WRITE_WAIT):
                    write.change()
            except sqlite3.OperationalError as exc:
                self.waiting_for = waiting_reason(exc)
                return False
            self.pending.pop(0)
            if late and write.saved:
                self.saved_late.append(write.saved)
        self.waiting_for = ""
        return True


_KEPT: WeakKeyDictionary[App[Any], KeptWrites] = WeakKeyDictionary()


def write_when_free(app: App[Any], store: Store, change: Callable[[], object], saved: str = "") -> bool:
    """Write now, or keep the change and say so (once, while the database stays busy); the app retries each
    second and says `saved` once it is written. True when written now."""
    kept = _KEPT.get(app)
    if kept is None:
        kept = _KEPT[app] = KeptWrites(store)
        app.set_interval(1.0, partial(_retry, app, kept))
    was_waiting = bool(kept.waiting_for)
    written = kept.write(change, saved)
    if not written and not was_waiting and kept.waiting_for:
        app.notify(waiting_text(kept.waiting_for), markup=False, severity="warning", timeout=8)
    return written


def writes_waiting(app: App[Any]) -> bool:
    """Whether changes are still kept unsaved after one more try (the app waits for them before it quits)."""
    kept = _KEPT.get(app)
    return kept is not None and not kept.flush()


def _retry(app: App[Any], kept: KeptWrites) -> None:
    if kept.pending and kept.flush():
        for saved in kept.saved_late:
            app.notify(saved, markup=False, timeout=4)
        kept.saved_late.clear()
