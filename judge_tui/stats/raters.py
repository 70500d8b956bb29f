"""Agreement among several raters with intervals: Krippendorff's alpha by units, and Fleiss' kappa.

Both take a raters x items matrix with NaN for a missing rating and values on the scale (snap first).

* Krippendorff's alpha at the nominal, ordinal or interval level is computed from each unit's coincidences,
  so a bootstrap over units (Hayes and Krippendorff 2007 resample the units of analysis) is a weighted sum of
  per-unit tables and all resamples are computed at once. Equals the ``krippendorff`` package's alpha. Past
  ``BOOTSTRAP_MAX_ITEMS`` units the interval is the infinitesimal jackknife over the same units (the
  bootstrap's large-sample limit, ``stats.linearised``), named as such.
* Fleiss' kappa, in the generalised form that lets the number of raters vary by item, with Gwet's variance
  as irrCAC's ``CAC(ratings).fleiss()`` computes it;
* Gwet's AC1 (and AC2 with quadratic weights) for any number of raters per item, with Gwet's (2008) variance,
  as irrCAC's ``CAC(ratings, weights=...).gwet()`` computes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from judge_tui.stats.agreement import Undefined
from judge_tui.stats.intervals import (
    BOOTSTRAP_MAX_ITEMS,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    SAME_VALUES,
    Interval,
    IntervalFigure,
    bootstrap,
    percentile_interval,
    unseen_share,
    z_value,
)
from judge_tui.stats.linearised import normal_interval, table_gradient

__all__ = ["FleissKappa", "GwetAgreement", "alpha_interval", "alpha_intervals", "fleiss_kappa", "gwet_ac_raters",
           "unit_category_counts"]

Level = Literal["nominal", "ordinal", "interval"]


def unit_category_counts(matrix: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """How many raters put each item into each scale category: shape (items, categories)."""
    values = np.asarray(matrix, dtype=np.float64)
    points = np.asarray(scale, dtype=np.float64)
    present = ~np.isnan(values)
    codes = np.abs(values[..., None] - points).argmin(axis=-1)
    k = points.size
    cells = np.where(present, np.arange(values.shape[1]) * k + codes, -1)[present]
    return np.bincount(cells, minlength=values.shape[1] * k).reshape(values.shape[1], k).astype(np.float64)


def unit_coincidences(counts: np.ndarray) -> np.ndarray:
    """Each pairable unit's coincidence table (n_uc n_uk - [c = k] n_uc) / (m_u - 1): shape (units, k, k)."""
    counts = np.asarray(counts, dtype=np.float64)
    m = counts.sum(axis=1)
    pairs: np.ndarray = counts[:, :, None] * counts[:, None, :]
    index = np.arange(counts.shape[1])
    pairs[:, index, index] -= counts
    pairs /= (m - 1.0)[:, None, None]  # in place: a second table of every unit costs its memory's first touch
    return pairs


def _squared_distance(level: Level, scale: np.ndarray, marginals: np.ndarray) -> np.ndarray:
    """delta^2 between every pair of categories; the ordinal metric depends on each resample's marginals."""
    k = scale.size
    if level == "nominal":
        return np.broadcast_to(1.0 - np.eye(k), marginals.shape[:-1] + (k, k))
    if level == "interval":
        return np.broadcast_to((scale[:, None] - scale[None, :]) ** 2, marginals.shape[:-1] + (k, k))
    # ordinal: (sum of n_g for g from c to k, minus half of n_c and n_k) squared.
    cumulative = np.cumsum(marginals, axis=-1)
    upper = np.maximum.outer(np.arange(k), np.arange(k))
    lower = np.minimum.outer(np.arange(k), np.arange(k))
    span = cumulative[..., upper] - cumulative[..., lower] + marginals[..., lower]
    return np.asarray((span - (marginals[..., :, None] + marginals[..., None, :]) / 2.0) ** 2)


