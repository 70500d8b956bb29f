"""The line at the top of the rating screen: progress, the item's timer, the reviewer and the judge."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from judge_tui.textsafe import clean
from judge_tui.tui.timer import TimerState, format_seconds

_PAUSED = {"running": "", "idle": " (idle, paused)", "away": " (away, paused)", "held": " (submitted, stopped)"}


class StatusLine(Static):
    def __init__(self, reviewer: str, **kwargs: object) -> None:
        super().__init__(markup=False, **kwargs)  # type: ignore[arg-type]
        self.reviewer = reviewer
        self.progress = {"rated": 0, "skipped": 0, "flagged": 0, "total": 0}
        self.seconds = 0.0
        self.timer_state: TimerState = "running"
        self.judge = ""
        self.waiting = ""  # why changes are kept unsaved for now (the database is busy, the disk full)

    def set_progress(self, progress: dict[str, int]) -> None:
        self.progress = dict(progress)
        self._redraw()

    def set_time(self, seconds: float, state: TimerState) -> None:
        if int(seconds) != int(self.seconds) or state != self.timer_state:
            self.seconds, self.timer_state = seconds, state
            self._redraw()

    def set_judge(self, text: str) -> None:
        self.judge = clean(text)
        self._redraw()

    def set_waiting(self, text: str) -> None:
        if text != self.waiting:
            self.waiting = text
            self._redraw()

    def _redraw(self) -> None:
        p = self.progress
        line = Text(no_wrap=True, overflow="ellipsis")
        if self.waiting:  # first, so that even 80 columns show it
            line.append(f"⚠ {self.waiting}", "bold reverse")
            line.append("  │  ", "dim")
        line.append(f"{p['rated']} rated", "bold")
        line.append(f" · {p['skipped']} skipped · {p['flagged']} flagged · {p['total']} total")
        line.append("  │  ", "dim")
        line.append(f"⏱ {format_seconds(self.seconds)}", "bold" if self.timer_state == "running" else "dim")
        line.append(_PAUSED[self.timer_state], "dim")
        line.append("  │  ", "dim")
        line.append(self.reviewer)
        if self.judge:
            line.append("  │  ", "dim")
            line.append(self.judge)
        self.update(line)
