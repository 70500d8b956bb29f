"""Intervals, chance-corrected agreement and decisions, checked against statsmodels, scipy, irrCAC and by hand."""

from __future__ import annotations

from typing import Literal

import krippendorff
import numpy as np
import pandas as pd
import pytest
from irrCAC.table import CAC
from scipy import stats as scipy_stats
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.proportion import proportion_confint

from judge_tui.stats import chance, decisions, intervals
from judge_tui.stats import raters as raters_mod
from judge_tui.stats.agreement import Undefined, cohen_kappa, kendall_tau, spearman_rho
from judge_tui.stats.intervals import Interval
from tests.kappa_reference import jeffreys_kappa_quantiles
from tests.narrowing import defined
from tests.pearson_reference import jackknife_fisher_z


@pytest.fixture
def rng() -> np.random.Generator:
    """Each test its own generator, seeded alike: what a test draws never depends on which tests ran before it
    in the same worker (a shared generator made the drawn tables, and so the outcomes, vary with the order)."""
    return np.random.default_rng(7)


# ---------------------------------------------------------------------------------------------- Wilson


@pytest.mark.parametrize("confidence", [0.8, 0.9, 0.95, 0.99])
def test_wilson_equals_statsmodels(confidence):
    for n in (1, 2, 5, 12, 46, 300):
        for successes in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            if not 0 <= successes <= n:
                continue
            got = defined(intervals.wilson(successes, n, confidence))
            low, high = proportion_confint(successes, n, alpha=1 - confidence, method="wilson")
            assert got.low == pytest.approx(max(0.0, low), abs=1e-9)
            assert got.high == pytest.approx(min(1.0, high), abs=1e-9)
            assert got.method == "wilson"
            assert got.confidence == confidence


def test_wilson_of_the_tnr_in_the_skewed_split():
    # 10 of 12 human FAILs caught: TNR 0.833 with the interval [0.55, 0.95] quoted for this split.
    got = defined(intervals.wilson(10, 12))
    assert (round(got.low, 2), round(got.high, 2)) == (0.55, 0.95)


def test_wilson_needs_an_item():
    assert isinstance(intervals.wilson(0, 0), Undefined)
    with pytest.raises(ValueError):
        intervals.wilson(3, 2)


# ---------------------------------------------------------------------------------------------- Fisher z


def test_fisher_z_equals_scipy(rng):
    for n in (4, 5, 12, 25, 200):
        for _ in range(5):
            x = rng.normal(size=n)
            y = 0.6 * x + rng.normal(size=n)
            result = scipy_stats.pearsonr(x, y)
            for confidence in (0.9, 0.95):
                reference = result.confidence_interval(confidence)
                got = defined(intervals.fisher_z(float(result.statistic), n, confidence))
                assert got.low == pytest.approx(reference.low, abs=1e-9)
                assert got.high == pytest.approx(reference.high, abs=1e-9)


def test_fisher_z_with_three_items_spans_everything_as_scipy_does():
    x, y = np.array([0.0, 0.5, 1.0]), np.array([0.25, 0.5, 1.0])
    reference = scipy_stats.pearsonr(x, y).confidence_interval()
    got = defined(intervals.fisher_z(float(scipy_stats.pearsonr(x, y).statistic), 3))
    assert (got.low, got.high) == (reference.low, reference.high) == (-1.0, 1.0)



@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_correlation_of_exactly_one_has_no_interval_where_scipy_claims_certainty(sign):
    """Ten pairs on one line: scipy's Fisher z gives [1, 1] (or [-1, -1]); judge-tui says there is no interval
    and why, rather than a zero-width one that reads as certainty."""
    x = np.arange(10) * 0.25
    result = scipy_stats.pearsonr(x, sign * x)
    reference = result.confidence_interval()
    assert abs(reference.high - reference.low) < 1e-12  # what a reader would take for certainty
    got = intervals.fisher_z(float(result.statistic), 10)
    assert isinstance(got, Undefined)
    assert "one straight line" in got.reason
    assert "10 pairs" in got.reason
    assert isinstance(intervals.spearman_interval_asymptotic(sign, 10), Undefined)


def test_pearson_interval_is_the_jackknife_on_fisher_z_as_scipy_builds_it(rng):
    """Scores on a five-point scale, piled at its top for the expert, and continuous ones: the interval equals
    one built from scipy's pearsonr of every leave-one-out sample and scipy's t quantile."""
    scale = np.linspace(0.0, 1.0, 5)
    for n in (4, 5, 12, 25, 60):
        for confidence in (0.9, 0.95):
            expert = rng.choice(5, size=n, p=[0.03, 0.07, 0.15, 0.35, 0.40])
            judge = np.clip(expert + rng.choice([-1, 0, 1], size=n, p=[0.1, 0.75, 0.15]), 0, 4)
            x = rng.normal(size=n)
            for a, b in ((scale[expert], scale[judge]), (x, 0.6 * x + rng.normal(size=n))):
                if np.ptp(a) == 0 or np.ptp(b) == 0:
                    continue
                r = float(scipy_stats.pearsonr(a, b).statistic)
                if abs(r) >= 1 - 1e-12:
                    continue
                reference = jackknife_fisher_z(a, b, confidence)
                got = intervals.pearson_interval(a, b, r, confidence)
                if reference is None:
                    assert isinstance(got, Undefined)
                    continue
                got = defined(got)
                assert (got.low, got.high) == pytest.approx(reference, abs=1e-9)
                assert got.contains(r)


def test_pearson_interval_is_refused_when_one_item_carries_the_figure():
    """Without its one low score the expert's side would not vary; without its one disagreement every pair
    would lie on one line: the items cannot show how far r could be, so no interval, and why (scipy's
    reference agrees there is no jackknife to take)."""
    a = np.array([0.0] + [1.0] * 11)
    b = np.array([0.25, 1.0, 0.75, 1.0, 1.0, 0.75, 1.0, 1.0, 1.0, 0.5, 1.0, 1.0])
    r = float(scipy_stats.pearsonr(a, b).statistic)
    got = intervals.pearson_interval(a, b, r)
    assert isinstance(got, Undefined)
    assert "one item holds all the variation" in got.reason
    assert jackknife_fisher_z(a, b) is None
    a = np.array([0.0, 0.5, 1.0, 1.0, 0.5, 0.0, 1.0, 1.0, 0.5, 1.0, 1.0, 0.0])
    b = a.copy()
    b[3] = 0.5
    r = float(scipy_stats.pearsonr(a, b).statistic)
    got = intervals.pearson_interval(a, b, r)
    assert isinstance(got, Undefined)
    assert "11 of the 12 pairs lie on one straight line" in got.reason
    assert jackknife_fisher_z(a, b) is None
    assert isinstance(intervals.pearson_interval(a, a, 1.0), Undefined)  # all on one line: Fisher's reason


# ---------------------------------------------------------------------------------------------- kappa


def _random_table(rng: np.random.Generator, k: int, n: int) -> np.ndarray:
    truth = rng.integers(0, k, size=n)
    other = np.where(rng.random(n) < 0.7, truth, rng.integers(0, k, size=n))
    return np.bincount(truth * k + other, minlength=k * k).reshape(k, k)


