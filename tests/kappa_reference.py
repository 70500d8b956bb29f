"""The kappa interval the report gives, built independently from statsmodels and scipy (the reference)."""

from __future__ import annotations

import numpy as np
from scipy import stats
from statsmodels.stats.inter_rater import cohens_kappa


def log_disagreement_t(table: np.ndarray, confidence: float = 0.95) -> tuple[float, float] | None:
    """log(1 - kappa) ± t(n - 1)·SE/(1 - kappa), SE from statsmodels' ``std_kappa`` (Fleiss, Cohen and Everitt);
    None for the tables that get another answer: every item agreed (Wilson's interval of the agreement), or
    fewer than two items outside a rater's most common category ("too few items")."""
    table = np.asarray(table, dtype=float)
    n = table.sum()
    minority = min(n - table.sum(axis=1).max(), n - table.sum(axis=0).max())
    if minority < 2 or not table[~np.eye(len(table), dtype=bool)].any():
        return None
    reference = cohens_kappa(table)
    spread = stats.t.ppf(0.5 + confidence / 2, n - 1) * reference.std_kappa / (1 - reference.kappa)
    return max(-1.0, 1 - (1 - reference.kappa) * np.exp(spread)), 1 - (1 - reference.kappa) * np.exp(-spread)
