"""`--raters A,B`: the two rater groups a report compares, checked against the raters the rubric has."""

from __future__ import annotations

from judge_tui.analysis.report import Group, ReportError
from judge_tui.store import Store


def parse_raters(spec: str, store: Store, rubric_id: str) -> tuple[Group, Group]:
    """`A,B` or `A+B,C`: the reference group first, the group being checked second."""
    parts = [p.strip() for p in spec.split(",")]
    if len(parts) != 2 or not all(parts):
        raise ReportError(f"--raters {spec!r}: give two groups separated by a comma, e.g. EXP001,judge:... "
                          "(join several raters of one group with +)")
    known = {r["id"]: r for r in store.rubric_raters(rubric_id)}
    groups = []
    for role, part in zip(("human", "judge"), parts, strict=True):
        ids = tuple(dict.fromkeys(p.strip() for p in part.split("+") if p.strip()))
        unknown = [i for i in ids if i not in known]
        if unknown:
            listing = ", ".join(f"{r} ({known[r]['kind']})" for r in known) or "none"
            raise ReportError(f"--raters: no ratings of rubric {rubric_id!r} by {unknown[0]!r}; raters: {listing}")
        groups.append(Group(role, ids))
    return groups[0], groups[1]
