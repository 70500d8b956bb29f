"""Messages posted to the app: the judge's status line text, the background judge's queue progress, and a new
version of the rubric or the judge prompt put in force from the judge screen."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:  # the judge's modules stay off the app's start-up path
    from judge_tui.judge.worker import JudgeStatus as QueueStatus
    from judge_tui.model.rubrics import Rubric


class JudgeStatusLine(Message):
    """What the background judge is doing, shown in the status line (e.g. "judge: 18 queued · offline").

    Post it to the app (`app.post_message(JudgeStatusLine(text))`); a newer status replaces a pending older one.
    """

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, JudgeStatusLine)


class JudgeProgress(Message):
    """The background judge's queue changed: counts, and whether it is offline or stopped (and why)."""

    def __init__(self, status: QueueStatus) -> None:
        super().__init__()
        self.status = status

    @classmethod
    def from_status(cls, status: QueueStatus) -> JudgeProgress:
        return cls(status)

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, JudgeProgress)

    def line(self) -> str:
        """e.g. 'judge: 18 queued · offline' (plain text: show it with markup off)."""
        return self.status.line()


class JudgeDefinitionChanged(Message):
    """The judge screen put another rubric or judge template in force (a change saved, kept or reverted): every
    part of the running app takes it up, the rating screen's rubric and the background judge alike."""

    def __init__(self, rubric: Rubric) -> None:
        super().__init__()
        self.rubric = rubric
