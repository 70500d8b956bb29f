"""Reading an input file as text, and finding the line of each JSON value inside it."""

from __future__ import annotations

import bisect
import json
from collections.abc import Sequence
from typing import Any

from judge_tui.formats import Problem

_DECODER = json.JSONDecoder()
_WHITESPACE = " \t\n\r"


class Unreadable(Exception):
    """The file cannot be read as text at all; carries the Problem to report."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def decode(data: bytes) -> str:
    """UTF-8 text (a leading byte-order mark is dropped); raises Unreadable naming the line of a bad byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        problem = Problem(line, f"not UTF-8 text (byte {data[exc.start]:#04x}); save the file as UTF-8")
        raise Unreadable(problem) from None


def json_problem(exc: json.JSONDecodeError) -> Problem:
    return Problem(exc.lineno, f"not valid JSON: {exc.msg} (column {exc.colno})")


def load_json(text: str) -> Any:
    """The whole text as one JSON value; raises Unreadable at the line of the first syntax error."""
    try:
        return json.loads(text)
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


def lines_of(text: str, path: Sequence[str | int], count: int) -> list[int]:
    """element_lines, falling back to line 1 for every element if the walk and the parse ever disagree."""
    found = element_lines(text, path)
    return found if len(found) == count else [1] * count


def json_lines(text: str) -> tuple[list[tuple[int, Any]], list[Problem]]:
    """JSON Lines: (line number, value) for each non-blank line, and a Problem for each line that is not JSON."""
    values: list[tuple[int, Any]] = []
    problems: list[Problem] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            values.append((number, json.loads(line)))
        except json.JSONDecodeError as exc:
            problems.append(Problem(number, f"not valid JSON: {exc.msg} (column {exc.colno})"))
        except RecursionError:
            problems.append(Problem(number, "not valid JSON: nested too deeply"))
    return values, problems
