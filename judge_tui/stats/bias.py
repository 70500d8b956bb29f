"""Figures of a judge's systematic leanings against a human reference: pure numpy on paired arrays.

* leniency: the mean of judge − human, with a percentile bootstrap interval over items (past
  ``BOOTSTRAP_MAX_ITEMS`` items the normal interval of a mean, which a bootstrap only reproduces there);
* length bias: Spearman's rho between a response's length and the judge − human residual, with its interval
  (intervals.spearman_interval), flagged when the interval excludes zero;
* on nominal categories, where neither has a meaning (a category's position is a name, not a number), the
  category shares: per category, the share of items the judge puts in it minus the share the humans do, with
  Newcombe's paired interval (intervals.newcombe_paired).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judge_tui.stats import agreement as ag
from judge_tui.stats.agreement import Figure, Undefined
from judge_tui.stats.intervals import (
    BOOTSTRAP_MAX_ITEMS,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Interval,
    IntervalFigure,
    bootstrap,
    mean_interval,
    newcombe_paired,
    percentile_interval,
    spearman_interval,
)


@dataclass(frozen=True)
class Estimate:
    """A figure, its interval, and whether the interval lies wholly on one side of zero."""

    n: int
    value: Figure
    interval: IntervalFigure

    @property
    def excludes_zero(self) -> bool:
        return isinstance(self.interval, Interval) and (self.interval.low > 0 or self.interval.high < 0)


def _finite(*arrays: np.ndarray) -> list[np.ndarray]:
    arrays_f = [np.asarray(a, dtype=np.float64) for a in arrays]
    keep = np.ones(arrays_f[0].shape, dtype=bool)
    for a in arrays_f:
        keep &= np.isfinite(a)
    return [a[keep] for a in arrays_f]


def mean_difference_estimate(judge: np.ndarray, human: np.ndarray, confidence: float = 0.95, *, span: float = 1.0,
                    n_boot: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> Estimate:
    """Mean of judge − human over the items both scored (NaN left out), with a bootstrap interval (a normal
    one past BOOTSTRAP_MAX_ITEMS items). ``span`` is the widest two scores can differ (scores lie in [0, 1]):
    where every item differs by the same amount, it bounds what items unlike them could add
    (intervals.same_values_interval).

    Positive: the judge scores higher than the humans (lenient); negative: harsher.
    """
    j, h = _finite(judge, human)
    diff = j - h
    if diff.size == 0:
        return Estimate(0, Undefined("no item was scored by both sides"), Undefined("no items"))
    value = float(diff.mean())
    if diff.size < 2:
        return Estimate(1, value, Undefined("an interval needs at least two items"))
    if np.ptp(diff) == 0:  # resampling one value gives [v, v], which would read as a certain leaning
        return Estimate(int(diff.size), value, mean_interval(diff, confidence, bounds=(-span, span)))
    if diff.size > BOOTSTRAP_MAX_ITEMS:
        return Estimate(int(diff.size), value, mean_interval(diff, confidence))
    replicates = bootstrap(lambda w: (w @ diff) / w.sum(axis=1), diff.size, n_boot=n_boot, seed=seed)
    return Estimate(int(diff.size), value, percentile_interval(replicates, confidence, low=-np.inf, high=np.inf))


def length_correlation(lengths: np.ndarray, residuals: np.ndarray, confidence: float = 0.95, *,
                       n_boot: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> Estimate:
    """Spearman's rho between length and residual (judge − human), with its interval."""
    x, y = _finite(lengths, residuals)
    rho = ag.spearman_rho(x, y)
    if isinstance(rho, Undefined):
        return Estimate(int(x.size), rho, Undefined(rho.reason))
    return Estimate(int(x.size), rho, spearman_interval(x, y, rho, confidence, n_boot=n_boot, seed=seed))


@dataclass(frozen=True)
class CategoryShift:
    """One category: how often the judge names it, how often the humans do, over the same items."""

    code: int  # 0 … k-1, the rubric's order
    judge_share: Figure
    human_share: Figure
    shift: Estimate  # judge share − human share, with Newcombe's paired interval


def category_shifts(judge: np.ndarray, human: np.ndarray, k: int, confidence: float = 0.95) -> tuple[CategoryShift, ...]:
    """Per category code 0 … k-1: the judge's share minus the humans' share over the items both gave a category
    (NaN: none). Positive: the judge names the category more often than the humans do."""
    j, h = _finite(judge, human)
    if j.size and (j.min() < 0 or h.min() < 0 or j.max() >= k or h.max() >= k or np.any(j % 1) or np.any(h % 1)):
        raise ValueError(f"categories must be codes 0 to {k - 1}")
    n = int(j.size)
    out = []
    for code in range(k):
        said_j, said_h = j == code, h == code
        both = int(np.count_nonzero(said_j & said_h))
        judge_only = int(np.count_nonzero(said_j & ~said_h))
        human_only = int(np.count_nonzero(~said_j & said_h))
        if n == 0:
            none = Undefined("no item was given a category by both sides")
            out.append(CategoryShift(code, none, none, Estimate(0, none, none)))
            continue
        judge_share, human_share = (both + judge_only) / n, (both + human_only) / n
        interval = newcombe_paired(both, judge_only, human_only, n - both - judge_only - human_only, confidence)
        out.append(CategoryShift(code, judge_share, human_share, Estimate(n, judge_share - human_share, interval)))
    return tuple(out)
