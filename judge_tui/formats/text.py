"""Reading an input file as text, and finding the line of each JSON value inside it."""

from __future__ import annotations

import bisect
import codecs
import dataclasses
import functools
import json
import math
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, BinaryIO

from judge_tui.formats import Problem

# Walks the text for positions only, so numbers stay text: no conversion can fail or take long.
_DECODER = json.JSONDecoder(parse_int=str, parse_float=str, parse_constant=str)
_WHITESPACE = " \t\n\r"
_MAX_INT_DIGITS = 4300  # Python's own limit for turning text into an int


class Flawed:
    """A value the file holds but JSON cannot carry faithfully: NaN, Infinity, a number too large to hold.

    The strict decoder returns one in the value's place instead of failing the whole file, so the import can
    report it at the line of the record that holds it; ``flaw()`` finds it.
    """

    __slots__ = ("problem",)

    def __init__(self, problem: str) -> None:
        self.problem = problem

    def __repr__(self) -> str:
        return self.problem


class DuplicateKeys(dict[str, Any]):
    """An object that named a key twice; JSON readers would silently keep only the last value."""

    duplicates: list[str]


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) == len(pairs):
        return found
    seen: set[str] = set()
    marked = DuplicateKeys(found)
    marked.duplicates = []
    for key, _ in pairs:
        if key in seen:
            marked.duplicates.append(key)
        seen.add(key)
    return marked


def _integer(text: str) -> int | Flawed:
    digits = len(text.lstrip("-"))
    return Flawed(f"a whole number of {digits} digits") if digits > _MAX_INT_DIGITS else int(text)


def _real(text: str) -> float | Flawed:
    value = float(text)
    return value if math.isfinite(value) else Flawed(f"the number {text[:24]} (too large to hold)")


_STRICT = json.JSONDecoder(
    parse_constant=lambda name: Flawed(f"{name} (not a number JSON allows)"),
    parse_int=_integer,
    parse_float=_real,
    object_pairs_hook=_object,
)


def parse_json(text: str) -> Any:
    """json.loads that never loses a value silently: see Flawed and DuplicateKeys; raises JSONDecodeError."""
    return _STRICT.decode(text)


# A JSON escape such as "\ud800" can name half of a UTF-16 surrogate pair: text no file or database can hold.
_SURROGATE = re.compile("[\ud800-\udfff]")


_PLAIN = (int, float, bool, type(None))


def flaw(value: Any) -> str | None:
    """What is wrong with the first Flawed value, repeated key or lone surrogate inside ``value`` (records
    included), if any."""
    pending = [value]
    while pending:
        current = pending.pop()
        if isinstance(current, str):
            half = None if current.isascii() else _SURROGATE.search(current)  # ASCII holds no surrogate
            if half:
                return (f"the escape \\u{ord(half.group()):04x} is half of a UTF-16 surrogate pair, not a character: "
                        f"write the whole character, or both halves of its pair")
            continue
        if type(current) in _PLAIN:  # most values of a file: nothing inside them to look at
            continue
        if isinstance(current, Flawed):
            return f"{current.problem} is not a value judge-tui can store: write a plain number, or null"
        elif isinstance(current, DuplicateKeys):
            return f"the key {current.duplicates[0]!r} appears twice in one object: keep one"
        if isinstance(current, dict):
            pending.extend(current.keys())
            pending.extend(current.values())
        elif isinstance(current, list | tuple):
            pending.extend(current)
        elif dataclasses.is_dataclass(current) and not isinstance(current, type):
            pending.extend(getattr(current, name) for name in _field_names(type(current)))
    return None


@functools.cache
def _field_names(record_type: type) -> tuple[str, ...]:
    """A record class's field names, looked up once per class rather than once per row."""
    return tuple(f.name for f in dataclasses.fields(record_type))


class Unreadable(Exception):
    """The file cannot be read as text at all; carries the Problem to report."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


Source = str | Iterable[str]  # a whole text, or its lines (each with its "\n") read from a file as they come

_LINE = re.compile(r"[^\n]*\n|[^\n]+")


def lines_of(source: Source) -> Iterable[str]:
    """The lines of a text (split at "\n" only, each keeping it), or the lines a file gives as they come."""
    if isinstance(source, str):
        return (match.group() for match in _LINE.finditer(source))
    return source


def file_lines(handle: BinaryIO, limit: int) -> Iterator[str]:
    """The lines of an open file, decoded one at a time, so a file is never held whole in memory twice.

    Split at b"\n" only, as text.split("\n") splits; a leading byte-order mark is dropped. Raises Unreadable
    at the line of a byte that is not UTF-8, and TooLarge once more than ``limit`` bytes are read (a file
    that grows while it is read).
    """
    read = 0
    for number, raw in enumerate(handle, start=1):
        read += len(raw)
        if read > limit:
            raise TooLarge(limit)
        if number == 1 and raw.startswith(codecs.BOM_UTF8):
            raw = raw[len(codecs.BOM_UTF8):]
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise Unreadable(Problem(number, f"not UTF-8 text (byte {raw[exc.start]:#04x}); save the file as "
                                             f"UTF-8")) from None


class TooLarge(Exception):
    """A file grew past the most judge-tui reads while it was being read."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"more than {limit} bytes")
        self.limit = limit


