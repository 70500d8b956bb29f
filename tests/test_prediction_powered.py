"""Prediction-powered pool estimates: equal to ppi_py (PPI++, power-tuned) and covering as they say."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from judge_tui.stats.prediction_powered import prediction_powered_mean

REFERENCE = json.loads((Path(__file__).parent / "data" / "ppi" / "reference.json").read_text())


def _estimate(case: dict[str, object]):  # type: ignore[no-untyped-def]
    return prediction_powered_mean(
        np.array(case["labels"]), np.array(case["predictions"]), np.array(case["unlabelled"]),
        confidence=float(case["confidence"]),  # type: ignore[arg-type]
        weights=None if case["weights"] is None else np.array(case["weights"]),
        unlabelled_weights=None if case["unlabelled_weights"] is None else np.array(case["unlabelled_weights"]))


@pytest.mark.parametrize("index", range(len(REFERENCE)))
def test_equals_ppi_py_recorded(index: int) -> None:
    """Against ppi_py 0.2.3's figures on the same inputs (tests/data/ppi/make_reference.py made them)."""
    case = REFERENCE[index]
    found = _estimate(case)
    assert found.estimate == pytest.approx(case["estimate"], abs=1e-9)
    assert found.interval.low == pytest.approx(case["low"], abs=1e-9)
    assert found.interval.high == pytest.approx(case["high"], abs=1e-9)
    assert found.experts_only_interval.low == pytest.approx(case["experts_low"], abs=1e-9)
    assert found.experts_only_interval.high == pytest.approx(case["experts_high"], abs=1e-9)


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
            assert found.interval.low == pytest.approx(float(np.ravel(low)[0]), abs=1e-9)
            assert found.interval.high == pytest.approx(float(np.ravel(high)[0]), abs=1e-9)


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


def test_covers_93_to_97_percent_with_a_biased_judge() -> None:
    """A judge biased by +0.1: the judge alone misses the mean, the corrected interval covers it ~95%."""
    coverage, gain = _coverage(100, 1000, 2000, 11)
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
    with pytest.raises(ValueError, match="at least 2 labelled"):
        prediction_powered_mean(np.ones(1), np.ones(1), np.ones(5))
