"""`judge-tui status`: where the study stands, for the lead.

Per rubric and per expert: items rated, skipped and flagged, the time spent (total, median per item, and per
task type) and the last activity; per judge: its queue (queued, running, done, failed) and the cost so far.
Time is the active time the rating screen recorded for each submitted rating (the newest first run of each
item); ratings imported without a time are counted as "time unknown" and left out of totals and medians.
"""

from __future__ import annotations

from statistics import median
from typing import Any

from judge_tui.model.numbers import format_seconds
from judge_tui.model.textsafe import clean
from judge_tui.store import Store

NO_TASK_TYPE = "(none)"


def _time(seconds: list[float]) -> dict[str, Any]:
    return {"items": len(seconds), "total_seconds": round(sum(seconds), 3),
            "median_seconds": round(median(seconds), 3) if seconds else None}


def expert_status(store: Store, rubric: str, rater: dict[str, Any]) -> dict[str, Any]:
    rated = store.current_ratings(rubric, rater["id"])
    known = [seconds for _item, _task, seconds in rated if seconds is not None]
    by_task: dict[str, list[float]] = {}
    for _item, task_type, seconds in rated:
        if seconds is not None:
            by_task.setdefault(task_type or NO_TASK_TYPE, []).append(seconds)
    return {
        "expert": rater["id"], "name": rater["display_name"],
        "rated": len(rated), "skipped": store.skipped_count(rubric, rater["id"]),
        "flagged": store.count_flagged(rater["id"], rubric),
        "time": {**_time(known), "unknown": len(rated) - len(known)},
        "time_by_task_type": {task: _time(values) for task, values in sorted(by_task.items())},
        "last_activity": store.last_activity(rubric, rater["id"]),
    }


def study_status(store: Store, rubric: str | None = None) -> dict[str, Any]:
    """Every rubric in use (or one): its items, each expert's work and each judge's queue."""
    rubrics = [(r, n) for r, n in store.rubrics_in_use() if rubric is None or r == rubric]
    with store.snapshot():
        return {"rubrics": [{
            "rubric": rubric_id, "items": items,
            "experts": [expert_status(store, rubric_id, r) for r in store.active_experts(rubric_id)],
            "judges": [{"judge": judge, **queue} for judge, queue in sorted(store.judge_queue_by_rater(rubric_id).items())],
        } for rubric_id, items in sorted(rubrics)]}


# --------------------------------------------------------------------------- rendering


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    return format_seconds(round(seconds))


def status_tables(status: dict[str, Any]) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    tables: list[Any] = []
    for part in status["rubrics"]:
        experts = Table(title=f"{part['rubric']}: {part['items']} items", title_justify="left")
        for column in ("expert", "rated", "skipped", "flagged", "time", "median/item", "time unknown",
                       "last activity"):
            experts.add_column(column, justify="left" if column in ("expert", "last activity") else "right",
                               overflow="fold")
        for e in part["experts"]:
            experts.add_row(Text(clean(e["expert"])), str(e["rated"]), str(e["skipped"]), str(e["flagged"]),
                            duration(e["time"]["total_seconds"]), duration(e["time"]["median_seconds"]),
                            str(e["time"]["unknown"]), (e["last_activity"] or "—")[:19].replace("T", " "))
        if not part["experts"]:
            experts.add_row("(no expert has rated yet)", *[""] * 7)
        tables.append(experts)
        by_task = Table(title="time per task type", title_justify="left")
        for column in ("expert", "task type", "items", "time", "median/item"):
            by_task.add_column(column, justify="left" if column in ("expert", "task type") else "right",
                               overflow="fold")
        for e in part["experts"]:
            for task, t in e["time_by_task_type"].items():
                by_task.add_row(Text(clean(e["expert"])), Text(clean(task)), str(t["items"]),
                                duration(t["total_seconds"]), duration(t["median_seconds"]))
        if by_task.row_count:
            tables.append(by_task)
        if part["judges"]:
            judges = Table(title="judge queue", title_justify="left")
            for column in ("judge", "queued", "running", "done", "failed", "calls", "cost so far"):
                judges.add_column(column, justify="left" if column == "judge" else "right", overflow="fold")
            for j in part["judges"]:
                judges.add_row(Text(clean(j["judge"])), str(j["queued"]), str(j["running"]), str(j["done"]),
                               str(j["failed"]), str(j["calls"]), f"${j['cost_usd']:,.4f}")  # as `judge-tui judge` shows cost
            tables.append(judges)
    return tables
