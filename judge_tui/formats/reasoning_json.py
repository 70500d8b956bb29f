"""The reasoning-trace judge's JSON output: {"scores": {...}, "overall_score", "verdict", "reasoning",
"issues", "suggestions"} for one item, as one object, an array of objects, or JSON Lines.

Each object must also say which item it rates, with an "id", "item_id" or "submission_id" key. The stated
overall score and verdict are kept for reference; judge-tui recomputes both with the rubric.
"""

from __future__ import annotations

import json

from judge_tui.formats import Parsed, Problem
from judge_tui.formats.ratings_rows import record_from
from judge_tui.formats.text import json_lines, json_problem, parse_json, source_lines


def read(text: str) -> Parsed:
    parsed = Parsed()
    try:
        whole = parse_json(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        values, parsed.problems = json_lines(text)  # not one JSON value: perhaps JSON Lines
        if not values:  # no line parses on its own either: report the JSON error where it is
            parsed.problems = [json_problem(exc) if isinstance(exc, json.JSONDecodeError)
                               else Problem(1, "not valid JSON: nested too deeply")]
    else:
        if isinstance(whole, list):
            values = list(zip(source_lines(text, (), len(whole)), whole, strict=True))
        else:
            values = [(1, whole)]
    for line, value in values:
        if not isinstance(value, dict):
            parsed.problems.append(Problem(line, "expected a judge output object ({\"scores\": {...}, ...})"))
            continue
        if not isinstance(value.get("scores"), dict):
            parsed.problems.append(Problem(line, "missing required field \"scores\" (an object of criterion scores)"))
            continue
        record = record_from(line, value, parsed.problems)
        if record:
            record.stated_overall = value.get("overall_score")
            record.stated_verdict = value.get("verdict")
            parsed.records.append(record)
    return parsed
