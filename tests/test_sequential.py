"""The sequential rules (stats/sequential.py) against scipy and against simulations with a known truth."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from judge_tui.stats import sequential as sq


def direct_evidence(successes: int, n: int, target: float, side: str) -> float:
    """The mixture integral itself, by quadrature against scipy's beta density truncated to one side."""
    a, b = sq.PRIOR_WEIGHT * target, sq.PRIOR_WEIGHT * (1 - target)
    prior = stats.beta(a, b)
    lo, hi = (target, 1.0) if side == "above" else (0.0, target)
    mass = prior.cdf(hi) - prior.cdf(lo)

    def integrand(theta: float) -> float:
        ratio = successes * math.log(theta / target) + (n - successes) * math.log((1 - theta) / (1 - target))
        return math.exp(ratio) * prior.pdf(theta)

    value, _ = integrate.quad(integrand, lo, hi, limit=400, epsabs=0, epsrel=1e-11, points=[successes / n])
    return math.log(value / mass)


@pytest.mark.parametrize(("successes", "n", "target", "side"), [
    (95, 100, 0.90, "above"), (80, 100, 0.90, "below"), (18, 20, 0.90, "above"), (45, 50, 0.90, "below"),
    (370, 400, 0.90, "above"), (60, 100, 0.70, "below"), (5, 5, 0.60, "above"),
])
def test_the_beta_mixture_is_the_integral_it_stands_for(successes, n, target, side):
    assert sq.mixture_log_evidence(successes, n, target, side) == pytest.approx(
        direct_evidence(successes, n, target, side), abs=1e-7)


def test_the_normal_mixture_boundary_is_where_the_integral_reaches_one_over_alpha():
    """The closed form of the half-normal mixture against quadrature over λ, at the boundary it defines."""
    alpha = sq.ONE_SIDED_ALPHA
    r = sq.mixture_precision(alpha, sq.TUNED_FOR_ITEMS)
    for n in (10, 50, 100, 400):
        s = sq.normal_mixture_multiplier(n) * math.sqrt(n)

        def integrand(lam: float, s: float = s, n: int = n) -> float:
            return math.exp(lam * s - lam * lam * n / 2) * 2 * stats.norm.pdf(lam, scale=1 / math.sqrt(r))

        value, _ = integrate.quad(integrand, 0, np.inf, epsrel=1e-10)
        assert math.log(value) == pytest.approx(math.log(1 / alpha), abs=1e-6)


def test_a_gaussian_walk_crosses_the_boundary_at_most_alpha_of_the_time():
    """Monte Carlo, known truth: standard normal steps of mean 0, 400 looks each. The fixed-n 1.96 crosses in far
    more than 2.5% of walks; the boundary in at most 2.5% (binomial sd 0.2% at 6,000 walks)."""
    rng = np.random.default_rng(11)
    walks = rng.standard_normal((6000, 400)).cumsum(axis=1)
    n = np.arange(1, 401)
    boundary = np.array([sq.normal_mixture_multiplier(int(k)) for k in n]) * np.sqrt(n)
    assert ((walks >= 1.96 * np.sqrt(n)).any(axis=1)).mean() > 0.15
    assert ((walks >= boundary).any(axis=1)).mean() <= sq.ONE_SIDED_ALPHA


def test_a_share_on_its_target_is_called_met_at_most_alpha_of_the_time_looked_at_every_item():
    """Monte Carlo, known truth: p exactly 0.90, 400 items, a look after each. The exact mixture says "met" in
    at most 2.5% of runs (binomial sd 0.15% at 8,000 runs); it is what a wrong "met" costs at any look."""
    met_from, _ = sq.share_boundaries(400, 0.90)
    successes = (np.random.default_rng(3).random((8000, 400)) < 0.90).cumsum(axis=1)
    ever_met = (successes >= met_from[np.arange(1, 401)]).any(axis=1)
    assert ever_met.mean() <= sq.ONE_SIDED_ALPHA
    # and "not met" for a share just above the target, the mirror error
    _, not_met_upto = sq.share_boundaries(400, 0.90)
    above = (np.random.default_rng(4).random((8000, 400)) < 0.9001).cumsum(axis=1)
    assert (above <= not_met_upto[np.arange(1, 401)]).any(axis=1).mean() <= sq.ONE_SIDED_ALPHA


def test_share_boundaries_read_the_decision_and_the_interval_agrees():
    met_from, not_met_upto = sq.share_boundaries(120, 0.90)
    for n in (5, 12, 40, 120):
        for s in range(n + 1):
            decision = sq.share_decision(s, n, 0.90)
            assert decision == ("met" if s >= met_from[n] else "not met" if s <= not_met_upto[n] else "undecided")
            low, high = sq.share_sequence_interval(s, n)
            assert (low > 0.90 - 1e-6) == (decision == "met") or abs(low - 0.90) < 1e-4
            assert (high < 0.90 + 1e-6) == (decision == "not met") or abs(high - 0.90) < 1e-4


def test_widened_interval_keeps_each_side_and_is_wider_than_fixed_n():
    bounds = sq.widened(0.70, 0.55, 0.80, 1.959964, 100)
    assert bounds.widening == pytest.approx(sq.normal_mixture_multiplier(100) / 1.959964)
    assert bounds.low == pytest.approx(0.70 - 0.15 * bounds.widening)
    assert bounds.high == pytest.approx(0.70 + 0.10 * bounds.widening)
    assert bounds.widening > 1.4  # about 3 standard errors near 100 items, against 1.96
    r = sq.sequence_bounds(0.5, 0.3, 0.65, 1.959964, 50, transform="fisher_z")
    assert math.atanh(0.5) - math.atanh(r.low) == pytest.approx((math.atanh(0.5) - math.atanh(0.3)) * r.widening)
