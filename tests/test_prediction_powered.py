"""Prediction-powered pool estimates: equal to ppi_py (PPI++, power-tuned) and covering as they say."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats

from judge_tui.stats.prediction_powered import prediction_powered_mean

REFERENCE = json.loads((Path(__file__).parent / "data" / "ppi" / "reference.json").read_text())


def _estimate(case: dict[str, Any]):
    return prediction_powered_mean(
        np.array(case["labels"]), np.array(case["predictions"]), np.array(case["unlabelled"]),
        confidence=float(case["confidence"]),
        weights=None if case["weights"] is None else np.array(case["weights"]),
        unlabelled_weights=None if case["unlabelled_weights"] is None else np.array(case["unlabelled_weights"]))


@pytest.mark.parametrize("index", range(len(REFERENCE)))
def test_equals_ppi_py_recorded(index: int) -> None:
    """Against ppi_py 0.2.3's figures on the same inputs (tests/data/ppi/make_reference.py made them)."""
    case = REFERENCE[index]
    found = _estimate(case)
    z = stats.norm.ppf(0.5 + float(case["confidence"]) / 2)
    assert found.estimate == pytest.approx(case["estimate"], abs=1e-9)
    assert found.standard_error == pytest.approx((case["high"] - case["low"]) / (2 * z), abs=1e-9)
    assert found.experts_only_standard_error == pytest.approx((case["experts_high"] - case["experts_low"]) / (2 * z),
                                                              abs=1e-9)
    assert found.experts_only == pytest.approx((case["experts_high"] + case["experts_low"]) / 2, abs=1e-9)
    _has_the_t_interval(found, float(case["confidence"]), *(np.array(case[k]) for k in
                        ("labels", "predictions", "unlabelled")),
                        *(None if case[k] is None else np.array(case[k]) for k in ("weights", "unlabelled_weights")))


def _has_the_t_interval(found, confidence: float, labels, predictions, unlabelled,
                        weights=None, unlabelled_weights=None) -> None:
    """The one departure from ppi_py, the small-sample intervals: the regression estimator's (residuals' sum of
    squares over n − 2, t with n − 2 df) and, for the experts alone, scipy's Student interval."""
    n, big_n, level = len(labels), len(unlabelled), 0.5 + confidence / 2
    w = np.ones(n) if weights is None else np.asarray(weights) / np.sum(weights) * n
    wu = np.ones(big_n) if unlabelled_weights is None else np.asarray(unlabelled_weights) / np.sum(unlabelled_weights) * big_n
    residuals = w * (labels - found.tuning * predictions)
    ssr = np.sum((residuals - residuals.mean()) ** 2)
    half = stats.t.ppf(level, n - 2) * np.sqrt(np.var(wu * found.tuning * unlabelled) / big_n + ssr / (n - 2) / n)
    assert found.interval.low == pytest.approx(found.estimate - half, abs=1e-9)
    assert found.interval.high == pytest.approx(found.estimate + half, abs=1e-9)
    low, high = stats.t.interval(confidence, n - 1, loc=np.mean(w * labels), scale=stats.sem(w * labels))
    assert found.experts_only_interval.low == pytest.approx(low, abs=1e-9)
    assert found.experts_only_interval.high == pytest.approx(high, abs=1e-9)


def test_equals_ppi_py_itself_when_installed() -> None:
    """The same comparison run live, where ppi-python is installed (it pulls numba, so it is not a test extra)."""
    ppi_py = pytest.importorskip("ppi_py")
    rng = np.random.default_rng(5)
    for n, big_n in ((25, 1000), (50, 10000), (100, 300)):
        truth = rng.integers(0, 5, n + big_n) / 4
        judge = np.clip(truth + rng.normal(0, 0.2, n + big_n), 0, 1)
        w = rng.choice([1.0, 2.5], n)
        for weights in (None, w):
            low, high = ppi_py.ppi_mean_ci(truth[:n], judge[:n], judge[n:], alpha=0.05, w=weights)
            found = prediction_powered_mean(truth[:n], judge[:n], judge[n:], weights=weights)
            low, high = float(np.ravel(low)[0]), float(np.ravel(high)[0])
            assert found.estimate == pytest.approx(ppi_py.ppi_mean_pointestimate(
                truth[:n], judge[:n], judge[n:], w=weights)[0], abs=1e-9)
            assert found.standard_error == pytest.approx((high - low) / (2 * stats.norm.ppf(0.975)), abs=1e-9)
            _has_the_t_interval(found, 0.95, truth[:n], judge[:n], judge[n:], weights)


def _coverage(n: int, big_n: int, runs: int, seed: int) -> tuple[float, float]:
    """Share of simulated studies whose interval covers the true pool mean, and the mean width gain."""
    rng = np.random.default_rng(seed)
    covered, gains = 0, []
    for _ in range(runs):
        truth = rng.integers(0, 5, n + big_n) / 4
        judge = np.clip(np.round((truth + 0.1 + rng.normal(0, 0.15, n + big_n)) * 4) / 4, 0, 1)  # biased judge
        found = prediction_powered_mean(truth[:n], judge[:n], judge[n:])
        covered += found.interval.low <= 0.5 <= found.interval.high  # the truth's mean: uniform over 0..1
        gains.append(found.narrower_by)
    return covered / runs, float(np.mean(gains))


@pytest.mark.parametrize(("n", "seed"), [(25, 11), (50, 13), (100, 12)])
def test_covers_93_to_97_percent_with_a_biased_judge(n: int, seed: int) -> None:
    """A judge biased by +0.1: the judge alone misses the mean, the corrected interval covers it ~95%, at 25
    rated items too (ppi_py's normal interval covered 92-93% there)."""
    coverage, gain = _coverage(n, 1000, 2000, seed)
    assert 0.93 <= coverage <= 0.97
    assert gain > 0.2  # a good judge buys a clearly narrower interval than the experts alone


def test_an_unrelated_judge_falls_back_to_the_experts() -> None:
    rng = np.random.default_rng(2)
    truth = rng.integers(0, 2, 400).astype(float)
    noise = rng.integers(0, 2, 400).astype(float)
    found = prediction_powered_mean(truth[:60], noise[:60], noise[60:])
    assert found.tuning < 0.3
    assert abs(found.narrower_by) < 0.05


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="differ in length"):
        prediction_powered_mean(np.ones(3), np.ones(2), np.ones(5))
    with pytest.raises(ValueError, match="at least 3 labelled"):
        prediction_powered_mean(np.ones(2), np.ones(2), np.ones(5))