def _minority(table: np.ndarray) -> float:
    """The fewest items either rater put outside their most common category."""
    n = table.sum()
    return float(min(n - table.sum(axis=1).max(), n - table.sum(axis=0).max()))


@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("weights", [None, "quadratic"])
def test_kappa_standard_error_equals_statsmodels(k, weights, rng):
    for n in (10, 46, 250):
        table = _random_table(rng, k, n)
        reference = cohens_kappa(table, wt=weights and "quadratic")
        found = intervals.kappa_standard_error(table, weights)
        assert not isinstance(found, Undefined)
        kappa, se = found
        assert kappa == pytest.approx(reference.kappa, abs=1e-9)
        if _degenerate(table):  # where statsmodels gives rounding noise or NaN: see the test below
            assert se == 0.0
            continue
        assert se == pytest.approx(reference.std_kappa, abs=1e-9)


@pytest.mark.parametrize("k", [3, 5])
@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_unweighted_kappa_interval_is_the_log_disagreement_t_interval(k, confidence, rng):
    """Three or more categories: log(1 - kappa) ± t(n - 1)·SE/(1 - kappa), built here from statsmodels' kappa
    and standard error and scipy's t quantile."""
    for n in (12, 25, 46, 250):
        table = _random_table(rng, k, n)
        got = intervals.kappa_interval(table, None, confidence)
        if _minority(table) < 2 or n < intervals.KAPPA_MIN_ITEMS:
            assert isinstance(got, Undefined)
            assert "too few items" in got.reason
            continue
        got = defined(got)
        if _degenerate(table):
            assert got.method == "wilson-agreement"
            continue
        reference = cohens_kappa(table)
        q = scipy_stats.t.ppf(0.5 + confidence / 2, n - 1)
        spread = reference.std_kappa / (1 - reference.kappa)
        assert got.method == "log-disagreement (t)"
        assert got.low == pytest.approx(max(-1.0, 1 - (1 - reference.kappa) * np.exp(q * spread)), abs=1e-9)
        assert got.high == pytest.approx(1 - (1 - reference.kappa) * np.exp(-q * spread), abs=1e-9)


@pytest.mark.parametrize("table", [[[5, 2], [3, 20]], [[3, 1], [4, 30]], [[12, 6], [5, 27]], [[40, 9], [14, 137]],
                                   [[1, 0], [3, 21]]])
@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_two_category_kappa_interval_is_the_jeffreys_posterior_interval(table, confidence):
    """PASS/FAIL: the equal-tailed posterior interval of kappa from Jeffreys' Dirichlet(1/2) prior over the four
    cells, within the Monte Carlo error of the code's 4,000 draws; the same on every run, and the same for
    quadratic weights (which are no weights on two categories)."""
    table = np.array(table)
    got = intervals.kappa_interval(table, None, confidence)
    assert isinstance(got, Interval)
    assert got.method == "bayes-jeffreys"
    low, high = jeffreys_kappa_quantiles(table, confidence)
    kappa = defined(cohen_kappa(np.repeat([0, 0, 1, 1], table.ravel()), np.repeat([0, 1, 0, 1], table.ravel()),
                                [0, 1]))
    width = high - low
    assert got.low == pytest.approx(min(low, kappa), abs=0.03 * width)
    assert got.high == pytest.approx(max(high, kappa), abs=0.03 * width)
    assert got.low <= kappa <= got.high
    assert intervals.kappa_interval(table, None, confidence) == got
    assert intervals.kappa_interval(table, "quadratic", confidence) == got


def test_two_category_kappa_with_every_item_agreed_reaches_1():
    """Kappa 1 from 26 agreeing items: no posterior draw reaches 1, so the interval is stretched to hold the
    estimate rather than lie wholly below it."""
    got = intervals.kappa_interval(np.array([[3, 0], [0, 23]]))
    assert isinstance(got, Interval)
    assert got.high == 1.0
    assert 0.2 < got.low < 0.9


def _exact_coverage(joint: np.ndarray, n: int) -> float:
    """Exact coverage of the report's PASS/FAIL kappa interval: every table of n items with its multinomial
    chance (scipy), over the tables that get an interval."""
    truth = cohens_kappa(joint).kappa
    covered = given = 0.0
    for a in range(n + 1):
        for b in range(n + 1 - a):
            for c in range(n + 1 - a - b):
                counts = np.array([a, b, c, n - a - b - c])
                chance = scipy_stats.multinomial.pmf(counts, n, joint.ravel())
                if chance < 1e-9:
                    continue
                found = intervals.kappa_interval(counts.reshape(2, 2))
                if isinstance(found, Interval):
                    given += chance
                    covered += chance * (found.low <= truth <= found.high)
    return covered / given


@pytest.mark.slow
@pytest.mark.parametrize("tpr, tnr, fail", [(0.9, 0.97, 0.1), (0.9, 0.9, 0.1), (0.97, 0.9, 0.1)])
def test_pass_fail_kappa_covers_93_to_97_percent_from_25_items(tpr, tnr, fail):
    """Computed exactly at 25 items, kinds of study where the log-disagreement t interval covered 97.9%, 97.3%
    and 97.6%."""
    joint = np.array([[fail * tnr, fail * (1 - tnr)], [(1 - fail) * (1 - tpr), (1 - fail) * tpr]])
    assert 0.93 <= _exact_coverage(joint, 25) <= 0.97


def test_below_25_items_a_kappa_interval_is_too_few_items():
    """At 12-24 items no interval measured covers 93-97% in every kind of study (exactly computed: some 90-93%,
    others 97-99.5%), so the interval says so; kappa itself is still given."""
    for table in (np.array([[4, 1], [2, 5]]), np.array([[3, 2], [1, 18]]),
                  np.array([[2, 1, 0], [1, 8, 2], [0, 2, 8]])):
        got = intervals.kappa_interval(table)
        assert isinstance(got, Undefined)
        assert "too few items" in got.reason
        assert f"{table.sum()} rated by both, 25 needed" in got.reason
        assert not isinstance(intervals.kappa_standard_error(table), Undefined)
    assert isinstance(intervals.kappa_interval(np.array([[3, 2], [2, 18]])), Interval)


def _jackknife_root_interval(table: np.ndarray, confidence: float) -> tuple[float, float]:
    """The weighted kappa interval by its definition, item by item: scikit-learn's quadratic kappa of the items
    with each one left out in turn, the jackknife's standard error of those n kappas, and
    sqrt(1 - κ) ± t(n - 1)·SE / (2·sqrt(1 - κ)) back to kappa."""
    k = table.shape[0]
    cells = np.repeat(np.arange(k * k), table.ravel().astype(int))
    expert, judge = cells // k, cells % k
    n = cells.size
    kappa = cohen_kappa_score(expert, judge, labels=list(range(k)), weights="quadratic")
    left_out = np.array([cohen_kappa_score(np.delete(expert, i), np.delete(judge, i), labels=list(range(k)),
                                           weights="quadratic") for i in range(n)])
    se = np.sqrt((n - 1) / n * ((left_out - left_out.mean()) ** 2).sum())
    root = np.sqrt(1 - kappa)
    half = scipy_stats.t.ppf(0.5 + confidence / 2, n - 1) * se / (2 * root)
    return max(-1.0, 1 - (root + half) ** 2), 1 - max(0.0, root - half) ** 2


