"""Disagreements between one expert and one judge, item by item (the disagreement browser)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judge_tui.analysis.scores import agreeing, load, pair
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.store import Store


@dataclass(frozen=True)
class JudgeDisagreement:
    item_id: str
    human_overall: float | None
    judge_overall: float | None
    gap: float  # |human - judge| on the overall score (a PASS/FAIL mismatch is 1; nominal categories: the
    # share of dimensions in another category)
    differing: int  # dimensions whose scores differ by more than the tolerance


def judge_disagreements(store: Store, rubric: Rubric, human_id: str, judge_id: str,
                        settings: AgreementSettings) -> list[JudgeDisagreement]:
    """Items rated by both raters, the largest overall gap first (then the most differing dimensions)."""
    with store.snapshot():
        ratings = load(store, rubric)
        keys, ids = store.item_field_values(rubric.id, "id")
    pairing = pair(ratings.first_runs(human_id), ratings.first_runs(judge_id))
    human_overall, judge_overall = pairing.a.overall, pairing.b.overall
    gap = np.abs(human_overall - judge_overall)
    gap = np.where(np.isnan(gap), 0.0, gap)
    compared = ~np.isnan(pairing.a.scores) & ~np.isnan(pairing.b.scores)
    aligned = agreeing(rubric.scale, pairing.a.scores, pairing.b.scores, settings.tolerance)
    differing = np.count_nonzero(compared & ~aligned, axis=1)
    if rubric.scale.nominal:
        # How far apart two nominal categories are stored means nothing (A to tie is not further than A to B):
        # the gap is the share of dimensions in another category, 1 for a one-dimension rubric, as on PASS/FAIL.
        scored = np.count_nonzero(compared, axis=1)
        gap = np.where(scored > 0, differing / np.maximum(scored, 1), 0.0)
    order = np.lexsort((pairing.keys, -differing, -gap))
    item_ids = [ids[i] for i in np.searchsorted(keys, pairing.keys[order]).tolist()]

    def plain(value: float) -> float | None:
        return None if np.isnan(value) else float(value)

    return [
        JudgeDisagreement(item_id, plain(human_overall[i]), plain(judge_overall[i]), float(gap[i]),
                     int(differing[i]))
        for item_id, i in zip(item_ids, order.tolist(), strict=True)
    ]
