"""Messages the app's screens exchange (the judge's progress for the status line)."""

from __future__ import annotations

from textual.message import Message

from judge_tui.judge.worker import JudgeStatus


class JudgeProgress(Message):
    """The background judge's queue changed: counts, and whether it is offline or stopped (and why)."""

    def __init__(self, queued: int, running: int, done: int, failed: int, offline: str = "",
                 error: str = "") -> None:
        super().__init__()
        self.queued = queued
        self.running = running
        self.done = done
        self.failed = failed
        self.offline = offline
        self.error = error

    @classmethod
    def from_status(cls, status: JudgeStatus) -> JudgeProgress:
        return cls(status.queued, status.running, status.done, status.failed, status.offline, status.error)

    @property
    def status(self) -> JudgeStatus:
        return JudgeStatus(self.queued, self.running, self.done, self.failed, self.offline, self.error)

    def line(self) -> str:
        """e.g. 'judge: 18 queued · offline' (plain text: show it with markup off)."""
        return self.status.line()
