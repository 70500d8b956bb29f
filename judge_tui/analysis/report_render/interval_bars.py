"""Intervals drawn against band thresholds: which figures are settled, which are not, at a glance.

One line per figure: the axis from 0 to 1 with a tick at each band threshold, the interval drawn thick and
coloured by the band each part of it lies in, the point estimate as a dot, then the figure and its interval in
words. Box-drawing characters only; the bar shrinks to fit the width it is given (80 columns and up).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from judge_tui.formats.numbers import figure_with_interval, share_text, short_text
from judge_tui.stats import agreement as ag
from judge_tui.stats.agreement import Figure
from judge_tui.stats.intervals import Interval, IntervalFigure

BAND_STYLE = {"ok": "green", "caution": "yellow", "act": "dark_orange", "stop": "red", "unknown": "dim"}
NAME_WIDTH = 16
FIGURE_WIDTH = 20  # "83.3% [55, 95]", "-0.123 [-0.45, 0.21]"
MIN_BAR = 12
MAX_BAR = 48


@dataclass(frozen=True)
class Bar:
    name: str
    estimate: Figure
    interval: IntervalFigure


@dataclass(frozen=True)
class IntervalBars:
    """A Rich renderable: one bar per figure on a 0..1 axis with the band thresholds ticked."""

    title: str
    bars: Sequence[Bar]
    thresholds: Sequence[float]  # band edges on the axis
    band_status: Callable[[float], str]  # the status (colour) of a value's band
    percent: bool = False

    def _bar(self, bar: Bar, width: int) -> Text:
        def at(value: float) -> int:
            return min(width - 1, max(0, round(min(1.0, max(0.0, value)) * (width - 1))))

        cells = ["─"] * width
        styles = ["dim"] * width
        for edge in self.thresholds:
            cells[at(edge)], styles[at(edge)] = "┼", "dim"
        if isinstance(bar.interval, Interval):
            lo, hi = at(bar.interval.low), at(bar.interval.high)
            for i in range(lo, hi + 1):
                cells[i] = "━"
                styles[i] = BAND_STYLE.get(self.band_status(i / (width - 1)), "")
            cells[lo], cells[hi] = ("┣", "┫") if hi > lo else ("┃", "┃")
            if bar.interval.low < 0:
                cells[0] = "◂"
        if ag.is_defined(bar.estimate):
            point = at(bar.estimate)
            cells[point] = "●"
            styles[point] = "bold " + BAND_STYLE.get(self.band_status(bar.estimate), "")
        text = Text()
        for char, style in zip(cells, styles, strict=True):
            text.append(char, style=style)
        return text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        names = [b.name[:NAME_WIDTH] for b in self.bars]
        name_width = max([len(n) for n in names] + [4])
        width = max(MIN_BAR, min(MAX_BAR, options.max_width - name_width - FIGURE_WIDTH - 2))
        yield Text(self.title, style="bold")
        axis = [" "] * width
        for edge in self.thresholds:
            label = share_text(edge) if self.percent else short_text(edge)
            start = min(width - len(label), max(0, round(edge * (width - 1)) - len(label) // 2))
            if all(c == " " for c in axis[max(0, start - 1):start + len(label)]):
                axis[start:start + len(label)] = list(label)
        yield Text(" " * (name_width + 1) + "".join(axis).rstrip(), style="dim")
        for name, bar in zip(names, self.bars, strict=True):
            line = Text(f"{name:<{name_width}} ")
            line.append_text(self._bar(bar, width))
            line.append(" " + figure_with_interval(bar.estimate, bar.interval, percent=self.percent))
            yield line
