"""Dimensions scored by code rather than judged: deterministic, so they need no calibration."""

from __future__ import annotations

import re
from collections.abc import Callable

_CONTAINER_OPEN = re.compile(r"<exercise(\s[^>]*)?>")
_CONTAINER_CLOSE = "</exercise>"
_BLANK_TAG = re.compile(r"<blank\b([^>]*)>")
# `answer=` must be its own attribute, not the tail of `student-answer=`.
_ANSWER_ATTR = re.compile(r"(?<![\w-])answer\s*=\s*(\"[^\"]*\"|'[^']*')")
_EMPTY_STUDENT_ANSWER = re.compile(r"(?<![\w-])student-answer\s*=\s*(\"\"|'')")


def fill_blank_structure(exercise: str) -> float:
    """Structural validity of a fill-in-the-blank exercise.

    1.0: an <exercise> container holding at least one <blank>, every blank with an answer= attribute and an
         empty student-answer="";
    0.5: the container is there but the blanks are missing or malformed;
    0.0: no <exercise> ... </exercise> container.
    """
    if not _CONTAINER_OPEN.search(exercise) or _CONTAINER_CLOSE not in exercise:
        return 0.0
    blanks = _BLANK_TAG.findall(exercise)
    if not blanks:
        return 0.5
    for attributes in blanks:
        if not _ANSWER_ATTR.search(attributes) or not _EMPTY_STUDENT_ANSWER.search(attributes):
            return 0.5
    return 1.0


CHECKERS: dict[str, Callable[[str], float]] = {
    "fill_blank_structure": fill_blank_structure,
}