@pytest.mark.parametrize("confidence", [0.9, 0.95])
@pytest.mark.parametrize("n", [25, 40, 60])
def test_weighted_kappa_interval_is_the_jackknife_root_disagreement_interval(n, confidence, rng):
    """Quadratic kappa on five categories (one rater's categories skewed, as in the benchmark's cells), and on
    three (from 35 items): the interval equals its definition computed item by item with scikit-learn."""
    expert = rng.choice(5, size=n, p=[0.03, 0.07, 0.15, 0.35, 0.4])
    judge = np.clip(expert + rng.choice([-1, 0, 1, 2], size=n, p=[0.2, 0.5, 0.25, 0.05]), 0, 4)
    three = np.clip(expert - 2, 0, 2), np.clip(judge - 2, 0, 2)
    for k, (a, b) in ((5, (expert, judge)), (3, three)):
        table = np.bincount(a * k + b, minlength=k * k).reshape(k, k).astype(float)
        if n < intervals.kappa_min_items(k, "quadratic"):
            few = intervals.kappa_interval(table, "quadratic", confidence)
            assert isinstance(few, Undefined)
            assert "too few items" in few.reason
            continue
        got = defined(intervals.kappa_interval(table, "quadratic", confidence))
        assert got.method == "jackknife (root-disagreement, t)"
        low, high = _jackknife_root_interval(table, confidence)
        assert got.low == pytest.approx(low, abs=1e-9)
        assert got.high == pytest.approx(high, abs=1e-9)


def test_weighted_kappa_interval_on_a_hand_checked_table():
    """A 3×3 table of 50 items (three categories need 35) small enough to check by hand: quadratic weights 1,
    1/2, 0; kappa 1 - D_o/D_e. Leaving out an agreeing item of the first category gives one kappa, an item of the
    (1, 2) cell another, and so on: five distinct leave-one-out tables, counted 16, 4, 12, 2 and 16 times."""
    table = np.array([[16, 4, 0], [0, 12, 2], [0, 0, 16]], dtype=float)
    rows, cols = table.sum(1) / 50, table.sum(0) / 50
    weights = 1 - (np.subtract.outer(np.arange(3), np.arange(3)) / 2.0) ** 2
    def kappa_of(t: np.ndarray) -> float:
        p = t / t.sum()
        chance = p.sum(1) @ weights @ p.sum(0)
        return ((weights * p).sum() - chance) / (1 - chance)
    assert kappa_of(table) == pytest.approx(1 - (6 * 0.25 / 50) / (1 - rows @ weights @ cols), abs=1e-12)
    left = {(i, j): kappa_of(table - np.eye(9)[3 * i + j].reshape(3, 3)) for i, j in zip(*np.nonzero(table), strict=True)}
    counts = np.array([table[c] for c in left])
    values = np.array(list(left.values()))
    se = np.sqrt(49 / 50 * (counts * (values - counts @ values / 50) ** 2).sum())
    root, q = np.sqrt(1 - kappa_of(table)), scipy_stats.t.ppf(0.975, 49)
    got = defined(intervals.kappa_interval(table, "quadratic"))
    assert got.low == pytest.approx(1 - (root + q * se / (2 * root)) ** 2, abs=1e-12)
    assert got.high == pytest.approx(1 - (root - q * se / (2 * root)) ** 2, abs=1e-12)
    assert got.low < kappa_of(table) < got.high


def test_t_value_equals_scipy():
    for df in (1, 2, 3, 5, 11, 24, 45, 99, 399, 5000):
        for confidence in (0.5, 0.8, 0.9, 0.95, 0.99):
            assert intervals.t_value(confidence, df) == pytest.approx(
                scipy_stats.t.ppf(0.5 + confidence / 2, df), abs=1e-9)


def _degenerate(table: np.ndarray) -> bool:
    """Every item on the diagonal, or one rater giving every item the same category."""
    off_diagonal = table[~np.eye(len(table), dtype=bool)]
    return not off_diagonal.any() or min(np.count_nonzero(table.sum(axis=0)), np.count_nonzero(table.sum(axis=1))) == 1


@pytest.mark.parametrize("table, weights, kappa", [
    ([[1, 0, 0, 0, 0], [0, 5, 0, 0, 0], [0, 0, 2, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 0, 1]], "quadratic", 1.0),
    ([[4, 0, 0, 0, 0], [0, 2, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 2, 0], [0, 0, 0, 0, 1]], "quadratic", 1.0),
    ([[2, 0, 0, 0, 0], [0, 2, 0, 0, 0], [0, 0, 2, 0, 0], [0, 0, 0, 3, 0], [0, 0, 0, 0, 1]], None, 1.0),
])
def test_a_degenerate_table_is_never_certain(table, weights, kappa):
    """Perfect agreement has a standard error of exactly 0; the formula left rounding noise (se 3e-8, kappa
    1 + 9e-16), which the interval took for a real one: [1 - 6e-8, 1] from ten items. statsmodels gives noise or
    NaN there. The interval comes from the Wilson interval of the agreement (here on 30 items: below 25 there
    is none)."""
    table = np.array(table)
    assert intervals.kappa_standard_error(table, weights) == (kappa, 0.0)
    got = defined(intervals.kappa_interval(table * 3, weights))
    assert got.method == "wilson-agreement"
    assert got.low < kappa - 0.1
    assert got.high <= 1.0


@pytest.mark.parametrize("table, weights", [([[9, 0], [1, 0]], None), ([[0, 3], [0, 7]], "quadratic")])
def test_one_rater_with_one_category_gives_kappa_0_and_no_interval(table, weights):
    """Kappa is exactly 0 by construction there (it stays, as scikit-learn gives it); an interval around it
    would say something about the judge that the table cannot: too few items."""
    table = np.array(table)
    assert intervals.kappa_standard_error(table, weights) == (0.0, 0.0)
    got = intervals.kappa_interval(table, weights)
    assert isinstance(got, Undefined)
    assert "too few items" in got.reason
    assert "same category" in got.reason


def test_one_item_outside_a_raters_usual_category_is_too_few_on_three_or_more_categories():
    """Thirty items, one outside the judge's usual category: no log-disagreement interval covered in such tables
    (83% at 95%); two are enough. On PASS/FAIL the posterior interval covers with one such item."""
    one = np.array([[1, 0, 0], [0, 0, 0], [2, 1, 26]])
    got = intervals.kappa_interval(one)
    assert isinstance(got, Undefined)
    assert "too few items" in got.reason
    assert "only 1 of 30" in got.reason
    assert isinstance(intervals.kappa_interval(np.array([[1, 0, 0], [0, 1, 0], [2, 1, 25]])), Interval)
    assert isinstance(intervals.kappa_interval(np.array([[1, 0], [2, 27]])), Interval)


