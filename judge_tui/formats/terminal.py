"""What commands print: tables that never cut what a user copies, and text that is safe on a terminal.

To a pipe or a file, a table takes the full width it needs (nothing is wrapped or cut, so ids, dimension names
and paths can be copied into the next command) and lines are written exactly as stored (data round-trips).
On a terminal, a table fits the window by wrapping its id, name and path columns (never an ellipsis), or is
drawn as several narrower tables when its figures cannot fit; a message line too long wraps between words; and
untrusted text goes through ``textsafe.clean``: no escape sequence reaches the terminal, and invisible or
bidirectional characters are shown as ``<U+XXXX>``, as the app shows them.
"""

from __future__ import annotations

import codecs
import copy
import dataclasses
import io
import sys
import textwrap
from collections.abc import Iterable, Sequence
from typing import IO, Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
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


class SplittableTable(Table):
    """A table that, too wide for the console, is drawn as several tables side columns apart, each repeating
    the first ``keys`` columns (the row names). ``groups`` names the sets of other columns that belong
    together, e.g. [("agreement", [1, 2, 3]), ("correlation and bias", [1, 4, 5])]; a group still too wide
    is cut further, column by column. Without groups the columns are cut in order."""

    def __init__(self, *args: Any, groups: Sequence[tuple[str, Sequence[int]]] = (), keys: int = 1,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.groups = list(groups)
        self.keys = keys


class FittedTable:
    """A table drawn as several narrower tables (split_to_fit) when it is too wide for the space it is drawn in:
    for screens, where that width is known only when drawing, as the text report does for its page."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        measuring = Console(file=io.StringIO(), width=options.max_width, color_system=None, highlight=False)
        for index, part in enumerate(split_to_fit(measuring, self.table)):
            if index:
                yield Text("")
            yield part


def render_plain(renderables: Iterable[RenderableType], *, width: int | None = None, gap: bool = False,
                 split: bool = False) -> str:
    """Rich renderables as plain text (no colour), at ``width`` or the width right for standard output;
    ``gap`` puts a blank line after each; ``split`` draws a table too wide for ``width`` as several narrower
    tables (see split_to_fit), so that no line is wider than the page."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width or output_width(), color_system=None, force_terminal=False,
                      highlight=False)
    for renderable in renderables:
        parts = split_to_fit(console, renderable) if split and isinstance(renderable, Table) else [renderable]
        for index, part in enumerate(parts):
            if index:
                console.print()
            _print(console, part)
        if gap:
            console.print()
    # Titles and short rows are padded to the table's width; the padding is noise in a file.
    return "".join(line.rstrip() + "\n" for line in buffer.getvalue().splitlines())


def print_table(table: Table, stream: IO[str] | None = None) -> None:
    """A table on standard output: in colour fitted to a terminal (split into several when it cannot fit), or at
    its full width to a pipe or file."""
    stream = stream if stream is not None else sys.stdout
    if is_terminal(stream):
        console = Console(file=stream, highlight=False)
        for part in split_to_fit(console, table):  # too wide a table is drawn as several that fit
            _print(console, part)
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


def split_to_fit(console: Console, table: Table) -> list[Table]:
    """``table`` when it fits the console, else its columns over several tables that each fit (as far as a
    single column allows): by the groups of a SplittableTable, else in order; each repeats the key columns,
    is titled after the table and the group, and the last keeps the caption."""
    if _fit(console, copy.copy(table)) <= console.width:
        return [table]
    keys = list(range(getattr(table, "keys", 1)))
    groups = getattr(table, "groups", None) or [("", range(len(keys), len(table.columns)))]

    def fits(columns: Sequence[int]) -> bool:
        return _fit(console, _columns_of(table, [*keys, *columns])) <= console.width

    parts: list[tuple[str, list[int]]] = []
    for name, group in groups:
        columns = list(group)
        joined = [*parts[-1][1], *(c for c in columns if c not in parts[-1][1])] if parts else []
        if parts and fits(joined):  # a group joins the one before it when both fit together
            parts[-1] = (f"{parts[-1][0]}; {name}" if parts[-1][0] and name else parts[-1][0] or name, joined)
            continue
        current: list[int] = []
        for column in columns:
            if current and not fits([*current, column]):
                parts.append((name, current))
                current = []
            current.append(column)
        if current:
            parts.append((name, current))
    title = table.title.plain if isinstance(table.title, Text) else (table.title or "")
    tables = []
    for index, (name, columns) in enumerate(parts):
        part = _columns_of(table, [*keys, *columns])
        same = [n for n, _ in parts].count(name)
        suffix = f" ({[n for n, _ in parts[:index + 1]].count(name)} of {same})" if same > 1 else ""
        label = ": ".join(t for t in (title, name) if t) + suffix
        part.title = Text(label) if label else None
        part.caption = table.caption if index == len(parts) - 1 else None
        tables.append(part)
    return tables


def _columns_of(table: Table, indexes: Sequence[int]) -> Table:
    part = copy.copy(table)
    part.columns = [dataclasses.replace(table.columns[i], _index=j) for j, i in enumerate(indexes)]
    return part


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
        least.append(min(widest, max(floor, column.min_width or 0)))
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
    """Print a line that may hold untrusted text (item ids, notes, reasons, rater ids); on a terminal, a line
    too long for it wrapped on words."""
    stream = stream if stream is not None else sys.stdout
    print(fit_lines(for_terminal(text, stream), stream), file=stream)


def fit_lines(text: str, stream: IO[str] | None = None) -> str:
    """``text`` with each line too wide for the terminal wrapped between words, the rest of it indented two
    more than the line began, so it reads as one; unchanged to a pipe or file (a line stays whole there, for
    tools). A word (a path, an id) longer than a line is never cut."""
    if not is_terminal(stream):
        return text
    width = output_width(stream)
    return "\n".join(part for line in text.split("\n") for part in wrapped_under(line, width))


def wrapped_under(line: str, width: int) -> list[str]:
    """One line in lines of at most ``width`` cells, wrapped between words, the rest of it indented two more than
    the line began, so it reads as one. A word (a path, an id) longer than a line is never cut."""
    if cell_len(line) <= width:
        return [line]
    indent = " " * (len(line) - len(line.lstrip(" ")))
    return textwrap.wrap(line.lstrip(" "), width=width, initial_indent=indent, subsequent_indent=indent + "  ",
                         break_long_words=False, break_on_hyphens=False) or [line]


class WrappedLines:
    """Lines wrapped as ``wrapped_under`` wraps them, at the width they are drawn in: for screens, where that
    width is known only when drawing. Each line is shown as text, never read as markup (clean untrusted text
    before: textsafe.clean)."""

    def __init__(self, lines: Iterable[str]) -> None:
        self.lines = list(lines)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in self.lines:
            for part in wrapped_under(line, options.max_width):
                yield Text(part)


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
    """Standard output for data (exports): exact on a pipe or file, cleaned on a terminal. To a pipe or file it
    writes UTF-8 whatever the system's encoding, as the format's files are: a cp1252 or ascii output would lose
    what it cannot hold."""
    stream = sys.stdout
    if is_terminal(stream):
        return _CleaningWriter(stream)
    if isinstance(stream, io.TextIOWrapper) and codecs.lookup(stream.encoding).name != "utf-8":
        stream.flush()
        stream.reconfigure(encoding="utf-8", errors="strict")
    return stream
