"""Fixed-sequence testing of confidence thresholds (stats/selective.py), by hand and against scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import beta, binom

from judge_tui.stats.selective import (
    binomial_cdf,
    certify,
    clopper_pearson_upper,
    fewest_certifiable,
)


def scipy_upper(k: int, n: int, delta: float) -> float:
    return 1.0 if k == n else float(beta.ppf(1.0 - delta, k + 1, n - k))


def test_the_worked_figures_of_small_samples():
    # δ = 0.1: 50 items with 2 disagreements bound the rate at 0.103; 100 with 10 at 0.150.
    assert clopper_pearson_upper(2, 50, 0.1) == pytest.approx(0.103, abs=5e-4)
    assert clopper_pearson_upper(10, 100, 0.1) == pytest.approx(0.150, abs=5e-4)


@pytest.mark.parametrize(("k", "n", "delta"), [(0, 1, 0.1), (0, 30, 0.05), (1, 12, 0.1), (7, 60, 0.2),
                                               (59, 60, 0.1), (60, 60, 0.1), (150, 500, 0.01), (3, 1000, 0.1)])
def test_the_bound_is_scipys_beta_quantile(k, n, delta):
    assert clopper_pearson_upper(k, n, delta) == pytest.approx(scipy_upper(k, n, delta), abs=1e-9)


@pytest.mark.parametrize(("k", "n", "p"), [(0, 10, 0.3), (3, 20, 0.1), (20, 20, 0.5), (12, 400, 0.05),
                                           (-1, 5, 0.5), (4, 9, 0.0), (4, 9, 1.0)])
def test_the_binomial_cdf_is_scipys(k, n, p):
    assert binomial_cdf(k, n, p) == pytest.approx(float(binom.cdf(k, n, p)), abs=1e-12)


def test_fewest_certifiable_is_the_first_n_whose_clean_record_passes():
    for alpha, delta in [(0.1, 0.1), (0.15, 0.1), (0.05, 0.05), (0.2, 0.01)]:
        least = fewest_certifiable(alpha, delta)
        assert scipy_upper(0, least, delta) <= alpha < scipy_upper(0, least - 1, delta)


def hand_table() -> tuple[np.ndarray, np.ndarray]:
    """30 items at confidence 1 (none disagree), 20 at 0.8 (one), 10 at 0.6 (five), 40 at 0.4 (none), and 5
    without a confidence (all disagree)."""
    confidence = np.r_[np.full(30, 1.0), np.full(20, 0.8), np.full(10, 0.6), np.full(40, 0.4), np.full(5, np.nan)]
    disagrees = np.r_[np.zeros(30), [1], np.zeros(19), np.ones(5), np.zeros(5), np.zeros(40), np.ones(5)]
    order = np.random.default_rng(3).permutation(confidence.size)  # the order of the items does not matter
    return confidence[order], disagrees[order].astype(bool)


def test_the_procedure_by_hand_on_a_fixed_table():
    confidence, disagrees = hand_table()
    alpha, delta = 0.15, 0.1
    cert = certify(confidence, disagrees, alpha, delta)
    # Tried from the strictest: λ = 1 keeps 30 with 0 disagreements, λ = 0.8 keeps 50 with 1, λ = 0.6 keeps 60
    # with 6, whose bound exceeds α: the sequence stops there, and λ = 0.4 (100 items, 6 disagreements, a bound
    # below α) is never tried.
    expected = [(1.0, 30, 0), (0.8, 50, 1), (0.6, 60, 6)]
    assert [(t.threshold, t.kept, t.disagreements) for t in cert.tests] == expected
    bounds = [scipy_upper(k, n, delta) for _, n, k in expected]
    assert [t.bound for t in cert.tests] == pytest.approx(bounds, abs=1e-9)
    assert [t.passed for t in cert.tests] == [b <= alpha for b in bounds] == [True, True, False]
    assert scipy_upper(6, 100, delta) <= alpha  # what the untried threshold would have given
    assert cert.threshold == 0.8
    assert cert.n == 100  # the items without a confidence are left out
    assert cert.coverage == pytest.approx(0.5)
    assert cert.keeps(confidence).sum() == 50
    assert not cert.keeps(np.array([np.nan, 0.6, 0.79])).any()


def test_no_threshold_passes_and_the_judge_decides_nothing():
    confidence = np.r_[np.full(40, 1.0), np.full(40, 0.5)]
    disagrees = np.r_[np.ones(8), np.zeros(32), np.zeros(40)].astype(bool)  # 8 of the surest 40 disagree
    cert = certify(confidence, disagrees, 0.1, 0.1)
    assert len(cert.tests) == 1
    assert not cert.tests[0].passed
    assert cert.tests[0].bound == pytest.approx(scipy_upper(8, 40, 0.1), abs=1e-9)
    assert cert.threshold is None
    assert cert.certified is None
    assert cert.coverage == 0.0
    assert not cert.keeps(confidence).any()  # not the strictest threshold: nothing at all


def test_thresholds_that_keep_too_few_to_ever_pass_are_skipped_not_failed():
    # 5 items at 0.9 could never pass at α = δ = 0.1 (22 clean items are needed), so they do not stop the
    # sequence; the first candidate tried keeps them and the 40 at 0.7.
    confidence = np.r_[np.full(5, 0.9), np.full(40, 0.7)]
    cert = certify(confidence, np.zeros(45, dtype=bool), 0.1, 0.1)
    assert fewest_certifiable(0.1, 0.1) == 22
    assert [(t.threshold, t.kept) for t in cert.tests] == [(0.7, 45)]
    assert cert.threshold == 0.7
    assert cert.coverage == 1.0


def test_every_candidate_passes():
    cert = certify(np.linspace(0.0, 1.0, 200), np.zeros(200, dtype=bool), 0.1, 0.1)
    assert all(t.passed for t in cert.tests)
    assert cert.threshold == 0.0
    assert cert.coverage == 1.0


def test_no_items():
    cert = certify(np.empty(0), np.empty(0, dtype=bool), 0.1, 0.1)
    assert cert.tests == ()
    assert cert.threshold is None
    assert cert.coverage == 0.0


@pytest.mark.parametrize(("alpha", "delta"), [(0.0, 0.1), (1.0, 0.1), (0.1, 0.0), (0.1, 1.5)])
def test_levels_outside_zero_and_one_are_refused(alpha, delta):
    with pytest.raises(ValueError, match="strictly between"):
        certify(np.ones(3), np.zeros(3, dtype=bool), alpha, delta)


def reference_certify(confidence: np.ndarray, disagrees: np.ndarray, alpha: float, delta: float) -> list[tuple]:
    """The procedure written again plainly, with scipy's bound: every distinct confidence from the highest,
    the items at or above it, passed over when too few to pass with no disagreement, stop at the first failure."""
    present = ~np.isnan(confidence)
    c, wrong = confidence[present], disagrees[present]
    tried = []
    for threshold in sorted(set(c.tolist()), reverse=True):
        kept = c >= threshold
        n, k = int(kept.sum()), int(wrong[kept].sum())
        if scipy_upper(0, n, delta) > alpha:
            continue
        bound = scipy_upper(k, n, delta)
        tried.append((threshold, n, k, bound <= alpha))
        if bound > alpha:
            break
    return tried


def test_random_tables_agree_with_the_procedure_written_again():
    rng = np.random.default_rng(11)
    for _ in range(150):
        n = int(rng.integers(1, 400))
        levels = int(rng.integers(1, 8))
        confidence = rng.integers(0, levels + 1, n) / max(levels, 1)
        confidence[rng.random(n) < 0.05] = np.nan
        wrong_rate = rng.uniform(0.0, 0.3)
        disagrees = rng.random(n) < wrong_rate * (1.5 - confidence.clip(0, 1))
        alpha, delta = float(rng.choice([0.05, 0.1, 0.2])), float(rng.choice([0.05, 0.1, 0.2]))
        cert = certify(confidence, disagrees, alpha, delta)
        expected = reference_certify(confidence, disagrees, alpha, delta)
        assert [(t.threshold, t.kept, t.disagreements, t.passed) for t in cert.tests] == expected
