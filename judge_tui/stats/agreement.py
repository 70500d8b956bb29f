"""Agreement statistics between raters, as pure functions over numpy arrays.

Every figure is a ``float`` or an :class:`Undefined` that says in plain words why the figure cannot be
computed (too few items, a rater who used a single category, ...). Data conditions never raise and never
produce NaN; only programming mistakes (arrays of different lengths, values off the scale where categories
are required, an unknown option) raise ``ValueError``.

Conventions
-----------
* Scores are floats. PASS/FAIL is encoded PASS = 1.0, FAIL = 0.0.
* A scale is the sorted tuple of its allowed points, e.g. ``(0, 0.25, 0.5, 0.75, 1)``.
* Functions over two raters take aligned 1-D arrays over the items both rated; the caller pairs them.
* Rater x item matrices mark a missing rating with NaN.

This module imports nothing from the rest of judge-tui; its only dependencies are numpy and (lazily, for
Krippendorff's alpha) the ``krippendorff`` package. See docs/agreement.md for definitions; what a figure means
for trusting the judge (bands, advice) is analysis/bands.py's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, Protocol, TypeGuard

import numpy as np
import numpy.typing as npt

__all__ = [
    "BinaryMetrics",
    "CorrectedPassRate",
    "Figure",
    "PairAgreement",
    "PairedScores",
    "PointFigure",
    "Undefined",
    "accuracy_of",
    "alignment_of",
    "alignment_rate",
    "binary_metrics",
    "cohen_kappa",
    "compare",
    "compare_averaged",
    "confusion_matrix",
    "corrected_pass_rate",
    "is_defined",
    "judge_only_pass_rates",
    "kappa_of",
    "kendall_of",
    "kendall_tau",
    "krippendorff_alpha",
    "lowest_and_highest",
    "mean_difference",
    "mean_difference_of",
    "pairwise_kappa",
    "pearson_of",
    "pearson_r",
    "snap_to_scale",
    "spearman_of",
    "spearman_rho",
    "tnr_of",
    "tpr_of",
    "weighted_kappa_of",
]

PASS = 1.0
FAIL = 0.0
BINARY_SCALE = (FAIL, PASS)

# A value this close to a scale point counts as that point (float noise from JSON or arithmetic).
ON_SCALE_EPSILON = 1e-9
# Differences this much above the tolerance still count as aligned: 0.65 - 0.5 is 0.15000000000000002.
ALIGNMENT_EPSILON = 1e-9
# Kendall's tau uses a rater-by-rater table of distinct values while it has at most this many cells.
KENDALL_TABLE_MAX_CELLS = 1 << 20

ArrayLike = npt.ArrayLike
Weights = Literal["linear", "quadratic"] | None
AlphaLevel = Literal["nominal", "ordinal", "interval", "ratio"]


@dataclass(frozen=True)
class Undefined:
    """A figure that cannot be computed from the data, with the reason in words a reviewer understands."""

    reason: str

    def __str__(self) -> str:
        return "n/a"


Figure = float | Undefined


def is_defined(value: Figure) -> TypeGuard[float]:
    """True when ``value`` is a number rather than :class:`Undefined`."""
    return not isinstance(value, Undefined)


# --------------------------------------------------------------------------------------------------
# Input checks and coding
# --------------------------------------------------------------------------------------------------


def _scores(values: ArrayLike, name: str) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of scores, got shape {array.shape}")
    if not np.isfinite(array).all():
        raise ValueError(f"{name} contains NaN or infinite scores; pair only items that both raters rated")
    return array


def _paired(a: ArrayLike, b: ArrayLike, names: tuple[str, str] = ("a", "b")) -> tuple[np.ndarray, np.ndarray]:
    x, y = _scores(a, names[0]), _scores(b, names[1])
    if x.size != y.size:
        raise ValueError(f"{names[0]} and {names[1]} must be aligned: lengths {x.size} and {y.size} differ")
    return x, y


def _scale(points: ArrayLike) -> np.ndarray:
    array = np.asarray(points, dtype=np.float64)
    if array.ndim != 1 or array.size < 2:
        raise ValueError(f"a scale needs at least two points, got {points!r}")
    if not np.isfinite(array).all() or not (np.diff(array) > 0).all():
        raise ValueError(f"scale points must be finite and strictly increasing, got {points!r}")
    return array


# Up to this many midpoints (scales of up to 17 points), _nearest counts them instead of searching them.
_COUNTED_MIDPOINTS = 16


def _nearest(values: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Index of the nearest scale point for every value; a value halfway between two points goes down."""
    midpoints = (points[:-1] + points[1:]) / 2
    if midpoints.size > _COUNTED_MIDPOINTS:
        return np.searchsorted(midpoints, values, side="left")
    # The midpoints below each value, counted: on a few points several times as fast as a binary search per
    # value, and the same index (NaN, which a search sorts last, is past every midpoint here too).
    index = np.zeros(np.shape(values), dtype=np.intp)
    for midpoint in midpoints.tolist():
        index += ~(values <= midpoint)
    return index