def alpha_from_coincidences(coincidences: np.ndarray, level: Level, scale: np.ndarray) -> np.ndarray:
    """Alpha of coincidence tables of shape (..., k, k); NaN where the expected disagreement is 0."""
    marginals = coincidences.sum(axis=-1)
    total = marginals.sum(axis=-1)
    delta = _squared_distance(level, scale, marginals)
    observed = (coincidences * delta).sum(axis=(-2, -1))
    expected = (marginals[..., :, None] * marginals[..., None, :] * delta).sum(axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(expected > 0, 1.0 - (total - 1.0) * observed / expected, np.nan)


def alpha_interval(
    matrix: np.ndarray, level: Level, scale: np.ndarray, confidence: float = 0.95, *,
    n_boot: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED, max_bootstrap_units: int = BOOTSTRAP_MAX_ITEMS,
) -> tuple[float, IntervalFigure] | Undefined:
    """Krippendorff's alpha and its percentile bootstrap interval over units (items rated by two or more);
    past ``max_bootstrap_units`` units, the infinitesimal jackknife over the units."""
    return alpha_intervals(matrix, (level,), scale, confidence, n_boot=n_boot, seed=seed,
                           max_bootstrap_units=max_bootstrap_units)[level]


def alpha_intervals(
    matrix: np.ndarray, levels: Sequence[Level], scale: np.ndarray, confidence: float = 0.95, *,
    n_boot: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED, max_bootstrap_units: int = BOOTSTRAP_MAX_ITEMS,
    counts: np.ndarray | None = None,
) -> dict[Level, tuple[float, IntervalFigure] | Undefined]:
    """`alpha_interval` at each of ``levels``, the units' coincidences made once for all of them. ``counts``: the
    matrix's `unit_category_counts`, when the caller has them already."""
    if counts is None:
        counts = unit_category_counts(matrix, scale)
    counts = counts[counts.sum(axis=1) >= 2]
    if counts.shape[0] < 2:
        return dict.fromkeys(levels, Undefined("alpha needs at least two items rated by at least two raters"))
    points = np.asarray(scale, dtype=np.float64)
    per_unit = unit_coincidences(counts)
    total = per_unit.sum(axis=0)
    return {level: _alpha_interval(counts, per_unit, total, level, points, confidence, n_boot=n_boot, seed=seed,
                                   max_bootstrap_units=max_bootstrap_units) for level in levels}


def _alpha_interval(counts: np.ndarray, per_unit: np.ndarray, total: np.ndarray, level: Level, points: np.ndarray,
                    confidence: float, *, n_boot: int, seed: int, max_bootstrap_units: int
                    ) -> tuple[float, IntervalFigure] | Undefined:
    """One level's alpha from the units' coincidences (``total``: their sum) and its interval."""
    value = float(alpha_from_coincidences(total, level, points))
    if np.isnan(value):
        return Undefined("every rating is the same value, so agreement cannot be told apart from chance")
    k = points.size
    if value == 1.0:
        return value, _all_agreed_interval(counts, per_unit, level, points, confidence)
    flat = per_unit.reshape(per_unit.shape[0], k * k)
    if counts.shape[0] > max_bootstrap_units:
        gradient = table_gradient(lambda tables: alpha_from_coincidences(tables, level, points), total)
        return value, normal_interval(value, flat @ gradient.ravel(), confidence, "infinitesimal jackknife (units)")

    def statistic(weights: np.ndarray) -> np.ndarray:
        return alpha_from_coincidences((weights @ flat).reshape(-1, k, k), level, points)

    replicates = bootstrap(statistic, counts.shape[0], n_boot=n_boot, seed=seed)
    return value, percentile_interval(replicates, confidence, method="bootstrap (units)")


def _all_agreed_interval(counts: np.ndarray, per_unit: np.ndarray, level: Level, points: np.ndarray,
                         confidence: float) -> Interval:
    """Alpha when every unit's ratings agreed: every resample says 1, which would claim certainty. Units like
    these may still disagree in a share up to ``unseen_share`` of them; each such unit adds at most its values
    times the largest squared distance to the observed disagreement, the expected disagreement held at the
    observed one's (as kappa's interval holds chance agreement when every item agreed)."""
    marginals = per_unit.sum(axis=(0, 2))
    delta = _squared_distance(level, points, marginals)
    total = float(marginals.sum())
    expected = float((marginals[:, None] * marginals[None, :] * delta).sum())
    worst = unseen_share(counts.shape[0], confidence) * counts.shape[0] * float(counts.sum(axis=1).max()) * float(delta.max())
    return Interval(max(-1.0, 1.0 - (total - 1.0) * worst / expected), 1.0, SAME_VALUES, confidence)


@dataclass(frozen=True)
class FleissKappa:
    value: float
    standard_error: float
    interval: Interval


def fleiss_kappa(matrix: np.ndarray, scale: np.ndarray, confidence: float = 0.95, *,
                 counts: np.ndarray | None = None) -> FleissKappa | Undefined:
    """Fleiss' kappa for any number of raters per item, with Gwet's standard error.

    p_a is the mean, over items rated by two or more, of the share of agreeing rater pairs; p_e = sum_k pi_k^2
    with pi_k the mean share of category k over items. The interval is kappa ± z·SE clipped to [-1, 1].
    ``counts``: the matrix's `unit_category_counts`, when the caller has them already.
    """
    if counts is None:
        counts = unit_category_counts(matrix, scale)
    counts = counts[counts.sum(axis=1) > 0]
    n = counts.shape[0]
    raters = counts.sum(axis=1)
    pairable = raters >= 2
    if np.count_nonzero(pairable) < 2:
        return Undefined("Fleiss' kappa needs at least two items rated by at least two raters")
    agreeing = (counts * (counts - 1.0)).sum(axis=1)
    pair_counts = np.where(pairable, raters * (raters - 1.0), 1.0)
    item_agreement = np.where(pairable, agreeing / pair_counts, 0.0)
    observed = float(item_agreement[pairable].sum() / np.count_nonzero(pairable))
    shares = (counts / raters[:, None]).mean(axis=0)
    chance = float((shares**2).sum())
    if chance >= 1.0:
        return Undefined("every rating is the same category, so agreement cannot be told apart from chance")
    kappa = (observed - chance) / (1.0 - chance)
    # Gwet's linearisation: each item's contribution, corrected for the estimated chance agreement.
    share_of_pairable = n / np.count_nonzero(pairable)
    item_kappa = share_of_pairable * (item_agreement - chance * pairable) / (1.0 - chance)
    item_chance = counts @ shares / raters
    corrected = item_kappa - 2.0 * (1.0 - kappa) * (item_chance - chance) / (1.0 - chance)
    variance = float(((corrected - kappa) ** 2).sum() / (n * (n - 1.0)))
    se = float(np.sqrt(variance))
    z = z_value(confidence)
    return FleissKappa(kappa, se, Interval(max(-1.0, kappa - z * se), min(1.0, kappa + z * se), "gwet", confidence))


@dataclass(frozen=True)
class GwetAgreement:
    """Gwet's AC1 (unweighted) or AC2 (weighted) among several raters, with its standard error and interval."""

    value: float
    standard_error: float
    interval: Interval
    weighted: bool


def gwet_ac_raters(matrix: np.ndarray, scale: np.ndarray, weights: Literal["quadratic"] | None = None,
                   confidence: float = 0.95, *, counts: np.ndarray | None = None) -> GwetAgreement | Undefined:
    """Gwet's AC1 (``weights=None``) or AC2 with quadratic agreement weights among any number of raters.

    p_a is the mean, over items rated by two or more, of the (weighted) share of agreeing rater pairs;
    p_e = T_w / (q (q - 1)) · sum_k pi_k (1 - pi_k), pi_k the mean share of category k over items. The variance
    linearises each item's contribution as Gwet (2008) does; the interval is AC ± z·SE clipped to [-1, 1].
    ``counts``: the matrix's `unit_category_counts`, when the caller has them already.
    """
    if counts is None:
        counts = unit_category_counts(matrix, scale)
    counts = counts[counts.sum(axis=1) > 0]
    n, q = counts.shape
    raters = counts.sum(axis=1)
    pairable = raters >= 2
    if np.count_nonzero(pairable) < 2:
        return Undefined("AC1 needs at least two items rated by at least two raters")
    index = np.arange(q)
    w = np.eye(q) if weights is None else 1.0 - (index[:, None] - index[None, :]) ** 2 / float((q - 1) ** 2)
    weighted_counts = counts @ w.T
    pairs = np.where(pairable, raters * (raters - 1.0), 1.0)
    item_agreement = np.where(pairable, (counts * (weighted_counts - 1.0)).sum(axis=1) / pairs, 0.0)
    observed = float(item_agreement[pairable].sum() / np.count_nonzero(pairable))
    shares = (counts / raters[:, None]).mean(axis=0)
    total_weight = float(w.sum())
    chance = total_weight * float((shares * (1.0 - shares)).sum()) / (q * (q - 1))
    if chance >= 1.0:
        return Undefined("chance agreement is total")
    ac = (observed - chance) / (1.0 - chance)
    share_of_pairable = n / np.count_nonzero(pairable)
    item_ac = share_of_pairable * (item_agreement - chance * pairable) / (1.0 - chance)
    item_chance = total_weight / (q * (q - 1)) * (counts @ (1.0 - shares)) / raters
    corrected = item_ac - 2.0 * (1.0 - ac) * (item_chance - chance) / (1.0 - chance)
    se = float(np.sqrt(((corrected - ac) ** 2).sum() / (n * (n - 1.0))))
    z = z_value(confidence)
    return GwetAgreement(ac, se, Interval(max(-1.0, ac - z * se), min(1.0, ac + z * se), "gwet", confidence),
                         weights is not None)
