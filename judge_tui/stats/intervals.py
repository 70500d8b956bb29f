"""Confidence intervals for agreement figures.

A closed form where a standard one exists, a seeded bootstrap over items otherwise:

* a share with one observation per item (alignment on one dimension, TPR, TNR, accuracy): the Wilson score
  interval;
* Cohen's kappa: on two categories, the Bayesian interval from Jeffreys' Dirichlet(1/2) prior over the table's
  four cells; on more, an interval on log(1 - kappa) with the large-sample standard error of Fleiss, Cohen and
  Everitt (1969), on sqrt(1 - kappa) with the jackknife's for quadratic weights; "too few items" where no
  interval covers (:func:`kappa_interval`);
* Pearson's r: Fisher's z with the jackknife's standard error and Student's t (:func:`pearson_interval`);
* Spearman's rho and Kendall's tau: a bootstrap at small n, Fisher's z with the variances of Fieller, Hartley
  and Pearson (1957) at large n;
* the difference of two shares over the same items (a category's share by the judge and by the experts):
  Newcombe's square-and-add interval for paired shares (:func:`newcombe_paired`);
* a design-weighted share of a stratified sample of a pool (a balanced queue order's TPR, TNR, accuracy,
  alignment): the two-phase stratified Jeffreys posterior for items like these (:func:`stratified_share`);
* anything else, and every paired difference between two judges on the same items: a percentile bootstrap
  over items (:func:`bootstrap`).

Every interval names its method, so a report can say how it was made. Intervals are clipped to the range the
figure can take.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

import numpy as np
import numpy.typing as npt

from judge_tui.stats.agreement import Undefined
from judge_tui.stats.incomplete_beta import log_incomplete_beta

__all__ = [
    "BOOTSTRAP_MAX_ITEMS",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "Interval",
    "IntervalFigure",
    "bootstrap",
    "effective_sample_size",
    "fisher_z",
    "kappa_interval",
    "kappa_min_items",
    "kappa_posterior_interval",
    "kappa_standard_error",
    "kappa_too_few",
    "kendall_interval",
    "mean_interval",
    "newcombe_paired",
    "pearson_interval",
    "percentile_interval",
    "same_values_interval",
    "unseen_share",
    "spearman_interval",
    "stratified_share",
    "stratified_totals",
    "t_cdf",
    "t_value",
    "two_phase_variance",
    "wilson",
    "wilson_at",
    "wilson_bounds",
    "z_value",
]

DEFAULT_RESAMPLES = 2000
DEFAULT_SEED = 20260128
# Above this many items a bootstrap costs more than it tells: the asymptotic intervals are as good there.
BOOTSTRAP_MAX_ITEMS = 5000
# A bootstrap interval is reported only when the figure was defined in at least this share of resamples;
# dropping many resamples would hide how unstable the figure is.
MIN_USABLE_RESAMPLES = 0.95
# Each chunk of resamples holds at most this many item weights in memory at once.
BOOTSTRAP_CHUNK_CELLS = 2_000_000


@dataclass(frozen=True)
class Interval:
    """A two-sided confidence interval and how it was made."""

    low: float
    high: float
    method: str
    confidence: float

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high


IntervalFigure = Interval | Undefined


def _check_confidence(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")


def z_value(confidence: float) -> float:
    """The standard normal quantile that leaves (1 - confidence) / 2 in each tail (1.96 for 95%)."""
    _check_confidence(confidence)
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


@functools.lru_cache(maxsize=1024)
def t_value(confidence: float, df: float) -> float:
    """Student's t quantile that leaves (1 - confidence) / 2 in each tail with ``df`` degrees of freedom
    (scipy's ``t.ppf(0.5 + confidence / 2, df)``), by bisection on the t distribution function, which is the
    regularised incomplete beta function I_x(df/2, 1/2) at x = df / (df + t^2) (Abramowitz and Stegun 26.7.1)."""
    _check_confidence(confidence)
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    tail = (1.0 - confidence) / 2.0
    low, high = 0.0, 1.0
    while _t_tail(high, df) > tail:
        high *= 2.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if _t_tail(middle, df) > tail:
            low = middle
        else:
            high = middle
        if high - low < 1e-13 * max(1.0, high):
            break
    return (low + high) / 2.0


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom (scipy's ``t.cdf``); infinite t allowed."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    tail = _t_tail(abs(t), df)
    return 1.0 - tail if t >= 0 else tail


def _t_tail(t: float, df: float) -> float:
    """P(T > t) for t >= 0: half the regularised incomplete beta I_x(df/2, 1/2), x = df / (df + t^2)."""
    return 0.5 * math.exp(log_incomplete_beta(df / (df + t * t), df / 2.0, 0.5))


def wilson(successes: int, n: int, confidence: float = 0.95) -> IntervalFigure:
    """Wilson score interval for a share of ``successes`` out of ``n`` independent items.

    Equals statsmodels' ``proportion_confint(successes, n, alpha=1 - confidence, method="wilson")``.
    """
    if not 0 <= successes <= n:
        raise ValueError(f"successes must lie in 0..n, got {successes} of {n}")
    if n == 0:
        return Undefined("an interval needs at least one item")
    return wilson_at(successes / n, n, confidence)


def mean_interval(values: np.ndarray, confidence: float = 0.95, *,
                  bounds: tuple[float, float] | None = None) -> IntervalFigure:
    """The normal interval of a mean: mean ± z·sd/√n (what a bootstrap of the mean approaches at large n).

    Values that are all the same have no spread to measure, and mean ± 0 would claim certainty from a handful
    of items: with the ``bounds`` the values can take, :func:`same_values_interval`; without, no interval."""
    n = values.size
    if n < 2:
        return Undefined("an interval of a mean needs at least two items")
    mean = float(values.mean())
    if np.ptp(values) == 0:
        if bounds is None:
            return Undefined(f"all {n} values are the same, so their spread gives no interval")
        return same_values_interval(mean, n, bounds, confidence)
    half = z_value(confidence) * float(values.std(ddof=1)) / float(np.sqrt(n))
    return Interval(mean - half, mean + half, "normal", confidence)


SAME_VALUES = "no spread: share of other values bounded"


def unseen_share(n: int, confidence: float = 0.95) -> float:
    """The largest share of items like these that could be unlike all ``n`` seen: Clopper and Pearson's
    one-sided bound for 0 of n, 1 − (α/2)^(1/n) (the "rule of three" at 95%, about 3.7/n)."""
    _check_confidence(confidence)
    return 1.0 - float(((1.0 - confidence) / 2.0) ** (1.0 / n))


def same_values_interval(value: float, n: int, bounds: tuple[float, float], confidence: float = 0.95) -> Interval:
    """The mean of values like these when all ``n`` seen equal ``value`` and any value lies within ``bounds``.

    Values unlike it may still make up a share q of the population: with 0 of n seen, at most Clopper and
    Pearson's one-sided bound 1 − (α/2)^(1/n) (the "rule of three" for a 95% interval, about 3.7/n). The mean
    then lies between what that share would give at either bound. If the share were larger, seeing none of
    it in n items would have had a chance below α/2, so the interval covers at least as often as it says."""
    share = unseen_share(n, confidence)
    low, high = bounds
    return Interval(value - share * (value - low), value + share * (high - value), SAME_VALUES, confidence)


def wilson_at(share: float, n: float, confidence: float = 0.95) -> Interval:
    """The Wilson interval of an observed share over n items; n may be any positive number (for planning)."""
    z = z_value(confidence)
    z2 = z * z
    denominator = 1.0 + z2 / n
    centre = (share + z2 / (2.0 * n)) / denominator
    half = z * float(np.sqrt(share * (1.0 - share) / n + z2 / (4.0 * n * n))) / denominator
    return Interval(max(0.0, centre - half), min(1.0, centre + half), "wilson", confidence)


def newcombe_paired(both: int, first_only: int, second_only: int, neither: int,
                    confidence: float = 0.95) -> IntervalFigure:
    """Newcombe's (1998) square-and-add interval for the first share minus the second, both counted on the same
    items (method 10: each share's Wilson interval, joined through their correlation, which moves only past a
    continuity allowance of n/2). Equals Fagerland, Lydersen and Laake's worked example (Statistical Analysis of
    Contingency Tables, ch. 8: 59, 6, 16, 80 give -0.0621 [-0.1186, -0.0046])."""
    counts = (both, first_only, second_only, neither)
    if min(counts) < 0:
        raise ValueError(f"counts must not be negative, got {counts}")
    n = both + first_only + second_only + neither
    if n == 0:
        return Undefined("an interval needs at least one item")
    first, second = (both + first_only) / n, (both + second_only) / n
    one, two = wilson_at(first, n, confidence), wilson_at(second, n, confidence)
    low1, high1, low2, high2 = one.low, one.high, two.low, two.high
    margins = (both + first_only) * (second_only + neither) * (both + second_only) * (first_only + neither)
    cross = both * neither - first_only * second_only
    if margins == 0 or 0 <= cross <= n / 2:
        phi = 0.0
    else:
        phi = (cross - n / 2 if cross > n / 2 else cross) / math.sqrt(margins)
    difference = first - second
    below = math.sqrt(max(0.0, (first - low1) ** 2 + (high2 - second) ** 2
                           - 2.0 * phi * (first - low1) * (high2 - second)))
    above = math.sqrt(max(0.0, (second - low2) ** 2 + (high1 - first) ** 2
                           - 2.0 * phi * (second - low2) * (high1 - first)))
    return Interval(max(-1.0, difference - below), min(1.0, difference + above), "newcombe paired", confidence)


def wilson_bounds(successes: np.ndarray, n: int, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The Wilson interval's ends for many success counts out of the same n (n > 0) at once, as ``wilson_at``."""
    z = z_value(confidence)
    z2 = z * z
    share = np.asarray(successes, dtype=np.float64) / n
    denominator = 1.0 + z2 / n
    centre = (share + z2 / (2.0 * n)) / denominator
    half = z * np.sqrt(share * (1.0 - share) / n + z2 / (4.0 * n * n)) / denominator
    return np.maximum(0.0, centre - half), np.minimum(1.0, centre + half)


