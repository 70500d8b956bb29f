"""Agreement on categories that holds up when one category is rare (the kappa paradox).

With 74% PASS, two raters agree by chance so often that Cohen's kappa stays low even when they rarely
disagree. These figures sit beside kappa so a reader can see when prevalence, not disagreement, pulls it down:

* Gwet's AC1 (unweighted) and AC2 (agreement weights on ordered scales), with Gwet's (2008) standard error, as
  irrCAC's ``CAC(table).gwet()`` computes them;
* PABAK, the prevalence- and bias-adjusted kappa of Byrt, Bishop and Carlin (1993);
* the prevalence index and the bias index of the same paper, for two categories;
* the accuracy of a constant judge that always answers the most common human label.

Tables count (rater A category, rater B category); for the judge's figures A is the human, B the judge.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from judge_tui.stats.agreement import Undefined
from judge_tui.stats.intervals import Interval, IntervalFigure, wilson_at, z_value

__all__ = ["GwetAC", "bias_index", "gwet_ac", "majority_baseline_accuracy", "pabak", "prevalence_index"]


@dataclass(frozen=True)
class GwetAC:
    """Gwet's AC1 (unweighted) or AC2 (weighted) with its standard error and interval."""

    value: float
    standard_error: float
    interval: IntervalFigure
    observed_agreement: float
    chance_agreement: float
    weighted: bool


def _table(confusion: np.ndarray) -> np.ndarray:
    table = np.asarray(confusion, dtype=np.float64)
    if table.ndim != 2 or table.shape[0] != table.shape[1]:
        raise ValueError(f"a confusion table must be square, got shape {table.shape}")
    return table


def gwet_ac(
    confusion: np.ndarray, weights: Literal["quadratic"] | None = None, confidence: float = 0.95
) -> GwetAC | Undefined:
    """Gwet's AC1 (``weights=None``) or AC2 with quadratic agreement weights, from a two-rater table.

    AC = (p_a - p_e) / (1 - p_e) with p_a the (weighted) observed agreement and
    p_e = T_w / (q (q - 1)) · sum_k pi_k (1 - pi_k), where pi_k is the mean of the two raters' shares of
    category k and T_w the sum of the agreement weights. Undefined when either rater used one category only:
    AC then rewards a constant rater (1.0 when both always say PASS, 0.947 for a judge that does worse than
    always answering PASS). The variance is Gwet's (2008) for the subjects
    sampled from an infinite population; the interval is AC ± z·SE clipped to [-1, 1] (irrCAC uses a t
    quantile with n - 1 degrees of freedom, which differs from z by under 1% past 100 items). When every item
    agreed the SE is 0 whatever n is; the interval is then Wilson's for the observed agreement, chance agreement
    held fixed (method "wilson-agreement"), as ``intervals.kappa_interval`` does for kappa.
    """
    table = _table(confusion)
    n = float(table.sum())
    q = table.shape[0]
    if n < 2:
        return Undefined("AC1 needs at least two items rated by both")
    for side, totals in (("the first rater", table.sum(axis=1)), ("the second rater", table.sum(axis=0))):
        if np.count_nonzero(totals) == 1:
            # AC1's chance agreement takes the two raters' mean shares, so a rater who never varies still leaves
            # room for "agreement beyond chance" (1.0 with everyone saying PASS; 0.947 for a judge worse than
            # always-PASS): the figure would measure the labels' skew, not agreement.
            return Undefined(f"{side} gave every item the same category, so AC{1 if weights is None else 2} "
                             "cannot tell agreement from that rater's habit")
    index = np.arange(q)
    w = np.eye(q) if weights is None else 1.0 - (index[:, None] - index[None, :]) ** 2 / float((q - 1) ** 2)
    p = table / n
    pi = (p.sum(axis=1) + p.sum(axis=0)) / 2.0
    total_weight = float(w.sum())
    chance = total_weight * float((pi * (1.0 - pi)).sum()) / (q * (q - 1))
    observed = float((w * p).sum())
    if chance >= 1.0:
        return Undefined("chance agreement is total")
    ac = (observed - chance) / (1.0 - chance)
    term = w - 2.0 * (1.0 - ac) * total_weight * (1.0 - (pi[:, None] + pi[None, :]) / 2.0) / (q * (q - 1))
    spread = float((p * term**2).sum())
    variance = (spread - (observed - 2.0 * (1.0 - ac) * chance) ** 2) / (n * (1.0 - chance) ** 2)
    se = float(np.sqrt(max(variance, 0.0)))
    z = z_value(confidence)
    interval: IntervalFigure = Interval(max(-1.0, ac - z * se), min(1.0, ac + z * se), "gwet", confidence)
    if se <= 1e-12 or not np.any(table[~np.eye(q, dtype=bool)]):
        # Every item agreed (or the spread vanished): a standard error of 0 would claim certainty from a handful
        # of items, whatever n is. As for kappa, take the Wilson interval of the agreement with chance agreement
        # held fixed.
        agreed = wilson_at(observed, n, confidence)
        interval = Interval(max(-1.0, (agreed.low - chance) / (1.0 - chance)),
                            min(1.0, (agreed.high - chance) / (1.0 - chance)), "wilson-agreement", confidence)
    return GwetAC(ac, se, interval, observed, chance, weights is not None)


def pabak(confusion: np.ndarray) -> float | Undefined:
    """Prevalence- and bias-adjusted kappa: (q·p_o - 1) / (q - 1), 2·p_o - 1 for two categories."""
    table = _table(confusion)
    n = float(table.sum())
    if n == 0:
        return Undefined("no items were rated by both")
    q = table.shape[0]
    return float((q * float(np.trace(table)) / n - 1.0) / (q - 1))


def _two_by_two(confusion: np.ndarray, name: str) -> tuple[np.ndarray, float] | Undefined:
    table = _table(confusion)
    if table.shape != (2, 2):
        return Undefined(f"the {name} index is defined for two categories")
    n = float(table.sum())
    if n == 0:
        return Undefined("no items were rated by both")
    return table, n


def prevalence_index(confusion: np.ndarray) -> float | Undefined:
    """|both chose the second category - both chose the first| / n: 0 when the two are equally common."""
    found = _two_by_two(confusion, "prevalence")
    if isinstance(found, Undefined):
        return found
    table, n = found
    return abs(float(table[1, 1] - table[0, 0])) / n


def bias_index(confusion: np.ndarray) -> float | Undefined:
    """(A chose the second category while B chose the first - the reverse) / n: how far the raters' totals differ.

    For a human (rows) and a judge (columns) on PASS/FAIL coded FAIL, PASS, a positive value means the judge
    says FAIL where the human says PASS more often than the reverse.
    """
    found = _two_by_two(confusion, "bias")
    if isinstance(found, Undefined):
        return found
    table, n = found
    return float(table[1, 0] - table[0, 1]) / n


def majority_baseline_accuracy(labels: np.ndarray) -> float | Undefined:
    """Accuracy of a judge that always answers the most common of these (human) labels."""
    values = np.asarray(labels, dtype=np.float64)
    if values.size == 0:
        return Undefined("no labelled items")
    _, counts = np.unique(values, return_counts=True)
    return float(counts.max() / values.size)
