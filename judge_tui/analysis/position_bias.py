"""A pairwise judge's position bias: its verdicts on the same pairs asked as shown and with A and B swapped.

`judge --both-orders` stores the verdict as shown as repeat 0 and the swapped one, read back onto the pair as
stored, as repeat 1 (its details say `"order": "swapped"`). Here: how often the two differ (the flip rate, with
its interval), which position won the flipped pairs, and the judge against the experts two ways: its verdict as
shown (what the rest of the report compares) and with a flipped pair counted as a tie (the default way to use
both orders, as MT-Bench's judges do), each with accuracy and Cohen's kappa and their intervals.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judge_tui.analysis.scores import RubricRatings, Scores, majority_of
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats import nominal
from judge_tui.store import Store

FLIPPED_AS: nominal.FlippedAs = "tie"  # the default: a verdict that changes with the order is no preference


@dataclass(frozen=True)
class PositionBiasFigures:
    judge: str
    bias: nominal.PositionBias
    as_shown: nominal.PairNominal | None  # against the experts; None without experts on these pairs
    flips_as_ties: nominal.PairNominal | None


def _codes(values: np.ndarray, k: int) -> np.ndarray:
    return np.asarray(np.rint(values * (k - 1)), dtype=np.int64)


def asked_both_orders(store: Store, rubric: Rubric, judge: str) -> bool:
    """Whether this judge's second runs were asked with the pair swapped (`judge --both-orders`)."""
    if not rubric.asks_in_both_orders:
        return False
    seconds = [r for r in store.iter_ratings(rubric.id, [judge]) if r.repeat == 1]
    return bool(seconds) and all(r.details.get("order") == "swapped" for r in seconds)


def position_bias(store: Store, rubric: Rubric, ratings: RubricRatings, judge: str,
                  settings: AgreementSettings) -> PositionBiasFigures | None:
    """The figures for one judge rater, or None when it was not asked in both orders."""
    if not asked_both_orders(store, rubric, judge):
        return None
    runs = ratings.by_repeat(judge)
    shown, swapped = runs.get(0), runs.get(1)
    if shown is None or swapped is None:
        return None
    k = len(rubric.scale.points)
    a, b = 0, 1  # the first two categories: the first and the second paired field wins
    tie = k - 1 if k > 2 else -1
    keys = np.intersect1d(shown.keys, swapped.keys)
    first = shown.on(keys, 0)
    second = swapped.on(keys, 0)
    keep = ~np.isnan(first) & ~np.isnan(second)
    keys, first_codes, second_codes = keys[keep], _codes(first[keep], k), _codes(second[keep], k)
    bias = nominal.position_bias(first_codes, second_codes, k, a, b, settings.confidence)
    experts = [ratings.first_runs(r) for r in ratings.rater_ids if ratings.kinds[r] == "human"]
    as_shown = flips_as_ties = None
    if experts and tie >= 0:
        truth: Scores = majority_of(experts, len(rubric.dimension_ids))[0]
        expert = truth.on(keys, 0)
        rated = ~np.isnan(expert)
        if rated.any():
            expert_codes = _codes(expert[rated], k)
            combined = nominal.combine_orders(first_codes[rated], second_codes[rated], tie, FLIPPED_AS)
            as_shown = nominal.pair_agreement(expert_codes, first_codes[rated], k, settings.confidence)
            flips_as_ties = nominal.pair_agreement(expert_codes, combined, k, settings.confidence)
    return PositionBiasFigures(judge, bias, as_shown, flips_as_ties)
