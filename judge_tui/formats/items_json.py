"""Items as a JSON array of objects, or as JSON Lines (one object per line)."""

from __future__ import annotations

from judge_tui.formats import Parsed, Problem, Record
from judge_tui.formats.text import Source, json_lines, load_json, source_lines


def _kind(value: object) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "true/false", type(None): "null"}.get(
        type(value), "a number")


def read_array(text: str) -> Parsed:
    parsed = Parsed()
    value = load_json(text)
    if not isinstance(value, list):
        parsed.problems.append(Problem(1, f"expected a JSON array of item objects, found {_kind(value)}"))
        return parsed
    lines = source_lines(text, (), len(value))
    for line, element in zip(lines, value, strict=True):
        if isinstance(element, dict):
            parsed.records.append(Record(line, element))
        else:
            parsed.problems.append(Problem(line, f"expected an item object, found {_kind(element)}"))
    return parsed


def read_lines(source: Source) -> Parsed:
    values, problems = json_lines(source)
    parsed = Parsed(problems=problems)
    for line, value in values:
        if isinstance(value, dict):
            parsed.records.append(Record(line, value))
        else:
            parsed.problems.append(Problem(line, f"expected a JSON object on this line, found {_kind(value)}"))
    return parsed
