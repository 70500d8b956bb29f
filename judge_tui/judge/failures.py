"""Failed judgments: why they failed, grouped by cause, and (`judge-tui failures`) each with its raw answer.

Errors and raw answers are model output or a program's output: shown through textsafe.clean, never interpreted,
and scrubbed of keys.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from judge_tui.formats.numbers import plural
from judge_tui.model.redaction import redact
from judge_tui.model.textsafe import clean

MAX_CAUSES = 5  # causes shown after a run
MAX_ITEMS = 3  # item ids named per cause
EXAMPLE_CHARS = 200


def cause(error: str) -> str:
    """The kind of failure: the first line's text before its first ': ' ('off_scale', 'python3 exited with
    status 3', 'gave up after 5 attempts; last error')."""
    first = error.strip().splitlines()[0] if error.strip() else "no reason recorded"
    return first.split(": ", 1)[0]


def _first_line(text: str, limit: int = EXAMPLE_CHARS) -> str:
    text = redact(text)  # an error stored before keys were scrubbed
    line = clean(text.strip().splitlines()[0] if text.strip() else "no reason recorded")
    return line if len(line) <= limit else line[: limit - 1] + "…"


def by_cause(jobs: Sequence[Mapping[str, Any]]) -> list[tuple[str, list[Mapping[str, Any]]]]:
    """Failed jobs grouped by cause, the most frequent first (ties: the one seen first)."""
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for job in jobs:
        groups.setdefault(cause(job["last_error"]), []).append(job)
    return sorted(groups.items(), key=lambda group: -len(group[1]))


def grouped_lines(jobs: Sequence[Mapping[str, Any]], max_causes: int = MAX_CAUSES) -> list[str]:
    """One line per cause: how many, one example error with its item, and the first few other items."""
    groups = by_cause(jobs)
    lines = []
    for _cause, members in groups[:max_causes]:
        first = members[0]
        others = [clean(str(j["item_id"])) for j in members[1:MAX_ITEMS]]
        more = len(members) - 1 - len(others)
        also = ", ".join(others) + (f" and {more} more" if more else "")
        lines.append(f"  {len(members)} × {clean(str(first['item_id']))}: {_first_line(first['last_error'])}"
                     + (f" (also {also})" if also else ""))
    hidden = sum(len(members) for _cause, members in groups[max_causes:])
    if hidden:
        lines.append(f"  ... and {hidden} more with {plural(len(groups) - max_causes, 'other cause')}")
    return lines


def failures_command(db: Path | None = None, rubric_id: str | None = None) -> str:
    """The command that lists these failures, with the same --db."""
    parts = ["judge-tui", "failures"]
    if db:
        parts += ["--db", str(db)]
    if rubric_id:
        parts += ["--rubric", rubric_id]
    return clean(shlex.join(parts))


def indented(text: str) -> str:
    return "\n".join("    " + line for line in clean(redact(text)).splitlines()) or "    (empty)"
