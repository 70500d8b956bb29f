"""How the judge-validity page's two new tests behave on simulated studies with known truth.

1. The alternative annotator test (stats.alt_test), PASS/FAIL labels, 3 experts each right with chance 0.85:
   * false pass: the judge is right with the chance that makes each expert's true edge over it exactly ε
     (E[expert won − judge won] = ε, solved exactly), so "the judge may replace the experts" is wrong; the test
     must say it in at most q = 5% of studies;
   * power: the judge as good as an expert, and better (right with chance 0.92);
   at 25 items (below the authors' 30: run with the minimum lowered to study it), 60 and 120 items per expert.
2. The prediction-powered pool mean (stats.prediction_powered) on a graded 0–1 scale in quarters, a judge biased
   by +0.1 with noise (sd 0.15): coverage of the true pool mean and width against the experts-alone interval,
   at 25/50/100 rated items and 1,000/10,000 judge-only items. A PASS/FAIL pass rate is estimated by the
   judge's verdicts instead: benchmarks/bench_pool_estimate.py.

Run: .venv/bin/python benchmarks/bench_validity.py [--runs 2000]
"""

from __future__ import annotations

import argparse
import itertools
import math
import time

import numpy as np

from judge_tui.stats.alt_test import alternative_annotator_test
from judge_tui.stats.prediction_powered import prediction_powered_mean

EXPERTS = 3
EXPERT_RIGHT = 0.85
EPSILON = 0.2
SEED = 20261128
NORMAL_95 = 1.959963984540054  # the normal quantile ppi_py uses at 95%


def expected_edge(expert_right: float, judge_right: float, others: int = EXPERTS - 1) -> float:
    """E[expert won − judge won] on one item, accuracy scoring against the other experts, binary labels: each
    rater independently right or wrong; a rater's matches with the others are the others right if they are
    right, the others wrong if they are wrong."""
    total = 0.0
    for expert_ok, judge_ok in itertools.product((True, False), repeat=2):
        p = (expert_right if expert_ok else 1 - expert_right) * (judge_right if judge_ok else 1 - judge_right)
        for right in range(others + 1):
            q = float(np.prod([expert_right] * right + [1 - expert_right] * (others - right)))
            ways = math.comb(others, right)
            k = right if expert_ok else others - right
            m = right if judge_ok else others - right
            total += p * q * ways * float(np.sign(k - m))
    return total


def judge_at_edge(epsilon: float) -> float:
    """The judge's chance of being right that puts every expert's edge over it at exactly ε (bisection)."""
    low, high = 0.0, EXPERT_RIGHT
    for _ in range(100):
        middle = (low + high) / 2
        if expected_edge(EXPERT_RIGHT, middle) > epsilon:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def alt_test_pass_rate(judge_right: float, items: int, runs: int, rng: np.random.Generator) -> float:
    passed = 0
    for _ in range(runs):
        truth = rng.random(items) < 0.7
        experts = np.where(rng.random((EXPERTS, items)) < EXPERT_RIGHT, truth, ~truth).astype(float)
        judge = np.where(rng.random(items) < judge_right, truth, ~truth).astype(float)
        result = alternative_annotator_test(experts, judge, [f"e{i}" for i in range(EXPERTS)], scoring="accuracy",
                                            epsilon=EPSILON, min_items_per_expert=min(items, 30))
        passed += bool(result.passed)
    return passed / runs