def test_kappa_from_the_table_equals_the_engine(rng):
    table = _random_table(rng, 5, 80)
    human = np.repeat(np.arange(5), table.sum(axis=1)) / 4
    judge = np.concatenate([np.repeat(np.arange(5), row) for row in table]) / 4
    scale = [0, 0.25, 0.5, 0.75, 1]
    assert defined(intervals.kappa_standard_error(table))[0] == pytest.approx(cohen_kappa(human, judge, scale), abs=1e-12)
    assert defined(intervals.kappa_standard_error(table, "quadratic"))[0] == pytest.approx(
        cohen_kappa(human, judge, scale, "quadratic"), abs=1e-12
    )


def test_kappa_of_the_skewed_split():
    # 46 traces: 34 human PASS, 12 FAIL, 41 agreements (31 PASS-PASS, 10 FAIL-FAIL).
    table = np.array([[10, 2], [3, 31]])  # rows human FAIL, PASS; columns judge FAIL, PASS
    kappa, _ = defined(intervals.kappa_standard_error(table))
    got = defined(intervals.kappa_interval(table))
    assert round(kappa, 3) == 0.726
    assert got.low < 0.61 < got.high  # substantial by the point, undecided by the interval


def test_perfect_agreement_on_few_items_is_not_certain():
    for table in ([[2, 0], [0, 2]], [[1, 0], [0, 1]]):  # four or two items: too few for any interval
        got = intervals.kappa_interval(np.array(table))
        assert isinstance(got, Undefined)
        assert "too few items" in got.reason
    got = intervals.kappa_interval(np.array([[3, 0], [0, 22]]))
    assert isinstance(got, Interval)
    assert got.high == 1.0
    assert got.low < 0.61  # 25 cannot show it is substantial


def test_kappa_undefined_when_one_category_only():
    assert isinstance(intervals.kappa_interval(np.array([[5, 0], [0, 0]])), Undefined)


# ---------------------------------------------------------------------------------------------- bootstrap


def test_bootstrap_is_deterministic_and_paired(rng):
    hits = rng.random(40) < 0.8
    first = intervals.bootstrap(lambda w: intervals.weighted_share(w, hits), 40, n_boot=500)
    again = intervals.bootstrap(lambda w: intervals.weighted_share(w, hits), 40, n_boot=500)
    assert np.array_equal(first, again)
    other = intervals.bootstrap(lambda w: w.sum(axis=1), 40, n_boot=500)
    assert np.all(other == 40)  # every resample draws n items


def test_bootstrap_share_is_close_to_wilson_at_moderate_n():
    hits = np.array([1] * 160 + [0] * 40)
    replicates = intervals.bootstrap(lambda w: intervals.weighted_share(w, hits), hits.size)
    got = defined(intervals.percentile_interval(replicates, low=0.0, high=1.0))
    reference = defined(intervals.wilson(160, 200))
    assert abs(got.low - reference.low) < 0.015
    assert abs(got.high - reference.high) < 0.015


def test_chunked_resamples_equal_one_block(rng):
    hits = rng.random(30) < 0.5
    whole = intervals.bootstrap(lambda w: intervals.weighted_share(w, hits), 30, n_boot=300)
    old = intervals.BOOTSTRAP_CHUNK_CELLS
    try:
        intervals.BOOTSTRAP_CHUNK_CELLS = 30 * 7  # seven resamples per chunk
        chunked = intervals.bootstrap(lambda w: intervals.weighted_share(w, hits), 30, n_boot=300)
    finally:
        intervals.BOOTSTRAP_CHUNK_CELLS = old
    assert np.array_equal(whole, chunked)


def _expand(weights_row: np.ndarray, *arrays: np.ndarray) -> list[np.ndarray]:
    counts = weights_row.astype(int)
    return [np.repeat(a, counts) for a in arrays]


def test_weighted_statistics_equal_the_plain_figures_on_expanded_resamples(rng):
    n = 25
    scale = np.array([0, 0.25, 0.5, 0.75, 1])
    human = rng.integers(0, 5, size=n)
    judge = np.clip(human + rng.integers(-1, 2, size=n), 0, 4)
    weights = np.random.default_rng(3).multinomial(n, np.full(n, 1 / n), size=20).astype(float)
    kappa = intervals.weighted_kappa(weights, human, judge, 5)
    quadratic = intervals.weighted_kappa(weights, human, judge, 5, "quadratic")
    r = intervals.weighted_pearson(weights, scale[human], scale[judge])
    rho = intervals.weighted_spearman(weights, human, judge, 5, 5)
    tau = intervals.weighted_kendall(weights, human, judge, 5, 5)
    for row, w in enumerate(weights):
        h, j = _expand(w, human, judge)
        assert kappa[row] == pytest.approx(cohen_kappa(scale[h], scale[j], scale), abs=1e-9)
        assert quadratic[row] == pytest.approx(cohen_kappa(scale[h], scale[j], scale, "quadratic"), abs=1e-9)
        assert r[row] == pytest.approx(scipy_stats.pearsonr(scale[h], scale[j]).statistic, abs=1e-9)
        assert rho[row] == pytest.approx(spearman_rho(scale[h], scale[j]), abs=1e-9)
        assert tau[row] == pytest.approx(kendall_tau(scale[h], scale[j]), abs=1e-9)


def test_rank_intervals_switch_to_fieller_at_large_n(rng):
    x = rng.random(6000)
    y = x + rng.normal(scale=0.5, size=6000)
    rho = float(scipy_stats.spearmanr(x, y).statistic)
    got = defined(intervals.spearman_interval(x, y, rho))
    assert got.method == "fisher-z (Fieller)"
    assert got.contains(rho)
    small = defined(intervals.spearman_interval(np.round(x[:60] * 4) / 4, np.round(np.clip(y[:60], 0, 1) * 4) / 4, rho))
    assert small.method == "bootstrap"


def test_bootstrap_interval_within_monte_carlo_error_of_an_independent_bootstrap(rng):
    n = 40
    x = rng.integers(0, 5, size=n) / 4
    y = np.clip(x + rng.integers(-1, 2, size=n) / 4, 0, 1)
    ours = defined(intervals.spearman_interval(x, y, defined(spearman_rho(x, y)), n_boot=4000))
    reference = scipy_stats.bootstrap(
        (x, y), lambda a, b: scipy_stats.spearmanr(a, b).statistic, paired=True, vectorized=False,
        n_resamples=4000, method="percentile", random_state=11,
    ).confidence_interval
    assert abs(ours.low - reference.low) < 0.05
    assert abs(ours.high - reference.high) < 0.05


def test_too_few_usable_resamples_give_no_interval():
    replicates = np.array([0.5] * 90 + [np.nan] * 10)
    assert isinstance(intervals.percentile_interval(replicates), Undefined)


def test_resamples_that_never_vary_give_no_interval_rather_than_a_point():
    """Spearman's rho of 8 items in the same order on both sides: every resample is 1, and [1, 1] would claim
    certainty from 8 items."""
    x = np.arange(8.0)
    rho = float(scipy_stats.spearmanr(x, x).statistic)
    found = intervals.spearman_interval(x, x, rho)
    assert isinstance(found, Undefined)
    assert "every resample of the items gives the same value" in found.reason
    assert isinstance(intervals.percentile_interval(np.array([0.3] * 95 + [np.nan] * 5)), Undefined)


