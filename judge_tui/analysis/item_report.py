"""`judge-tui report --items`: item by item, the human and judge scores per dimension, their gaps, the flags
and the notes, one row per item (analysis/report_render/items.py writes them as CSV, JSON Lines or Markdown).

The groups and scores are the report's (`report.py`): each rater's first run under the newest rubric version
they used, a group of several raters scored by its mean. A gap is judge minus human (positive: the judge is
more lenient). Every item of the rubric (and split) is listed, rated or not, so gaps in coverage show.

On a scale of categories a mean of category positions names no category (A and tie average to B), so each side
is its raters' categories instead: the most frequent one (none on a tie) and the split, "B (2 of 3) · A". A
nominal scale has no gap and its dimensions align when both sides' categories are the same; an ordered one's
gap counts categories (judge's minus human's).

With a judge's certificate in force (`judge-tui assign --escalate`), each row also says whether the certificate
leaves the item to the judge (`judge_decides`); without one the column is left out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from judge_tui.model.rubrics import Rubric, Scale
from judge_tui.model.settings import AgreementSettings
from judge_tui.store import Store

if TYPE_CHECKING:
    import numpy as np

OVERALL = "overall"


def _plain(value: float) -> float | None:
    """A score or gap as written: None where missing, float noise rounded away (0.7 - 1 is -0.3)."""
    return None if value != value else round(float(value), 6)  # NaN is the only value not equal to itself


def _on_scale(value: float, rubric: Rubric) -> float:
    """A score as the scale's own number (3 on a scale of whole numbers 0 to 6, not its stored 0.5); NaN kept."""
    return rubric.scale.value(value) if value == value else value


def _shown(value: float, rubric: Rubric) -> float | str | None:
    """A side's score as written: PASS or FAIL on a PASS/FAIL scale (a group's mean between them stays the
    share of PASS), else the number, a whole number's own."""
    plain = _plain(_on_scale(value, rubric))
    if rubric.scale.named and plain is not None and any(abs(plain - p) < 1e-9 for p in rubric.scale.points):
        return rubric.scale.label(plain)
    return plain


def category_split(values: np.ndarray, scale: Scale) -> tuple[float | None, str | None]:
    """Several raters' categories of one item: the most frequent (None when two or more tie for it, or nobody
    rated) and the split as written, "B (2 of 3) · A" (a single rater: "B"; a tie: "no majority: A · B")."""
    import numpy as np

    rated = values[~np.isnan(values)]
    if rated.size == 0:
        return None, None
    points, counts = np.unique(rated, return_counts=True)
    order = sorted(range(points.size), key=lambda n: (-counts[n], points[n]))  # most often first, then scale order
    names = [(scale.label(float(points[n])), int(counts[n])) for n in order]
    if len(names) == 1 and rated.size == 1:
        return float(points[order[0]]), names[0][0]
    tied = len(names) > 1 and names[1][1] == names[0][1]
    rest = [f"{name} ({count})" if count > 1 else name for name, count in names[0 if tied else 1:]]
    if tied:
        return None, "no majority: " + " · ".join(rest)
    top, count = names[0]
    return float(points[order[0]]), " · ".join([f"{top} ({count} of {rated.size})", *rest])


def item_rows(store: Store, rubric: Rubric, human: Any, judge: Any, split: str | None,
              settings: AgreementSettings) -> list[dict[str, Any]]:
    """One row per item: id, task type, split, per dimension and overall the human, judge and gap values,
    aligned (judged dimensions within the settings' tolerance, of those both scored), flags and notes by
    rater; with a certificate in force, whether the judge decides the item."""
    import numpy as np

    from judge_tui.analysis.scores import agreeing, load, mean_of

    dims = rubric.dimension_ids
    with store.snapshot():
        ratings = load(store, rubric, split)
        members = [[ratings.first_runs(r) for r in g.rater_ids] for g in (human, judge)]
        groups = [mean_of(m, len(dims)) for m in members]
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
        in_force = store.certificate_in_force(rubric.id) is not None
        decided = set(store.judge_decided(rubric.id)) if in_force else set()
    key_of = dict(zip(ids, keys.tolist(), strict=True))
    empty = np.full(len(dims) + 1, np.nan)

    def values(group: Any, item_id: str) -> np.ndarray:
        index = np.searchsorted(group.keys, key_of[item_id])
        if index < group.keys.size and group.keys[index] == key_of[item_id]:
            return np.append(group.scores[index], group.overall[index])
        return empty

    judged = [i for i, d in enumerate(rubric.dimensions) if d.method == "judged"]
    scale = rubric.scale
    # The columns that hold categories: every dimension, and the overall when it is the one dimension's label.
    categories = range(len(dims) + (rubric.overall == "label")) if scale.categories else range(0)
    exact = scale.nominal  # nominal: no gap between categories
    item_keys = np.array([key_of[i] for i in ordered], dtype=np.int64)
    stacks = [np.stack([m.rows_on(item_keys) for m in group]) if group else np.empty((0, len(ordered), len(dims) + 1))
              for group in members]  # raters x items x (dimensions + overall)
    rows = []
    for position, item_id in enumerate(ordered):
        h, j = values(groups[0], item_id).copy(), values(groups[1], item_id).copy()
        item = items[item_id]
        row: dict[str, Any] = {"item_id": item_id, "task_type": item.task_type, "split": item.split}
        for index, name in enumerate([*dims, OVERALL]):
            splits: tuple[str | None, ...] = ()
            if index in categories:  # the most frequent category of each side, not a mean of positions
                (modal_h, split_h), (modal_j, split_j) = (category_split(stack[:, position, index], scale)
                                                          for stack in stacks)
                h[index], j[index] = (np.nan if v is None else v for v in (modal_h, modal_j))
                splits = (split_h, split_j)
            row[f"{name}_human"], row[f"{name}_judge"] = _shown(h[index], rubric), _shown(j[index], rubric)
            if not splits:
                row[f"{name}_gap"] = _plain(_on_scale(j[index], rubric) - _on_scale(h[index], rubric))
                continue
            row[f"{name}_human_split"], row[f"{name}_judge_split"] = splits
            steps = (j[index] - h[index]) * (len(scale.points) - 1)  # categories apart, on an ordered scale
            row[f"{name}_gap"] = None if exact or np.isnan(steps) else round(float(steps))
        both = [i for i in judged if not np.isnan(h[i]) and not np.isnan(j[i])]
        within = agreeing(scale, h[both], j[both], settings.tolerance)
        row["aligned"] = f"{int(np.count_nonzero(within))}/{len(both)}" if both else ""
        row["flags"] = flags.get(item_id, [])
        by_rater = notes.get(item_id, {})
        row["human_notes"] = {r: by_rater[r] for r in human.rater_ids if r in by_rater}
        row["judge_notes"] = {r: by_rater[r] for r in judge.rater_ids if r in by_rater}
        if in_force:
            row["judge_decides"] = item_id in decided
        rows.append(row)
    return rows
