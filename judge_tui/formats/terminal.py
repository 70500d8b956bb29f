"""What commands print: tables that never cut what a user copies, and text that is safe on a terminal.

To a pipe or a file, a table takes the full width it needs (nothing is wrapped or cut, so ids, dimension names
and paths can be copied into the next command) and lines are written exactly as stored (data round-trips).
On a terminal, a table fits the window by wrapping its id, name and path columns (never an ellipsis), and
untrusted text goes through ``textsafe.clean``: no escape sequence reaches the terminal, and invisible or
bidirectional characters are shown as ``<U+XXXX>``, as the app shows them.
"""

from __future__ import annotations

import copy
import io
import sys
from collections.abc import Iterable
from typing import IO, Any

from rich.cells import cell_len
from rich.console import Console, RenderableType
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from judge_tui.model.textsafe import clean

# Wide enough for any table a command prints; Rich tables only take the width they need.
PIPE_WIDTH = 10_000
# On a narrow terminal an id column may be folded down to this many characters a line, no fewer.
FOLD_FLOOR = 8


def is_terminal(stream: IO[str] | None = None) -> bool:
    stream = stream if stream is not None else sys.stdout
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def output_width(stream: IO[str] | None = None) -> int:
    """The terminal's width on a terminal, else room for the widest table."""
    stream = stream if stream is not None else sys.stdout
    return Console(file=stream).width if is_terminal(stream) else PIPE_WIDTH


def message_console(*, stderr: bool = False) -> Console:
    """A console for a command's messages: fitted to a terminal; to a pipe or file, lines are never wrapped,
    so an id in a message stays on one line."""
    stream = sys.stderr if stderr else sys.stdout
    return Console(file=stream, highlight=False, width=None if is_terminal(stream) else PIPE_WIDTH)


def render_plain(renderables: Iterable[RenderableType], *, width: int | None = None, gap: bool = False) -> str:
    """Rich renderables as plain text (no colour), at ``width`` or the width right for standard output;
    ``gap`` puts a blank line after each."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width or output_width(), color_system=None, force_terminal=False,
                      highlight=False)
    for renderable in renderables:
        _print(console, renderable)
        if gap:
            console.print()
    # Titles and short rows are padded to the table's width; the padding is noise in a file.
    return "".join(line.rstrip() + "\n" for line in buffer.getvalue().splitlines())


def print_table(table: Table, stream: IO[str] | None = None) -> None:
    """A table on standard output: in colour fitted to a terminal, or at its full width to a pipe or file."""
    stream = stream if stream is not None else sys.stdout
    if is_terminal(stream):
        _print(Console(file=stream, highlight=False), table)
    else:
        stream.write(render_plain([table], width=PIPE_WIDTH))


def _print(console: Console, renderable: RenderableType) -> None:
    """Print one renderable; a table is never squeezed below the width its figures and words need."""
    if not isinstance(renderable, Table):
        console.print(renderable)
        return
    table = copy.copy(renderable)
    if table.title is not None:
        # On a line of its own, as wide as the page: Rich would wrap a title to the table's width,
        # splitting the ids it names (a judge's rater id over a narrow table).
        console.print(Text(table.title, style="table.title") if isinstance(table.title, str) else table.title)
        table.title = None
    width = console.width
    console.width = max(width, _fit(console, table))
    try:
        console.print(table)
    finally:
        console.width = width


def _fit(console: Console, table: Table) -> int:
    """Narrow the table's text columns until it fits the console, widest first and ids kept whole
    (``keep_whole``) last, never below what Rich needs to show every cell without '…': figures (no_wrap)
    at full width, words whole, ids folded to a few characters. Returns the table's width, which is wider
    than the console when it cannot fit (the terminal then wraps it, and nothing is lost)."""
    options = console.options.update_width(PIPE_WIDTH)
    columns = table.columns
    full, least = [], []
    for column in columns:
        sizes = [Measurement.get(console, options, c) for c in [column.header, *column.cells]]
        widest = max(column.width or max(m.maximum for m in sizes), column.min_width or 0)
        if column.no_wrap:
            floor = widest
        elif column.overflow == "fold":
            floor = max(FOLD_FLOOR, min(sizes[0].minimum, 2 * FOLD_FLOOR))  # a header's words stay whole
        else:
            floor = max(m.minimum for m in sizes)
        full.append(widest)
        least.append(min(widest, floor))
    _top, right, _bottom, left = table.padding
    frame = (len(columns) + 1 if table.box else 0) + (left + right) * len(columns)
    room = console.width - frame
    if sum(full) <= room:
        return sum(full) + frame
    widths = list(full)
    kept = [c.overflow == "fold" and c.width is not None for c in columns]
    while sum(widths) > room:
        narrower = [i for i in range(len(columns)) if widths[i] > least[i]]
        if not narrower:
            break
        widths[max(narrower, key=lambda i: (not kept[i], widths[i]))] -= 1
    table.columns = [copy.copy(c) for c in columns]
    for column, width in zip(table.columns, widths, strict=True):
        column.width = width
    return sum(widths) + frame


def add_id_column(table: Table, header: str | Text, *, keep_whole: Iterable[str] = (), **options: Any) -> None:
    """A column of ids, names or paths: on a narrow terminal it wraps (long words fold), never ends in '…'.

    ``keep_whole`` gives the column priority: it starts at the width of the longest of these values and,
    on a narrow terminal, gives up room only after the other columns, so an id stays on one line for copying.
    """
    widest = max((cell_len(clean(v)) for v in keep_whole), default=0)
    if widest:
        options.setdefault("width", max(widest, cell_len(str(header))))
    table.add_column(header, overflow="fold", **options)


def cell(text: object) -> Text:
    """A table cell holding untrusted text: never markup, no control characters (they would break the layout)."""
    return Text(clean(str(text)))


def for_terminal(text: str, stream: IO[str] | None = None) -> str:
    """``text`` cleaned for a terminal; unchanged for a pipe or a file."""
    return clean(text) if is_terminal(stream) else text


def echo(text: str = "", stream: IO[str] | None = None) -> None:
    """Print a line that may hold untrusted text (item ids, notes, reasons, rater ids)."""
    stream = stream if stream is not None else sys.stdout
    print(for_terminal(text, stream), file=stream)


class _CleaningWriter:
    """Writes everything through ``clean``. Every escape and control byte goes wherever a write ends, so a
    sequence split between two writes cannot reach the terminal either."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(clean(text))
        return len(text)

    def flush(self) -> None:
        self._stream.flush()


def safe_stdout() -> Any:
    """Standard output for data (exports): exact on a pipe or file, cleaned on a terminal."""
    return _CleaningWriter(sys.stdout) if is_terminal(sys.stdout) else sys.stdout
