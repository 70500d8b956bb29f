"""Decisions that stay valid when the figures are looked at after every rating (sequential inference).

A fixed-n interval at 95% errs in 2.5% of studies per side when it is read once, at a number of items chosen in
advance. Read after every rating, with the study stopped at the first decision, the same rule errs far more
often (7–12% at a threshold, for 100–400 items of a class), because every look is another chance to cross. The
two methods here bound the error over every look at once:

* **A share of independent items** (TPR, TNR: one Bernoulli outcome per item of the class) is decided by a
  one-sided **conjugate beta mixture** test martingale (Robbins 1970; Howard, Ramdas, McAuliffe & Sekhon 2021,
  "Time-uniform, nonparametric, nonasymptotic confidence sequences", Ann. Statist. 49(2), section 3 and the
  beta-binomial mixture of their Table 2). To say "met" for a target ``p > p0``, the likelihood ratio of the
  outcomes under ``θ`` against ``p0`` is averaged over a Beta prior for ``θ`` truncated to ``[p0, 1]``::

      M_n = ∫_{p0}^1 (θ/p0)^S ((1-θ)/(1-p0))^F dπ(θ) / π([p0, 1])

  with S successes and F failures so far. Each factor has expectation at most 1 under every ``p <= p0``
  (it is linear in p, equal to 1 at p0 and increasing in p when θ >= p0), so ``M_n`` is a non-negative
  supermartingale under the whole null, and by Ville's inequality ``P(M_n >= 1/α at any n) <= α``. "Not met"
  is the mirror test (prior truncated to ``[0, p0]``). The chance of a wrong "met" over every look of a
  study, however long it runs, is at most α: exactly, not asymptotically.

* **Any other figure with a fixed-n interval** (kappa, weighted kappa, Pearson r, alignment, a design-weighted
  share) is decided by an **asymptotic confidence sequence** (Waudby-Smith, Arbour, Sinha, Kennedy & Ramdas 2024,
  "Time-uniform central limit theory and asymptotic confidence sequences", Ann. Statist. 52(6)): the fixed-n
  interval's distance on each side is widened from ``z`` standard errors to the one-sided normal-mixture
  boundary ``u(n)/sqrt(n)`` (Howard et al. 2021, the one-sided normal mixture, as their ConfSeq library's
  ``normal_mixture_bound`` computes it), the boundary a Gaussian random walk
  crosses with probability at most α at any n. Its guarantee is as good as the figure's normal approximation:
  where the fixed-n interval covers at its level, the sequence keeps the error over every look near α. As a
  margin for that approximation it is drawn at half the level (``ASYMPTOTIC_SHARE_OF_ALPHA``), from 20 items.

Both are one-sided, at ``α`` per side (2.5% by default, the tail a 95% two-sided fixed-n interval leaves on
each side). Everything here is pure Python and numpy (the incomplete beta function: `incomplete_beta.py`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Literal

import numpy as np

from judge_tui.stats.incomplete_beta import log_beta, log_incomplete_beta

__all__ = [
    "ASYMPTOTIC_SHARE_OF_ALPHA",
    "MIN_ITEMS_ASYMPTOTIC",
    "ONE_SIDED_ALPHA",
    "PRIOR_WEIGHT",
    "SequenceBounds",
    "Side",
    "TUNED_FOR_ITEMS",
    "Transform",
    "mixture_log_evidence",
    "normal_mixture_multiplier",
    "sequence_bounds",
    "share_boundaries",
    "share_decision",
    "share_sequence_interval",
    "widened",
]

Side = Literal["above", "below"]
SequentialDecision = Literal["met", "not met", "undecided"]

# One-sided error per target and side: what a 95% two-sided fixed-n interval leaves in each tail.
ONE_SIDED_ALPHA = 0.025
# The beta prior of the mixture is centred on the target with the weight of this many items: heavy enough that
# most of its mass lies within a few points of the target (where a judge worth testing is), light enough that a
# judge far from it is decided early. Measured in benchmarks/bench_decisions_monitoring.py.
PRIOR_WEIGHT = 10.0
# The normal-mixture boundary is tuned to be tightest at this many items (ConfSeq's v_opt).
TUNED_FOR_ITEMS = 100
# The asymptotic sequence needs the figure's normal approximation; below this many items it is not used.
MIN_ITEMS_ASYMPTOTIC = 20
# The asymptotic sequence is drawn at this share of the stated level: its normal approximation is optimistic at
# the sizes of these studies (kappa at its threshold, 100 items: a wrong "met" in 3.5–4.9% of studies at the full
# level, 2.1% at half of it; benchmarks/bench_decisions_monitoring.py), so the stated level is kept with a margin.
ASYMPTOTIC_SHARE_OF_ALPHA = 0.5

_TINY = 1e-300


# --------------------------------------------------------------------------------------------------
# A share: the one-sided beta mixture
# --------------------------------------------------------------------------------------------------


def _prior(target: float, weight: float) -> tuple[float, float]:
    return weight * target, weight * (1.0 - target)


def mixture_log_evidence(successes: float, n: float, target: float, side: Side, *,
                         weight: float = PRIOR_WEIGHT) -> float:
    """log M_n: the evidence that the share lies ``side`` the target (above: against ``p <= target``).

    ``successes`` and ``n`` may be fractional (for planning: a share held at its estimate over more items).
    """
    if not 0.0 < target < 1.0:
        raise ValueError(f"the target of a share must lie strictly between 0 and 1, got {target}")
    if not 0.0 <= successes <= n:
        raise ValueError(f"successes must lie in 0..n, got {successes} of {n}")
    failures = n - successes
    a, b = _prior(target, weight)
    if side == "above":  # mass of the posterior and of the prior above the target
        posterior, prior = (log_incomplete_beta(1.0 - target, b + failures, a + successes),
                            log_incomplete_beta(1.0 - target, b, a))
    else:
        posterior, prior = (log_incomplete_beta(target, a + successes, b + failures),
                            log_incomplete_beta(target, a, b))
    return (log_beta(a + successes, b + failures) - log_beta(a, b) + posterior - prior
            - successes * math.log(target) - failures * math.log1p(-target))


def share_decision(successes: float, n: float, target: float, *, alpha: float = ONE_SIDED_ALPHA,
                   min_items: int = 5) -> SequentialDecision:
    """Met (the share is above the target), not met (at or below it), or undecided, valid at every look.

    The chance of a wrong "met" over a whole study, looked at after every item, is at most ``alpha``, and so
    is the chance of a wrong "not met". Strict and non-strict targets (``>`` and ``>=``) read the same: the
    truth lying exactly on the target has probability zero under neither test's guarantee being loosened.
    """
    if n < min_items:
        return "undecided"
    threshold = -math.log(alpha)
    if mixture_log_evidence(successes, n, target, "above") >= threshold:
        return "met"
    if mixture_log_evidence(successes, n, target, "below") >= threshold:
        return "not met"
    return "undecided"


def share_boundaries(n_max: int, target: float, *, alpha: float = ONE_SIDED_ALPHA,
                     min_items: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """For every n in 0..n_max: the fewest successes that decide "met" (n + 1 when none does) and the most
    that decide "not met" (-1 when none does). ``share_decision`` read as a table, for simulations."""
    met_from = np.full(n_max + 1, 0, dtype=np.int64)
    not_met_upto = np.full(n_max + 1, -1, dtype=np.int64)
    for n in range(n_max + 1):
        met_from[n] = n + 1
        if n < min_items:
            continue
        # The evidence above grows with the successes (each multiplies the integrand by at least 1) and the
        # evidence below shrinks with them, so each boundary is found by bisection.
        low, high = -1, n + 1  # met at high (by convention), not at low
        while high - low > 1:
            middle = (low + high) // 2
            if share_decision(middle, n, target, alpha=alpha, min_items=min_items) == "met":
                high = middle
            else:
                low = middle
        met_from[n] = high
        low, high = -1, n + 1  # not met at low (by convention), not at high
        while high - low > 1:
            middle = (low + high) // 2
            if share_decision(middle, n, target, alpha=alpha, min_items=min_items) == "not met":
                low = middle
            else:
                high = middle
        not_met_upto[n] = low
    return met_from, not_met_upto


def share_sequence_interval(successes: float, n: float, *, alpha: float = ONE_SIDED_ALPHA) -> tuple[float, float]:
    """The anytime-valid interval at this n: every share the mixture tests do not rule out at ``alpha``
    per side. Its ends are where "met" (below) and "not met" (above) stop being said, found by bisection."""
    threshold = -math.log(alpha)

    def end(side: Side) -> float:
        low, high = 1e-9, 1.0 - 1e-9
        rejected_at = low if side == "above" else high
        if mixture_log_evidence(successes, n, rejected_at, side) < threshold:
            return 0.0 if side == "above" else 1.0
        for _ in range(50):
            middle = (low + high) / 2
            rejected = mixture_log_evidence(successes, n, middle, side) >= threshold
            if (side == "above") == rejected:
                low = middle
            else:
                high = middle
        return low if side == "above" else high

    return end("above"), end("below")


# --------------------------------------------------------------------------------------------------
# Any asymptotically normal figure: the normal-mixture boundary
# --------------------------------------------------------------------------------------------------


def _log_mixture_normal(s: float, n: float, r: float) -> float:
    """log of the one-sided normal mixture: exp(λs - λ²n/2) averaged over λ ~ N(0, 1/r) restricted to λ > 0
    (closed form: sqrt(4r / (n + r)) · exp(s² / (2(n + r))) · Φ(s / sqrt(n + r)))."""
    spread = n + r
    phi = 0.5 * math.erfc(-s / math.sqrt(2.0 * spread))
    return 0.5 * math.log(4.0 * r / spread) + s * s / (2.0 * spread) + math.log(max(phi, _TINY))


def mixture_precision(alpha: float, tuned_for: float) -> float:
    """The mixture's r that makes the one-sided boundary tightest near ``tuned_for`` items (Howard et al. 2021,
    section 3.5, with the two-sided rule at 2α, as ConfSeq does)."""
    log_term = 2.0 * math.log(1.0 / (2.0 * alpha))
    return tuned_for / (log_term + math.log1p(log_term))


@cache
def normal_mixture_multiplier(n: float, *, alpha: float = ONE_SIDED_ALPHA,
                              tuned_for: float = TUNED_FOR_ITEMS) -> float:
    """How many standard errors an estimate must stand from a value to rule it out at every look: the
    boundary u(n) that a standardised random walk crosses with probability at most ``alpha`` at any n,
    divided by sqrt(n). (1.96 at a single look of a 95% interval; about 3 near the tuned size.)"""
    if n <= 0:
        raise ValueError(f"n must be positive, got {n}")
    r = mixture_precision(alpha, tuned_for)
    threshold = -math.log(alpha)
    low, high = 0.0, 1.0
    while _log_mixture_normal(high * math.sqrt(n), n, r) < threshold:
        high *= 2.0
    for _ in range(60):
        middle = (low + high) / 2
        if _log_mixture_normal(middle * math.sqrt(n), n, r) >= threshold:
            high = middle
        else:
            low = middle
    return high


@dataclass(frozen=True)
class SequenceBounds:
    """An anytime-valid interval read off a fixed-n one, and how much wider it is."""

    low: float
    high: float
    widening: float  # the boundary's multiplier over the fixed-n interval's z


def widened(estimate: float, low: float, high: float, z_fixed: float, n: float, *,
            alpha: float = ONE_SIDED_ALPHA) -> SequenceBounds:
    """A fixed-n interval (its ends ``z_fixed`` standard errors from the estimate on each side) widened to the
    asymptotic confidence sequence at n: each side's distance times u(n)/sqrt(n) / z_fixed."""
    factor = normal_mixture_multiplier(n, alpha=alpha) / z_fixed
    return SequenceBounds(estimate - factor * (estimate - low), estimate + factor * (high - estimate), factor)


Transform = Literal["none", "fisher_z"]


def sequence_bounds(estimate: float, low: float, high: float, z_fixed: float, n: float, *,
                    transform: Transform = "none", alpha: float = ONE_SIDED_ALPHA) -> SequenceBounds:
    """``widened`` on the scale where the figure is closest to normal: Fisher's z for a correlation. Kappa's
    intervals are widened on κ's own scale, each side by the same factor, which keeps the asymmetry they were
    built with (a posterior, or a symmetric interval on log(1 - κ) or sqrt(1 - κ)); measured with a look after
    every item in benchmarks/bench_decisions_monitoring.py."""
    if transform == "fisher_z":
        clip = 1.0 - 1e-12
        to_z = [math.atanh(max(-clip, min(clip, v))) for v in (estimate, low, high)]
        on_z = widened(to_z[0], to_z[1], to_z[2], z_fixed, n, alpha=alpha)
        return SequenceBounds(math.tanh(on_z.low), math.tanh(on_z.high), on_z.widening)
    return widened(estimate, low, high, z_fixed, n, alpha=alpha)
