"""Estimates of a mean over the whole pool: PPI++ with power tuning, and a PASS/FAIL judge's pass rate by verdict.

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
ppi_py's as n grows (at 100 labelled items, about 2% wider). Both are clipped to the scale's range (``bounds``),
as is the estimate, and a judge that equals the experts on every rated item, or experts who all gave the same
score, have no spread to measure: the interval then allows for the share of items unlike them that n items can
miss (:func:`stats.intervals.unseen_share`), rather than claiming certainty.

A PASS/FAIL judge's pass rate is estimated by its verdicts instead (:func:`verdict_stratified_rate`): the pool
split by the judge's verdict, the experts' pass rate measured within each part and weighted by the part's size
in the pool (post-stratification: with a binary judge, the regression estimator PPI++ tunes λ towards). Its
interval is the two-phase stratified Jeffreys posterior (:func:`stats.intervals.stratified_share`), which stays
in [0, 1] and covers when the judge rarely errs, or errs one way only, where the t interval above did not: with
no disagreement among the rated items it was the judge's own figure ± almost nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from judge_tui.stats.intervals import (
    STRATIFIED_DRAWS,
    Interval,
    percentile_interval,
    stratified_share,
    t_value,
    unseen_share,
)

__all__ = ["BY_VERDICT", "PPI", "PoolEstimate", "prediction_powered_mean", "verdict_stratified_rate"]

PPI = "PPI++"
BY_VERDICT = "by verdict"


@dataclass(frozen=True)
class PoolEstimate:
    """A pool's mean: prediction-powered, experts alone, and the judge alone (uncorrected)."""

    estimate: float
    interval: Interval
    tuning: float | None  # PPI++'s λ: how much the judge's ratings are trusted (0: not at all, 1: fully)
    standard_error: float  # PPI++: ppi_py's; by verdict: the posterior's standard deviation
    experts_only_standard_error: float  # PPI++: ppi_py's classical_mean_ci's; by verdict: the posterior's
    labelled: int  # items with both an expert and a judge rating
    unlabelled: int  # items the judge alone rated
    experts_only: float
    experts_only_interval: Interval
    judge_only: float  # the judge's plain mean over every item it rated, uncorrected
    method: str = PPI  # PPI or BY_VERDICT

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


