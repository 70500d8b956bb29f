"""Nominal agreement and position bias, checked against scikit-learn, statsmodels, krippendorff and irrCAC."""

from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pytest
from irrCAC.raw import CAC as RawCAC
from irrCAC.table import CAC as TableCAC
from sklearn.metrics import accuracy_score, cohen_kappa_score, confusion_matrix
from statsmodels.stats.proportion import proportion_confint

from judge_tui.stats import nominal
from judge_tui.stats.agreement import Undefined
from tests.narrowing import defined

RNG = np.random.default_rng(29)


def noisy_copy(truth: np.ndarray, k: int, error: float) -> np.ndarray:
    wrong = RNG.random(truth.size) < error
    return np.where(wrong, RNG.integers(0, k, truth.size), truth)


@pytest.mark.parametrize("k", [2, 3, 5])
def test_two_raters_match_scikit_learn_and_irrcac(k: int) -> None:
    truth = RNG.integers(0, k, 80)
    a, b = noisy_copy(truth, k, 0.3), noisy_copy(truth, k, 0.4)
    figures = nominal.pair_agreement(a, b, k)
    assert figures.accuracy == pytest.approx(accuracy_score(a, b), abs=1e-12)
    assert figures.kappa == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
    assert (figures.confusion == confusion_matrix(a, b, labels=range(k))).all()
    low, high = proportion_confint(int((a == b).sum()), a.size, method="wilson")
    assert (defined(figures.accuracy_interval).low, defined(figures.accuracy_interval).high) == pytest.approx((low, high))
    assert defined(figures.kappa_interval).low < defined(figures.kappa) < defined(figures.kappa_interval).high
    reference = TableCAC(pd.DataFrame(figures.confusion), digits=12).gwet()["est"]
    assert not isinstance(figures.ac1, Undefined)
    assert figures.ac1.value == pytest.approx(reference["coefficient_value"], abs=1e-9)


def test_several_raters_match_krippendorff_and_irrcac() -> None:
    k = 3
    truth = RNG.integers(0, k, 60)
    matrix = np.array([noisy_copy(truth, k, e) for e in (0.2, 0.3, 0.45)], dtype=np.float64)
    matrix[0, ::4] = np.nan  # not every rater rates every item
    matrix[2, 1::5] = np.nan
    figures = nominal.group_agreement(matrix, k)
    expected = krippendorff.alpha(reliability_data=matrix, value_domain=[0.0, 1.0, 2.0],
                                  level_of_measurement="nominal")
    assert figures.alpha == pytest.approx(expected, abs=1e-12)
    assert defined(figures.alpha_interval).low < defined(figures.alpha) < defined(figures.alpha_interval).high
    raw = RawCAC(pd.DataFrame(matrix.T), digits=12, categories=[0.0, 1.0, 2.0])
    assert not isinstance(figures.fleiss, Undefined)
    assert not isinstance(figures.ac1, Undefined)
    assert figures.fleiss.value == pytest.approx(raw.fleiss()["est"]["coefficient_value"], abs=1e-9)
    assert figures.ac1.value == pytest.approx(raw.gwet()["est"]["coefficient_value"], abs=1e-9)


def test_codes_off_the_scale_are_refused() -> None:
    with pytest.raises(ValueError, match="category codes 0 to 2"):
        nominal.pair_agreement(np.array([0, 3]), np.array([0, 1]), 3)


A, B, TIE = 0, 1, 2


def test_position_bias_counts_flips_and_which_place_won() -> None:
    as_shown = np.array([A, A, B, TIE, A, B])
    # With B shown first, the judge said "A" (the first shown) for the first two pairs: read back, that is B.
    said_swapped = np.array([A, B, A, TIE, A, A])
    back = nominal.swap_codes(said_swapped, A, B)
    assert back.tolist() == [B, A, B, TIE, B, B]
    bias = nominal.position_bias(as_shown, back, 3, A, B)
    assert (bias.pairs, bias.flips, bias.first_shown_wins, bias.second_shown_wins) == (6, 2, 2, 0)
    assert bias.flip_rate == pytest.approx(2 / 6)
    low, high = proportion_confint(2, 6, method="wilson")
    assert (defined(bias.interval).low, defined(bias.interval).high) == pytest.approx((low, high))
    assert nominal.combine_orders(as_shown, back, TIE).tolist() == [TIE, A, B, TIE, TIE, B]
    assert nominal.combine_orders(as_shown, back, TIE, "first").tolist() == as_shown.tolist()


def test_the_flip_rate_interval_covers_the_true_rate() -> None:
    """Simulated judges with a known chance of flipping: the 95% interval holds it in about 95% of studies."""
    true_rate, pairs, studies = 0.15, 40, 2000
    as_shown = RNG.integers(0, 3, (studies, pairs))
    flips = RNG.random((studies, pairs)) < true_rate
    back = np.where(flips, (as_shown + 1) % 3, as_shown)
    covered = 0
    for study in range(studies):
        interval = defined(nominal.position_bias(as_shown[study], back[study], 3, A, B).interval)
        covered += interval.low <= true_rate <= interval.high
    assert 0.93 <= covered / studies <= 0.98
