"""Prediction-powered estimates of a mean over the whole pool (PPI++ with power tuning).

Angelopoulos, Bates, Fannjiang, Jordan and Zrnic, "Prediction-powered inference" (Science, 2023), and
Angelopoulos, Duchi and Zrnic, "PPI++: Efficient prediction-powered inference" (2023). The experts rated n
items (labels Y, the judge's ratings of them Ŷ); the judge alone rated N more (Ŷ'). The estimate of the pool's
mean is

    θ = λ · mean(Ŷ') + mean(Y − λ Ŷ)

the judge's mean over the unlabelled items, corrected by how far the experts sit from the judge where both
rated. Its variance is λ² var(Ŷ')/N + var(Y − λŶ)/n, whatever the judge's errors, provided
the labelled items are a random sample of the pool. λ is tuned to make that variance smallest (clipped to
[0, 1]): λ = 0 gives the experts-only mean, λ = 1 the original PPI; a judge unrelated to the experts costs
nothing over the experts alone, asymptotically.

With design weights (a stratified draw of the labelled items), each item's term is multiplied by its weight,
normalised to mean 1, as ppi_py's ``w`` argument does. The estimate, λ and the standard error follow ppi_py
0.2.3's ``ppi_mean_ci`` (``lam=None``, ``lam_optim_mode="overall"``) and ``classical_mean_ci``, which the tests
check to 1e-9. The interval differs, at small n only: ppi_py's is estimate ± z · standard error, which covered
90.6–93.5% instead of 95% at 25–50 labelled items in simulation (benchmarks/bench_validity.py). With λ tuned on
the same items, the estimate is Cochran's regression estimator (Sampling Techniques, 3rd ed., 1977, §7.3), whose
classical interval divides the residuals' sum of squares by n − 2 (two fitted parameters: the mean and λ) and
takes Student's t with n − 2 degrees of freedom; so does this one. The experts-alone interval is the classical
Student interval: the sample standard deviation (n − 1) and t with n − 1 degrees of freedom. Both tend to
ppi_py's as n grows (at 100 labelled items, about 2% wider).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from judge_tui.stats.intervals import Interval, t_value

__all__ = ["PoolEstimate", "prediction_powered_mean"]


@dataclass(frozen=True)
class PoolEstimate:
    """A pool's mean: prediction-powered, experts alone, and the judge alone (uncorrected)."""

    estimate: float
    interval: Interval
    tuning: float  # λ: how much the judge's ratings are trusted (0: not at all, 1: fully)
    standard_error: float  # of the prediction-powered estimate: ppi_py's
    experts_only_standard_error: float  # of the experts-alone mean: ppi_py's classical_mean_ci's
    labelled: int  # items with both an expert and a judge rating
    unlabelled: int  # items the judge alone rated
    experts_only: float
    experts_only_interval: Interval
    judge_only: float  # the judge's plain mean over every item it rated, uncorrected

    @property
    def narrower_by(self) -> float:
        """How much narrower the prediction-powered interval is than the experts-alone one (0.32: 32%)."""
        width = self.experts_only_interval.high - self.experts_only_interval.low
        if width <= 0:
            return 0.0
        return 1.0 - (self.interval.high - self.interval.low) / width


def _normalised(weights: np.ndarray | None, n: int) -> np.ndarray:
    if weights is None:
        return np.ones(n)
    weights = np.asarray(weights, dtype=float)
    return np.asarray(weights / weights.sum() * n)


def _tuning(labels: np.ndarray, predictions: np.ndarray, unlabelled: np.ndarray, w: np.ndarray,
            w_unlabelled: np.ndarray) -> float:
    """The power-tuned λ: cov(Y, Ŷ) / ((1 + n/N) var(Ŷ over all items)), on the weighted terms, in [0, 1]."""
    n, big_n = labels.size, unlabelled.size
    start = float(np.mean(w_unlabelled * unlabelled) + np.mean(w * (labels - predictions)))
    grads = w * (labels - start)
    grads_hat = w * (predictions - start)
    grads_unlabelled = w_unlabelled * (unlabelled - start)
    covariance = 2.0 * float(np.mean((grads - grads.mean()) * (grads_hat - grads_hat.mean())))
    everything = np.concatenate([grads_hat, grads_unlabelled])
    variance = float(np.var(everything, ddof=1))
    if variance == 0.0:
        return 0.0
    tuned = covariance / (2.0 * (1.0 + n / big_n) * variance)
    return float(np.clip(tuned, 0.0, 1.0))


def prediction_powered_mean(
    labels: np.ndarray,
    predictions: np.ndarray,
    unlabelled: np.ndarray,
    *,
    confidence: float = 0.95,
    weights: np.ndarray | None = None,
    unlabelled_weights: np.ndarray | None = None,
) -> PoolEstimate:
    """The PPI++ mean and its interval (ppi_py's estimate and standard error; a small-sample interval).

    ``labels``: the experts' score of each labelled item; ``predictions``: the judge's score of the same items;
    ``unlabelled``: the judge's scores of the items no expert rated. ``weights`` and ``unlabelled_weights``:
    design weights of the labelled and unlabelled items (None: simple random samples of the pool).
    """
    labels = np.asarray(labels, dtype=float)
    predictions = np.asarray(predictions, dtype=float)
    unlabelled = np.asarray(unlabelled, dtype=float)
    n, big_n = labels.size, unlabelled.size
    if predictions.size != n:
        raise ValueError(f"labels and predictions differ in length: {n} and {predictions.size}")
    if n < 3 or big_n < 1:  # the interval has n − 2 degrees of freedom
        raise ValueError(f"need at least 3 labelled and 1 unlabelled item, got {n} and {big_n}")
    w = _normalised(weights, n)
    w_unlabelled = _normalised(unlabelled_weights, big_n)
    tuning = _tuning(labels, predictions, unlabelled, w, w_unlabelled)
    estimate = float(np.mean(w_unlabelled * tuning * unlabelled) + np.mean(w * (labels - tuning * predictions)))
    spread = math.sqrt(float(np.var(w_unlabelled * tuning * unlabelled)) / big_n
                       + float(np.var(w * (labels - tuning * predictions))) / n)
    experts = float(np.mean(w * labels))
    experts_spread = float(np.std(w * labels)) / math.sqrt(n)
    # The small-sample intervals (module doc): residual variance over n − 2 and t(n − 2) for the regression
    # estimator, the Student interval for the experts alone.
    half = t_value(confidence, n - 2) * math.sqrt(
        float(np.var(w_unlabelled * tuning * unlabelled)) / big_n
        + float(np.var(w * (labels - tuning * predictions))) / (n - 2))
    experts_half = t_value(confidence, n - 1) * experts_spread * math.sqrt(n / (n - 1))
    judge = float(np.mean(np.concatenate([predictions, unlabelled])))  # every judged item once: the pool's
    return PoolEstimate(
        estimate=estimate,
        interval=Interval(estimate - half, estimate + half, "prediction-powered (PPI++), t(n − 2)", confidence),
        tuning=tuning, standard_error=spread, experts_only_standard_error=experts_spread,
        labelled=n, unlabelled=big_n, experts_only=experts,
        experts_only_interval=Interval(experts - experts_half, experts + experts_half, "Student t, experts alone",
                                       confidence),
        judge_only=judge,
    )