def ppi_figures(rated: int, judge_only: int, runs: int, rng: np.random.Generator
                ) -> tuple[float, float, float, float, float]:
    """Coverage of PPI++ (t quantile, as shipped, and the normal quantile of ppi_py on the same standard
    error) and of the experts alone, the mean width ratio, and the judge-alone bias."""
    covered = covered_alone = covered_normal = 0
    ratios, biases = [], []
    for _ in range(runs):
        size = rated + judge_only
        truth_mean = 0.5
        truth = rng.integers(0, 5, size) / 4
        judge = np.clip(np.round((truth + 0.1 + rng.normal(0, 0.15, size)) * 4) / 4, 0, 1)
        found = prediction_powered_mean(truth[:rated], judge[:rated], judge[rated:])
        covered += found.interval.low <= truth_mean <= found.interval.high
        covered_normal += abs(found.estimate - truth_mean) <= NORMAL_95 * found.standard_error
        covered_alone += found.experts_only_interval.low <= truth_mean <= found.experts_only_interval.high
        ratios.append(1 - found.narrower_by)
        biases.append(found.judge_only - truth_mean)
    return (covered / runs, covered_normal / runs, covered_alone / runs, float(np.mean(ratios)),
            float(np.mean(biases)))


def one_way_figures(rated: int, judge_only: int, runs: int, rng: np.random.Generator) -> tuple[float, float, float]:
    """Coverage of PPI++ and of the experts alone, and the width ratio, for a judge whose rare errors all lean
    one way (the case that undercovers on a PASS/FAIL rubric, where the verdict split replaces PPI++)."""
    points = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
    chances = np.array([0.02, 0.05, 0.13, 0.40, 0.40])
    truth_mean = float(points @ chances)
    covered = covered_alone = 0
    ratios = []
    for _ in range(runs):
        truth = rng.choice(points, rated + judge_only, p=chances)
        judge = np.minimum(truth + np.where(rng.random(truth.size) < 0.9, 0.0, 0.25), 1.0)
        found = prediction_powered_mean(truth[:rated], judge[:rated], judge[rated:])
        covered += found.interval.contains(truth_mean)
        covered_alone += found.experts_only_interval.contains(truth_mean)
        ratios.append(1 - found.narrower_by)
    return covered / runs, covered_alone / runs, float(np.mean(ratios))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    runs = parser.parse_args().runs
    rng = np.random.default_rng(SEED)
    start = time.perf_counter()
    edge_judge = judge_at_edge(EPSILON)
    print(f"Alternative annotator test: {EXPERTS} experts right with chance {EXPERT_RIGHT}, ε = {EPSILON}, "
          f"q = 0.05, {runs} studies per cell")
    print(f"judge at the edge: right with chance {edge_judge:.4f} (edge {expected_edge(EXPERT_RIGHT, edge_judge):.4f})")
    print("| judge | items per expert | share of studies where the judge passes |")
    print("| --- | ---: | ---: |")
    for label, right in ((f"exactly ε worse ({edge_judge:.3f})", edge_judge), ("as good as an expert (0.85)", 0.85),
                         ("better (0.92)", 0.92)):
        for items in (25, 60, 120):
            print(f"| {label} | {items} | {alt_test_pass_rate(right, items, runs, rng):.1%} |")
    print()
    print(f"Prediction-powered pool mean, 95% intervals, {runs} studies per cell")
    print("| figure | rated | judge only | PPI++ covers | with the normal quantile | experts alone cover "
          "| PPI++ width ÷ experts' | judge alone off by |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for rated, judge_only in itertools.product((25, 50, 100), (1000, 10_000)):
        cover, cover_normal, cover_alone, ratio, bias = ppi_figures(rated, judge_only, runs, rng)
        print(f"| mean score (judge +0.1) | {rated} | {judge_only:,} | {cover:.1%} | {cover_normal:.1%} "
              f"| {cover_alone:.1%} | {ratio:.2f} | {bias:+.3f} |")
    print()
    print("A judge exact on 90% of items and one point high on the rest (never above the top), true scores skewed "
          "high (2/5/13/40/40% on 0, ¼, ½, ¾, 1), 1,000 judge-only items")
    print("| rated | PPI++ covers | experts alone cover | PPI++ width ÷ experts' |")
    print("| ---: | ---: | ---: | ---: |")
    for rated in (25, 50, 100):
        cover, cover_alone, ratio = one_way_figures(rated, 1000, runs, rng)
        print(f"| {rated} | {cover:.1%} | {cover_alone:.1%} | {ratio:.2f} |")
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
