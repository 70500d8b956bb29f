"""How the pool's pass rate on the validity page covers where real PASS/FAIL studies sit.

Simulated studies with a known truth: a pool of items like these at a true pass rate (70, 80, 90 and 95% PASS),
one expert's verdict on each rated item (the truth), a judge that errs at set rates (both ways: TPR 0.9,
TNR 0.8; rarely: TPR 0.98, TNR 0.95; one way only: TPR 1.0, TNR 0.82, a real course judge's profile, also at its
74% PASS), 25 to 120 rated items drawn at random and 1,000 items the judge alone rated. Each study goes through
the functions the report calls: `stats.prediction_powered.verdict_stratified_rate` (the pass rate split by the
judge's verdict, what the page shows), `analysis.validity.offers_pool` (whether the page offers it or says to use
the experts alone), and, for comparison, `prediction_powered_mean` (the PPI++ t interval the page showed before).
The truth is the pass rate of items like these (the pool is a sample of them).

Run: .venv/bin/python benchmarks/bench_pool_estimate.py [--runs 1000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from judge_tui.analysis.validity import offers_pool
from judge_tui.stats.prediction_powered import prediction_powered_mean, verdict_stratified_rate

SEED = 20261204
JUDGE_ONLY = 1000
RATED = (25, 30, 42, 60, 120)
JUDGES = (("both ways", 0.90, 0.80), ("rarely", 0.98, 0.95), ("one way only", 1.00, 0.82))
PASS_RATES = (0.70, 0.80, 0.90, 0.95)
COURSE = ("one way only", 1.00, 0.82, 0.74)  # the course judge's own pass rate


def cell(pass_rate: float, tpr: float, tnr: float, rated: int, runs: int, rng: np.random.Generator
         ) -> dict[str, float]:
    """Coverage of every interval in one cell, and how often the page offers the pool estimate."""
    counts = dict.fromkeys(("ppi", "covers", "low", "high", "alone", "offered", "offered_covers", "page",
                            "narrower"), 0)
    ratios = []
    for _ in range(runs):
        size = rated + JUDGE_ONLY
        truth = (rng.random(size) < pass_rate).astype(float)
        judge = np.where(truth == 1, rng.random(size) < tpr, rng.random(size) >= tnr).astype(float)
        labels, predictions, unlabelled = truth[:rated], judge[:rated], judge[rated:]
        found = verdict_stratified_rate(labels, predictions, unlabelled)
        ppi = prediction_powered_mean(labels, predictions, unlabelled)
        counts["ppi"] += ppi.interval.contains(pass_rate)
        hit = found.interval.contains(pass_rate)
        counts["covers"] += hit
        counts["low"] += found.interval.high < pass_rate  # the interval sits below the truth
        counts["high"] += found.interval.low > pass_rate
        alone = found.experts_only_interval.contains(pass_rate)
        counts["alone"] += alone
        offered = offers_pool(found)
        counts["offered"] += offered
        counts["offered_covers"] += offered and hit
        counts["page"] += hit if offered else alone
        counts["narrower"] += hit if found.narrower_by > 0 else alone
        ratios.append(1.0 - found.narrower_by)
    shares = {k: v / runs for k, v in counts.items()}
    shares["offered_covers"] = counts["offered_covers"] / max(1, counts["offered"])
    shares["ratio"] = float(np.mean(ratios))
    return shares


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    runs = parser.parse_args().runs
    rng = np.random.default_rng(SEED)
    start = time.perf_counter()
    print(f"Pool pass rate, 95% intervals, {runs} studies per cell, {JUDGE_ONLY:,} judge-only items")
    print("| PASS | judge errs | rated | PPI++ t | by verdict covers | below | above | experts alone "
          "| width ÷ experts' | page offers it | covers when offered | page's figure covers | the narrower |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    cells = [(p, name, tpr, tnr) for p in PASS_RATES for name, tpr, tnr in JUDGES]
    cells.append((COURSE[3], COURSE[0], COURSE[1], COURSE[2]))
    covers, pages = [], []
    for pass_rate, name, tpr, tnr in cells:
        for rated in RATED:
            s = cell(pass_rate, tpr, tnr, rated, runs, rng)
            covers.append(s["covers"])
            pages.append(s["page"])
            print(f"| {pass_rate:.0%} | {name} (TPR {tpr:g}, TNR {tnr:g}) | {rated} | {s['ppi']:.1%} "
                  f"| {s['covers']:.1%} | {s['low']:.1%} | {s['high']:.1%} | {s['alone']:.1%} | {s['ratio']:.2f} "
                  f"| {s['offered']:.0%} | {s['offered_covers']:.1%} | {s['page']:.1%} | {s['narrower']:.1%} |",
                  flush=True)
    print(f"\nby verdict covers {min(covers):.1%}–{max(covers):.1%}, the page's figure {min(pages):.1%}–"
          f"{max(pages):.1%}; {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
