"""The Pearson r interval the report gives, built independently from scipy (the reference)."""

from __future__ import annotations

import numpy as np
from scipy import stats


def jackknife_fisher_z(x: np.ndarray, y: np.ndarray, confidence: float = 0.95) -> tuple[float, float] | None:
    """atanh(r) ± t(n - 1)·SE, SE the jackknife's over scipy's ``pearsonr`` of the items with each one left out,
    on Fisher's z scale; scipy's own ``confidence_interval`` up to three items; None (no interval) where a
    left-out correlation is undefined or ±1 (up to rounding)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = x.size
    result = stats.pearsonr(x, y)
    fallback = result.confidence_interval(confidence)
    if n <= 3:
        return float(fallback.low), float(fallback.high)
    left_out = []
    for i in range(n):
        a, b = np.delete(x, i), np.delete(y, i)
        if np.ptp(a) == 0 or np.ptp(b) == 0:
            return None
        left_out.append(stats.pearsonr(a, b).statistic)
    if np.max(np.abs(left_out)) >= 1 - 1e-12:  # the rest on one line, up to rounding: no z to take
        return None
    z = np.arctanh(left_out)
    se = np.sqrt((n - 1) / n * np.sum((z - z.mean()) ** 2))
    half = stats.t.ppf(0.5 + confidence / 2, n - 1) * se
    centre = np.arctanh(result.statistic)
    return float(np.tanh(centre - half)), float(np.tanh(centre + half))