def test_resamples_a_last_bit_apart_are_the_same_value():
    """A perfect correlation computes as 1.0 in some resamples and a bit or two under it in others, as a CPU or
    maths library rounds: still no interval, on every machine alike. A real spread still gives one."""
    perfect = np.array([1.0, np.nextafter(1.0, 0.0), 1.0 - 2.2e-16] * 40)
    found = intervals.percentile_interval(perfect)
    assert isinstance(found, Undefined)
    assert "every resample of the items gives the same value" in found.reason
    spread = intervals.percentile_interval(np.array([1.0, 0.99] * 60))
    assert isinstance(spread, intervals.Interval)
    assert spread.low == pytest.approx(0.99)


# ---------------------------------------------------------------------------------------------- AC1, PABAK


def _irr(table: np.ndarray, weights: str = "identity") -> dict:
    return CAC(pd.DataFrame(table), weights=weights, digits=12).gwet()["est"]


@pytest.mark.parametrize("k", [2, 3, 5])
def test_ac1_and_ac2_equal_irrcac(k, rng):
    for n in (12, 46, 300):
        table = _random_table(rng, k, n)
        got = defined(chance.gwet_ac(table))
        if min(np.count_nonzero(table.sum(axis=0)), np.count_nonzero(table.sum(axis=1))) == 1:
            assert isinstance(got, Undefined)  # test_ac1_and_ac2_are_undefined_when_a_rater_used_one_category
            continue
        reference = _irr(table)
        assert got.value == pytest.approx(reference["coefficient_value"], abs=1e-9)
        assert got.standard_error == pytest.approx(float(np.ravel(reference["se"])[0]), abs=1e-9)
        assert got.chance_agreement == pytest.approx(reference["pe"], abs=1e-9)
        if k > 2:
            weighted = defined(chance.gwet_ac(table, "quadratic"))
            reference = _irr(table, "quadratic")
            assert weighted.value == pytest.approx(reference["coefficient_value"], abs=1e-9)
            assert weighted.standard_error == pytest.approx(float(np.ravel(reference["se"])[0]), abs=1e-9)


def test_ac1_resists_prevalence_where_kappa_does_not():
    table = np.array([[10, 2], [3, 31]])
    kappa, _ = defined(intervals.kappa_standard_error(table))
    ac1 = defined(chance.gwet_ac(table))
    assert round(ac1.value, 2) == 0.82
    assert ac1.value > 0.80 > kappa  # almost perfect by AC1, substantial by kappa



@pytest.mark.parametrize("table", [[[0, 0], [2, 4]], [[0, 0], [0, 20]], [[0, 0], [1, 19]], [[3, 1], [0, 0]],
                                   [[0, 2, 0], [0, 5, 0], [0, 1, 0]]])
def test_ac1_and_ac2_are_undefined_when_a_rater_used_one_category(table):
    """Everyone saying PASS gave AC1 = 1.0 [0.84, 1.00]; a judge worse than always-PASS against humans who
    all said PASS gave 0.947 "almost perfect". With one category on a side AC measures the labels' skew."""
    table = np.array(table)
    found = chance.gwet_ac(table)
    assert isinstance(found, Undefined)
    assert "same category" in found.reason
    if table.shape[0] > 2:
        assert isinstance(chance.gwet_ac(table, "quadratic"), Undefined)


def test_pabak_prevalence_and_bias_by_hand():
    table = np.array([[10, 2], [3, 31]])
    assert chance.pabak(table) == pytest.approx(2 * 41 / 46 - 1)
    assert chance.prevalence_index(table) == pytest.approx(21 / 46)
    assert chance.bias_index(table) == pytest.approx(1 / 46)
    assert chance.pabak(np.eye(3) * 4) == pytest.approx(1.0)
    assert isinstance(chance.prevalence_index(np.eye(3)), Undefined)
    assert chance.majority_baseline_accuracy(np.array([1] * 34 + [0] * 12)) == pytest.approx(34 / 46)


# ---------------------------------------------------------------------------------------------- decisions


def _interval(low: float, high: float) -> Interval:
    return Interval(low, high, "test", 0.95)


def test_decisions_exactly_at_the_boundaries():
    assert decisions.decide(_interval(0.80, 0.95), 0.80) == "met"
    assert decisions.decide(_interval(0.79, 0.95), 0.80) == "undecided"
    assert decisions.decide(_interval(0.60, 0.80), 0.80) == "undecided"
    assert decisions.decide(_interval(0.60, 0.7999), 0.80) == "not met"
    # strict: TPR > 0.90
    assert decisions.decide(_interval(0.90, 0.99), 0.90, strict=True) == "undecided"
    assert decisions.decide(_interval(0.901, 0.99), 0.90, strict=True) == "met"
    assert decisions.decide(_interval(0.70, 0.90), 0.90, strict=True) == "not met"
    assert decisions.decide_point(0.90, 0.90, strict=True) == "not met"
    assert decisions.decide_point(0.80, 0.80) == "met"


def test_too_few_items_are_undecided_whatever_the_interval():
    # Wilson's interval of 0 out of 1 ends at 0.79: below the target, but one item decides nothing.
    assert defined(intervals.wilson(0, 1)).high < 0.80
    assert decisions.decide(defined(intervals.wilson(0, 1)), 0.80, n=1) == "undecided"
    assert decisions.decide(defined(intervals.wilson(1, 1)), 0.80, n=1) == "undecided"
    few = decisions.MIN_ITEMS_TO_DECIDE
    assert decisions.decide(defined(intervals.wilson(0, few - 1)), 0.80, n=few - 1) == "undecided"
    assert decisions.decide(defined(intervals.wilson(0, few)), 0.80, n=few) == "not met"


def test_items_for_a_class_at_its_share():
    assert decisions.items_for_class(10, 12 / 46) == 39
    assert decisions.items_for_class(3, 0.0) is None


# ---------------------------------------------------------------------------------------------- many raters


def _team(rng: np.random.Generator, raters: int, items: int, k: int, missing: float) -> np.ndarray:
    truth = rng.integers(0, k, size=items)
    noisy = np.where(rng.random((raters, items)) < 0.7, truth, rng.integers(0, k, size=(raters, items)))
    matrix = (noisy / (k - 1)).astype(float)
    matrix[rng.random((raters, items)) < missing] = np.nan
    return matrix


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_alpha_from_unit_coincidences_equals_krippendorff(level, rng):
    import krippendorff

    for raters, items, k in ((2, 12, 2), (3, 40, 5), (5, 25, 3)):
        matrix = _team(rng, raters, items, k, 0.15)
        scale = np.linspace(0, 1, k)
        value, found = defined(raters_mod.alpha_interval(matrix, level, scale, n_boot=300))
        reference = krippendorff.alpha(reliability_data=matrix, value_domain=scale, level_of_measurement=level)
        assert value == pytest.approx(reference, abs=1e-9)
        interval = defined(found)
        assert interval.method == "bootstrap (units)"
        assert interval.low <= value <= interval.high


