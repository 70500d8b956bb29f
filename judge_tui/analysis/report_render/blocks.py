"""A report section laid out as blocks (headings, paragraphs, tables) and the three styles they are drawn in:
Markdown, Rich tables (the text report, like its other tables) or plain lines (the summary and judge screens).
Every section beside the judge comparison (team, self-agreement, version comparison, jury, biases, position bias)
is drawn as blocks from its typed object, so every format shows the same figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from judge_tui.model.textsafe import clean

if TYPE_CHECKING:
    from rich.console import RenderableType


@dataclass(frozen=True)
class Heading:
    text: str


@dataclass(frozen=True)
class Paragraph:
    lines: tuple[str, ...]


@dataclass(frozen=True)
class TableBlock:
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    title: str | None = None  # a line before the table; the table's title in Rich
    right: frozenset[int] = field(default_factory=frozenset)  # columns of numbers (right-aligned in Rich)


Block = Heading | Paragraph | TableBlock


def md(text: object) -> str:
    """A Markdown table cell (or line) of text from other people's databases: no control characters, no line
    breaks, no column separators."""
    return clean(str(text)).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _cell(text: object, fmt: str) -> str:
    """Rater ids and names come from other people's databases: no control characters, no table breakers."""
    return md(text) if fmt == "markdown" else clean(str(text)).replace("\n", " ")


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], fmt: str) -> list[str]:
    headers = [_cell(h, fmt) for h in headers]
    cells = [[_cell(c, fmt) for c in row] for row in rows]
    if fmt == "markdown":
        lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(" --- " for _ in headers) + "|"]
        return lines + ["| " + " | ".join(row) + " |" for row in cells]
    widths = [max(len(str(c)) for c in column) for column in zip(headers, *cells, strict=True)]
    return ["  " + "  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
            for row in [headers, *cells]]


def lines_of(blocks: Sequence[Block], fmt: str) -> list[str]:
    """Blocks as Markdown (fmt "markdown") or plain lines (fmt "text": the summary screen)."""
    lines: list[str] = []
    for block in blocks:
        if isinstance(block, Heading):
            text = _cell(block.text, fmt)
            lines += [f"## {text}", ""] if fmt == "markdown" else [text, "-" * len(text)]
        elif isinstance(block, Paragraph):
            lines += [*(_cell(line, fmt) for line in block.lines), ""]
        else:
            if block.title is not None:  # Markdown renderers other than GitHub's need a blank line before a table
                lines += [_cell(block.title, fmt), ""] if fmt == "markdown" else [_cell(block.title, fmt)]
            lines += [*_table(block.headers, block.rows, fmt), ""]
    return lines


def rich_of(blocks: Sequence[Block]) -> list[RenderableType]:
    """Blocks as Rich renderables, in the style of the rest of the text report."""
    from rich.table import Table
    from rich.text import Text

    from judge_tui.formats.terminal import add_id_column

    out: list[RenderableType] = []
    for block in blocks:
        if isinstance(block, Heading):
            out.append(Text(clean(block.text), style="bold"))
        elif isinstance(block, Paragraph):
            out.append(Text("\n".join(clean(line) for line in block.lines)))
        else:
            title = clean(block.title).removesuffix(":") if block.title is not None else None
            table = Table(title=Text(title) if title else None, title_justify="left")
            for index, header in enumerate(block.headers):
                if index in block.right:
                    # A long header (kappa of a long dimension name) folds; the figures stay whole.
                    table.add_column(Text(clean(header)), justify="right", overflow="fold",
                                     min_width=max((len(row[index]) for row in block.rows), default=1))
                else:
                    add_id_column(table, Text(clean(header)))
            for row in block.rows:
                table.add_row(*(Text(clean(c)) for c in row))
            out.append(table)
    return out
