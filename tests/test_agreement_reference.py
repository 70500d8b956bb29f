"""Every agreement figure against scikit-learn, scipy and krippendorff on random data with ties."""

import math
import warnings
from contextlib import contextmanager

import krippendorff
import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score
from sklearn.metrics import confusion_matrix as sk_confusion_matrix

from judge_tui.analysis.row_figures import ROW_FIGURES
from judge_tui.stats import agreement as ag
from judge_tui.stats.agreement import Undefined

SCALES = [(0.0, 1.0), (0.0, 0.5, 1.0), (0.0, 0.25, 0.5, 0.75, 1.0)]
SEEDS = [0, 1, 2, 3]
SIZES = [2, 3, 12, 500]
TOLERANCE = 1e-9


def matches(ours, reference: float) -> bool:
    """Our figure equals the reference; the reference's NaN must be our Undefined."""
    if math.isnan(reference):
        return isinstance(ours, Undefined)
    return not isinstance(ours, Undefined) and abs(ours - reference) <= TOLERANCE


def rated_pair(seed: int, points: tuple, n: int) -> tuple[np.ndarray, np.ndarray]:
    """A human and a judge who mostly agree, with the judge sometimes a step off."""
    rng = np.random.default_rng(seed)
    scale = np.asarray(points)
    human = rng.integers(0, scale.size, n)
    judge = np.clip(human + rng.choice([-1, 0, 0, 1], n), 0, scale.size - 1)
    return scale[human], scale[judge]


@contextmanager
def quiet():
    """The references warn (and return NaN) on degenerate data, which is exactly what is being compared."""
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore")
        yield


def codes(values: np.ndarray, points: tuple) -> np.ndarray:
    """scikit-learn rejects fractional labels, so hand it category indices."""
    return np.searchsorted(points, values)


CASES = [(seed, points, n) for seed in SEEDS for points in SCALES for n in SIZES]


@pytest.mark.parametrize(("seed", "points", "n"), CASES)
def test_kappa_and_confusion_match_scikit_learn(seed, points, n):
    human, judge = rated_pair(seed, points, n)
    labels = list(range(len(points)))
    np.testing.assert_array_equal(
        ag.confusion_matrix(human, judge, points),
        sk_confusion_matrix(codes(human, points), codes(judge, points), labels=labels),
    )
    for weights in (None, "linear", "quadratic"):
        with quiet():
            reference = cohen_kappa_score(
                codes(human, points), codes(judge, points), labels=labels, weights=weights
            )
        assert matches(ag.cohen_kappa(human, judge, points, weights=weights), reference), weights


@pytest.mark.parametrize(("seed", "points", "n"), CASES)
def test_correlations_match_scipy(seed, points, n):
    human, judge = rated_pair(seed, points, n)
    with quiet():
        pearson = stats.pearsonr(human, judge).statistic if n >= 2 else math.nan
        spearman = stats.spearmanr(human, judge).statistic
        kendall = stats.kendalltau(human, judge).statistic
    assert matches(ag.pearson_r(human, judge), pearson)
    assert matches(ag.spearman_rho(human, judge), spearman)
    assert matches(ag.kendall_tau(human, judge), kendall)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n", [2, 50, 5000])
def test_correlations_of_continuous_scores_match_scipy(seed, n):
    # Judge scores with many distinct values take the O(n log n) path of Kendall's tau.
    rng = np.random.default_rng(seed)
    human = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], n)
    judge = np.clip(human + rng.normal(0, 0.2, n), 0, 1)  # clipping makes ties at 0 and 1
    with quiet():
        pearson = stats.pearsonr(human, judge).statistic
        spearman = stats.spearmanr(human, judge).statistic
        kendall = stats.kendalltau(human, judge).statistic
        reversed_kendall = stats.kendalltau(judge, judge[::-1]).statistic
    assert matches(ag.pearson_r(human, judge), pearson)
    assert matches(ag.spearman_rho(human, judge), spearman)
    assert matches(ag.kendall_tau(human, judge), kendall)
    assert matches(ag.kendall_tau(judge, judge[::-1]), reversed_kendall)


@pytest.mark.parametrize("seed", SEEDS)
def test_kendall_sorting_path_matches_scipy_on_many_ties(seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 2000, 3000).astype(float)
    y = x + rng.integers(-300, 300, 3000)
    ours = ag.kendall_tau_coded(ag.coded_scores(x), ag.coded_scores(y), "sort")
    assert matches(ours, stats.kendalltau(x, y).statistic)


@pytest.mark.parametrize("seed", SEEDS)
def test_kendall_at_scale_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    human = rng.choice([0.0, 0.5, 1.0], 100_000)
    judge = np.where(rng.random(100_000) < 0.7, human, rng.choice([0.0, 0.5, 1.0], 100_000))
    assert matches(ag.kendall_tau(human, judge), stats.kendalltau(human, judge).statistic)