def _checked(labels: np.ndarray, predictions: np.ndarray, unlabelled: np.ndarray, *, least: int
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three samples as float arrays, refused when labels and predictions differ in length or when fewer
    than `least` labelled items or no unlabelled one are given."""
    labels = np.asarray(labels, dtype=float)
    predictions = np.asarray(predictions, dtype=float)
    unlabelled = np.asarray(unlabelled, dtype=float)
    n, big_n = labels.size, unlabelled.size
    if predictions.size != n:
        raise ValueError(f"labels and predictions differ in length: {n} and {predictions.size}")
    if n < least or big_n < 1:
        raise ValueError(f"need at least {least} labelled and 1 unlabelled item, got {n} and {big_n}")
    return labels, predictions, unlabelled


def prediction_powered_mean(
    labels: np.ndarray,
    predictions: np.ndarray,
    unlabelled: np.ndarray,
    *,
    confidence: float = 0.95,
    weights: np.ndarray | None = None,
    unlabelled_weights: np.ndarray | None = None,
    bounds: tuple[float, float] = (0.0, 1.0),
) -> PoolEstimate:
    """The PPI++ mean and its interval (ppi_py's estimate and standard error; a small-sample interval).

    ``labels``: the experts' score of each labelled item; ``predictions``: the judge's score of the same items;
    ``unlabelled``: the judge's scores of the items no expert rated. ``weights`` and ``unlabelled_weights``:
    design weights of the labelled and unlabelled items (None: simple random samples of the pool). ``bounds``:
    the lowest and highest score of the scale; the estimate and both intervals stay within them.
    """
    # The interval has n − 2 degrees of freedom.
    labels, predictions, unlabelled = _checked(labels, predictions, unlabelled, least=3)
    n, big_n = labels.size, unlabelled.size
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
    low, high = bounds
    unseen = unseen_share(n, confidence) * (high - low)
    if np.all(labels == predictions):  # no disagreement seen: the items unlike these n may still be off
        half = max(half, unseen)
    if np.ptp(labels) == 0:  # every expert score the same: no spread seen either
        experts_half = max(experts_half, unseen)
    judge = float(np.mean(np.concatenate([predictions, unlabelled])))  # every judged item once: the pool's
    return PoolEstimate(
        estimate=_within(estimate, bounds),
        interval=_interval(estimate, half, bounds, "prediction-powered (PPI++), t(n − 2)", confidence),
        tuning=tuning, standard_error=spread, experts_only_standard_error=experts_spread,
        labelled=n, unlabelled=big_n, experts_only=_within(experts, bounds),
        experts_only_interval=_interval(experts, experts_half, bounds, "Student t, experts alone", confidence),
        judge_only=judge,
    )


def _within(value: float, bounds: tuple[float, float]) -> float:
    return min(max(value, bounds[0]), bounds[1])


def _interval(centre: float, half: float, bounds: tuple[float, float], method: str, confidence: float) -> Interval:
    """centre ± half, within the scale's range: the truth lies there, so the part outside covers nothing."""
    return Interval(_within(centre - half, bounds), _within(centre + half, bounds), method, confidence)


def verdict_stratified_rate(
    labels: np.ndarray,
    predictions: np.ndarray,
    unlabelled: np.ndarray,
    *,
    confidence: float = 0.95,
    strata: np.ndarray | None = None,
    unlabelled_strata: np.ndarray | None = None,
    draws: int = STRATIFIED_DRAWS,
) -> PoolEstimate:
    """A pool's pass rate from a PASS/FAIL judge's verdicts, corrected by the experts within each verdict.

    ``labels``: the experts' share of PASS on each rated item (1, 0, or between when they split);
    ``predictions`` and ``unlabelled``: the judge's verdicts (1 PASS, 0 FAIL) on the rated items and on the
    items no expert rated. ``strata`` and ``unlabelled_strata``: each item's stratum of a stratified draw (a
    balanced order's), None for a random sample. The pool is split by stratum and verdict; within each part the
    rated items are a random sample of it, so the estimate is each part's expert pass rate weighted by the
    part's size in the pool (a part no rated item fell in counts at one half, the middle of what it could hold),
    and the interval the equal-tailed Jeffreys posterior of items like these (``stratified_share``), widened to
    hold the estimate where the prior's pull leaves it just outside. The experts-alone figure is the same with
    the strata of the draw only: with a random sample, Jeffreys' interval for a share.
    """
    labels, predictions, unlabelled = _checked(labels, predictions, unlabelled, least=1)
    n, big_n = labels.size, unlabelled.size
    if not np.all(np.isin(np.concatenate([predictions, unlabelled]), (0.0, 1.0))):
        raise ValueError("the judge's verdicts must be 1 (PASS) or 0 (FAIL)")
    drawn = np.full(n, "") if strata is None else np.asarray(strata, dtype=str)
    drawn_unlabelled = np.full(big_n, "") if unlabelled_strata is None else np.asarray(unlabelled_strata, dtype=str)
    verdict = np.char.add(drawn, np.where(predictions == 1, "|PASS", "|FAIL"))
    verdict_unlabelled = np.char.add(drawn_unlabelled, np.where(unlabelled == 1, "|PASS", "|FAIL"))
    estimate, posterior = _stratified(labels, verdict, verdict_unlabelled, draws)
    experts, experts_posterior = _stratified(labels, drawn, drawn_unlabelled, draws)
    judge = float(np.mean(np.concatenate([predictions, unlabelled])))
    return PoolEstimate(
        estimate=estimate,
        interval=_posterior_interval(posterior, estimate, "stratified by the judge's verdict, Jeffreys", confidence),
        tuning=None, standard_error=float(np.std(posterior)),
        experts_only_standard_error=float(np.std(experts_posterior)),
        labelled=n, unlabelled=big_n, experts_only=experts,
        experts_only_interval=_posterior_interval(experts_posterior, experts, "Jeffreys, experts alone", confidence),
        judge_only=judge, method=BY_VERDICT,
    )


def _stratified(labels: np.ndarray, strata: np.ndarray, unlabelled_strata: np.ndarray, draws: int
                ) -> tuple[float, np.ndarray]:
    """The post-stratified share (each stratum's mean label times its share of the pool) and its posterior."""
    names, sizes = np.unique(np.concatenate([strata, unlabelled_strata]), return_counts=True)
    pool = {str(name): int(size) for name, size in zip(names, sizes, strict=True)}
    total = sum(pool.values())
    estimate = sum(size / total * (float(labels[strata == name].mean()) if np.any(strata == name) else 0.5)
                   for name, size in pool.items())
    posterior = stratified_share(strata, labels, np.ones(labels.size), pool, draws=draws)
    return _within(estimate, (0.0, 1.0)), posterior


def _posterior_interval(posterior: np.ndarray, estimate: float, method: str, confidence: float) -> Interval:
    found = percentile_interval(posterior, confidence, method=method, low=0.0, high=1.0)
    assert isinstance(found, Interval)  # posterior draws are always defined and never all equal
    return Interval(min(found.low, estimate), max(found.high, estimate), method, confidence)