def decode(data: bytes) -> str:
    """UTF-8 text (a leading byte-order mark is dropped); raises Unreadable naming the line of a bad byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        problem = Problem(line, f"not UTF-8 text (byte {data[exc.start]:#04x}); save the file as UTF-8")
        raise Unreadable(problem) from None


def json_problem(exc: json.JSONDecodeError) -> Problem:
    if not exc.doc.strip():
        return Problem(1, "the file is empty")
    # Nothing after the point of failure, or a string never closed: the text stops inside a value.
    if not exc.doc[exc.pos:].strip() or exc.msg.startswith("Unterminated string"):
        last = exc.doc.rstrip().count("\n") + 1
        return Problem(last, f"the file ends early at line {last}: its JSON stops before every object and "
                             f"array is closed (was it cut off while saving or copying?)")
    return Problem(exc.lineno, f"not valid JSON: {exc.msg} (column {exc.colno})")


def one_json_document(text: str) -> bool:
    """Whether text that is not valid JSON was meant as one JSON document rather than JSON Lines: its first
    line is not a JSON value on its own."""
    first_line = next((line for line in text.split("\n") if line.strip()), "")
    try:
        parse_json(first_line)
    except (json.JSONDecodeError, RecursionError):
        return True
    return False


def load_json(text: str) -> Any:
    """The whole text as one JSON value; raises Unreadable at the line of the first syntax error."""
    try:
        return parse_json(text)
    except json.JSONDecodeError as exc:
        raise Unreadable(json_problem(exc)) from None
    except RecursionError:
        raise Unreadable(Problem(1, "not valid JSON: nested too deeply")) from None


class Lines:
    """Maps a character offset in the text to its 1-based line number."""

    def __init__(self, text: str) -> None:
        self._starts = [0]
        index = text.find("\n")
        while index != -1:
            self._starts.append(index + 1)
            index = text.find("\n", index + 1)

    def at(self, offset: int) -> int:
        return bisect.bisect_right(self._starts, offset)


def _skip(text: str, index: int) -> int:
    while index < len(text) and text[index] in _WHITESPACE:
        index += 1
    return index


def element_lines(text: str, path: Sequence[str | int] = ()) -> list[int]:
    """Line numbers of the elements of the JSON array found at path (object keys) in valid JSON text.

    json.loads keeps no positions, so this walks the text with the standard decoder, skipping whole values
    it does not need. An empty list if the path does not lead to an array.
    """
    lines = Lines(text)
    index = _skip(text, 0)
    for key in path:
        if index >= len(text) or text[index] != "{":
            return []
        index = _skip(text, index + 1)
        found = None
        while index < len(text) and text[index] != "}":
            name, index = _DECODER.raw_decode(text, index)
            index = _skip(text, index)
            index = _skip(text, index + 1)  # the colon
            if name == key:
                found = index  # a repeated key: JSON readers keep the last one, and so do we
            _value, index = _DECODER.raw_decode(text, index)
            index = _skip(text, index)
            if index < len(text) and text[index] == ",":
                index = _skip(text, index + 1)
        if found is None:
            return []
        index = found
    if index >= len(text) or text[index] != "[":
        return []
    result: list[int] = []
    index = _skip(text, index + 1)
    while index < len(text) and text[index] != "]":
        result.append(lines.at(index))
        _value, index = _DECODER.raw_decode(text, index)
        index = _skip(text, index)
        if index < len(text) and text[index] == ",":
            index = _skip(text, index + 1)
    return result


def source_lines(text: str, path: Sequence[str | int], count: int) -> list[int]:
    """element_lines, falling back to line 1 for every element if the walk and the parse ever disagree."""
    found = element_lines(text, path)
    return found if len(found) == count else [1] * count


def json_lines(source: Source) -> tuple[list[tuple[int, Any]], list[Problem]]:
    """JSON Lines: (line number, value) for each non-blank line, and a Problem for each line that is not JSON."""
    values: list[tuple[int, Any]] = []
    problems: list[Problem] = []
    for number, line in enumerate(lines_of(source), start=1):
        line = line.removesuffix("\n")  # so that a column past the end is still on this line
        if not line.strip():
            continue
        try:
            values.append((number, parse_json(line)))
        except json.JSONDecodeError as exc:
            problems.append(Problem(number, f"not valid JSON: {exc.msg} (column {exc.colno})"))
        except RecursionError:
            problems.append(Problem(number, "not valid JSON: nested too deeply"))
    return values, problems