@pytest.mark.parametrize(("seed", "n"), [(seed, n) for seed in SEEDS for n in (2, 30, 400)])
def test_binary_metrics_match_scikit_learn(seed, n):
    human, judge = rated_pair(seed, (0.0, 1.0), n)
    tn, fp, fn, tp = sk_confusion_matrix(human, judge, labels=[0, 1]).ravel()
    metrics = ag.binary_metrics(human, judge)
    assert (metrics.true_pass, metrics.false_pass, metrics.false_fail, metrics.true_fail) == (tp, fp, fn, tn)
    assert matches(metrics.tpr, tp / (tp + fn) if tp + fn else math.nan)
    assert matches(metrics.tnr, tn / (tn + fp) if tn + fp else math.nan)
    assert matches(metrics.accuracy, (tp + tn) / n)


def rater_matrix(seed: int, points: tuple, raters: int, items: int, missing: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    scale = np.asarray(points)
    truth = rng.integers(0, scale.size, items)
    noise = rng.choice([-1, 0, 0, 0, 1], (raters, items))
    matrix = scale[np.clip(truth + noise, 0, scale.size - 1)].astype(float)
    matrix[rng.random((raters, items)) < missing] = np.nan
    return matrix


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("points", SCALES)
@pytest.mark.parametrize(("raters", "items", "missing"), [(2, 10, 0.0), (3, 40, 0.3), (5, 200, 0.5)])
def test_krippendorff_alpha_matches_the_package(seed, points, raters, items, missing):
    matrix = rater_matrix(seed, points, raters, items, missing)
    for level in ("nominal", "ordinal", "interval"):
        reference = krippendorff.alpha(matrix, value_domain=list(points), level_of_measurement=level)
        assert matches(ag.krippendorff_alpha(matrix, level, points), reference), level


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("points", SCALES)
def test_pairwise_kappa_matches_scikit_learn(seed, points):
    matrix = rater_matrix(seed, points, 4, 60, 0.3)
    table = ag.pairwise_kappa(matrix, points, weights="quadratic")
    for i in range(4):
        for j in range(4):
            both = ~np.isnan(matrix[i]) & ~np.isnan(matrix[j])
            reference = cohen_kappa_score(
                codes(matrix[i, both], points),
                codes(matrix[j, both], points),
                labels=list(range(len(points))),
                weights="quadratic",
            )
            assert matches(table[i][j], reference)


@pytest.mark.parametrize(("seed", "points", "n"), CASES)
def test_compare_matches_the_references(seed, points, n):
    human, judge = rated_pair(seed, points, n)
    result = ag.compare(human, judge, points, ordered=True, tolerance=0.15, figures=ROW_FIGURES)
    labels = list(range(len(points)))
    with quiet():
        kappa = cohen_kappa_score(codes(human, points), codes(judge, points), labels=labels)
        weighted = cohen_kappa_score(
            codes(human, points), codes(judge, points), labels=labels, weights="quadratic"
        )
        kendall = stats.kendalltau(human, judge).statistic
        spearman = stats.spearmanr(human, judge).statistic
        pearson = stats.pearsonr(human, judge).statistic
    assert matches(result.cohen_kappa, kappa)
    assert matches(result.weighted_kappa, weighted)
    assert matches(result.kendall_tau, kendall)
    assert matches(result.spearman_rho, spearman)
    assert matches(result.pearson_r, pearson)
    assert matches(result.alignment_rate, float(np.mean(np.abs(human - judge) <= 0.15 + 1e-9)))
    assert matches(result.mean_difference, float(np.mean(judge - human)))
    assert np.array_equal(
        result.confusion, sk_confusion_matrix(codes(human, points), codes(judge, points), labels=labels)
    )


def test_compare_with_continuous_judge_scores_matches_the_references():
    rng = np.random.default_rng(5)
    points = (0.0, 0.5, 1.0)
    human = rng.choice(points, 300)
    judge = np.round(np.clip(human + rng.normal(0, 0.25, 300), 0, 1), 2)  # e.g. 0.83
    result = ag.compare(human, judge, points, ordered=True, tolerance=0.15, figures=ROW_FIGURES)
    snapped, moved = ag.snap_to_scale(judge, points)
    assert result.snapped_judge == moved > 0
    labels = [0, 1, 2]
    assert matches(
        result.cohen_kappa, cohen_kappa_score(codes(human, points), codes(snapped, points), labels=labels)
    )
    assert matches(result.kendall_tau, stats.kendalltau(human, judge).statistic)
    assert matches(result.spearman_rho, stats.spearmanr(human, judge).statistic)