def _codes(values: np.ndarray, points: np.ndarray, name: str) -> np.ndarray:
    """Category index of every value, which must already lie on the scale."""
    index = _nearest(values, points)
    off = np.abs(values - points[index]) > ON_SCALE_EPSILON
    if off.any():
        first = values[off][0]
        raise ValueError(
            f"{name} has {int(off.sum())} value(s) off the scale {tuple(points.tolist())} (first: {first!r}); "
            "snap them with snap_to_scale() first"
        )
    return index


def snap_to_scale(values: ArrayLike, points: ArrayLike) -> tuple[np.ndarray, int]:
    """Move every value to the nearest point of the scale.

    Continuous judge scores (say 0.83 on a 0/0.5/1 scale) must become categories before kappa or a
    confusion matrix can be computed. A value exactly halfway between two points goes to the lower point
    (the judge gets no benefit of the doubt). Values beyond the ends go to the end points. NaN stays NaN,
    so rater x item matrices can be snapped whole.

    Returns the snapped array (same shape as ``values``) and how many non-missing values were more than
    ``ON_SCALE_EPSILON`` away from every point, so callers can say that snapping happened.
    """
    scale = _scale(points)
    array = np.asarray(values, dtype=np.float64)
    present = ~np.isnan(array)
    snapped = np.full(array.shape, np.nan)
    flat = array[present]
    nearest = scale[_nearest(flat, scale)]
    snapped[present] = nearest
    moved = int(np.count_nonzero(np.abs(flat - nearest) > ON_SCALE_EPSILON))
    return snapped, moved


# --------------------------------------------------------------------------------------------------
# Agreement and distance
# --------------------------------------------------------------------------------------------------


def within_tolerance(a: ArrayLike, b: ArrayLike, tolerance: float) -> np.ndarray:
    """Pair by pair, whether two scores align: they differ by at most ``tolerance`` (plus float noise)."""
    within: np.ndarray = np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float)) <= tolerance + ALIGNMENT_EPSILON
    return within


def alignment_rate(a: ArrayLike, b: ArrayLike, tolerance: float) -> Figure:
    """Share of pairs whose scores differ by at most ``tolerance`` (both ends included).

    A difference that exceeds the tolerance only by float noise (``ALIGNMENT_EPSILON``) still counts.
    Defined from one pair on; Undefined for no pairs.
    """
    if tolerance < 0:
        raise ValueError(f"tolerance must be zero or positive, got {tolerance}")
    x, y = _paired(a, b)
    if x.size == 0:
        return Undefined("no items were rated by both")
    return float(np.count_nonzero(within_tolerance(x, y, tolerance)) / x.size)


def mean_difference(judge: ArrayLike, human: ArrayLike) -> Figure:
    """Mean of (judge - human): positive means the judge is more lenient than the human."""
    x, y = _paired(judge, human, ("judge", "human"))
    if x.size == 0:
        return Undefined("no items were rated by both")
    return float(np.mean(x - y))


def _confusion_from_codes(ca: np.ndarray, cb: np.ndarray, k: int) -> np.ndarray:
    return np.bincount(ca * k + cb, minlength=k * k).reshape(k, k)


def confusion_matrix(a: ArrayLike, b: ArrayLike, categories: ArrayLike) -> np.ndarray:
    """Counts of (a category, b category): rows follow ``a``, columns follow ``b``, both in scale order.

    Values must lie on the scale (snap first). Matches ``sklearn.metrics.confusion_matrix(a, b,
    labels=categories)``. An empty input gives a matrix of zeros.
    """
    scale = _scale(categories)
    x, y = _paired(a, b)
    return _confusion_from_codes(_codes(x, scale, "a"), _codes(y, scale, "b"), scale.size)


def _kappa_from_confusion(confusion: np.ndarray, weights: Weights) -> Figure:
    n = int(confusion.sum())
    if n < 2:
        return Undefined("kappa needs at least two items rated by both")
    k = confusion.shape[0]
    index = np.arange(k)
    if weights is None:
        disagreement = (index[:, None] != index[None, :]).astype(np.float64)
    elif weights == "linear":
        disagreement = np.abs(index[:, None] - index[None, :]).astype(np.float64)
    else:
        disagreement = ((index[:, None] - index[None, :]) ** 2).astype(np.float64)
    expected = np.outer(confusion.sum(axis=1), confusion.sum(axis=0)) / n
    expected_disagreement = float((disagreement * expected).sum())
    if expected_disagreement <= 0:
        return Undefined(
            "both raters used one and the same category for every item, so chance agreement is total"
        )
    observed_disagreement = float((disagreement * confusion).sum())
    # Kappa lies in [-1, 1]; rounding can push a total disagreement a hair past -1.
    return min(1.0, max(-1.0, 1.0 - observed_disagreement / expected_disagreement))


def _check_weights(weights: Weights) -> None:
    if weights not in (None, "linear", "quadratic"):
        raise ValueError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}")


