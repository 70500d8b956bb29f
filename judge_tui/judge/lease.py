"""Who owns a running judge job: a lease held by a live judge process, so two judges never pay twice.

Each running judge (a `judge-tui judge` process, or the judge inside the app) registers itself in
judge_workers and beats a heartbeat while it runs; every job it claims carries its id. Another judge re-queues a
running job only when its owner is gone: its process has ended (same machine, checked by process id) or its
heartbeat is older than the lease (another machine sharing the file, or a process that hangs).
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from judge_tui.store import Store

LEASE_SECONDS = 60.0  # a judge whose heartbeat is older than this is taken for dead
Clock = Callable[[], datetime]


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _stamp(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds")


def process_running(pid: int) -> bool:
    """Is a process with this id running on this machine? (True when it cannot be told.)"""
    if os.name != "posix":
        return True  # os.kill(pid, 0) would end the process on Windows: rely on the heartbeat there
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


class Lease:
    """This process's claim on the jobs it runs; `owner` is the id written on each of them."""

    def __init__(self, store: Store, *, seconds: float = LEASE_SECONDS, clock: Clock = _utc_now) -> None:
        self.store = store
        self.seconds = seconds
        self.clock = clock
        self.owner = uuid.uuid4().hex
        self.host = socket.gethostname()
        self.pid = os.getpid()

    @property
    def beat_every(self) -> float:
        """Seconds between heartbeats: several per lease, so one late beat does not lose it."""
        return self.seconds / 4

    def register(self) -> None:
        self.store.register_judge_worker(self.owner, self.host, self.pid, _stamp(self.clock()))

    def beat(self) -> None:
        self.store.judge_worker_heartbeat(self.owner, _stamp(self.clock()))

    def release(self) -> None:
        self.store.remove_judge_workers([self.owner])

    def alive(self, worker: dict[str, Any]) -> bool:
        if worker["id"] == self.owner:
            return True
        if worker["host"] == self.host and not process_running(int(worker["pid"])):
            return False
        beat = datetime.fromisoformat(worker["heartbeat_at"])
        return self.clock() - beat <= timedelta(seconds=self.seconds)

    def live_owners(self) -> list[str]:
        """The judges still running; the rows of those that are gone are removed."""
        live: list[str] = []
        gone: list[str] = []
        for worker in self.store.judge_workers():
            (live if self.alive(worker) else gone).append(worker["id"])
        if gone:
            self.store.remove_judge_workers(gone)
        return live
