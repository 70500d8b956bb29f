"""The judge's progress line: the time left is never "0.0 min" while items are left."""

from __future__ import annotations

import re
import time

from rich.progress import Progress

from judge_tui.cli.judge import _StatsColumn, time_left
from judge_tui.judge.runner import RunState


def test_time_left_is_minutes_and_seconds_rounded_up():
    assert time_left(13, 600.0) == "0:02"  # 1.3 s: a fast local judge
    assert time_left(1, 100_000.0) == "0:01"  # never zero while something is left
    assert time_left(13, 2.0) == "6:30"
    assert time_left(300, 2.0) == "2:30:00"
    assert time_left(0, 600.0) == "-"
    assert time_left(13, 0.0) == "-"


def test_the_progress_line_of_a_fast_judge_with_13_items_left():
    progress = Progress(_StatsColumn(paid=False))
    # A run that began a minute ago and judged 600 items: 13 left take about a second.
    state = RunState(done=12, done_now=600, queued=13, started=time.monotonic() - 60)
    task = progress.add_task("binary", total=25, completed=12, state=state)
    line = str(_StatsColumn(paid=False).render(progress.tasks[task]))
    assert re.fullmatch(r"failed 0 · \d+\.\d/min · ETA 0:0[12]", line), line
