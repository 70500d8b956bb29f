"""Readers for the file formats judge-tui imports, and beside them the writers of those it exports.

Each module here parses one outside format into plain records that remember their line number, and reports
what is malformed as Problems (also with line numbers). Nothing here touches the database or knows a rubric's
scale: checking records against a rubric and the store is the importer's job. A writer takes plain records
and values; choosing them from the store is the exporter's job.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Problem:
    """Something wrong at a line of the input file (line 0: the file as a whole)."""

    line: int
    message: str


@dataclass
class Record:
    """One row of an input file: its line number and its values, keyed as the file keys them."""

    line: int
    data: dict[str, Any]


@dataclass
class RatingRecord:
    """One rating read from a file, before it is checked against a rubric.

    scores keeps the file's raw values (numbers, "PASS"/"FAIL", strings from CSV) by dimension id.
    """

    line: int
    item_id: Any
    scores: dict[str, Any]
    notes: str = ""
    seconds: Any = None
    repeat: Any = 0
    rater: str | None = None
    kind: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    stated_overall: Any = None
    stated_verdict: Any = None
    flagged: Any = False  # the file's raw value: true/false, or in CSV text such as "yes" or ""
    flag_reason: Any = ""
    skipped: Any = False  # with no scores: the rater skipped the item (a mark, not a rating)
    keyed_scores: bool = False  # scores are every key the row does not reserve (no "scores" object)


@dataclass
class Parsed:
    """What a reader found: records, problems, and facts about the file as a whole (meta)."""

    records: list[Any] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)


ID_KEYS = ("item_id", "id", "submission_id")


def first_present(data: Mapping[str, Any], keys: tuple[str, ...]) -> tuple[str | None, Any]:
    """The first of keys present in data (and its value), or (None, None)."""
    for key in keys:
        if key in data:
            return key, data[key]
    return None, None