def fisher_z(
    r: float, n: int, confidence: float = 0.95, *, variance: float = 1.0, offset: int = 3, method: str = "fisher-z"
) -> IntervalFigure:
    """Interval for a correlation by Fisher's z transform: tanh(atanh(r) ± z·sqrt(variance / (n - offset))).

    The defaults are Pearson's r and equal scipy's ``pearsonr(x, y).confidence_interval(confidence)``; with
    too few items (n <= offset) the interval is the whole range [-1, 1], as scipy gives it. A correlation of
    exactly ±1 has none: scipy's [1, 1] would claim certainty from a handful of items that happen to lie on one
    line.
    """
    if n <= offset:
        return Interval(-1.0, 1.0, method, confidence)
    if abs(r) >= 1.0 - 1e-12:  # ±1 up to rounding: atanh is infinite there
        return Undefined(f"no interval: all {n} pairs lie on one straight line (a correlation of exactly "
                         f"{r:+.0f}), where Fisher's z gives none; items that differ more will give one")
    z = z_value(confidence)
    with np.errstate(divide="ignore"):
        centre = np.arctanh(r)
    half = z * np.sqrt(variance / (n - offset))
    return Interval(float(np.tanh(centre - half)), float(np.tanh(centre + half)), method, confidence)


def pearson_interval(x: np.ndarray, y: np.ndarray, r: float, confidence: float = 0.95) -> IntervalFigure:
    """Interval for Pearson's r on Fisher's z with the jackknife's standard error: atanh(r) ± t·SE, SE over the n
    leave-one-item-out correlations on z's scale, sqrt((n - 1)/n · sum_i (z_(i) - z̄)^2), t Student's with n - 1
    degrees of freedom (Efron and Tibshirani 1993, ch. 11). Fisher's own 1/(n - 3) assumes a bivariate normal;
    on scores piled at one end of a short scale it is too small (82.5-93% coverage where 95% is said, at every
    size; this one 94.2-98.4%: benchmarks/bench_decisions_coverage.py --part pearson), and the jackknife's SE reads
    the spread from the items.

    Where a leave-one-out correlation is undefined or ±1 (one item holds all of a side's variation, or every
    other pair lies on one line) one item carries the whole figure and leaving items out cannot show how far r
    could be: no interval, with the reason (falling back to Fisher's own there left the three-point skewed expert's
    close judge covered 89.7% at 25 items). Up to three items, Fisher's whole range [-1, 1], as scipy gives it.
    """
    n = int(np.size(x))
    if n <= 3 or abs(r) >= 1.0 - 1e-12:
        return fisher_z(r, n, confidence)
    left_out = _leave_one_out_pearson(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    if np.isnan(left_out).any():
        return Undefined(f"no interval: one item holds all the variation of one side (its other {n - 1} scores are "
                         "the same), so the items cannot show how far r could be; items that differ will give one")
    if not np.all(np.abs(left_out) < 1.0 - 1e-12):
        return Undefined(f"no interval: {n - 1} of the {n} pairs lie on one straight line, so the items cannot show "
                         "how far r could be; items that differ more will give one")
    z = np.arctanh(left_out)
    se = math.sqrt((n - 1.0) / n * float(((z - z.mean()) ** 2).sum()))
    centre, half = math.atanh(r), t_value(confidence, n - 1) * se
    return Interval(math.tanh(centre - half), math.tanh(centre + half), "fisher-z (jackknife, t)", confidence)


def _leave_one_out_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r of the items with each one left out in turn (NaN where a side would not vary), from centred
    sums less each item's part."""
    n = x.size
    dx, dy = x - x.mean(), y - y.mean()
    # Leaving item i out moves the mean by -d_i/(n - 1); the centred sums lose d_i^2·n/(n - 1).
    shrink = n / (n - 1.0)
    sxx = float(dx @ dx) - shrink * dx * dx
    syy = float(dy @ dy) - shrink * dy * dy
    sxy = float(dx @ dy) - shrink * dx * dy
    with np.errstate(divide="ignore", invalid="ignore"):
        flat = (sxx <= 1e-12 * float(dx @ dx)) | (syy <= 1e-12 * float(dy @ dy))
        return np.where(flat, np.nan, sxy / np.sqrt(np.clip(sxx, 0, None) * np.clip(syy, 0, None)))


def spearman_interval_asymptotic(rho: float, n: int, confidence: float = 0.95) -> IntervalFigure:
    """Fisher's z with Fieller, Hartley and Pearson's variance 1.06 / (n - 3) for Spearman's rho."""
    return fisher_z(rho, n, confidence, variance=1.06, offset=3, method="fisher-z (Fieller)")


def kendall_interval_asymptotic(tau: float, n: int, confidence: float = 0.95) -> IntervalFigure:
    """Fisher's z with Fieller, Hartley and Pearson's variance 0.437 / (n - 4) for Kendall's tau."""
    return fisher_z(tau, n, confidence, variance=0.437, offset=4, method="fisher-z (Fieller)")


# --------------------------------------------------------------------------------------------------
# Cohen's kappa
# --------------------------------------------------------------------------------------------------

KappaWeights = Literal["quadratic"] | None


def agreement_weights(k: int, weights: KappaWeights) -> np.ndarray:
    index = np.arange(k)
    if weights is None:
        return np.eye(k)
    if weights == "quadratic":
        return 1.0 - (index[:, None] - index[None, :]) ** 2 / float((k - 1) ** 2)
    raise ValueError(f"weights must be None or 'quadratic', got {weights!r}")


def kappa_standard_error(confusion: npt.ArrayLike, weights: KappaWeights = None) -> tuple[float, float] | Undefined:
    """Cohen's kappa and its large-sample standard error (Fleiss, Cohen and Everitt 1969).

    ``confusion`` counts (rater A category, rater B category). The standard error is the one that does not
    assume kappa = 0, statsmodels' ``std_kappa``; with agreement weights w (1 on the diagonal, 1 - (i-j)^2 /
    (k-1)^2 for quadratic), var = [sum p_ij (w_ij - (w̄_i. + w̄_.j)(1 - κ))^2 - (κ - p_e(1 - κ))^2] / ((1 - p_e)^2 n).
    """
    table = np.asarray(confusion, dtype=np.float64)
    n = float(table.sum())
    if n < 2:
        return Undefined("kappa needs at least two items rated by both")
    k = table.shape[0]
    w = agreement_weights(k, weights)
    p = table / n
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    chance = float((w * np.outer(rows, cols)).sum())
    if chance >= 1.0 - 1e-12:
        return Undefined("both raters used one and the same category for every item, so chance agreement is total")
    # Degenerate tables get their exact answer, where the formula leaves rounding noise (se = 3e-8, kappa 1 + 1e-15)
    # that kappa_interval would take for a real standard error, claiming certainty from a handful of items.
    if not np.any(table[~np.eye(k, dtype=bool)]):
        return 1.0, 0.0  # every item agreed
    if np.count_nonzero(rows) == 1 or np.count_nonzero(cols) == 1:
        return 0.0, 0.0  # one rater gave every item the same category: agreement is exactly chance
    observed = float((w * p).sum())
    kappa = (observed - chance) / (1.0 - chance)
    w_row = w @ cols  # mean agreement weight of each row category against B's distribution
    w_col = rows @ w  # and of each column category against A's
    spread = (p * (w - (w_row[:, None] + w_col[None, :]) * (1.0 - kappa)) ** 2).sum()
    variance = (spread - (kappa - chance * (1.0 - kappa)) ** 2) / ((1.0 - chance) ** 2 * n)
    return kappa, float(np.sqrt(max(variance, 0.0)))


# Fewer items than this outside a rater's most common category, and that rater's side of the table is too thin
# for any kappa interval to cover: measured in benchmarks/bench_decisions_coverage.py (one such item: 83% for the
# log-disagreement interval of a table of three or more categories). A two-category table's posterior interval
# covers with one such item; with none, kappa is 0 by construction.
KAPPA_MIN_MINORITY = 2
KAPPA_MIN_MINORITY_TWO_CATEGORIES = 1
# Fewer items than this in the table, and no kappa interval measured covers 93-97% in every kind of study: at 12-24
# items some PASS/FAIL studies are covered 90-93% and others 97-99.5% by the same interval, whichever is taken
# (benchmarks/bench_decisions_coverage.py --part exact, docs/benchmarks.md "Kappa intervals from 25 items").
KAPPA_MIN_ITEMS = 25
# Quadratic-weighted kappa on three categories (a 0/0.5/1 scale) needs more: with an expert skewed to one end and
# a loose judge its interval covered 91.8% at 25 items and 92.7-93.0% at 28-30, 93.0-94.2% at 31-35 over two draws
# (the band's lower edge), and no other power of the disagreement or bias-corrected centre moved it
# (benchmarks/bench_decisions_coverage.py --part three-point; 35 keeps a few items of margin).
WEIGHTED_KAPPA_THREE_MIN_ITEMS = 35
# Draws from the posterior of a two-category table: the ends' Monte Carlo error is about 0.01 in kappa, and the
# fixed seed makes them the same on every run.
KAPPA_POSTERIOR_DRAWS = 4000
JEFFREYS_PRIOR = 0.5


def _kappa_and_se_many(tables: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Kappa and its Fleiss–Cohen–Everitt standard error of every table of ``tables`` (shape (..., k, k)); NaN
    where chance agreement is total. The same formula as :func:`kappa_standard_error`, vectorised."""
    n = tables.sum(axis=(-1, -2))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = tables / n[..., None, None]
        rows, cols = p.sum(axis=-1), p.sum(axis=-2)
        chance = np.einsum("...i,ij,...j->...", rows, w, cols)
        observed = (p * w).sum(axis=(-1, -2))
        kappa = np.where(chance < 1.0 - 1e-12, (observed - chance) / (1.0 - chance), np.nan)
        w_row = np.einsum("ij,...j->...i", w, cols)
        w_col = np.einsum("...i,ij->...j", rows, w)
        spread = (p * (w - (w_row[..., :, None] + w_col[..., None, :]) * (1.0 - kappa)[..., None, None]) ** 2).sum(
            axis=(-1, -2))
        variance = (spread - (kappa - chance * (1.0 - kappa)) ** 2) / ((1.0 - chance) ** 2 * n)
    return kappa, np.sqrt(np.clip(variance, 0.0, None))


def kappa_min_items(categories: int, weights: KappaWeights = None) -> int:
    """The fewest items a kappa interval needs: ``KAPPA_MIN_ITEMS``, or ``WEIGHTED_KAPPA_THREE_MIN_ITEMS`` for
    quadratic-weighted kappa on three categories."""
    if weights is not None and categories == 3:
        return WEIGHTED_KAPPA_THREE_MIN_ITEMS
    return KAPPA_MIN_ITEMS


def kappa_too_few(confusion: npt.ArrayLike, weights: KappaWeights = None) -> Undefined | None:
    """Why a kappa table is too thin for an interval, or None: fewer than ``kappa_min_items`` items, or fewer
    than ``KAPPA_MIN_MINORITY`` items (one on two categories) outside a rater's most common category. Kappa itself
    stays defined; only its interval would pretend."""
    table = np.asarray(confusion, dtype=np.float64)
    n = float(table.sum())
    needed = KAPPA_MIN_MINORITY_TWO_CATEGORIES if table.shape[0] == 2 else KAPPA_MIN_MINORITY
    sides = (("the first rater", n - float(table.sum(axis=1).max())),
             ("the second rater", n - float(table.sum(axis=0).max())))
    for side, minority in sorted(sides, key=lambda s: s[1]):
        if minority < needed:
            what = ("gave every item the same category, so kappa is 0 by construction" if minority == 0 else
                    f"put only {minority:.0f} of {n:.0f} items outside their most common category")
            return Undefined(f"too few items for a kappa interval: {side} {what}; no interval covers the truth "
                             f"this rarely (at least {needed} item{'s' if needed > 1 else ''} in another category "
                             f"{'are' if needed > 1 else 'is'} needed)")
    least = kappa_min_items(table.shape[0], weights)
    if n < least:
        of = " for weighted kappa on three categories" if least != KAPPA_MIN_ITEMS else ""
        return Undefined(f"too few items for a kappa interval: {int(round(n))} rated by both, {least} needed{of} "
                         "(with fewer, no interval covers the truth as often as it says in every kind of study)")
    return None


# Cells holding up to this many items get their posterior draws exactly, as a sum of that many exponentials.
_EXACT_GAMMA_CAP = 64


@functools.lru_cache(maxsize=4)
def _posterior_noise(draws: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The random numbers every two-category posterior is drawn from, the same for every table (so a planner
    deciding many tables pays for them once): per cell, running sums of standard exponentials, shape (4, cap,
    draws); the half squares of standard normals (Gamma(1/2) draws), shape (4, draws); standard normals."""
    rng = np.random.default_rng(seed)
    sums = np.cumsum(rng.standard_exponential((4, _EXACT_GAMMA_CAP, draws)), axis=1)
    halves = rng.standard_normal((4, draws)) ** 2 / 2.0
    normals = rng.standard_normal((4, draws))
    for array in (sums, halves, normals):
        array.setflags(write=False)
    return sums, halves, normals


def _jeffreys_gammas(counts: np.ndarray, draws: int, seed: int) -> np.ndarray:
    """Draws of Gamma(count + 1/2) for each of the four cells, shape (draws, 4): Gamma(c + 1/2) is the sum of a
    Gamma(c), itself the sum of c standard exponentials, and a Gamma(1/2), half a squared standard normal.
    Past ``_EXACT_GAMMA_CAP`` items in a cell, the cube of a normal of Marsaglia and Tsang (2000), d·(1 +
    Z/(3·sqrt(d)))^3 with d = c + 1/2 - 1/3, which their method accepts in more than 99.9% of draws there."""
    sums, halves, normals = _posterior_noise(draws, seed)
    out = np.empty((4, draws))
    for cell, count in enumerate(int(round(c)) for c in counts):
        if count == 0:
            out[cell] = halves[cell]
        elif count <= _EXACT_GAMMA_CAP:
            out[cell] = sums[cell, count - 1] + halves[cell]
        else:
            d = count + JEFFREYS_PRIOR - 1.0 / 3.0
            out[cell] = d * np.maximum(1.0 + normals[cell] / (3.0 * np.sqrt(d)), 0.0) ** 3
    return out.T


def kappa_posterior_interval(confusion: npt.ArrayLike, confidence: float = 0.95, *,
                             draws: int = KAPPA_POSTERIOR_DRAWS, seed: int = DEFAULT_SEED) -> Interval:
    """The equal-tailed Bayesian interval of a two-category table's Cohen's kappa, with Jeffreys' prior over the
    four cells: Dirichlet(1/2, 1/2, 1/2, 1/2), whose posterior is Dirichlet(counts + 1/2) (Gelman et al. 2013,
    §3.4: the prior is the multinomial's Jeffreys prior). Kappa of ``draws`` posterior draws (normalised gamma
    draws from seeded random numbers, :func:`_jeffreys_gammas`) gives the quantiles. The interval is widened to
    hold the estimate itself where the prior's pull leaves it just outside (a table with every item agreed has
    kappa 1, which no draw reaches)."""
    table = np.asarray(confusion, dtype=np.float64)
    gammas = _jeffreys_gammas(table.ravel(), draws, seed)
    p = gammas / gammas.sum(axis=1, keepdims=True)
    rows, cols = p[:, 0] + p[:, 1], p[:, 0] + p[:, 2]
    chance = rows * cols + (1.0 - rows) * (1.0 - cols)
    kappas = (p[:, 0] + p[:, 3] - chance) / (1.0 - chance)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(kappas, [tail, 1.0 - tail])
    n = table.sum()
    estimate_chance = (table[0].sum() * table[:, 0].sum() + table[1].sum() * table[:, 1].sum()) / (n * n)
    estimate = ((table[0, 0] + table[1, 1]) / n - estimate_chance) / (1.0 - estimate_chance)
    return Interval(float(max(-1.0, min(low, estimate))), float(min(1.0, max(high, estimate))),
                    "bayes-jeffreys", confidence)


def kappa_interval(
    confusion: npt.ArrayLike, weights: KappaWeights = None, confidence: float = 0.95, *, seed: int = DEFAULT_SEED,
) -> IntervalFigure:
    """A confidence interval of Cohen's kappa, chosen by measured coverage at 12 to 400 items.

    * a two-category table (PASS/FAIL), either weighting: the Bayesian interval with Jeffreys' prior over the
      four cells (:func:`kappa_posterior_interval`); method "bayes-jeffreys". Computed exactly over every table,
      it covers 93.8-97.7% at 25 items and 94.0-95.6% at 46 in the benchmark's 18 kinds of PASS/FAIL study, where
      the interval below missed 6 and 1 of them (benchmarks/bench_decisions_coverage.py --part exact).

    Otherwise kappa is 1 - D_o / D_e, one minus the ratio of the observed to the chance-expected (weighted)
    disagreement, and the interval is built on a power of that ratio, whose sampling distribution is skewed
    towards 1 at small n:

    * unweighted kappa on three or more categories: log(1 - kappa) ± t·SE / (1 - kappa), as Katz et al. (1978)
      build the risk ratio's, with the Fleiss–Cohen–Everitt (1969) standard error and Student's t with n - 1
      degrees of freedom (as Gwet's and irrCAC's intervals use); method "log-disagreement (t)";
    * quadratic-weighted kappa on three or more categories: sqrt(1 - kappa) ± t·SE / (2·sqrt(1 - kappa)) with
      the jackknife's standard error (:func:`kappa_jackknife_se`); method "jackknife (root-disagreement, t)".
      The Fleiss–Cohen–Everitt error is too small there when one rater's categories are skewed (the log interval
      above covered 90.1% at 25 items and 92.7% at 46), and the log over-corrects the skew where the square
      root does not (benchmarks/bench_decisions_coverage.py --part five-point).

    Where no interval covers, it says so (:func:`kappa_too_few`): below ``KAPPA_MIN_ITEMS`` items (35 for
    quadratic-weighted kappa on three categories, ``WEIGHTED_KAPPA_THREE_MIN_ITEMS``), or with fewer
    than two items (one on two categories) outside one rater's most common category. When every item of a table
    of three or more categories agreed there is no disagreement to take a log of, and the
    standard error is 0 whatever n is: the interval is Wilson's for the observed agreement, chance agreement
    held fixed (method "wilson-agreement"). Coverage per cell: ``benchmarks/bench_decisions_coverage.py``.

    References: Katz, D., Baptista, J., Azen, S. P. and Pike, M. C. (1978). Obtaining confidence intervals for
    the risk ratio in cohort studies. *Biometrics* 34(3), 469–474. Fleiss, Cohen and Everitt (1969), as
    :func:`kappa_standard_error`; Fleiss and Davies (1982), as :func:`kappa_jackknife_se`.
    """
    found = kappa_standard_error(confusion, weights)
    if isinstance(found, Undefined):
        return found
    table = np.asarray(confusion, dtype=np.float64)
    few = kappa_too_few(table, weights)
    if few is not None:
        return few
    kappa, se = found
    k = table.shape[0]
    if k == 2:  # on two categories quadratic weights are no weights: the same kappa
        return kappa_posterior_interval(table, confidence, seed=seed)
    w = agreement_weights(k, weights)
    n = int(round(table.sum()))
    if not np.any(table[~np.eye(k, dtype=bool)]):
        p = table / n
        chance = float((w * np.outer(p.sum(axis=1), p.sum(axis=0))).sum())
        agreed = wilson(int(round(float((w * table).sum()))), n, confidence)
        assert isinstance(agreed, Interval)
        return Interval(max(-1.0, (agreed.low - chance) / (1.0 - chance)),
                        min(1.0, (agreed.high - chance) / (1.0 - chance)), "wilson-agreement", confidence)
    q = t_value(confidence, n - 1)
    disagreement = 1.0 - kappa
    if weights is None:
        spread = se / disagreement  # the standard error of log(1 - kappa), by the delta method
        with np.errstate(over="ignore"):
            return Interval(max(-1.0, 1.0 - disagreement * float(np.exp(q * spread))),
                            min(1.0, 1.0 - disagreement * float(np.exp(-q * spread))), "log-disagreement (t)",
                            confidence)
    root = math.sqrt(disagreement)
    half = q * kappa_jackknife_se(table, w) / (2.0 * root)  # delta method: d sqrt(1 - κ) = -dκ / (2 sqrt(1 - κ))
    return Interval(max(-1.0, 1.0 - (root + half) ** 2), min(1.0, 1.0 - max(0.0, root - half) ** 2),
                    "jackknife (root-disagreement, t)", confidence)


def kappa_jackknife_se(table: np.ndarray, w: np.ndarray) -> float:
    """The jackknife standard error of a table's (weighted) kappa, sqrt((n - 1)/n · sum_i (κ_(i) - κ̄)^2) over the
    n leave-one-item-out kappas κ_(i) (Efron and Tibshirani 1993, ch. 11; for kappa from a table's counts,
    Fleiss and Davies 1982): items in one cell leave the same table behind, so each non-empty cell's table
    less one item counts as many times as the cell holds items. A table left with one rater's category only
    has kappa 0, as :func:`kappa_standard_error` gives it.

    Fleiss, J. L. and Davies, M. (1982). Jackknifing functions of multinomial frequencies, with an application
    to a measure of concordance. *American Journal of Epidemiology* 115(6), 841–845."""
    k = table.shape[0]
    counts = table.ravel()
    cells = np.flatnonzero(counts)
    left = np.broadcast_to(counts, (cells.size, k * k)).copy()
    left[np.arange(cells.size), cells] -= 1.0
    kappas, _ = _kappa_and_se_many(left.reshape(-1, k, k), w)
    kappas = np.nan_to_num(kappas, nan=0.0)
    weights = counts[cells]
    n = float(weights.sum())
    mean = float(weights @ kappas) / n
    return math.sqrt((n - 1.0) / n * float(weights @ (kappas - mean) ** 2))


def chance_held_interval(observed: float, chance: float, n: float, confidence: float = 0.95) -> Interval:
    """A chance-corrected figure's interval from Wilson's for the observed agreement over n (effective) items,
    chance agreement held fixed: for when every item agreed and a resampling interval would be a point."""
    agreed = wilson_at(observed, n, confidence)
    return Interval(max(-1.0, (agreed.low - chance) / (1.0 - chance)),
                    min(1.0, (agreed.high - chance) / (1.0 - chance)), "wilson-agreement", confidence)


# --------------------------------------------------------------------------------------------------
# The bootstrap over items
# --------------------------------------------------------------------------------------------------

# A statistic under resampling: given item weights of shape (resamples, items) (how often each item was
# drawn), the figure of every resample, NaN where it is undefined.
WeightedStatistic = Callable[[np.ndarray], np.ndarray]


def bootstrap(
    statistic: WeightedStatistic,
    n: int,
    *,
    n_boot: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    strata: np.ndarray | None = None,
    design_weights: np.ndarray | None = None,
    pool: dict[str, int] | None = None,
) -> np.ndarray:
    """The figure of ``n_boot`` resamples of ``n`` items drawn with replacement.

    Each resample is drawn as multinomial counts per item, which is the same as drawing items with
    replacement and lets every figure be computed as a weighted sum over all resamples at once. The draws
    depend only on (n, n_boot, seed, strata): two figures bootstrapped with the same arguments see the same
    resamples, which is what a paired comparison of two judges on the same items needs.

    With ``strata`` (one label per item) each stratum is resampled on its own, keeping its size, as a
    stratified sample must be; ``design_weights`` (one per item, e.g. stratum size / items rated in it)
    multiply the counts, so the statistic sees every resample weighted as the estimate is.

    With ``pool`` (each stratum's size in the pool the strata were sampled from) the pool is resampled too, as
    a two-phase design's first phase: each resample's stratum sizes are drawn multinomially from the pool's,
    and a stratum's weights scale with its drawn size. The figure is then one for items like these, not for the
    pool: with every item rated it varies as an unstratified bootstrap's does. The item draws stay the same.
    """
    if n < 1:
        raise ValueError("a bootstrap needs at least one item")
    if n_boot < 1:
        raise ValueError(f"n_boot must be at least 1, got {n_boot}")
    rng = np.random.default_rng(seed)
    groups = [np.arange(n)] if strata is None else [np.flatnonzero(strata == s) for s in np.unique(strata)]
    scale = np.ones(n) if design_weights is None else np.asarray(design_weights, dtype=np.float64)
    chunk = max(1, BOOTSTRAP_CHUNK_CELLS // n)
    out = np.empty(n_boot)
    phase_one = None if pool is None or strata is None else _PhaseOne(strata, pool, seed)
    for start in range(0, n_boot, chunk):
        rows = min(chunk, n_boot - start)
        weights = np.zeros((rows, n))
        for members in groups:
            size = members.size
            weights[:, members] = rng.multinomial(size, np.full(size, 1.0 / size), size=rows)
        if phase_one is not None:
            weights *= phase_one.factors(rows)
        # A pool drawn without a stratum can leave a resample no item: its figure is NaN, which is how it says so.
        with np.errstate(divide="ignore", invalid="ignore"):
            out[start : start + rows] = statistic(weights * scale)
    return out


class _PhaseOne:
    """A pool's stratum sizes drawn again per resample: each item's factor, drawn size ÷ size in the pool."""

    def __init__(self, strata: np.ndarray, pool: dict[str, int], seed: int) -> None:
        strata = np.asarray(strata)
        names = sorted({*map(str, np.unique(strata)), *pool})
        self.sizes = np.array([pool.get(name, int((strata == name).sum())) for name in names], dtype=np.float64)
        self.index = np.searchsorted(names, strata.astype(str))
        self.rng = np.random.default_rng([seed, 1])  # its own stream: the item draws stay as without it

    def factors(self, rows: int) -> np.ndarray:
        total = int(self.sizes.sum())
        drawn = self.rng.multinomial(total, self.sizes / total, size=rows)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(self.sizes > 0, drawn / self.sizes, 0.0)
        return ratio[:, self.index]


def effective_sample_size(design_weights: np.ndarray) -> float:
    """Kish's effective sample size (sum w)^2 / sum w^2: n itself when every weight is equal."""
    w = np.asarray(design_weights, dtype=np.float64)
    return float(w.sum() ** 2 / (w * w).sum()) if w.size else 0.0


SAME_VALUE_TOLERANCE = 1e-12


def percentile_interval(
    replicates: np.ndarray, confidence: float = 0.95, *, method: str = "bootstrap", low: float = -1.0, high: float = 1.0
) -> IntervalFigure:
    """The percentile interval of bootstrap replicates (NaN marks a resample where the figure was undefined)."""
    _check_confidence(confidence)
    usable = replicates[np.isfinite(replicates)]
    if usable.size < MIN_USABLE_RESAMPLES * replicates.size:
        return Undefined(
            f"the figure was defined in only {usable.size} of {replicates.size} resamples; "
            "rate more items to get an interval"
        )
    # [v, v] would claim certainty from however few items. Resamples that agree up to rounding are the same
    # value: a perfect correlation computes as 1.0 in one resample and 0.9999999999999998 in another, and which
    # resamples do depends on the CPU and maths library.
    if usable.size and np.ptp(usable) <= SAME_VALUE_TOLERANCE:
        return Undefined("no interval: every resample of the items gives the same value, so resampling cannot show"
                         " how far it could be; items that differ will give one")
    tail = (1.0 - confidence) / 2.0 * 100.0
    lower, upper = np.percentile(usable, [tail, 100.0 - tail])
    return Interval(max(low, float(lower)), min(high, float(upper)), method, confidence)


STRATIFIED_DRAWS = 4000


def stratified_share(
    strata: np.ndarray,
    hits: np.ndarray,
    counted: np.ndarray,
    pool: dict[str, int],
    *,
    draws: int = STRATIFIED_DRAWS,
    seed: int = DEFAULT_SEED,
    categories: dict[str, list[tuple[float, float]]] | None = None,
) -> np.ndarray:
    """Posterior draws of the share sum(hits) / sum(counted) over items like these (the judge's, not one pool's),
    from a stratified sample of a pool whose stratum sizes are known (``pool``): a balanced queue order.

    The pool is itself a sample of items like these, and the rated items a stratified sample of the pool: a
    two-phase design. Each item falls in a category, its (hits, counted) pair (for TPR: not counted, a counted
    miss or a counted hit). Per stratum the categories' chances get a Jeffreys posterior, Dirichlet(seen + 1/2),
    and the strata's shares of items like these a Dirichlet(pool size + 1/2 per category) from the pool; each
    draw gives one possible population, whose share is one draw of the figure. Nothing is exact: with every item
    rated the draws are Jeffreys' Beta(hits + 1/2, misses + 1/2) of the plain share (PASS/FAIL strata, where an
    item's category says its stratum's verdict), so the interval is as wide as import order's, never a point.
    A stratum with no item rated yet is drawn from the prior alone, as wide as what it could hold.

    ``categories`` may name the categories an item of a stratum can fall in (with PASS/FAIL strata by the
    judge's verdict, a TPR item of the PASS stratum is a hit or not counted, never a miss): the prior's 1/2
    goes to those (and any seen there) only, not to impossible ones.
    """
    hit_total = np.zeros(draws)
    counted_total = np.zeros(draws)
    for totals in stratified_totals(strata, hits, counted, pool, draws=draws, seed=seed,
                                    categories=categories).values():
        hit_total += totals[:, 0]
        counted_total += totals[:, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(counted_total > 0, hit_total / counted_total, np.nan)


def stratified_totals(
    strata: np.ndarray,
    hits: np.ndarray,
    counted: np.ndarray,
    pool: dict[str, int],
    *,
    draws: int = STRATIFIED_DRAWS,
    seed: int = DEFAULT_SEED,
    categories: dict[str, list[tuple[float, float]]] | None = None,
) -> dict[str, np.ndarray]:
    """{stratum: draws × 2 array of (hits, counted) per item of the population, from that stratum}: its share of
    the population times its mean (hits, counted), drawn as :func:`stratified_share` describes. Figures that
    combine strata in other ways than one share (TPR and TNR together) read them from the same draws."""
    strata = np.asarray(strata)
    pairs = np.stack([np.asarray(hits, dtype=np.float64), np.asarray(counted, dtype=np.float64)], axis=1)
    most = max(1.0, float(pairs[:, 1].max())) if pairs.size else 1.0
    anywhere = np.unique(np.vstack([pairs, [[0.0, most], [most, most]]]), axis=0)
    rng = np.random.default_rng(seed)
    names = sorted({*map(str, np.unique(strata)), *pool})
    means, sizes = [], []
    for name in names:
        members = pairs[strata == name]
        possible = (categories or {}).get(name)
        kinds = anywhere if possible is None else np.unique(np.vstack([members, possible]), axis=0)
        seen = (members[:, None, :] == kinds[None, :, :]).all(axis=2).sum(axis=0)
        means.append(rng.dirichlet(seen + 0.5, size=draws) @ kinds)
        # Its share of the population: the pool's count (the rated items' where the pool does not name it), with
        # the prior's 1/2 per category, so that with every item rated the whole is one Jeffreys posterior.
        sizes.append(pool.get(name, members.shape[0]) + 0.5 * kinds.shape[0])
    shares = rng.dirichlet(np.array(sizes, dtype=np.float64), size=draws)
    return {name: shares[:, [k]] * mean for k, (name, mean) in enumerate(zip(names, means, strict=True))}


def two_phase_variance(strata: np.ndarray, hits: np.ndarray, counted: np.ndarray, pool: dict[str, int]) -> float:
    """The variance of the stratified share sum_h W_h·mean_h(hits) / sum_h W_h·mean_h(counted), W_h = N_h / N
    the stratum's share of the pool, as an estimate for items like these (two-phase sampling: the pool a sample
    of them, the rated items a stratified sample of the pool; Cochran 1977, §12.3, no finite-population
    correction). By the delta method, with z = hits − share·counted and B the weighted mean of counted,

        Var = [sum_h W_h² s_h²(z) / n_h  +  (1/N) sum_h W_h (mean_h(z) − 0)²] / B²

    the first term the stratified sample's (s_h² with n_h − 1; 0 for a stratum of one item), the second the
    pool's own sampling of the strata's shares. NaN when a stratum of the pool has no item rated."""
    strata = np.asarray(strata)
    y, x = np.asarray(hits, dtype=np.float64), np.asarray(counted, dtype=np.float64)
    names = sorted({*map(str, np.unique(strata)), *pool})
    sizes = {name: pool.get(name, int((strata == name).sum())) for name in names}
    total = sum(sizes.values())
    if total <= 0 or any(not np.any(strata == name) for name in names if sizes[name] > 0):
        return float("nan")
    share_of = {name: sizes[name] / total for name in names}
    base = sum(share_of[h] * x[strata == h].mean() for h in names if sizes[h] > 0)
    if base <= 0:
        return float("nan")
    figure = sum(share_of[h] * y[strata == h].mean() for h in names if sizes[h] > 0) / base
    within = between = 0.0
    for name in names:
        z = y[strata == name] - figure * x[strata == name]
        if z.size == 0:
            continue
        if z.size > 1:
            within += share_of[name] ** 2 * float(z.var(ddof=1)) / z.size
        between += share_of[name] * float(z.mean()) ** 2 / total
    return float((within + between) / base**2)


# Statistics of weighted items, vectorised over resamples (rows of ``weights``).


def weighted_share(weights: np.ndarray, hits: np.ndarray, counted: np.ndarray | None = None) -> np.ndarray:
    """sum(w·hits) / sum(w·counted): a share over items, or over several scores per item (a cluster)."""
    numerator = weights @ np.asarray(hits, dtype=np.float64)
    denominator = weights.sum(axis=1) if counted is None else weights @ np.asarray(counted, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, numerator / denominator, np.nan)


def weighted_pearson(weights: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r of every resample; NaN where one side does not vary."""
    total = weights.sum(axis=1)
    mx, my = (weights @ x) / total, (weights @ y) / total
    sxx = weights @ (x * x) / total - mx * mx
    syy = weights @ (y * y) / total - my * my
    sxy = weights @ (x * y) / total - mx * my
    scale = np.sqrt(np.clip(sxx, 0, None) * np.clip(syy, 0, None))
    with np.errstate(divide="ignore", invalid="ignore"):
        # Relative guard: a side whose variance is float noise around zero does not vary.
        tiny = (sxx <= 1e-12 * (weights @ (x * x) / total)) | (syy <= 1e-12 * (weights @ (y * y) / total))
        return np.where(tiny | (scale == 0), np.nan, np.clip(sxy / scale, -1.0, 1.0))


def _cell_counts(weights: np.ndarray, codes_a: np.ndarray, codes_b: np.ndarray, ka: int, kb: int) -> np.ndarray:
    """Contingency tables of every resample: shape (resamples, ka, kb)."""
    cells = np.asarray(codes_a) * kb + np.asarray(codes_b)
    onehot = np.zeros((cells.size, ka * kb))
    onehot[np.arange(cells.size), cells] = 1.0
    return (weights @ onehot).reshape(-1, ka, kb)


def weighted_kappa(
    weights: np.ndarray, codes_a: np.ndarray, codes_b: np.ndarray, k: int, kappa_weights: KappaWeights = None
) -> np.ndarray:
    """Cohen's kappa (unweighted or quadratic) of every resample from the items' category codes."""
    tables = _cell_counts(weights, codes_a, codes_b, k, k)
    total = tables.sum(axis=(1, 2))
    w = agreement_weights(k, kappa_weights)
    observed = (tables * w).sum(axis=(1, 2)) / total
    rows, cols = tables.sum(axis=2) / total[:, None], tables.sum(axis=1) / total[:, None]
    chance = np.einsum("ri,ij,rj->r", rows, w, cols)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(chance < 1.0 - 1e-12, (observed - chance) / (1.0 - chance), np.nan)


def weighted_ac1(weights: np.ndarray, codes_a: np.ndarray, codes_b: np.ndarray, k: int) -> np.ndarray:
    """Gwet's AC1 of every resample from the items' category codes (k >= 2 categories)."""
    tables = _cell_counts(weights, codes_a, codes_b, k, k)
    total = tables.sum(axis=(1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = tables / total[:, None, None]
        observed = np.trace(p, axis1=1, axis2=2)
        pi = (p.sum(axis=2) + p.sum(axis=1)) / 2.0
        chance = (pi * (1.0 - pi)).sum(axis=1) / (k - 1)
        return np.where(chance < 1.0 - 1e-12, (observed - chance) / (1.0 - chance), np.nan)


def _level_ranks(counts: np.ndarray) -> np.ndarray:
    """Average rank of each level given the count of every level per resample (ties share their mean rank)."""
    before = np.cumsum(counts, axis=1) - counts
    return np.asarray(before + (counts + 1.0) / 2.0)


def weighted_spearman(weights: np.ndarray, codes_a: np.ndarray, codes_b: np.ndarray, ka: int, kb: int) -> np.ndarray:
    """Spearman's rho of every resample from level codes (sorted distinct values) of both sides."""
    tables = _cell_counts(weights, codes_a, codes_b, ka, kb)
    counts_a, counts_b = tables.sum(axis=2), tables.sum(axis=1)
    ranks_a, ranks_b = _level_ranks(counts_a), _level_ranks(counts_b)
    total = counts_a.sum(axis=1)
    ma = (counts_a * ranks_a).sum(axis=1) / total
    mb = (counts_b * ranks_b).sum(axis=1) / total
    saa = (counts_a * ranks_a**2).sum(axis=1) / total - ma**2
    sbb = (counts_b * ranks_b**2).sum(axis=1) / total - mb**2
    sab = np.einsum("rij,ri,rj->r", tables, ranks_a, ranks_b) / total - ma * mb
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((saa > 1e-12) & (sbb > 1e-12), np.clip(sab / np.sqrt(saa * sbb), -1, 1), np.nan)


def weighted_kendall(weights: np.ndarray, codes_a: np.ndarray, codes_b: np.ndarray, ka: int, kb: int) -> np.ndarray:
    """Kendall's tau-b of every resample from level codes, by counting concordant pairs in the tables."""
    tables = _cell_counts(weights, codes_a, codes_b, ka, kb)
    # above[r, i, j]: items with a level above i on side a and above j on side b.
    above = np.flip(np.cumsum(np.cumsum(np.flip(tables, (1, 2)), axis=1), axis=2), (1, 2))
    above = np.pad(above, ((0, 0), (0, 1), (0, 1)))[:, 1:, 1:]
    # below_right[r, i, j]: items above i on side a and below j on side b.
    above_a = np.flip(np.cumsum(np.flip(tables, 1), axis=1), 1)
    above_a = np.pad(above_a, ((0, 0), (0, 1), (0, 0)))[:, 1:, :]
    below_b = np.cumsum(above_a, axis=2) - above_a
    concordant = (tables * above).sum(axis=(1, 2))
    discordant = (tables * below_b).sum(axis=(1, 2))
    total = tables.sum(axis=(1, 2))
    pairs = total * (total - 1) / 2
    ties_a = (tables.sum(axis=2) * (tables.sum(axis=2) - 1) / 2).sum(axis=1)
    ties_b = (tables.sum(axis=1) * (tables.sum(axis=1) - 1) / 2).sum(axis=1)
    denominator = np.sqrt((pairs - ties_a) * (pairs - ties_b))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, np.clip((concordant - discordant) / denominator, -1, 1), np.nan)


def _levels(values: np.ndarray) -> tuple[np.ndarray, int]:
    distinct, codes = np.unique(np.asarray(values, dtype=np.float64), return_inverse=True)
    return codes, int(distinct.size)


# Bootstrapping a rank correlation costs resamples x levels_a x levels_b; past this it uses Fieller's variance.
_RANK_TABLE_MAX_CELLS = 400


def _rank_interval(
    weighted: Callable[[np.ndarray, np.ndarray, np.ndarray, int, int], np.ndarray],
    asymptotic: Callable[[float, int, float], IntervalFigure],
    x: np.ndarray, y: np.ndarray, figure: float, confidence: float, n_boot: int, seed: int,
) -> IntervalFigure:
    codes_x, kx = _levels(x)
    codes_y, ky = _levels(y)
    n = codes_x.size
    if n > BOOTSTRAP_MAX_ITEMS or kx * ky > _RANK_TABLE_MAX_CELLS:
        return asymptotic(figure, n, confidence)
    replicates = bootstrap(lambda w: weighted(w, codes_x, codes_y, kx, ky), n, n_boot=n_boot, seed=seed)
    return percentile_interval(replicates, confidence)


def spearman_interval(
    x: np.ndarray, y: np.ndarray, rho: float, confidence: float = 0.95, *, n_boot: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> IntervalFigure:
    """Bootstrap interval of Spearman's rho at small n and few distinct values; Fieller's z otherwise."""
    return _rank_interval(weighted_spearman, spearman_interval_asymptotic, x, y, rho, confidence, n_boot, seed)


def kendall_interval(
    x: np.ndarray, y: np.ndarray, tau: float, confidence: float = 0.95, *, n_boot: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> IntervalFigure:
    """Bootstrap interval of Kendall's tau-b at small n and few distinct values; Fieller's z otherwise."""
    return _rank_interval(weighted_kendall, kendall_interval_asymptotic, x, y, tau, confidence, n_boot, seed)
