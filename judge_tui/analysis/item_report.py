"""`judge-tui report --items`: item by item, the human and judge scores per dimension, their gaps, the flags
and the notes, one row per item (analysis/report_render/items.py writes them as CSV, JSON Lines or Markdown).

The groups and scores are the report's (`report.py`): each rater's first run under the newest rubric version
they used, a group of several raters scored by its mean. A gap is judge minus human (positive: the judge is
more lenient). Every item of the rubric (and split) is listed, rated or not, so gaps in coverage show.
"""

from __future__ import annotations

from typing import Any

from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store

OVERALL = "overall"


def _plain(value: float) -> float | None:
    """A score or gap as written: None where missing, float noise rounded away (0.7 - 1 is -0.3)."""
    return None if value != value else round(float(value), 6)  # NaN is the only value not equal to itself


def _shown(value: float, rubric: Rubric) -> float | str | None:
    """A side's score as written: PASS or FAIL on a PASS/FAIL scale (a group's mean between them stays the
    share of PASS), else the number."""
    plain = _plain(value)
    if rubric.scale.named and plain is not None and any(abs(plain - p) < 1e-9 for p in rubric.scale.points):
        return rubric.scale.label(plain)
    return plain


def item_rows(store: Store, rubric: Rubric, human: Any, judge: Any, split: str | None,
              tolerance: float) -> list[dict[str, Any]]:
    """One row per item: id, task type, split, per dimension and overall the human, judge and gap values,
    aligned (judged dimensions within the tolerance, of those both scored), flags and notes by rater."""
    import numpy as np

    from judge_tui.analysis.scores import load, mean_of
    from judge_tui.stats import agreement as ag

    dims = rubric.dimension_ids
    with store.snapshot():
        ratings = load(store, rubric, split)
        groups = [mean_of([ratings.first_runs(r) for r in g.rater_ids], len(dims)) for g in (human, judge)]
        keys, ids = store.item_field_values(rubric.id, "id", split)
        ordered = store.item_ids_in_order(rubric.id, split)
        items = store.items_by_id(ordered)
        notes: dict[str, dict[str, str]] = {}
        for (rater_id, item_id), note in store.first_run_notes(rubric.id, split).items():
            if rater_id in (*human.rater_ids, *judge.rater_ids) and note:
                notes.setdefault(item_id, {})[rater_id] = note
        flags: dict[str, list[dict[str, str]]] = {}
        for flag in store.flags(rubric.id, split=split):
            if flag.rater_id in human.rater_ids:
                flags.setdefault(flag.item_id, []).append({"rater": flag.rater_id, "reason": flag.reason})
    key_of = dict(zip(ids, keys.tolist(), strict=True))
    empty = np.full(len(dims) + 1, np.nan)

    def values(group: Any, item_id: str) -> np.ndarray:
        index = np.searchsorted(group.keys, key_of[item_id])
        if index < group.keys.size and group.keys[index] == key_of[item_id]:
            return np.append(group.scores[index], group.overall[index])
        return empty

    judged = [i for i, d in enumerate(rubric.dimensions) if d.method == "judged"]
    rows = []
    for item_id in ordered:
        h, j = values(groups[0], item_id), values(groups[1], item_id)
        item = items[item_id]
        row: dict[str, Any] = {"item_id": item_id, "task_type": item.task_type, "split": item.split}
        for index, name in enumerate([*dims, OVERALL]):
            row[f"{name}_human"], row[f"{name}_judge"] = _shown(h[index], rubric), _shown(j[index], rubric)
            row[f"{name}_gap"] = _plain(j[index] - h[index])
        both = [i for i in judged if not np.isnan(h[i]) and not np.isnan(j[i])]
        within = ag.within_tolerance(h[both], j[both], tolerance)
        row["aligned"] = f"{int(np.count_nonzero(within))}/{len(both)}" if both else ""
        row["flags"] = flags.get(item_id, [])
        by_rater = notes.get(item_id, {})
        row["human_notes"] = {r: by_rater[r] for r in human.rater_ids if r in by_rater}
        row["judge_notes"] = {r: by_rater[r] for r in judge.rater_ids if r in by_rater}
        rows.append(row)
    return rows
