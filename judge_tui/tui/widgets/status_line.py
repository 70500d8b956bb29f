"""The line at the top of the rating screen: which database (if not the study's), progress, the item's timer,
the reviewer and the judge.

When the full line does not fit (80 columns with a busy judge), a compact form keeps every state in view:
"3/25 rated" with skipped and flagged counts only when there are any, shorter separators and timer states,
the judge before the reviewer id; then tighter still (the judge's done, then running counts left out, then the
database's name, then "3/25 ↷1 ⚑2" and no settled count), so that the reviewer id and the judge's state stay. With an assignment (judge-tui
assign) the counts are of the reviewer's assigned items: "3/40 assigned rated", "40 assigned". Why changes
wait to be saved (a busy database, a full disk), when it happens, comes first and in full. A change shown but
not yet committed (the few milliseconds after a key) is marked "saving…" at the end of the line; a submitted
rating, once on disk, "✓ B001 saved: CIS 0.69" there for a few seconds (the line goes compact to make room for it). With a
balanced queue order, how many of the study's targets are decided ("2/4 questions settled", "2/4 settled").
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.text import Text
from textual import events

from judge_tui.formats.numbers import duration_text
from judge_tui.model.textsafe import clean
from judge_tui.tui.timer import TimerState
from judge_tui.tui.widgets.recurring_static import RecurringStatic

_PAUSED = {"running": "", "idle": " (idle, paused)", "away": " (away, paused)", "held": " (submitted, stopped)"}
_LINES_KEPT = 8  # the lines worked out for the last few states (a key's "saving…" on and off among them)
_PAUSED_SHORT = {"running": "", "idle": " idle", "away": " away", "held": " stopped"}


class StatusLine(RecurringStatic):
    def __init__(self, reviewer: str, *, database: str = "", assigned: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.reviewer = reviewer
        self.assigned = assigned  # the counts are of the reviewer's assignment
        self.database = database  # names a database that is not the user's study ("demo database")
        self.progress = {"rated": 0, "skipped": 0, "flagged": 0, "total": 0}
        self.seconds = 0.0
        self.timer_state: TimerState = "running"
        self.judge = ""
        self.settling = ""  # with balanced order: how many of the study's targets are decided ("2/4")
        self.waiting = ""  # why changes are kept unsaved for now (the database is busy, the disk full)
        self.saving = False  # a change is shown that is not on disk yet
        self.saved = ("", "")  # the last submitted rating once on disk: (item id, its overall score shown)
        self._held = 0  # inside `changing()`: the line is worked out at its end
        self._redraw_due = False
        self._lines: OrderedDict[Hashable, Text] = OrderedDict()  # the line for each state lately shown
        self._preparing = False

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

    def set_settling(self, decided: int, targets: int) -> None:
        text = f"{decided}/{targets}"
        if text != self.settling:
            self.settling = text
            self._redraw()

    def set_waiting(self, text: str) -> None:
        if text != self.waiting:
            self.waiting = text
            self._redraw()

    def set_saving(self, saving: bool) -> None:
        if saving != self.saving:
            self.saving = saving
            self._redraw()

    def set_saved(self, item_id: str, overall: str = "") -> None:
        """Mark a submitted rating as on disk (an empty item id clears the mark)."""
        saved = (clean(item_id), clean(overall))
        if saved != self.saved:
            self.saved = saved
            self._redraw()

    def on_resize(self, event: events.Resize) -> None:
        self._redraw()

    @contextmanager
    def changing(self) -> Iterator[None]:
        """Several parts changed at once (a new item: its time, the saved mark, "saving…"): the line is worked
        out once, at the end, not once for each part."""
        self._held += 1
        try:
            yield
        finally:
            self._held -= 1
            if not self._held and self._redraw_due:
                self._redraw()

    def _redraw(self) -> None:
        # Redrawn only when it changes; one line high whatever it says: the line alone is drawn again, and a
        # look it had before ("saving…" on, then off once committed) from the lines kept.
        if self._held:
            self._redraw_due = True
            return
        self._redraw_due = False
        self.show_look(self._line_for_state())
        if not self.saving and not self._preparing:
            self._preparing = True
            self.call_after_refresh(self._prepare_saving)

    def _line_for_state(self) -> Text:
        """The line for what it shows now, worked out once for each state."""
        width = self.content_region.width
        state = (tuple(self.progress.items()), duration_text(self.seconds), self.timer_state, self.judge,
                 self.settling, self.waiting, self.saving, self.saved, self.reviewer, self.database, self.assigned,
                 width)
        line = self._lines.get(state)
        if line is None:
            line = self._lines[state] = self._widest_that_fits(width)
            if len(self._lines) > _LINES_KEPT:
                self._lines.popitem(last=False)
        return line

    def _prepare_saving(self) -> None:
        """Work out and draw the line as it is with "saving…" (what the next key shows), once this frame is
        painted, so that the key's own frame only sends it."""
        self._preparing = False
        if self.saving or not self.is_attached:
            return
        self.saving = True  # the line as it will be: worked out, not shown
        try:
            line = self._line_for_state()
        finally:
            self.saving = False
        self.prepare_look(line)

    def _widest_that_fits(self, width: int) -> Text:
        line = None
        for compact, tight in ((False, 0), (True, 0), (True, 1), (True, 2), (True, 3)):  # the widest that fits
            plain = self.line(compact=compact, tight=tight)
            line = next((marked for marked in self._with_saved_mark(plain, compact)
                         if not width or marked.cell_len <= width), None)
            if line is not None:
                break
        if line is None:  # nothing fits: the narrowest form, the saved mark at its shortest, cut at the edge
            line = self._with_saved_mark(plain, compact=True, shortest=True)[-1]
        return line

    def _with_saved_mark(self, line: Text, compact: bool, shortest: bool = False) -> list[Text]:
        """The line with the mark of a submitted rating on disk, longest first ("✓ B001 saved: CIS 0.69",
        "✓ B001 saved"; "✓ saved" when nothing else fits); the line alone when there is no mark."""
        item_id, overall = self.saved
        if not item_id or self.saving:
            return [line]
        marks = ["✓ saved"] if shortest else [f"✓ {item_id} saved: {overall}" if overall else "", f"✓ {item_id} saved"]
        marked_lines = []
        for mark in filter(None, marks):
            marked = line.copy()
            marked.append(" │ " if compact else "  │  ", "dim")
            marked.append(mark, "green")
            marked_lines.append(marked)
        return marked_lines

    def line(self, *, compact: bool, tight: int = 0) -> Text:
        """The line, full or compact; `tight` 1–3 shortens it further, step by step, keeping the reviewer id
        and the judge's state."""
        p = self.progress
        bar = " │ " if compact else "  │  "
        line = Text(no_wrap=True, overflow="ellipsis")
        if self.waiting:  # first and in full, so that even 80 columns show why nothing is saved
            line.append(f"⚠ {self.waiting}", "bold reverse")
            line.append(bar, "dim")
        if self.database and tight < 3:
            line.append(self.database.split()[0] if compact else self.database, "reverse")
            line.append(bar, "dim")
        if tight >= 3:
            line.append(f"{p['rated']}/{p['total']}{' assigned' if self.assigned else ''}", "bold")
            line.append("".join(f" {mark}{p[what]}" for what, mark in (("skipped", "↷"), ("flagged", "⚑"))
                                if p[what]))
        elif compact:
            line.append(f"{p['rated']}/{p['total']} {'assigned ' if self.assigned else ''}rated", "bold")
            line.append("".join(f" · {p[what]} {what}" for what in ("skipped", "flagged") if p[what]))
        else:
            line.append(f"{p['rated']} rated", "bold")
            line.append(f" · {p['skipped']} skipped · {p['flagged']} flagged · {p['total']} "
                        f"{'assigned to you' if self.assigned else 'total'}")
        if self.settling and tight < 3:  # progress toward a decision (balanced order): a count, never which way
            line.append(bar, "dim")
            line.append(f"{self.settling} settled" if compact else f"{self.settling} questions settled")
        line.append(bar, "dim")
        line.append(f"⏱ {duration_text(self.seconds)}", "bold" if self.timer_state == "running" else "dim")
        line.append((_PAUSED_SHORT if compact else _PAUSED)[self.timer_state], "dim")
        judge = _shorter_judge(self.judge, tight)
        for part in [judge, self.reviewer] if compact else [self.reviewer, judge]:
            if part:
                line.append(bar, "dim")
                line.append(part)
        if self.saving:
            line.append(bar, "dim")
            line.append("saving…", "italic")
        return line


def _shorter_judge(text: str, tight: int) -> str:
    """The judge's status with fewer counts: without "done" (tight 1), without "running" too (tight 2); what it
    waits for (queued) and its state (offline, stopped) always stay."""
    dropped = (" done",) if tight == 1 else (" done", " running") if tight >= 2 else ()
    return " · ".join(part for part in text.split(" · ") if not part.endswith(dropped))