def test_alpha_of_few_units_has_a_value_but_no_interval():
    """Six pairable units, four of them (0, 0): one resample in nine draws only those, where alpha is undefined,
    so the interval is withheld rather than computed from the resamples that happened to work. The value is
    still krippendorff's."""
    import krippendorff

    nan = np.nan
    matrix = np.array([[0.0, 0.0, 1.0, 0.0, 1.0, nan, 1.0, 0.0, 0.0, 0.0, nan, nan],
                       [1.0, 0.0, 0.0, 0.0, nan, 1.0, nan, 0.0, 0.0, nan, 0.0, 1.0]])
    scale = np.array([0.0, 1.0])
    value, interval = defined(raters_mod.alpha_interval(matrix, "nominal", scale, n_boot=300))
    assert value == pytest.approx(krippendorff.alpha(reliability_data=matrix, value_domain=scale,
                                                     level_of_measurement="nominal"), abs=1e-9)
    assert isinstance(interval, Undefined)
    assert "defined in only" in interval.reason


def test_alpha_bootstrap_resamples_equal_alpha_of_the_drawn_units(rng):
    import krippendorff

    matrix = _team(rng, 3, 15, 5, 0.1)
    scale = np.linspace(0, 1, 5)
    counts = raters_mod.unit_category_counts(matrix, scale)
    units = counts.sum(axis=1) >= 2
    kept = matrix[:, units]
    per_unit = raters_mod.unit_coincidences(counts[units]).reshape(int(units.sum()), -1)
    weights = np.random.default_rng(5).multinomial(kept.shape[1], np.full(kept.shape[1], 1 / kept.shape[1]), size=5)
    alphas = raters_mod.alpha_from_coincidences((weights @ per_unit).reshape(-1, 5, 5), "ordinal", scale)
    for row, w in zip(alphas, weights, strict=True):
        drawn = np.repeat(kept, w, axis=1)
        assert row == pytest.approx(
            krippendorff.alpha(reliability_data=drawn, value_domain=scale, level_of_measurement="ordinal"), abs=1e-9
        )


def test_fleiss_kappa_equals_irrcac(rng):
    from irrCAC.raw import CAC as RawCAC

    for raters, items, k in ((3, 30, 2), (4, 50, 5), (6, 20, 3)):
        matrix = _team(rng, raters, items, k, 0.2)
        got = defined(raters_mod.fleiss_kappa(matrix, np.linspace(0, 1, k)))
        reference = RawCAC(pd.DataFrame(matrix.T), digits=12).fleiss()["est"]
        assert got.value == pytest.approx(reference["coefficient_value"], abs=1e-9)
        assert got.standard_error == pytest.approx(float(reference["se"]), abs=1e-9)


def test_many_raters_undefined_cases():
    lonely = np.array([[0.0, np.nan, 1.0], [np.nan, 1.0, np.nan]])
    assert isinstance(raters_mod.alpha_interval(lonely, "nominal", np.array([0.0, 1.0])), Undefined)
    same = np.ones((3, 5))
    assert isinstance(raters_mod.alpha_interval(same, "nominal", np.array([0.0, 1.0])), Undefined)
    assert isinstance(raters_mod.fleiss_kappa(same, np.array([0.0, 1.0])), Undefined)


# ---------------------------------------------------------------------------------------------- stratified


def test_unstratified_draws_are_unchanged_by_the_strata_option(rng):
    hits = rng.random(30) < 0.6
    plain = intervals.bootstrap(lambda w: intervals.weighted_share(w, hits), 30, n_boot=200)
    one_stratum = intervals.bootstrap(
        lambda w: intervals.weighted_share(w, hits), 30, n_boot=200, strata=np.zeros(30), design_weights=np.ones(30)
    )
    assert np.array_equal(plain, one_stratum)


def test_stratified_resamples_keep_each_stratum_size():
    strata = np.array([0] * 8 + [1] * 4)
    sizes = intervals.bootstrap(lambda w: (w[:, :8].sum(axis=1) * 10 + w[:, 8:].sum(axis=1)), 12, n_boot=100,
                                strata=strata)
    assert np.all(sizes == 84)


def test_design_weighted_tpr_by_hand():
    # Pool: 80 items the judge called PASS, 20 it called FAIL. Rated: 8 of the PASS stratum, 8 of the FAIL one.
    stratum = np.array([0] * 8 + [1] * 8)
    weight = np.where(stratum == 0, 80 / 8, 20 / 8)
    human_pass = np.array([1, 1, 1, 1, 1, 1, 1, 0] + [1, 1, 0, 0, 0, 0, 0, 0], dtype=float)
    judge_pass = np.array([1] * 8 + [0] * 8, dtype=float)
    tpr = intervals.weighted_share(weight[None, :], human_pass * judge_pass, human_pass)[0]
    # Estimated human PASS: 7 x 10 in the PASS stratum + 2 x 2.5 in the FAIL one; caught: the 70.
    assert tpr == pytest.approx(70 / 75, abs=1e-12)
    assert intervals.effective_sample_size(weight) == pytest.approx((8 * 10 + 8 * 2.5) ** 2 / (8 * 100 + 8 * 6.25))
    assert intervals.effective_sample_size(np.ones(16)) == pytest.approx(16)
    replicates = intervals.bootstrap(
        lambda w: intervals.weighted_share(w, human_pass * judge_pass, human_pass), 16, n_boot=500,
        strata=stratum, design_weights=weight,
    )
    assert np.nanmedian(replicates) == pytest.approx(tpr, abs=0.05)


def test_uniform_design_weights_equal_the_plain_figures(rng):
    n = 30
    human = rng.integers(0, 5, size=n)
    judge = np.clip(human + rng.integers(-1, 2, size=n), 0, 4)
    scale = np.linspace(0, 1, 5)
    w = np.full((1, n), 3.0)
    assert intervals.weighted_kappa(w, human, judge, 5)[0] == pytest.approx(
        cohen_kappa(scale[human], scale[judge], list(scale)), abs=1e-12
    )
    assert intervals.weighted_pearson(w, scale[human], scale[judge])[0] == pytest.approx(
        scipy_stats.pearsonr(scale[human], scale[judge]).statistic, abs=1e-12
    )


def test_a_pooled_share_equal_on_every_item_is_never_certain():
    """Three of four scores aligned on each of three items: every bootstrap resample gives 75% exactly; the
    interval is Wilson's counting each item once (statsmodels), not [75, 75]."""
    from judge_tui.analysis.pair_intervals import cluster_share_interval

    found = defined(cluster_share_interval(np.array([3.0, 3.0, 3.0]), np.array([4.0, 4.0, 4.0]), 0.95))
    low, high = proportion_confint(2.25, 3, alpha=0.05, method="wilson")
    assert (found.low, found.high) == pytest.approx((low, high), abs=1e-12)
    assert found.method == "wilson (items)"
    assert found.high - found.low > 0.3
    varied = defined(cluster_share_interval(np.array([3.0, 2.0, 4.0]), np.array([4.0, 4.0, 4.0]), 0.95))
    assert varied.method == "cluster bootstrap (items)"  # items that differ are still resampled
# The two-phase stratified interval of a design-weighted share (a balanced queue order's TPR, TNR, ...): for the
# judge on items like these, the pool itself a sample of them.

