"""How the pool's pass rate on the validity page covers where real PASS/FAIL studies sit.

Simulated studies with a known truth: a pool of items like these at a true pass rate (70, 80, 90 and 95% PASS),
one expert's verdict on each rated item (the truth), a judge that errs at set rates (both ways: TPR 0.9,
TNR 0.8; rarely: TPR 0.98, TNR 0.95; one way only: TPR 1.0, TNR 0.82, a real course judge's profile, also at its
74% PASS), 25 to 120 rated items drawn at random and 1,000 items the judge alone rated. Each study goes through
the functions the report calls: `stats.prediction_powered.verdict_stratified_rate` (the pass rate split by the
judge's verdict, what the page shows), `analysis.validity.offers_pool` (whether the page offers it or says to use
the experts alone), and, for comparison, `prediction_powered_mean` (the PPI++ t interval the page showed before).
The truth is the pass rate of items like these (the pool is a sample of them).

`--priors` measures, on the same cells, intervals that were tried in its place and not kept: the same
posterior with a smaller prior than Jeffreys' (each verdict's outcomes given ¼ or 1/10 instead of ½) and the
shortest interval holding 95% of Jeffreys' posterior instead of its equal tails. They are computed here (the app
has no such option), by the same two-phase posterior `stats.intervals.stratified_share` draws for a random
sample; its Jeffreys column reproduces the app's within Monte Carlo error.

Run: .venv/bin/python benchmarks/bench_pool_estimate.py [--runs 1000] [--priors]
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
                            "narrower", "unseen", "seen_covers", "fallback0", "fallback1"), 0)
    ratios, estimates = [], []
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
        disagreements = int(np.sum(labels != predictions))
        counts["unseen"] += disagreements == 0
        counts["seen_covers"] += hit and disagreements > 0
        counts["low"] += found.interval.high < pass_rate  # the interval sits below the truth
        counts["high"] += found.interval.low > pass_rate
        alone = found.experts_only_interval.contains(pass_rate)
        counts["alone"] += alone
        offered = offers_pool(found)
        counts["offered"] += offered
        counts["offered_covers"] += offered and hit
        counts["page"] += hit if offered else alone
        counts["narrower"] += hit if found.narrower_by > 0 else alone
        # Rules the page could apply from the data alone: the experts alone where the rated items show no
        # disagreement, or fewer than two (where the verdict split errs most on the wide side).
        counts["fallback0"] += alone if disagreements == 0 else hit
        counts["fallback1"] += alone if disagreements <= 1 else hit
        ratios.append(1.0 - found.narrower_by)
        estimates.append(found.estimate)
    shares = {k: v / runs for k, v in counts.items()}
    shares.update(oracle(np.asarray(estimates), pass_rate))
    shares["offered_covers"] = counts["offered_covers"] / max(1, counts["offered"])
    shares["seen_covers"] = counts["seen_covers"] / max(1, runs - counts["unseen"])
    shares["ratio"] = float(np.mean(ratios))
    return shares


def oracle(estimates: np.ndarray, truth: float) -> dict[str, float]:
    """What an interval could do in this cell if it knew the cell: the estimate ± 1.96 × its true standard
    deviation (read off the cell's own draws), and the half-width a fixed-width interval around the estimate
    needs to cover exactly 95%, in those standard deviations (1.96 for a normal estimate). Where the estimate's
    draws lump near the truth, that half-width is well under 1.96: an interval covering only 95% there must be
    narrower than the estimate's own spread."""
    spread = float(np.std(estimates))
    errors = np.abs(estimates - truth)
    return {"oracle": float(np.mean(errors <= 1.96 * spread)),
            "needed": float(np.quantile(errors, 0.95)) / spread if spread > 0 else float("nan")}


PRIORS = (("Jeffreys (½)", 0.5, False), ("¼", 0.25, False), ("1/10", 0.1, False), ("Jeffreys, shortest", 0.5, True))
DRAWS = 4000


def _posterior_interval(labels: np.ndarray, predictions: np.ndarray, pool_passes: int, pool_size: int,
                        prior: float, shortest: bool, rng: np.random.Generator) -> tuple[float, float]:
    """The verdict split's two-phase posterior for a random sample (what `stratified_share` draws), with
    `prior` per outcome and per verdict; its equal-tailed or its shortest 95% interval."""
    shares = rng.dirichlet([pool_passes + 2 * prior, pool_size - pool_passes + 2 * prior], size=DRAWS)
    draws = np.zeros(DRAWS)
    for column, verdict in enumerate((1.0, 0.0)):
        seen = labels[predictions == verdict]
        draws += shares[:, column] * rng.beta(seen.sum() + prior, seen.size - seen.sum() + prior, DRAWS)
    if not shortest:
        low, high = np.percentile(draws, [2.5, 97.5])
        return float(low), float(high)
    ordered = np.sort(draws)
    held = int(np.floor(0.95 * DRAWS))
    start = int(np.argmin(ordered[held:] - ordered[: DRAWS - held]))
    return float(ordered[start]), float(ordered[start + held])


def priors(runs: int, cells: list[tuple[float, str, float, float]], rng: np.random.Generator) -> None:
    """Coverage of the intervals tried in the verdict split's place (module doc), cell by cell."""
    print(f"Verdict split, other priors and the shortest interval, {runs} studies per cell")
    print("| PASS | judge errs | rated | " + " | ".join(name for name, _, _ in PRIORS) + " |")
    print("| ---: | --- | ---: |" + " ---: |" * len(PRIORS))
    found: dict[str, list[float]] = {name: [] for name, _, _ in PRIORS}
    for pass_rate, name, tpr, tnr in cells:
        for rated in RATED:
            hits = dict.fromkeys(found, 0)
            for _ in range(runs):
                size = rated + JUDGE_ONLY
                truth = (rng.random(size) < pass_rate).astype(float)
                judge = np.where(truth == 1, rng.random(size) < tpr, rng.random(size) >= tnr).astype(float)
                for label, prior, shortest in PRIORS:
                    low, high = _posterior_interval(truth[:rated], judge[:rated], int(judge.sum()), size, prior,
                                                    shortest, rng)
                    hits[label] += low <= pass_rate <= high
            for label in found:
                found[label].append(hits[label] / runs)
            print(f"| {pass_rate:.0%} | {name} (TPR {tpr:g}, TNR {tnr:g}) | {rated} | "
                  + " | ".join(f"{hits[label] / runs:.1%}" for label in found) + " |", flush=True)
    print("\n" + "; ".join(f"{label} {min(v):.1%}–{max(v):.1%}, {sum(not 0.93 <= c <= 0.97 for c in v)} cells "
                           "outside 93–97%" for label, v in found.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--priors", action="store_true", help="the intervals tried and not kept (module doc)")
    args = parser.parse_args()
    runs = args.runs
    rng = np.random.default_rng(SEED)
    start = time.perf_counter()
    print(f"Pool pass rate, 95% intervals, {runs} studies per cell, {JUDGE_ONLY:,} judge-only items")
    print("| PASS | judge errs | rated | PPI++ t | by verdict covers | below | above | experts alone "
          "| width ÷ experts' | page offers it | covers when offered | page's figure covers | the narrower "
          "| no disagreement seen | covers when one was | experts alone at 0 disagreements | at 0–1 "
          "| ± 1.96 true SD covers | half-width for 95%, in SDs |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
          "| ---: | ---: | ---: | ---: |")
    cells = [(p, name, tpr, tnr) for p in PASS_RATES for name, tpr, tnr in JUDGES]
    cells.append((COURSE[3], COURSE[0], COURSE[1], COURSE[2]))
    if args.priors:
        priors(runs, cells, rng)
        return
    covers, pages, fallbacks, wide = [], [], [], []
    for pass_rate, name, tpr, tnr in cells:
        for rated in RATED:
            s = cell(pass_rate, tpr, tnr, rated, runs, rng)
            covers.append(s["covers"])
            if s["covers"] > 0.97:
                wide.append((s["oracle"], s["needed"]))
            pages.append(s["page"])
            fallbacks.append((s["fallback0"], s["fallback1"]))
            print(f"| {pass_rate:.0%} | {name} (TPR {tpr:g}, TNR {tnr:g}) | {rated} | {s['ppi']:.1%} "
                  f"| {s['covers']:.1%} | {s['low']:.1%} | {s['high']:.1%} | {s['alone']:.1%} | {s['ratio']:.2f} "
                  f"| {s['offered']:.0%} | {s['offered_covers']:.1%} | {s['page']:.1%} | {s['narrower']:.1%} "
                  f"| {s['unseen']:.1%} | {s['seen_covers']:.1%} | {s['fallback0']:.1%} | {s['fallback1']:.1%} "
                  f"| {s['oracle']:.1%} | {s['needed']:.2f} |",
                  flush=True)
    print(f"\nby verdict covers {min(covers):.1%}–{max(covers):.1%}, the page's figure {min(pages):.1%}–"
          f"{max(pages):.1%}; experts alone at 0 disagreements {min(f[0] for f in fallbacks):.1%}–"
          f"{max(f[0] for f in fallbacks):.1%}, at 0–1 {min(f[1] for f in fallbacks):.1%}–"
          f"{max(f[1] for f in fallbacks):.1%}; {time.perf_counter() - start:.0f} s")
    if wide:
        print(f"In the {len(wide)} cells where it covers above 97%, the estimate ± 1.96 × its true SD covers "
              f"{min(w[0] for w in wide):.1%}–{max(w[0] for w in wide):.1%}, and 95% needs ± "
              f"{min(w[1] for w in wide):.2f}–{max(w[1] for w in wide):.2f} true SDs")


if __name__ == "__main__":
    main()
