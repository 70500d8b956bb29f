"""Selective evaluation: the judge decides only the items where it is confident enough, and the threshold is
certified on expert-rated items so that its disagreement with the experts on the items it keeps is at most α,
with probability at least 1 − δ.

Jung, Brahman and Choi, "Trust or Escalate: LLM Judges with Provable Guarantees for Human Agreement" (2024,
arXiv 2407.18370), section 2. Each item has the judge's confidence c and whether its verdict disagrees with
the experts. For a threshold λ the judge keeps the items with c ≥ λ; R(λ) is the disagreement rate among the
items it keeps. For every candidate λ, "R(λ) > α" is a null hypothesis, rejected when the exact one-sided
Clopper–Pearson upper bound of R(λ) at level δ (from the k disagreements among the n_λ items kept) is at most
α; equivalently when P(Binomial(n_λ, α) ≤ k) ≤ δ.

Fixed-sequence testing (Bauer 1991): the candidates are tried in an order set before any verdict is compared
with the experts, each at the full level δ, and the first that is not rejected stops the sequence. The order
is the paper's: from the strictest threshold (the fewest, most confident items kept) to the most lenient, so
λ̂ is the most lenient threshold reached with every stricter one rejected, and P(R(λ̂) > α) ≤ δ over the draw of
the expert-rated items. When the first candidate already fails, no threshold is certified and the judge may
decide no item (the authors' code returns its strictest threshold even then; here the certificate is empty).

The candidates are the distinct confidences seen. One that keeps fewer items than could pass even with no
disagreement at all (n_λ below `fewest_certifiable`) is left out: it could only stop the sequence, and leaving
it out depends on the confidences alone, never on the experts' verdicts, so the order stays fixed in advance.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt


def binomial_cdf(k: int, n: int, p: float) -> float:
    """P(X ≤ k) for X ~ Binomial(n, p), summed exactly in log space (scipy's ``binom.cdf``)."""
    if k < 0:
        return 0.0
    if k >= n or p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0
    i = np.arange(k + 1, dtype=np.float64)
    log_choose = math.lgamma(n + 1) - np.array([math.lgamma(x + 1) + math.lgamma(n - x + 1) for x in i.tolist()])
    log_terms = log_choose + i * math.log(p) + (n - i) * math.log1p(-p)
    top = float(log_terms.max())
    return min(1.0, math.exp(top) * float(np.exp(log_terms - top).sum()))


@functools.lru_cache(maxsize=65536)
def clopper_pearson_upper(k: int, n: int, delta: float) -> float:
    """The exact one-sided upper bound at level δ of a rate seen as k of n: the largest p with
    P(Binomial(n, p) ≤ k) ≥ δ (scipy's ``beta.ppf(1 − δ, k + 1, n − k)``); 1 when k = n."""
    if not 0 <= k <= n or n < 1:
        raise ValueError(f"disagreements must lie in 0..n with n >= 1, got {k} of {n}")
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must lie strictly between 0 and 1, got {delta}")
    if k == n:
        return 1.0
    if k == 0:
        return 1.0 - float(delta ** (1.0 / n))
    low, high = k / n, 1.0  # the CDF falls as p grows: at the observed rate it is above δ
    for _ in range(200):
        middle = (low + high) / 2.0
        if binomial_cdf(k, n, middle) >= delta:
            low = middle
        else:
            high = middle
        if high - low < 1e-14:
            break
    return low


def fewest_certifiable(alpha: float, delta: float) -> int:
    """The fewest kept items whose bound can reach α at all: with no disagreement, (1 − α)^n ≤ δ."""
    _check_levels(alpha, delta)
    return max(1, math.ceil(math.log(delta) / math.log1p(-alpha) - 1e-12))


def _check_levels(alpha: float, delta: float) -> None:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1, got {alpha}")
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must lie strictly between 0 and 1, got {delta}")


@dataclass(frozen=True)
class ThresholdTest:
    """One candidate threshold as tested: the items it keeps, their disagreements and the bound."""

    threshold: float  # λ: the judge keeps the items whose confidence is at least this
    kept: int  # n_λ
    disagreements: int  # k among them
    bound: float  # the Clopper–Pearson upper bound of the disagreement rate at level δ
    passed: bool  # the bound is at most α


@dataclass(frozen=True)
class Certificate:
    """The outcome of fixed-sequence testing over one set of expert-rated items."""

    alpha: float
    delta: float
    n: int  # the expert-rated items with a confidence
    tests: tuple[ThresholdTest, ...]  # in the order tried; ends at the first failure (or after every candidate)

    @property
    def certified(self) -> ThresholdTest | None:
        """The last candidate that passed (the most lenient certified threshold), None when none passed."""
        passed = [t for t in self.tests if t.passed]
        return passed[-1] if passed else None

    @property
    def threshold(self) -> float | None:
        """λ̂, or None: the judge may decide no item."""
        found = self.certified
        return found.threshold if found else None

    @property
    def coverage(self) -> float:
        """The share of the expert-rated items the judge keeps at λ̂ (0 when nothing is certified)."""
        found = self.certified
        return found.kept / self.n if found and self.n else 0.0

    def keeps(self, confidence: npt.ArrayLike) -> np.ndarray:
        """Item by item, whether the judge decides it under this certificate (a NaN confidence never)."""
        values = np.asarray(confidence, dtype=np.float64)
        threshold = self.threshold
        if threshold is None:
            return np.zeros(values.shape, dtype=bool)
        with np.errstate(invalid="ignore"):
            return np.asarray(values >= threshold, dtype=bool)


def certify(confidence: npt.ArrayLike, disagrees: npt.ArrayLike, alpha: float, delta: float) -> Certificate:
    """Fixed-sequence testing of the thresholds from the strictest to the most lenient (the module's
    docstring). ``confidence``: the judge's confidence per expert-rated item (higher is surer; NaN: none, left
    out); ``disagrees``: whether its verdict on the item disagrees with the experts'."""
    _check_levels(alpha, delta)
    c = np.asarray(confidence, dtype=np.float64)
    wrong = np.asarray(disagrees, dtype=bool)
    if c.shape != wrong.shape or c.ndim != 1:
        raise ValueError(f"confidence and disagrees must be two flat arrays of one length, got {c.shape} and "
                         f"{wrong.shape}")
    present = ~np.isnan(c)
    c, wrong = c[present], wrong[present]
    order = np.argsort(-c, kind="stable")
    c, wrong = c[order], wrong[order]
    # Distinct confidences, strictest first; at each, how many items it keeps and how many of them disagree.
    candidates, first_index = np.unique(-c, return_index=True)
    kept = np.r_[first_index[1:], c.size] if c.size else np.empty(0, np.int64)
    wrong_so_far = np.cumsum(wrong)
    least = fewest_certifiable(alpha, delta)
    tests: list[ThresholdTest] = []
    for threshold, n_kept in zip((-candidates).tolist(), kept.tolist(), strict=True):
        if n_kept < least:
            continue
        k = int(wrong_so_far[n_kept - 1])
        passed = binomial_cdf(k, n_kept, alpha) <= delta
        tests.append(ThresholdTest(float(threshold), int(n_kept), k, clopper_pearson_upper(k, n_kept, delta),
                                   passed))
        if not passed:
            break
    return Certificate(alpha, delta, int(c.size), tuple(tests))