TPR_CATEGORIES = {"PASS": [(0.0, 0.0), (1.0, 1.0)], "FAIL": [(0.0, 0.0), (0.0, 1.0)]}


@pytest.mark.parametrize("pool_size", [None, 10_000_000])
@pytest.mark.parametrize(("hits", "misses", "not_counted"), [(30, 10, 0), (30, 10, 25), (19, 1, 5), (0, 12, 3)])
def test_stratified_share_of_one_stratum_is_the_jeffreys_interval(hits, misses, not_counted, pool_size):
    """One stratum: the draws follow Beta(hits + 1/2, misses + 1/2) whatever the pool's size, with every item
    of the pool rated too (the judge's share is never known exactly from a finite pool)."""
    n = hits + misses + not_counted
    hit = np.r_[np.ones(hits), np.zeros(misses + not_counted)]
    counted = np.r_[np.ones(hits + misses), np.zeros(not_counted)]
    draws = intervals.stratified_share(np.array(["all"] * n), hit, counted, {"all": pool_size or n}, draws=40_000)
    jeffreys = scipy_stats.beta(hits + 0.5, misses + 0.5).ppf([0.025, 0.975])
    assert np.percentile(draws, [2.5, 97.5]) == pytest.approx(jeffreys, abs=4e-3)


def test_stratified_share_with_every_item_rated_is_jeffreys_on_the_plain_share():
    """A pool of 200, strata the judge's verdicts, every item rated: TPR's draws are Jeffreys' Beta of its plain
    counts (126 hits of 140 human PASSes), as wide as import order's interval and never a point."""
    strata = np.array(["PASS"] * 140 + ["FAIL"] * 60)
    human_pass = np.r_[np.ones(126), np.zeros(14), np.ones(14), np.zeros(46)]  # 14 PASSes the judge failed
    judge_pass = strata == "PASS"
    draws = intervals.stratified_share(strata, human_pass * judge_pass, human_pass, {"PASS": 140, "FAIL": 60},
                                       draws=40_000, categories=TPR_CATEGORIES)
    jeffreys = scipy_stats.beta(126.5, 14.5).ppf([0.025, 0.975])
    assert np.percentile(draws, [2.5, 97.5]) == pytest.approx(jeffreys, abs=4e-3)
    assert jeffreys[0] < 0.9 < jeffreys[1]  # 126 of 140 is exactly 0.90: undecided, as with import order


def test_stratified_share_spreads_as_the_two_phase_variance(rng):
    """Rated 60 of a 400-item stratum and 40 of a 100-item one: the posterior's variance is the two-phase
    variance of the weighted estimate (Bernstein-von Mises), and its centre that estimate."""
    strata = np.array(["PASS"] * 60 + ["FAIL"] * 40)
    human_pass = np.r_[rng.random(60) < 0.93, rng.random(40) < 0.35].astype(float)
    judge_pass = (strata == "PASS").astype(float)
    pool = {"PASS": 400, "FAIL": 100}
    draws = intervals.stratified_share(strata, human_pass * judge_pass, human_pass, pool, draws=40_000,
                                       categories=TPR_CATEGORIES)
    weights = np.where(strata == "PASS", 400 / 60, 100 / 40)
    estimate = intervals.weighted_share(weights[None, :], human_pass * judge_pass, human_pass)[0]
    variance = intervals.two_phase_variance(strata, human_pass * judge_pass, human_pass, pool)
    assert float(np.mean(draws)) == pytest.approx(estimate, abs=0.01)
    assert float(np.var(draws)) == pytest.approx(variance, rel=0.15)


def test_stratified_share_is_seeded_and_a_stratum_not_yet_seen_is_not_certain():
    """Only the judge's FAILs rated so far: the PASS stratum (most of the pool) is drawn from the prior alone,
    so TPR's interval spans nearly everything instead of collapsing on the FAIL stratum's 0."""
    strata = np.array(["FAIL"] * 6)
    hit, counted = np.zeros(6), np.array([1, 0, 0, 0, 0, 0])
    draws = intervals.stratified_share(strata, hit, counted, {"FAIL": 60, "PASS": 140}, categories=TPR_CATEGORIES)
    low, high = np.percentile(draws, [2.5, 97.5])
    assert low < 0.5
    assert high > 0.95
    again = intervals.stratified_share(strata, hit, counted, {"FAIL": 60, "PASS": 140}, categories=TPR_CATEGORIES)
    assert np.array_equal(draws, again)


def test_two_phase_variance_by_hand():
    """The FAIL stratum, 4 of 4 rated: TPR items (hit, counted) (0,1), (0,0) ×3; the PASS stratum, 4 of 16
    rated: (1,1) ×3, (0,0). W = 0.2, 0.8; B = 0.2·0.25 + 0.8·0.75 = 0.65; TPR = 0.6 / 0.65 = 12/13.
    z = hit − TPR·counted: FAIL −12/13, 0, 0, 0 (mean −3/13, s² 36/169); PASS 1/13 ×3, 0 (mean 3/52, s² 1/676).
    Stratified part 0.04·(36/169)/4 + 0.64·(1/676)/4 = 0.40/169; the pool's part
    (0.2·9/169 + 0.8·9/2704) / 20 = 0.1125/169; over B² = 0.4225."""
    strata = np.array(["FAIL"] * 4 + ["PASS"] * 4)
    hit = np.array([0, 0, 0, 0, 1, 1, 1, 0], dtype=float)
    counted = np.array([1, 0, 0, 0, 1, 1, 1, 0], dtype=float)
    found = intervals.two_phase_variance(strata, hit, counted, {"FAIL": 4, "PASS": 16})
    assert found == pytest.approx(0.5125 / 169 / 0.4225, rel=1e-12)


def test_two_phase_variance_of_one_stratum_is_the_variance_of_a_mean():
    """One stratum: no pool part (its share is 1) and no finite-population correction, even with the whole pool
    rated: s²/n, statsmodels' squared standard error of the mean."""
    from statsmodels.stats.weightstats import DescrStatsW

    y = np.array([1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 0], dtype=float)
    found = intervals.two_phase_variance(np.array(["all"] * 12), y, np.ones(12), {"all": 12})
    assert found == pytest.approx(DescrStatsW(y).std_mean ** 2, rel=1e-12)
    assert found > 0