def cohen_kappa(a: ArrayLike, b: ArrayLike, categories: ArrayLike, weights: Weights = None) -> Figure:
    """Cohen's kappa over the scale's categories, optionally weighted.

    kappa = 1 - sum(w * observed) / sum(w * expected), where ``expected`` is the outer product of the two
    raters' category totals divided by n, and ``w`` is 0 on the diagonal and 1 elsewhere (unweighted),
    |i - j| (linear) or (i - j)^2 (quadratic) for category indices i, j. Weights use the categories' rank,
    which for equally spaced scales is the same as using their values. Matches
    ``sklearn.metrics.cohen_kappa_score(a, b, labels=categories, weights=weights)``.

    Values must lie on the scale (snap first). Undefined for fewer than two items, or when both raters put
    every item into the same single category (chance alone would give full agreement).
    """
    _check_weights(weights)
    return _kappa_from_confusion(confusion_matrix(a, b, categories), weights)


# --------------------------------------------------------------------------------------------------
# Correlations
# --------------------------------------------------------------------------------------------------


def _pearson(x: np.ndarray, y: np.ndarray) -> Figure:
    if x.size < 2:
        return Undefined("a correlation needs at least two items rated by both")
    if x.min() == x.max() or y.min() == y.max():
        return Undefined("one rater gave the same score to every item, so there is no variation to correlate")
    dx = x - x.mean()
    dy = y - y.mean()
    # Sums rather than np.dot: BLAS wakes its threads for long vectors, which costs milliseconds a call on a
    # busy machine, where numpy's own (pairwise) sum takes microseconds.
    r = float((dx * dy).sum() / (np.sqrt((dx * dx).sum()) * np.sqrt((dy * dy).sum())))
    return min(1.0, max(-1.0, r))


def pearson_r(a: ArrayLike, b: ArrayLike) -> Figure:
    """Pearson's correlation coefficient (matches ``scipy.stats.pearsonr``).

    Undefined for fewer than two pairs or when either rater's scores do not vary.
    """
    x, y = _paired(a, b)
    return _pearson(x, y)


@dataclass(frozen=True)
class CodedScores:
    """Scores replaced by integer codes that keep their order and ties, plus how often each code occurs."""

    codes: np.ndarray
    counts: np.ndarray

    @property
    def levels(self) -> int:
        return self.counts.size


def coded_scores(values: np.ndarray) -> CodedScores:
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    return CodedScores(inverse.astype(np.int64, copy=False), counts.astype(np.int64, copy=False))


def _average_ranks(coded: CodedScores) -> np.ndarray:
    """1-based ranks, tied values sharing the mean of the ranks they span."""
    before = np.cumsum(coded.counts) - coded.counts
    ranks: np.ndarray = (before + (coded.counts + 1) / 2.0)[coded.codes]
    return ranks


def _spearman(cx: CodedScores, cy: CodedScores) -> Figure:
    return _pearson(_average_ranks(cx), _average_ranks(cy))


def spearman_rho(a: ArrayLike, b: ArrayLike) -> Figure:
    """Spearman's rank correlation, ties given average ranks (matches ``scipy.stats.spearmanr``).

    Undefined for fewer than two pairs or when either rater's scores do not vary.
    """
    x, y = _paired(a, b)
    return _spearman(coded_scores(x), coded_scores(y))


