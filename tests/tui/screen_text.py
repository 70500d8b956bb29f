"""What the app shows, as plain lines of text (read back from Textual's own screenshot)."""

from __future__ import annotations

import html
import re
from collections import defaultdict
from typing import Any

from rich.text import Text
from textual.app import App
from textual.widgets import Static

from judge_tui.tui.widgets.recurring_static import RecurringStatic

CELL_WIDTH = 12.2  # a terminal cell in Textual's screenshot (its x positions are in these units)
_TEXT = re.compile(r'<text [^>]*?x="([\d.]+)"[^>]*?clip-path="url\(#[\w-]+-line-(\d+)\)"[^>]*>([^<]*)</text>')


def screen_text(app: App[Any]) -> str:
    lines: dict[int, list[tuple[float, str]]] = defaultdict(list)
    for x, line, content in _TEXT.findall(app.export_screenshot()):
        lines[int(line)].append((float(x), html.unescape(content).replace("\xa0", " ")))
    return "\n".join(_placed(sorted(lines[n])) for n in sorted(lines))


def _placed(parts: list[tuple[float, str]]) -> str:
    """A line's pieces of text, each at its column: the screenshot leaves out a run of blanks (a space between
    two widgets' edges is drawn as a background alone), which must not join the words on either side. The line
    starts at its first text."""
    line, start = "", round(parts[0][0] / CELL_WIDTH) if parts else 0  # from the first text on the line
    for x, part in parts:
        line = line.ljust(round(x / CELL_WIDTH) - start) + part
    return line


def widget_text(app: App[Any]) -> str:
    """Everything the current screen holds as text, including what is scrolled out of view."""
    from textual.widgets import TextArea

    from judge_tui.tui.widgets.item_pane import ItemPane
    from judge_tui.tui.widgets.rubric_panel import RubricPanel

    parts: list[str] = []
    for widget in app.screen.query("*"):
        if isinstance(widget, Static | RecurringStatic):
            parts.append(_plain(widget))
        elif isinstance(widget, ItemPane | TextArea | RubricPanel):
            parts.append(widget.text)
    return "\n".join(parts)


def _plain(widget: Static | RecurringStatic) -> str:
    """A Static's text; a Rich renderable other than text (a table, a group) as a wide console prints it."""
    import io

    from rich.console import Console, ConsoleRenderable, RichCast

    content = widget.content
    if isinstance(content, ConsoleRenderable | RichCast) and not isinstance(content, Text):
        printed = io.StringIO()
        Console(file=printed, width=200, color_system=None).print(content)
        return printed.getvalue()
    return str(widget.render())


def screen_lines(app: App[Any]) -> list[str]:
    """The screen's cells as lines of text, each widget's lines (Textual's Widget.render_lines) placed at its
    region, parents before children (toasts and scrollbars left out)."""
    from textual.geometry import Region

    width, height = app.screen.size
    grid = [[" "] * width for _ in range(height)]
    for widget in [app.screen, *app.screen.query("*")]:
        region = widget.region
        if not widget.display or not region.area or type(widget).__name__ in ("Toast", "ToastRack"):
            continue
        for y, strip in enumerate(widget.render_lines(Region(0, 0, *region.size)), start=region.y):
            if 0 <= y < height:
                x = region.x
                for segment in strip:
                    for char in segment.text:
                        if 0 <= x < width:
                            grid[y][x] = char
                        x += 1
    return ["".join(row) for row in grid]