def test_two_phase_variance_matches_the_spread_of_the_estimate_over_simulated_studies():
    """Known truth: items like these are 30% judge-FAIL; P(expert PASS | judge PASS) = 0.95, | judge FAIL) = 0.3.
    Draw a pool of 300, rate 40 of each verdict, take the weighted TPR: over 4,000 studies its variance is
    the mean of the two-phase variance (within 10%), and that of the pool's TPR alone (a finite-population
    interval) is much smaller: the pool's own part is most of it."""
    rng = np.random.default_rng(11)
    estimates, variances, pool_only = [], [], []
    for _ in range(4000):
        judge_pass = rng.random(300) >= 0.3
        human_pass = np.where(judge_pass, rng.random(300) < 0.95, rng.random(300) < 0.3)
        pool = {"PASS": int(judge_pass.sum()), "FAIL": int((~judge_pass).sum())}
        rated = np.r_[rng.choice(np.flatnonzero(judge_pass), 40, replace=False),
                      rng.choice(np.flatnonzero(~judge_pass), 40, replace=False)]
        strata = np.where(judge_pass[rated], "PASS", "FAIL")
        hit, counted = (human_pass & judge_pass)[rated].astype(float), human_pass[rated].astype(float)
        weights = np.array([pool[s] / 40 for s in strata])
        estimate = intervals.weighted_share(weights[None, :], hit, counted)[0]
        estimates.append(estimate)
        variances.append(intervals.two_phase_variance(strata, hit, counted, pool))
        pool_only.append(estimate - (human_pass & judge_pass).sum() / human_pass.sum())
    assert float(np.var(estimates)) == pytest.approx(float(np.mean(variances)), rel=0.10)
    assert float(np.var(pool_only)) < 0.6 * float(np.var(estimates))


def test_a_two_phase_bootstrap_of_a_pool_rated_whole_spreads_as_the_plain_bootstrap(rng):
    """Every item of a 200-item pool rated, strata the judge's verdicts: resampling each stratum on its own
    (the pool's stratum sizes held fixed) leaves out the pool's own sampling and is too narrow for the judge;
    with the pool drawn again it spreads as the unstratified bootstrap does."""
    strata = np.where(rng.random(200) < 0.3, "FAIL", "PASS")
    human_pass = np.where(strata == "PASS", rng.random(200) < 0.95, rng.random(200) < 0.3).astype(float)
    judge_pass = (strata == "PASS").astype(float)
    pool = {"PASS": int((strata == "PASS").sum()), "FAIL": int((strata == "FAIL").sum())}

    def tpr(w: np.ndarray) -> np.ndarray:
        return intervals.weighted_share(w, human_pass * judge_pass, human_pass)

    plain = np.std(intervals.bootstrap(tpr, 200, n_boot=4000))
    fixed = np.std(intervals.bootstrap(tpr, 200, n_boot=4000, strata=strata, design_weights=np.ones(200)))
    two_phase = np.std(intervals.bootstrap(tpr, 200, n_boot=4000, strata=strata, design_weights=np.ones(200),
                                           pool=pool))
    assert two_phase == pytest.approx(plain, rel=0.08)
    assert fixed**2 < 0.75 * plain**2  # about a third of the variance left out


def test_weighted_kappa_interval_at_6000_items_approaches_the_large_sample_one(rng):
    """The jackknife's standard error converges to the Fleiss–Cohen–Everitt one (statsmodels' std_kappa): on
    6,000 items the interval is that error's root-disagreement interval to within 2% of its width."""
    table = _random_table(rng, 5, 6000)
    large = defined(intervals.kappa_interval(table, "quadratic"))
    assert large.method == "jackknife (root-disagreement, t)"
    reference = cohens_kappa(table, wt="quadratic")
    root = np.sqrt(1 - reference.kappa)
    half = scipy_stats.t.ppf(0.975, 5999) * reference.std_kappa / (2 * root)
    low, high = 1 - (root + half) ** 2, 1 - (root - half) ** 2
    assert abs(large.low - low) < 0.02 * (high - low)
    assert abs(large.high - high) < 0.02 * (high - low)


@pytest.mark.parametrize("level", ["nominal", "ordinal"])
def test_alpha_of_experts_who_agreed_on_every_item_is_not_certain(level: Literal["nominal", "ordinal"]):
    """Three experts agreeing on 5 items: alpha is 1 (the krippendorff package's), every resample says 1, and
    [1, 1] would claim certainty from 5 items; the interval reaches down by what items they could still disagree
    on would cost."""
    scale = np.linspace(0.0, 1.0, 5)
    matrix = np.tile(np.array([0.0, 0.25, 0.5, 1.0, 1.0]), (3, 1))
    value, found = defined(raters_mod.alpha_interval(matrix, level, scale))
    assert (value == pytest.approx(krippendorff.alpha(reliability_data=matrix, level_of_measurement=level,
                                                     value_domain=list(scale)), abs=1e-12))
    assert value == 1.0
    interval = defined(found)
    assert interval.method == intervals.SAME_VALUES
    assert interval.high == 1.0
    assert -1.0 <= interval.low < 0.9


@pytest.mark.slow
def test_alpha_all_agreed_is_wrongly_high_no_more_often_than_alpha():
    """Units like these: three experts agree, except that on a share p of units one of them is two steps off.
    A sample of n units in which every unit agreed gets the interval above; its low end lies above the
    population's true alpha (computed from 200,000 units) in at most 2.5% of samples, for every p."""
    rng = np.random.default_rng(11)
    scale = np.linspace(0.0, 1.0, 5)
    category = np.array([0.1, 0.2, 0.3, 0.25, 0.15])

    def units(count: int, p: float) -> np.ndarray:
        level = rng.choice(5, size=count, p=category)
        matrix = np.tile(level, (3, 1))
        off = rng.random(count) < p
        matrix[0, off] = np.where(level[off] >= 2, level[off] - 2, level[off] + 2)
        return scale[matrix]

    for n in (5, 12, 30):
        for p in (0.02, 0.05, 0.1, 0.2, 0.3):
            truth = krippendorff.alpha(reliability_data=units(200_000, p), level_of_measurement="ordinal",
                                       value_domain=list(scale))
            wrong = 0
            for _ in range(400):
                sample = units(n, p)
                result = raters_mod.alpha_interval(sample, "ordinal", scale, n_boot=50)
                if np.all(sample == sample[0]) and not isinstance(result, Undefined):  # (one level only: no alpha)
                    wrong += defined(result[1]).low > truth
            assert wrong / 400 <= 0.025 + 0.02  # the bound, with room for 400 samples' chance


def test_weighted_kappa_on_three_categories_needs_35_items():
    """Quadratic-weighted kappa on three categories: its interval covered 91.8% at 25 items and 92.7% at 30 with
    a skewed expert and a loose judge, so below 35 it says too few items and why; unweighted kappa on the same
    table, and weighted kappa on four categories, keep the 25-item rule."""
    table = np.array([[3, 2, 0], [1, 6, 3], [0, 2, 13]])  # 30 items
    got = intervals.kappa_interval(table, "quadratic")
    assert isinstance(got, Undefined)
    assert got.reason.startswith("too few items for a kappa interval: 30 rated by both, 35 needed for weighted kappa "
                                 "on three categories")
    assert isinstance(intervals.kappa_interval(table, None), Interval)
    four = np.array([[3, 2, 0, 0], [1, 5, 2, 0], [0, 1, 6, 1], [0, 0, 2, 7]])  # 30 items
    assert defined(intervals.kappa_interval(four, "quadratic")).method == "jackknife (root-disagreement, t)"
    more = table + np.array([[1, 0, 0], [0, 2, 0], [0, 0, 2]])  # 35 items
    assert defined(intervals.kappa_interval(more, "quadratic")).method == "jackknife (root-disagreement, t)"
    assert intervals.kappa_min_items(3, "quadratic") == 35
    assert intervals.kappa_min_items(3, None) == intervals.kappa_min_items(5, "quadratic") == 25
