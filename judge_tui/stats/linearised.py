"""Intervals by linearisation, for figures past the size where a bootstrap costs more than it tells.

The infinitesimal jackknife (Jaeckel 1972; Efron 1982, ch. 6): a figure T computed from item weights w (all 1 for
the data as observed) has the influence g_i = dT/dw_i of each item, and its variance is about sum (g_i - mean g)^2.
It is the delta method written item by item, the large-sample limit of the bootstrap over the same items, and a
paired difference of two figures on the same items is linearised the same way (g_i = g2_i - g1_i), keeping the
correlation between the two sides that a paired bootstrap keeps.

A figure computed from a table of sums S = sum_i w_i f_i (a contingency table, coincidences, counts) has
g_i = grad T(S) . f_i; the gradient is taken here by central differences over the cells of S, so any figure
written as a function of its table (``intervals.weighted_kappa``, Krippendorff's alpha) is linearised without
working its derivative out by hand.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from judge_tui.stats.agreement import Undefined
from judge_tui.stats.intervals import Interval, IntervalFigure, weighted_kappa, z_value

__all__ = ["kappa_influence", "normal_interval", "pearson_influence", "share_influence", "table_gradient",
           "variance_of"]

# Relative step of the central differences: small enough for the curvature, large enough for rounding.
_STEP = 1e-6


def table_gradient(function: Callable[[np.ndarray], np.ndarray], table: np.ndarray) -> np.ndarray:
    """The gradient of ``function`` at ``table`` (any shape), by central differences over every cell.

    ``function`` takes a stack of tables (shape (m, *table.shape)) and returns their m figures."""
    flat = np.asarray(table, dtype=np.float64).ravel()
    cells = flat.size
    h = _STEP * max(float(np.abs(flat).sum()), 1.0)
    stack = np.repeat(flat[None, :], 2 * cells, axis=0)
    stack[np.arange(cells), np.arange(cells)] += h
    stack[cells + np.arange(cells), np.arange(cells)] -= h
    values = function(stack.reshape((2 * cells, *np.shape(table))))
    return np.asarray(((values[:cells] - values[cells:]) / (2.0 * h)).reshape(np.shape(table)))


def variance_of(influence: np.ndarray) -> float:
    """The infinitesimal-jackknife variance sum (g_i - mean g)^2 of items' influences."""
    g = np.asarray(influence, dtype=np.float64)
    return float(((g - g.mean()) ** 2).sum()) if g.size else float("nan")


def normal_interval(
    estimate: float, influence: np.ndarray, confidence: float, method: str, *, low: float = -1.0, high: float = 1.0
) -> IntervalFigure:
    """estimate ± z·SE with SE² = variance_of(influence), clipped to [low, high]."""
    variance = variance_of(influence)
    if not np.isfinite(variance) or not np.isfinite(estimate):
        return Undefined("the figure cannot be linearised on these items")
    half = z_value(confidence) * float(np.sqrt(variance))
    return Interval(max(low, float(estimate) - half), min(high, float(estimate) + half), method, confidence)


def share_influence(hits: np.ndarray, counted: np.ndarray | None = None) -> np.ndarray:
    """Influences of a share sum(hits) / sum(counted) (a ratio over clusters when an item counts several)."""
    h = np.asarray(hits, dtype=np.float64)
    c = np.ones_like(h) if counted is None else np.asarray(counted, dtype=np.float64)
    total = c.sum()
    return np.asarray((h - h.sum() / total * c) / total)


def pearson_influence(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Influences of Pearson's r: (z_x z_y - r (z_x² + z_y²) / 2) / n with z the standardised scores."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    n = x.size
    zx = (x - x.mean()) / x.std()
    zy = (y - y.mean()) / y.std()
    r = float((zx * zy).mean())
    return np.asarray((zx * zy - r * (zx * zx + zy * zy) / 2.0) / n)


def kappa_influence(codes_a: np.ndarray, codes_b: np.ndarray, k: int, weights: str | None = None) -> np.ndarray:
    """Influences of Cohen's kappa (unweighted, or quadratic weights) from the items' category codes."""
    cells = np.arange(k * k)
    table = np.bincount(np.asarray(codes_a) * k + np.asarray(codes_b), minlength=k * k).astype(np.float64)

    def kappa_of(tables: np.ndarray) -> np.ndarray:
        return weighted_kappa(tables, cells // k, cells % k, k, weights)  # type: ignore[arg-type]

    gradient = table_gradient(kappa_of, table)
    return np.asarray(gradient[np.asarray(codes_a) * k + np.asarray(codes_b)])
