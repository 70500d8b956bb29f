"""The base of judge-tui's apps: every notification is plain, cleaned text.

Notices carry item ids, file names and error messages with user data in them. Textual parses a notice as
markup by default, and neither markup=False nor Rich removes escape sequences, so both are handled here once
(Screen.notify and Widget.notify go through App.notify).
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from textual.app import App

from judge_tui.model.textsafe import clean

ReturnType = TypeVar("ReturnType")
# The levels App.notify documents for its severity.
Severity = Literal["information", "warning", "error"]


class PlainNoticeApp(App[ReturnType]):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.notices: list[str] = []  # every notice shown since the last clear_notifications, as shown

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: Severity = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """A notification shown exactly as written: never parsed as markup, without control characters."""
        self.notices.append(clean(str(message)))
        super().notify(self.notices[-1], title=clean(title), severity=severity, timeout=timeout, markup=False)

    def clear_notifications(self) -> None:
        self.notices.clear()
        super().clear_notifications()

    def action_help_quit(self) -> None:
        """Ctrl+C (the reflex to quit): say which key quits, in plain words (Textual's own notice is markup)."""
        keys = [self.get_key_display(active.binding) for active in self.active_bindings.values()
                if active.binding.action in ("quit", "app.quit")]
        self.notify(f"Press {' or '.join(dict.fromkeys(keys))} to quit.", title="Do you want to quit?")
