"""`--raters A,B` and `--jury A+B+C`: the raters a report compares, checked against the raters the rubric has."""

from __future__ import annotations

from judge_tui.analysis.report import Group, ReportError
from judge_tui.model.errors import UserError
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


def parse_members(spec: str, store: Store, rubric_id: str) -> tuple[str, ...]:
    """`A+B+C`: judge raters of the rubric, at least two. Only + joins them: a comma is part of an id (a judge's id
    may hold one), and a comma where the + belongs is said plainly."""
    ids = tuple(dict.fromkeys(p.strip() for p in spec.split("+") if p.strip()))
    judges = {r["id"] for r in store.rubric_raters(rubric_id) if r["kind"] == "judge"}
    unknown = [i for i in ids if i not in judges]
    if unknown:
        if "," in unknown[0]:
            joined = "+".join(p.strip() for p in spec.replace(",", "+").split("+") if p.strip())
            raise UserError(f"--jury {spec!r}: join the judges with +, not commas, e.g. --jury '{joined}'")
        listing = ", ".join(sorted(judges)) or "none"
        raise UserError(f"--jury: {unknown[0]!r} is not a judge rater of rubric {rubric_id!r}; its judges: {listing}")
    if len(ids) < 2:
        raise UserError(f"--jury {spec!r}: a jury needs two judges or more, joined with + (e.g. A+B+C)")
    return ids
