"""Messages other parts of judge-tui post to the app."""

from __future__ import annotations

from textual.message import Message


class JudgeStatus(Message):
    """What the background judge is doing, shown in the status line (e.g. "judge: 18 queued · offline").

    Post it to the app (`app.post_message(JudgeStatus(text))`); a newer status replaces a pending older one.
    """

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, JudgeStatus)
