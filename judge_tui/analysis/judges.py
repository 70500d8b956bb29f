"""Which judge rater a rubric's report compares by default (light: the rating session uses it too)."""

from __future__ import annotations

from judge_tui.store import Store


def judge_raters(store: Store, rubric_id: str) -> list[str]:
    """The rubric's judge raters, by id."""
    return [r["id"] for r in store.rubric_raters(rubric_id) if r["kind"] == "judge"]


def judges_by_coverage(store: Store, rubric_id: str) -> list[tuple[str, int]]:
    """The rubric's judge raters with how many of its items each rated: the most items first, then the one
    that rated most recently (a judge that rated 2 of 25 items is not the default over one that rated all)."""
    judges = [r for r in store.rubric_raters(rubric_id) if r["kind"] == "judge"]
    rated = {r["id"]: store.progress(r["id"], rubric_id, total=0)["rated"] for r in judges}
    judges.sort(key=lambda r: (rated[r["id"]], r["last_id"]), reverse=True)
    return [(r["id"], rated[r["id"]]) for r in judges]


def default_judge(store: Store, rubric_id: str) -> str | None:
    judges = judge_raters(store, rubric_id)
    if len(judges) < 2:  # nothing to choose between: counting a judge's 100k ratings takes 0.15 s
        return judges[0] if judges else None
    return judges_by_coverage(store, rubric_id)[0][0]