def _tie_pairs(counts: np.ndarray) -> int:
    return int((counts * (counts - 1) // 2).sum())


def _concordance_from_table(cx: CodedScores, cy: CodedScores) -> tuple[int, int]:
    """(concordant - discordant, pairs tied in both) from the table of distinct-value pairs, O(kx * ky)."""
    table = np.bincount(cx.codes * cy.levels + cy.codes, minlength=cx.levels * cy.levels)
    table = table.reshape(cx.levels, cy.levels)
    # above_right[i, j]: items with x-code >= i and y-code >= j; below_left-like for the discordant side.
    above_right = table[::-1, ::-1].cumsum(axis=0).cumsum(axis=1)[::-1, ::-1]
    above_left = table[::-1, :].cumsum(axis=0)[::-1, :].cumsum(axis=1)
    concordant = int((table[:-1, :-1] * above_right[1:, 1:]).sum())
    discordant = int((table[:-1, 1:] * above_left[1:, :-1]).sum())
    return concordant - discordant, _tie_pairs(table.ravel())


def count_inversions(sequence: np.ndarray, levels: int) -> int:
    """Pairs i < j with sequence[i] > sequence[j], for integers in [0, levels); O(n log levels).

    Works bit by bit from the top: within each group of values sharing the higher bits (kept in original
    order), every 1-bit element before a 0-bit element is an inversion decided at this bit. The groups are
    then split stably into their 0-half and 1-half for the next bit.
    """
    n = sequence.size
    if n < 2:
        return 0
    current = sequence.astype(np.int64, copy=True)
    position = np.arange(n)
    inversions = 0
    for bit in range(max(levels - 1, 1).bit_length() - 1, -1, -1):
        prefix = current >> (bit + 1)
        ones = (current >> bit) & 1
        starts = np.empty(n, dtype=bool)
        starts[0] = True
        np.not_equal(prefix[1:], prefix[:-1], out=starts[1:])
        group_start = np.flatnonzero(starts)
        group = np.cumsum(starts) - 1
        start_of_own = group_start[group]
        ones_before = np.cumsum(ones) - ones
        ones_before_in_group = ones_before - ones_before[start_of_own]
        inversions += int(ones_before_in_group[ones == 0].sum())
        zeros_in_group = np.diff(np.append(group_start, n)) - np.add.reduceat(ones, group_start)
        zeros_before_in_group = position - start_of_own - ones_before_in_group
        target = start_of_own + np.where(
            ones == 1, zeros_in_group[group] + ones_before_in_group, zeros_before_in_group
        )
        reordered = np.empty_like(current)
        reordered[target] = current
        current = reordered
    return inversions


def _concordance_by_sorting(cx: CodedScores, cy: CodedScores) -> tuple[int, int]:
    """(concordant - discordant, pairs tied in both) by Knight's method, O(n log n) for any data."""
    order = np.lexsort((cy.codes, cx.codes))
    xs, ys = cx.codes[order], cy.codes[order]
    n = xs.size
    # After sorting by (x, y), a discordant pair is exactly an inversion of the y sequence.
    discordant = count_inversions(ys, cy.levels)
    boundaries = np.flatnonzero(np.r_[True, (xs[1:] != xs[:-1]) | (ys[1:] != ys[:-1]), True])
    joint_ties = _tie_pairs(np.diff(boundaries))
    total = n * (n - 1) // 2
    # total = concordant + discordant + x-ties + y-ties - joint ties
    concordant = total - discordant - _tie_pairs(cx.counts) - _tie_pairs(cy.counts) + joint_ties
    return concordant - discordant, joint_ties


def kendall_tau_coded(cx: CodedScores, cy: CodedScores,
                      method: Literal["auto", "table", "sort"] = "auto") -> Figure:
    n = cx.codes.size
    if n < 2:
        return Undefined("a correlation needs at least two items rated by both")
    if cx.levels < 2 or cy.levels < 2:
        return Undefined("one rater gave the same score to every item, so there is no variation to correlate")
    if method == "auto":
        method = "table" if cx.levels * cy.levels <= KENDALL_TABLE_MAX_CELLS else "sort"
    if method == "table":
        difference, _ = _concordance_from_table(cx, cy)
    else:
        difference, _ = _concordance_by_sorting(cx, cy)
    total = n * (n - 1) // 2
    tau = difference / np.sqrt(total - _tie_pairs(cx.counts)) / np.sqrt(total - _tie_pairs(cy.counts))
    return min(1.0, max(-1.0, float(tau)))


def kendall_tau(a: ArrayLike, b: ArrayLike) -> Figure:
    """Kendall's tau-b, which corrects for ties (matches ``scipy.stats.kendalltau``).

    Rating scales have few distinct values, so the pairs are counted from the small table of distinct
    value pairs in O(n + kx * ky); data with many distinct values (over ``KENDALL_TABLE_MAX_CELLS`` table
    cells) uses an O(n log n) sort instead. Undefined for fewer than two pairs or when either rater's
    scores do not vary.
    """
    x, y = _paired(a, b)
    return kendall_tau_coded(coded_scores(x), coded_scores(y))


# --------------------------------------------------------------------------------------------------
# PASS/FAIL
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BinaryMetrics:
    """How a PASS/FAIL judge fares against human labels taken as the truth (PASS is the positive class)."""

    n: int
    true_pass: int  # human PASS, judge PASS
    false_fail: int  # human PASS, judge FAIL
    true_fail: int  # human FAIL, judge FAIL
    false_pass: int  # human FAIL, judge PASS
    tpr: Figure  # true_pass / human PASS
    tnr: Figure  # true_fail / human FAIL
    accuracy: Figure


def _binary_from_confusion(confusion: np.ndarray) -> BinaryMetrics:
    # rows: human FAIL, PASS; columns: judge FAIL, PASS
    true_fail, false_pass = int(confusion[0, 0]), int(confusion[0, 1])
    false_fail, true_pass = int(confusion[1, 0]), int(confusion[1, 1])
    n = true_fail + false_pass + false_fail + true_pass
    human_pass, human_fail = true_pass + false_fail, true_fail + false_pass
    tpr: Figure = true_pass / human_pass if human_pass else Undefined("the human labels contain no PASS")
    tnr: Figure = true_fail / human_fail if human_fail else Undefined("the human labels contain no FAIL")
    accuracy: Figure = (true_pass + true_fail) / n if n else Undefined("no items were labelled by both")
    return BinaryMetrics(n, true_pass, false_fail, true_fail, false_pass, tpr, tnr, accuracy)


def binary_metrics(human: ArrayLike, judge: ArrayLike) -> BinaryMetrics:
    """TPR, TNR and accuracy of the judge's PASS/FAIL labels against the human's.

    Labels are 1.0 (PASS) or 0.0 (FAIL). TPR is Undefined without any human PASS, TNR without any human
    FAIL, accuracy without any pair.
    """
    scale = np.asarray(BINARY_SCALE)
    h, j = _paired(human, judge, ("human", "judge"))
    codes_h, codes_j = _codes(h, scale, "human labels"), _codes(j, scale, "judge labels")
    return _binary_from_confusion(_confusion_from_codes(codes_h, codes_j, 2))


@dataclass(frozen=True)
class CorrectedPassRate:
    """Pass rate on judge-only items, corrected for the judge's known errors (Rogan-Gladen)."""

    estimate: Figure
    low: Figure  # Jeffreys posterior interval
    high: Figure
    observed_pass_rate: Figure  # the judge's raw pass rate on judge-only items
    tpr: Figure
    tnr: Figure
    n_judge_only: int
    n_labelled: int
    n_boot: int
    n_boot_used: int  # posterior draws in which the correction was defined
    confidence: float


# The interval is reported only when the correction was defined in at least this share of resamples;
# dropping many resamples would hide how unstable the estimate is.
MIN_USABLE_RESAMPLES = 0.95


def rogan_gladen(observed: np.ndarray | float, tpr: np.ndarray | float, tnr: np.ndarray | float
                 ) -> Any:  # an array for arrays, a number for numbers
    """The true pass rate behind an observed one, given the judge's TPR and TNR, clipped to [0, 1]."""
    return np.clip((observed + tnr - 1.0) / (tpr + tnr - 1.0), 0.0, 1.0)


def judge_only_pass_rates(observed: float, n_judge_only: int, draws: int, rng: np.random.Generator) -> np.ndarray:
    """Draws of the judge's pass rate behind ``observed`` on ``n_judge_only`` items, for the corrected pass rate's
    interval: its Jeffreys posterior, Beta(passes + 1/2, fails + 1/2), not a redraw at the observed value (at
    0 or 1 a redraw never varies, and 20 judge-only items all PASS would give a certain-looking [1.00, 1.00])."""
    passes = observed * n_judge_only
    return rng.beta(passes + 0.5, n_judge_only - passes + 0.5, size=draws)


def corrected_pass_rate(
    judge_only_labels: ArrayLike,
    human_labels: ArrayLike,
    judge_labels: ArrayLike,
    *,
    n_boot: int = 2000,
    seed: int = 20260128,
    confidence: float = 0.95,
) -> CorrectedPassRate:
    """Estimate the true pass rate of items only the judge labelled.

    The point estimate is Rogan-Gladen: (p_obs + TNR - 1) / (TPR + TNR - 1), clipped to [0, 1], where
    p_obs is the judge's pass rate on ``judge_only_labels`` and TPR/TNR come from the labelled pairs
    (``human_labels`` aligned with ``judge_labels``).

    The interval is the equal-tailed interval of the correction over ``n_boot`` draws of its three shares from
    their Jeffreys posteriors: TPR ~ Beta(true PASS + 1/2, false FAIL + 1/2), TNR ~ Beta(true FAIL + 1/2,
    false PASS + 1/2) and p_obs ~ Beta(passes + 1/2, fails + 1/2). Unlike a bootstrap of the labelled items
    (used before), a share still varies when its items all agreed: 25 labelled items with 2 human FAIL, both
    caught, bootstrapped to TNR 1 in every resample, and the interval covered 81-95% at 25 labelled items (this
    one 93.7-99.9%: benchmarks/bench_decisions_coverage.py --part corrected). A fixed ``seed`` makes the interval identical on
    every run for the same data. Draws where TPR + TNR <= 1 are left out; if more than 5% are, the interval is
    Undefined.

    Undefined estimate when there are no judge-only items, no labelled pairs, no human PASS or FAIL, or
    TPR + TNR <= 1 (the judge is no better than chance and the correction divides by zero or flips sign).
    """
    if n_boot < 1:
        raise ValueError(f"n_boot must be at least 1, got {n_boot}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    scale = np.asarray(BINARY_SCALE)
    judge_only = _codes(_scores(judge_only_labels, "judge_only_labels"), scale, "judge-only labels")
    metrics = binary_metrics(human_labels, judge_labels)
    n_judge_only = int(judge_only.size)
    observed: Figure = (
        float(judge_only.mean()) if n_judge_only else Undefined("no items were labelled by the judge alone")
    )

    def result(estimate: Figure, low: Figure, high: Figure, used: int = 0) -> CorrectedPassRate:
        return CorrectedPassRate(
            estimate, low, high, observed, metrics.tpr, metrics.tnr,
            n_judge_only, metrics.n, n_boot, used, confidence,
        )  # fmt: skip

    for figure in (observed, metrics.tpr, metrics.tnr):
        if isinstance(figure, Undefined):
            return result(figure, figure, figure)
    assert is_defined(observed) and is_defined(metrics.tpr) and is_defined(metrics.tnr)
    if metrics.tpr + metrics.tnr <= 1.0:
        why = Undefined(
            f"TPR + TNR is {metrics.tpr + metrics.tnr:.3f}, not above 1: the judge does no better than chance, "
            "so its labels cannot be corrected"
        )
        return result(why, why, why)
    estimate = float(rogan_gladen(observed, metrics.tpr, metrics.tnr))

    rng = np.random.default_rng(seed)
    tpr = rng.beta(metrics.true_pass + 0.5, metrics.false_fail + 0.5, size=n_boot)
    tnr = rng.beta(metrics.true_fail + 0.5, metrics.false_pass + 0.5, size=n_boot)
    pass_rate = judge_only_pass_rates(observed, n_judge_only, n_boot, rng)
    usable = tpr + tnr > 1.0
    replicates = rogan_gladen(pass_rate, tpr, tnr)[usable]
    used = int(replicates.size)
    if used < MIN_USABLE_RESAMPLES * n_boot:
        why = Undefined(
            f"the correction was defined in only {used} of {n_boot} draws; label more items to get an interval"
        )
        return result(estimate, why, why, used)
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = np.percentile(replicates, [tail, 100.0 - tail])
    return result(estimate, float(low), float(high), used)


# --------------------------------------------------------------------------------------------------
# Many raters
# --------------------------------------------------------------------------------------------------


def _rater_matrix(matrix: ArrayLike, points: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """The matrix with every present value set exactly to its scale point, and the scale."""
    scale = _scale(points)
    array = np.asarray(matrix, dtype=np.float64)
    if array.ndim != 2:
        raise ValueError(f"ratings must be a raters x items matrix, got shape {array.shape}")
    if np.isinf(array).any():
        raise ValueError("ratings contain infinite values; mark missing ratings with NaN")
    present = ~np.isnan(array)
    exact = np.full(array.shape, np.nan)
    exact[present] = scale[_codes(array[present], scale, "ratings")]
    return exact, scale


def krippendorff_alpha(matrix: ArrayLike, level: AlphaLevel, points: ArrayLike) -> Figure:
    """Krippendorff's alpha for a raters x items matrix with NaN for missing ratings.

    ``level`` must be given: "ordinal" for ordered scales, "nominal" for PASS/FAIL or unordered
    categories ("interval" and "ratio" are accepted too). ``points`` is the scale and is passed as the
    value domain; values must lie on it (snap first). Computed by the ``krippendorff`` package.

    Undefined with fewer than two raters, fewer than two items rated by at least two raters, or when all
    those ratings are the same value.
    """
    if level not in ("nominal", "ordinal", "interval", "ratio"):
        raise ValueError(f"level must be 'nominal', 'ordinal', 'interval' or 'ratio', got {level!r}")
    exact, scale = _rater_matrix(matrix, points)
    if exact.shape[0] < 2:
        return Undefined("alpha needs at least two raters")
    pairable = np.count_nonzero(~np.isnan(exact), axis=0) >= 2
    if np.count_nonzero(pairable) < 2:
        return Undefined("alpha needs at least two items rated by at least two raters")
    used = exact[:, pairable]
    values = used[~np.isnan(used)]
    if values.min() == values.max():
        return Undefined("every rating is the same value, so agreement cannot be told apart from chance")
    import krippendorff  # deferred: only the report needs it, and start-up stays quick

    alpha = krippendorff.alpha(reliability_data=used, value_domain=scale, level_of_measurement=level)
    return float(alpha)


def pairwise_kappa(
    matrix: ArrayLike, categories: ArrayLike, weights: Weights = None
) -> tuple[tuple[Figure, ...], ...]:
    """Cohen's kappa for every pair of raters (rows) over the items both rated (non-NaN in both).

    Returns a symmetric raters x raters table; the diagonal is each rater against themselves (1.0, or
    Undefined when that rater used a single category or rated fewer than two items).
    """
    _check_weights(weights)
    exact, scale = _rater_matrix(matrix, categories)
    present = ~np.isnan(exact)
    codes = _nearest(np.where(present, exact, scale[0]), scale)  # exact points, so nearest is the category
    raters = exact.shape[0]
    table: list[list[Figure]] = [[Undefined("")] * raters for _ in range(raters)]
    for i in range(raters):
        for j in range(i, raters):
            both = present[i] & present[j]
            confusion = _confusion_from_codes(codes[i, both], codes[j, both], scale.size)
            table[i][j] = table[j][i] = _kappa_from_confusion(confusion, weights)
    return tuple(tuple(row) for row in table)


# --------------------------------------------------------------------------------------------------
# One comparison of two raters on one dimension
# --------------------------------------------------------------------------------------------------


class _FigureOf:
    """A figure of ``PairAgreement.figures`` read as an attribute: ``pair.cohen_kappa`` is
    ``pair.figures["cohen_kappa"]``. Only the figures other code reads by name have one; the report reads every
    figure of its table by key."""

    key = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.key = name

    def __get__(self, pair: PairAgreement, owner: type | None = None) -> Figure:
        return pair.figures[self.key]


@dataclass(frozen=True)
class PairAgreement:
    """Every agreement figure for one human/judge pairing on one dimension."""

    n: int
    scale: tuple[float, ...]
    ordered: bool
    tolerance: float
    confusion: tuple[tuple[int, ...], ...]  # rows: human category, columns: judge category
    snapped_human: int  # values moved onto the scale before kappa and the confusion matrix
    snapped_judge: int
    # By key, one for each entry of the figure table compare was given; read-only. Equal figures make equal
    # agreements, and the fields above make the hash.
    figures: Mapping[str, Figure] = field(hash=False)

    alignment_rate = _FigureOf()
    cohen_kappa = _FigureOf()
    weighted_kappa = _FigureOf()  # quadratic weights
    pearson_r = _FigureOf()
    spearman_rho = _FigureOf()
    kendall_tau = _FigureOf()
    mean_difference = _FigureOf()  # judge - human
    tpr = _FigureOf()  # PASS/FAIL scales only
    tnr = _FigureOf()
    accuracy = _FigureOf()

    @property
    def snapped(self) -> int:
        return self.snapped_human + self.snapped_judge

    @property
    def is_binary(self) -> bool:
        return self.scale == BINARY_SCALE


@dataclass(frozen=True, eq=False)
class PairedScores:
    """What every figure of one comparison is computed from, worked out once by ``compare``: the two sides' scores
    as given and, on a scale, their categories. The figure table's point functions read it."""

    human: np.ndarray
    judge: np.ndarray
    scale: tuple[float, ...]  # () for an overall score that is a weighted mean of dimensions
    ordered: bool
    tolerance: float  # the one alignment uses
    confusion: np.ndarray  # rows: human category, columns: judge category (0 x 0 without a scale)
    ranked: tuple[CodedScores, CodedScores] | None  # both sides coded for the rank correlations; None: no order

    @property
    def n(self) -> int:
        return int(self.human.size)

    @property
    def binary(self) -> bool:
        return self.scale == BINARY_SCALE


class PointFigure(Protocol):
    """A figure as compare() is given it (an entry of the report's figure table): its key and its value's function."""

    @property
    def key(self) -> str: ...

    @property
    def point(self) -> Callable[[PairedScores], Figure]: ...


def _coded_on_scale(codes: np.ndarray, k: int) -> CodedScores:
    return CodedScores(codes, np.bincount(codes, minlength=k))


# Why an overall score that is a weighted mean of dimensions has no kappa, confusion or chance-robust figure.
AVERAGED_OVERALL = "the overall score is an average of dimensions, not a category of the scale"
_BINARY_ONLY = "only PASS/FAIL scales have TPR, TNR and accuracy"
_EMPTY = "no items were rated by both"
_NO_ORDER = "the scale has no order"


# The point functions of the figure table: one figure each from the scores of one comparison.


def alignment_of(p: PairedScores) -> Figure:
    """The alignment rate: on unordered categories, the share given the same category."""
    if p.n == 0:
        return Undefined(_EMPTY)
    if p.scale and not p.ordered and not p.binary:
        # Unordered categories are near one another only as codes: alignment is exact agreement.
        return float(np.trace(p.confusion) / p.n)
    return float(np.count_nonzero(within_tolerance(p.human, p.judge, p.tolerance)) / p.n)


def kappa_of(p: PairedScores) -> Figure:
    return _kappa_from_confusion(p.confusion, None) if p.scale else Undefined(AVERAGED_OVERALL)


def weighted_kappa_of(p: PairedScores) -> Figure:
    """Quadratic weights; with two categories they change nothing, so a PASS/FAIL scale's is Cohen's kappa."""
    if not p.scale:
        return Undefined(AVERAGED_OVERALL)
    if p.binary:
        return _kappa_from_confusion(p.confusion, None)
    if p.ordered:
        return _kappa_from_confusion(p.confusion, "quadratic")
    return Undefined("weighted kappa needs an ordered scale")


def pearson_of(p: PairedScores) -> Figure:
    return Undefined(_NO_ORDER) if p.ranked is None else _pearson(p.human, p.judge)


def spearman_of(p: PairedScores) -> Figure:
    return Undefined(_NO_ORDER) if p.ranked is None else _spearman(*p.ranked)


def kendall_of(p: PairedScores) -> Figure:
    if p.ranked is None:
        return Undefined(_NO_ORDER)
    human, judge = p.ranked
    return kendall_tau_coded(_compact(human), _compact(judge))


def mean_difference_of(p: PairedScores) -> Figure:
    """Judge minus human: positive means the judge is more lenient."""
    if p.ranked is None:
        return Undefined(_NO_ORDER)
    return float(np.mean(p.judge - p.human)) if p.n else Undefined(_EMPTY)


def tpr_of(p: PairedScores) -> Figure:
    if p.binary:
        return _binary_from_confusion(p.confusion).tpr
    return Undefined(_BINARY_ONLY if p.ordered else "only PASS/FAIL scales have TPR and TNR")


def tnr_of(p: PairedScores) -> Figure:
    if p.binary:
        return _binary_from_confusion(p.confusion).tnr
    return Undefined(_BINARY_ONLY if p.ordered else "only PASS/FAIL scales have TPR and TNR")


def accuracy_of(p: PairedScores) -> Figure:
    """Human as the truth; on named categories, the share of items given the same category."""
    if p.binary:
        return _binary_from_confusion(p.confusion).accuracy
    if not p.ordered:
        return float(np.trace(p.confusion) / p.n) if p.n else Undefined(_EMPTY)
    return Undefined(_BINARY_ONLY)


def _agreement(paired: PairedScores, snapped: tuple[int, int], figures: Iterable[PointFigure]) -> PairAgreement:
    return PairAgreement(
        n=paired.n, scale=paired.scale, ordered=paired.ordered, tolerance=paired.tolerance,
        confusion=tuple(tuple(int(c) for c in row) for row in paired.confusion),
        snapped_human=snapped[0], snapped_judge=snapped[1],
        figures=MappingProxyType({f.key: f.point(paired) for f in figures}),
    )  # fmt: skip


def _check_tolerance(tolerance: float) -> None:
    if tolerance < 0:
        raise ValueError(f"tolerance must be zero or positive, got {tolerance}")


def compare_averaged(human: ArrayLike, judge: ArrayLike, *, tolerance: float,
                     figures: Iterable[PointFigure]) -> PairAgreement:
    """The figures of an overall score that is a weighted mean of dimensions: its values lie between the scale's
    points, so it has the figures of scores as given (alignment, the correlations, the mean difference) and
    none of those of a scale's categories (kappa, the confusion matrix, TPR/TNR): each of those says why.
    ``figures``: the figures to compute (the report's figure table)."""
    _check_tolerance(tolerance)
    h, j = _paired(human, judge, ("human", "judge"))
    no_categories = np.zeros((0, 0), dtype=np.int64)
    paired = PairedScores(h, j, (), True, tolerance, no_categories, (coded_scores(h), coded_scores(j)))
    return _agreement(paired, (0, 0), figures)


def compare(
    human: ArrayLike,
    judge: ArrayLike,
    scale_points: ArrayLike,
    *,
    ordered: bool,
    tolerance: float,
    figures: Iterable[PointFigure],
) -> PairAgreement:
    """The agreement figures between aligned human and judge scores on one dimension: one for each of ``figures``
    (the report's figure table), by its key.

    Alignment rate, mean difference and the three correlations use the scores as given; kappa, the
    confusion matrix and TPR/TNR use the scores snapped to the scale (``snapped_*`` says how many moved).

    * ``ordered=False`` (unordered categories): correlations, mean difference and weighted kappa are
      Undefined, since they rely on the order of the points.
    * PASS/FAIL scales ``(0, 1)`` get TPR, TNR and accuracy (human as the truth, PASS positive); unordered
      categories get accuracy (exact agreement, which is also their alignment rate); other scales get them as
      Undefined. With two categories, quadratic weights change nothing, so the weighted
      kappa of a PASS/FAIL scale equals Cohen's kappa; the correlations of 0/1 data are the phi
      coefficient, and the mean difference is the judge's pass rate minus the human's.
    """
    _check_tolerance(tolerance)
    scale = _scale(scale_points)
    points = tuple(float(p) for p in scale)
    h, j = _paired(human, judge, ("human", "judge"))
    k = scale.size
    codes_h, codes_j = _nearest(h, scale), _nearest(j, scale)
    snapped_h = int(np.count_nonzero(np.abs(h - scale[codes_h]) > ON_SCALE_EPSILON))
    snapped_j = int(np.count_nonzero(np.abs(j - scale[codes_j]) > ON_SCALE_EPSILON))
    binary = points == BINARY_SCALE
    ranked = None
    if ordered or binary:
        # Scores already on the scale reuse their scale codes; off-scale scores need their own coding.
        ranked = (_coded_on_scale(codes_h, k) if snapped_h == 0 else coded_scores(h),
                  _coded_on_scale(codes_j, k) if snapped_j == 0 else coded_scores(j))
    within = tolerance if ordered or binary else 0.0  # unordered categories align only when exactly the same
    paired = PairedScores(h, j, points, ordered, within, _confusion_from_codes(codes_h, codes_j, k), ranked)
    return _agreement(paired, (snapped_h, snapped_j), figures)


def _compact(coded: CodedScores) -> CodedScores:
    """Drop unused codes so 'one distinct value' shows as one level."""
    used = coded.counts > 0
    if used.all():
        return coded
    renumber = np.cumsum(used) - 1
    return CodedScores(renumber[coded.codes], coded.counts[used])


def lowest_and_highest(alignments: Mapping[str, Figure]) -> tuple[str | None, str | None]:
    """Names of the dimensions with the lowest and the highest defined figure.

    Undefined figures are skipped; ties go to the dimension listed first. (None, None) when nothing is
    defined.
    """
    defined = [(name, value) for name, value in alignments.items() if is_defined(value)]
    if not defined:
        return None, None
    lowest = min(defined, key=lambda item: item[1])[0]
    highest = max(defined, key=lambda item: item[1])[0]
    return lowest, highest
