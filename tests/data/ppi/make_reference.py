"""Regenerate reference.json: ppi_py's PPI++ mean intervals (power-tuned) on seeded inputs.

ppi-python pulls numba, llvmlite and gdown, so it is not in the test extra; tests/test_prediction_powered.py
compares against this file always, and against ppi_py itself when it is installed. Run with ppi-python 0.2.3:

    .venv/bin/pip install ppi-python==0.2.3 && .venv/bin/python tests/data/ppi/make_reference.py
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from ppi_py import classical_mean_ci, ppi_mean_ci, ppi_mean_pointestimate


def cases() -> list[dict[str, object]]:
    """Inputs: binary and graded labels, good and useless judges, with and without design weights."""
    rng = np.random.default_rng(20261127)
    found: list[dict[str, object]] = []
    for kind in ("pass", "quarter"):
        for n, big_n in ((25, 1000), (60, 300), (100, 2000)):
            for noise in (0.1, 0.5, 1.0):
                if kind == "pass":
                    truth = (rng.random(n + big_n) < 0.7).astype(float)
                    judge = np.where(rng.random(n + big_n) < noise / 2, 1 - truth, truth)
                else:
                    truth = rng.integers(0, 5, n + big_n) / 4
                    judge = np.clip(np.round((truth + rng.normal(0, noise / 2, n + big_n)) * 4) / 4, 0, 1)
                weighted = noise == 0.5
                w = rng.choice([1.0, 3.0], n) if weighted else None
                wu = rng.choice([1.0, 0.8], big_n) if weighted else None
                found.append({"labels": truth[:n].tolist(), "predictions": judge[:n].tolist(),
                              "unlabelled": judge[n:].tolist(),
                              "weights": None if w is None else w.tolist(),
                              "unlabelled_weights": None if wu is None else wu.tolist()})
    return found


def main() -> None:
    out = []
    for case in cases():
        y, yhat, yu = (np.array(case[k]) for k in ("labels", "predictions", "unlabelled"))
        w = None if case["weights"] is None else np.array(case["weights"])
        wu = None if case["unlabelled_weights"] is None else np.array(case["unlabelled_weights"])
        low, high = ppi_mean_ci(y, yhat, yu, alpha=0.05, w=w, w_unlabeled=wu)
        estimate = ppi_mean_pointestimate(y, yhat, yu, w=w, w_unlabeled=wu)
        c_low, c_high = classical_mean_ci(y, w=w, alpha=0.05)
        out.append({**case, "confidence": 0.95, "estimate": float(np.ravel(estimate)[0]),
                    "low": float(np.ravel(low)[0]), "high": float(np.ravel(high)[0]),
                    "experts_low": float(c_low), "experts_high": float(c_high)})
    path = Path(__file__).with_name("reference.json")
    path.write_text(json.dumps(out, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
