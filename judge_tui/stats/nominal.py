"""Agreement on named, unordered categories, and a pairwise judge's position bias.

Categories are passed as codes 0 … k-1 (the rubric's order; any order gives the same figures, since none of them
uses it). Two raters: accuracy (the share of items given the same category) with Wilson's interval, Cohen's
kappa with `intervals.kappa_interval`, Gwet's AC1 and the confusion table. Several raters: Fleiss' kappa,
Krippendorff's alpha at the nominal level and AC1, each with its interval (`stats.raters`).

Position bias: a pairwise judge asked twice about one pair, once as shown and once with A and B swapped, should
give the same verdict both times once the second is swapped back. The flip rate is the share of pairs whose two
verdicts disagree, with Wilson's interval; `combine_orders` makes one verdict of the two (a flipped pair counts
as a tie by default, as MT-Bench's judges do).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from judge_tui.stats.agreement import Figure, Undefined, cohen_kappa
from judge_tui.stats.chance import GwetAC, gwet_ac
from judge_tui.stats.intervals import IntervalFigure, kappa_interval, wilson
from judge_tui.stats.raters import FleissKappa, GwetAgreement, alpha_interval, fleiss_kappa, gwet_ac_raters

__all__ = [
    "FlippedAs",
    "GroupNominal",
    "PairNominal",
    "PositionBias",
    "combine_orders",
    "group_agreement",
    "pair_agreement",
    "position_bias",
    "swap_codes",
]

FlippedAs = Literal["tie", "first"]  # what a pair whose verdict flips with the order counts as


def _codes(values: np.ndarray, k: int, name: str) -> np.ndarray:
    codes = np.asarray(values)
    if codes.ndim != 1 or (codes.size and (codes.min() < 0 or codes.max() >= k)):
        raise ValueError(f"{name} must be a list of category codes 0 to {k - 1}")
    return codes.astype(np.int64)


@dataclass(frozen=True)
class PairNominal:
    """Two raters on the same items: rows of the confusion table are the first rater's categories."""

    n: int
    confusion: np.ndarray
    accuracy: Figure
    accuracy_interval: IntervalFigure
    kappa: Figure
    kappa_interval: IntervalFigure
    ac1: GwetAC | Undefined


def pair_agreement(first: np.ndarray, second: np.ndarray, k: int, confidence: float = 0.95) -> PairNominal:
    """Accuracy, Cohen's kappa and AC1 with their intervals, and the confusion table, of two raters' codes."""
    a, b = _codes(first, k, "first"), _codes(second, k, "second")
    if a.size != b.size:
        raise ValueError(f"the two raters must rate the same items: {a.size} and {b.size} codes")
    confusion = np.bincount(a * k + b, minlength=k * k).reshape(k, k)
    n = int(a.size)
    agreed = int(np.trace(confusion))
    accuracy: Figure = agreed / n if n else Undefined("no items were rated by both")
    return PairNominal(
        n=n, confusion=confusion, accuracy=accuracy, accuracy_interval=wilson(agreed, n, confidence),
        kappa=cohen_kappa(a, b, range(k)),
        kappa_interval=kappa_interval(confusion, None, confidence),
        ac1=gwet_ac(confusion, None, confidence),
    )


@dataclass(frozen=True)
class GroupNominal:
    """Several raters (raters x items, NaN where a rater did not rate an item)."""

    raters: int
    items: int
    fleiss: FleissKappa | Undefined
    alpha: Figure
    alpha_interval: IntervalFigure
    ac1: GwetAgreement | Undefined


def group_agreement(matrix: np.ndarray, k: int, confidence: float = 0.95) -> GroupNominal:
    """Fleiss' kappa, Krippendorff's alpha (nominal) and AC1 among raters, each with its interval."""
    values = np.asarray(matrix, dtype=np.float64)
    if values.ndim != 2:
        raise ValueError(f"ratings must be a raters x items matrix, got shape {values.shape}")
    present = values[~np.isnan(values)]
    _codes(present, k, "ratings")
    scale = np.arange(k, dtype=np.float64)
    found = alpha_interval(values, "nominal", scale, confidence)
    alpha: Figure
    interval: IntervalFigure
    if isinstance(found, Undefined):
        alpha, interval = found, found
    else:
        alpha, interval = found
    return GroupNominal(
        raters=values.shape[0], items=values.shape[1], fleiss=fleiss_kappa(values, scale, confidence),
        alpha=alpha, alpha_interval=interval, ac1=gwet_ac_raters(values, scale, None, confidence),
    )


def swap_codes(codes: np.ndarray, first: int, second: int) -> np.ndarray:
    """Codes with two categories exchanged: a verdict given with A and B swapped, read as the pair is stored."""
    out = np.asarray(codes, dtype=np.int64).copy()
    out[codes == first], out[codes == second] = second, first
    return out


@dataclass(frozen=True)
class PositionBias:
    """How often a judge's verdict changes when the two responses swap places."""

    pairs: int
    flips: int
    flip_rate: Figure
    interval: IntervalFigure
    first_shown_wins: int  # flipped pairs where the response shown first won both times
    second_shown_wins: int  # flipped pairs where the response shown second won both times


def position_bias(as_shown: np.ndarray, swapped_back: np.ndarray, k: int, a: int, b: int,
                  confidence: float = 0.95) -> PositionBias:
    """Flip rate of verdicts over pairs asked in both orders.

    `as_shown` holds the verdicts with A first; `swapped_back` those given with B shown first, already read back
    onto the stored pair (see `swap_codes`). A flipped pair where A won as shown and B won swapped favoured the
    first position both times; the reverse favoured the second.
    """
    shown, back = _codes(as_shown, k, "as_shown"), _codes(swapped_back, k, "swapped_back")
    if shown.size != back.size:
        raise ValueError(f"both orders must cover the same pairs: {shown.size} and {back.size} verdicts")
    flipped = shown != back
    flips = int(np.count_nonzero(flipped))
    n = int(shown.size)
    rate: Figure = flips / n if n else Undefined("no pair was asked in both orders")
    return PositionBias(
        pairs=n, flips=flips, flip_rate=rate, interval=wilson(flips, n, confidence),
        first_shown_wins=int(np.count_nonzero((shown == a) & (back == b))),
        second_shown_wins=int(np.count_nonzero((shown == b) & (back == a))),
    )


def combine_orders(as_shown: np.ndarray, swapped_back: np.ndarray, tie: int,
                   flipped_as: FlippedAs = "tie") -> np.ndarray:
    """One verdict per pair from both orders: the verdict where they agree; where they differ, a tie (the
    default) or the verdict as shown."""
    shown = np.asarray(as_shown, dtype=np.int64)
    back = np.asarray(swapped_back, dtype=np.int64)
    if flipped_as == "tie":
        return np.where(shown == back, shown, tie)
    return shown.copy()
