"""The kappa interval the report gives, built independently from statsmodels and scipy (the reference)."""

from __future__ import annotations

import numpy as np
from scipy import stats
from statsmodels.stats.inter_rater import cohens_kappa


def log_disagreement_t(table: np.ndarray, confidence: float = 0.95) -> tuple[float, float] | None:
    """log(1 - kappa) ± t(n - 1)·SE/(1 - kappa), SE from statsmodels' ``std_kappa`` (Fleiss, Cohen and Everitt);
    None for the tables that get another answer: every item agreed (Wilson's interval of the agreement), two
    categories (the Jeffreys posterior interval), or fewer than 25 items or than two items outside a rater's most
    common category ("too few items")."""
    table = np.asarray(table, dtype=float)
    n = table.sum()
    minority = min(n - table.sum(axis=1).max(), n - table.sum(axis=0).max())
    if len(table) == 2 or n < 25 or minority < 2 or not table[~np.eye(len(table), dtype=bool)].any():
        return None
    reference = cohens_kappa(table)
    spread = stats.t.ppf(0.5 + confidence / 2, n - 1) * reference.std_kappa / (1 - reference.kappa)
    return max(-1.0, 1 - (1 - reference.kappa) * np.exp(spread)), 1 - (1 - reference.kappa) * np.exp(-spread)


def jeffreys_kappa_quantiles(table: np.ndarray, confidence: float = 0.95, draws: int = 400_000) -> tuple[float, float]:
    """A two-category table's kappa posterior quantiles under Jeffreys' Dirichlet(1/2, 1/2, 1/2, 1/2) prior, from
    scipy's Dirichlet and the 2×2 closed form κ = 2(p11·p22 − p12·p21) / (p1.·p.2 + p.1·p2.) (a different formula
    from the code's)."""
    p = stats.dirichlet(np.asarray(table, dtype=float).ravel() + 0.5).rvs(
        size=draws, random_state=np.random.default_rng(99))
    p11, p12, p21, p22 = p.T
    kappa = 2 * (p11 * p22 - p12 * p21) / ((p11 + p12) * (p12 + p22) + (p11 + p21) * (p21 + p22))
    tail = (1 - confidence) / 2
    low, high = np.quantile(kappa, [tail, 1 - tail])
    return float(low), float(high)
