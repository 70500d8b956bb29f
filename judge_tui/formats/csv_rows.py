"""CSV with a header row: one record per row, keyed by the header's column names.

Cells are read exactly as written. judge-tui's own rating exports protect spreadsheet users from formula
injection by putting a quote before any cell that starts with = + - @ tab or carriage return (and before a
quote that precedes one of them, so the escape can be undone exactly); ``unprotect`` removes that quote, and
the ratings reader applies it only to a file it recognises as such an export (``is_own_export``): in anyone
else's CSV a leading quote is the writer's own text.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator

from judge_tui.formats import Parsed, Problem, Record
from judge_tui.formats.text import Source, lines_of

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
csv.field_size_limit(2**31 - 1)  # item fields (source code, documents) can exceed the 128 KiB default


def protect(cell: str) -> str:
    """The cell as written to a CSV file: a leading quote keeps spreadsheets from running it as a formula."""
    if cell.startswith(_FORMULA_STARTS) or (cell.startswith("'") and cell[1:2] in (*_FORMULA_STARTS, "'")):
        return "'" + cell
    return cell


_QUOTED = ('"', ",", "\r", "\n")


def csv_line(cells: Iterable[object]) -> str:
    """One row as RFC 4180 writes it, ended by "\n": a cell holding a quote, a comma, a carriage return or a line
    feed in quotes, its quotes doubled (the csv module leaves a bare carriage return unquoted when lines end in
    "\n", and a reader then splits the row there); None is an empty cell."""
    written = [_cell("" if cell is None else str(cell)) for cell in cells]
    return ('""' if written == [""] else ",".join(written)) + "\n"


def _cell(text: str) -> str:
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in _QUOTED) else text


def unprotect(cell: str) -> str:
    if cell.startswith("'") and cell[1:2] and cell[1:2] in (*_FORMULA_STARTS, "'"):
        return cell[1:]
    return cell


# The columns every `judge-tui export --format csv` file starts with, in this order.
EXPORT_COLUMNS = ("item_id", "rater", "kind", "rubric", "rubric_version")
_FIRST_TAIL = ("overall", "verdict", "notes", "seconds", "repeat", "details")  # what every version wrote
EXPORT_TAIL = (*_FIRST_TAIL, "flagged", "flag_reason", "skipped")


def is_own_export(header: list[str]) -> bool:
    """Whether a header is that of a ratings CSV judge-tui wrote (whose cells carry the formula quote)."""
    return tuple(header[: len(EXPORT_COLUMNS)]) == EXPORT_COLUMNS and set(_FIRST_TAIL) <= set(header)


def _csv_lines(lines: Iterable[str]) -> Iterator[str]:
    """Lines as a file opened with newline="" gives them to the csv module: split at "\r" too."""
    for line in lines:
        if "\r" in line:
            yield from io.StringIO(line, newline="")
        else:
            yield line


def read(source: Source) -> Parsed:
    parsed = Parsed()
    reader = csv.reader(_csv_lines(lines_of(source)), strict=True)
    header: list[str] | None = None
    start = 1
    try:
        for row in reader:
            line, start = start, reader.line_num + 1
            if not row or all(not cell.strip() for cell in row):
                continue
            if header is None:
                header = [cell.strip() for cell in row]
                problem = _header_problem(header)
                if problem:
                    parsed.problems.append(Problem(line, problem))
                    return parsed
                parsed.meta["header"] = header
                continue
            if len(row) != len(header):
                parsed.problems.append(
                    Problem(line, f"row has {len(row)} cells but the header has {len(header)} columns"))
                continue
            parsed.records.append(Record(line, dict(zip(header, row, strict=True))))
    except csv.Error as exc:
        parsed.problems.append(Problem(reader.line_num or start, f"not valid CSV: {exc}"))
    if header is None and not parsed.problems:
        parsed.problems.append(Problem(1, "the file is empty: a CSV file needs a header row naming its columns"))
    return parsed


def _header_problem(header: list[str]) -> str | None:
    if any(not name for name in header):
        return "the header row has an empty column name (the first row must name every column)"
    duplicates = sorted({name for name in header if header.count(name) > 1})
    if duplicates:
        return f"the header names column {duplicates[0]!r} twice"
    return None
