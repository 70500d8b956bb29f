"""Decisions under continuous monitoring: how often "met" is said wrongly when the figures are looked at after
every rating and the study stops at the first decision, and how many ratings a decision takes.

A study of TPR > 0.90 (the default target) on the test split is replayed many times: each run draws the human
PASS items one at a time, each one the judge passes with probability equal to the true TPR, and after every
item the target is decided. Two rules are compared, each the code the app and the report run:

* fixed n: the report's own decision, `analysis.targets.check(...)` on the Wilson interval (what the stop
  notice used before), read as if each look were the only one;
* any time: `analysis.stopping.anytime_check` on that same check (what the stop notice, the "n/m questions
  settled" count and the report's "valid at any time" decisions use now).

A decision depends on the run only through (successes, n), and both rules are monotone in the successes at a
given n, so each rule is read once per n as a table (the fewest successes that say "met", the most that say
"not met", found by bisection through the rule itself) and the runs are then replayed in numpy. The tables are
checked against the rule at random points before use.

Reported per true TPR and length (up to 100, 200, 400 PASS items): the share of runs whose first decision is
"met" and "not met", how many never decide, and the median PASS items to the first decision. At a true TPR of
0.90 or below "met" is the wrong decision; above it, "not met" is. The done-when: at TPR exactly 0.90, "met" in
at most 2.5–3% of runs, looked at after every rating.

A second part does the same for Cohen's kappa against "κ ≥ 0.61" on PASS/FAIL labels (70% human PASS, the
judge's TPR and TNR equal and chosen so that the population kappa is exactly 0.61, or 0.55 / 0.67 near it):
after every item, the report's kappa interval (`stats.intervals.kappa_interval`, Fleiss–Cohen–Everitt),
`analysis.targets.check` and `analysis.stopping.anytime_check` (the asymptotic confidence sequence), one call each
per look (no table: kappa depends on the whole confusion matrix).

Run from the project root:
  .venv/bin/python benchmarks/bench_decisions_monitoring.py [--runs 4000] [--kappa-runs 2000] [--seed 7]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from judge_tui.analysis.report.anytime import anytime_check
from judge_tui.analysis.targets import TargetCheck, check
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats import intervals as iv
from judge_tui.stats.agreement import Undefined
from judge_tui.stats.decisions import Decision

SETTINGS = AgreementSettings()
TARGET = SETTINGS.tpr_tnr_target
CONFIDENCE = SETTINGS.confidence
TRUTHS = (0.80, 0.85, 0.88, 0.90, 0.92, 0.95, 0.97)
LENGTHS = (100, 200, 400)


def tpr_check(successes: int, n: int) -> TargetCheck:
    """The TPR target as the report builds it (analysis/report._checks) for `successes` of `n` human PASS items."""
    interval = iv.wilson(successes, n, CONFIDENCE) if n else Undefined("no PASS item")
    estimate = successes / n if n else Undefined("no PASS item")
    return check("tpr", "TPR", "test split", estimate, interval, n, TARGET, strict=True, settings=SETTINGS,
                 share=(successes, n), class_share=None, class_label="PASS")


def fixed_n(successes: int, n: int) -> Decision | None:
    return tpr_check(successes, n).decision


def any_time(successes: int, n: int) -> Decision | None:
    return anytime_check(tpr_check(successes, n), SETTINGS).decision


def table(rule: Callable[[int, int], Decision | None], n_max: int) -> tuple[np.ndarray, np.ndarray]:
    """For each n: the fewest successes the rule calls "met" (n + 1: none) and the most it calls "not met" (-1)."""
    met_from = np.empty(n_max + 1, dtype=np.int64)
    not_met_upto = np.empty(n_max + 1, dtype=np.int64)
    for n in range(n_max + 1):
        low, high = -1, n + 1
        while high - low > 1:
            middle = (low + high) // 2
            if n and rule(middle, n) == "met":
                high = middle
            else:
                low = middle
        met_from[n] = high
        low, high = -1, n + 1
        while high - low > 1:
            middle = (low + high) // 2
            if n and rule(middle, n) == "not met":
                low = middle
            else:
                high = middle
        not_met_upto[n] = low
    return met_from, not_met_upto


def verify(rule: Callable[[int, int], Decision | None], tables: tuple[np.ndarray, np.ndarray], rng: np.random.Generator,
           points: int = 400) -> None:
    """The table says what the rule says, at random (successes, n)."""
    met_from, not_met_upto = tables
    n_max = met_from.size - 1
    for _ in range(points):
        n = int(rng.integers(1, n_max + 1))
        s = int(rng.integers(0, n + 1))
        expected = "met" if s >= met_from[n] else ("not met" if s <= not_met_upto[n] else "undecided")
        assert rule(s, n) == expected, (rule.__name__, s, n, rule(s, n), expected)


def replay(truth: float, length: int, runs: int, tables: tuple[np.ndarray, np.ndarray],
           rng: np.random.Generator) -> dict[str, float]:
    met_from, not_met_upto = tables
    passed = rng.random((runs, length)) < truth
    successes = passed.cumsum(axis=1)
    n = np.arange(1, length + 1)
    met = successes >= met_from[n]
    not_met = successes <= not_met_upto[n]
    decided = met | not_met
    ever = decided.any(axis=1)
    first = np.where(ever, decided.argmax(axis=1), length - 1)
    rows = np.arange(runs)
    first_met = ever & met[rows, first]
    first_not_met = ever & ~met[rows, first]
    to_decision = first[ever] + 1
    return {"met": float(first_met.mean()), "not_met": float(first_not_met.mean()),
            "undecided": float((~ever).mean()),
            "median_items": float(np.median(to_decision)) if to_decision.size else float("nan")}


KAPPA_TARGET = SETTINGS.kappa_substantial
KAPPA_TRUTHS = (0.55, 0.61, 0.67)
KAPPA_LENGTHS = (100, 200)
PASS_SHARE = 0.70


def population_kappa(accuracy: float, pass_share: float = PASS_SHARE) -> float:
    """Kappa of a judge whose TPR and TNR both equal ``accuracy``, against humans with ``pass_share`` PASS."""
    observed = accuracy
    judge_pass = pass_share * accuracy + (1 - pass_share) * (1 - accuracy)
    chance = pass_share * judge_pass + (1 - pass_share) * (1 - judge_pass)
    return (observed - chance) / (1 - chance)


def accuracy_for(kappa: float) -> float:
    low, high = 0.5, 1.0
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if population_kappa(middle) < kappa else (low, middle)
    return (low + high) / 2


def kappa_run(labels: np.ndarray, agrees: np.ndarray) -> tuple[tuple[str, int] | None, tuple[str, int] | None]:
    """The first decision of each rule, looked at after every item: (decision, items) or None."""
    table = np.zeros((2, 2))
    first: list[tuple[str, int] | None] = [None, None]
    for n, (human, agreed) in enumerate(zip(labels.tolist(), agrees.tolist(), strict=True), start=1):
        judge = human if agreed else 1 - human
        table[human, judge] += 1
        if n < 5:
            continue
        found = iv.kappa_standard_error(table)
        interval = iv.kappa_interval(table, None, CONFIDENCE)
        if isinstance(found, Undefined) or isinstance(interval, Undefined):
            continue
        c = check("kappa:label", "κ of label", "all compared items", found[0], interval, n, KAPPA_TARGET,
                  settings=SETTINGS)
        decisions = (c.decision, anytime_check(c, SETTINGS).decision)
        for rule, decision in enumerate(decisions):
            if first[rule] is None and decision in ("met", "not met"):
                first[rule] = (str(decision), n)
        if first[0] is not None and first[1] is not None:
            break
    return first[0], first[1]


def kappa_part(runs: int, rng: np.random.Generator) -> None:
    print(f"\nκ ≥ {KAPPA_TARGET:.2f}, {PASS_SHARE:.0%} human PASS, looked at after every item; {runs} runs per cell")
    print("true κ   items  rule      'met'   'not met'  undecided  median items to a decision   (wrong one: *)")
    for truth in KAPPA_TRUTHS:
        accuracy = accuracy_for(truth)
        for length in KAPPA_LENGTHS:
            labels = (rng.random((runs, length)) < PASS_SHARE).astype(np.int64)
            agrees = rng.random((runs, length)) < accuracy
            firsts = [kappa_run(labels[r], agrees[r]) for r in range(runs)]
            for index, name in enumerate(("fixed n", "any time")):
                decided = [f[index] for f in firsts if f[index] is not None]
                met = sum(d[0] == "met" for d in decided if d) / runs
                not_met = sum(d[0] == "not met" for d in decided if d) / runs
                median = f"{np.median([d[1] for d in decided if d]):.0f}" if decided else "—"
                wrong_met = truth < KAPPA_TARGET
                print(f"  {truth:.2f}    {length:4d}   {name:8s}  {met:6.2%}{'*' if wrong_met else ' '}  "
                      f"{not_met:6.2%}{' ' if wrong_met else '*'}    {1 - met - not_met:6.1%}     {median}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=4000, help="runs per cell (default 4000)")
    parser.add_argument("--kappa-runs", type=int, default=2000, help="runs per kappa cell (default 2000; 0: none)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    n_max = max(LENGTHS)
    started = time.perf_counter()
    rules = {"fixed n": fixed_n, "any time": any_time}
    tables = {name: table(rule, n_max) for name, rule in rules.items()}
    for name, rule in rules.items():
        verify(rule, tables[name], rng)
    print(f"TPR > {TARGET:.2f}, looked at after every human PASS item; {args.runs} runs per cell, seed {args.seed}; "
          f"tables built and checked in {time.perf_counter() - started:.1f} s")
    print("true TPR  items  rule      'met'   'not met'  undecided  median items to a decision   (wrong one: *)")
    for truth in TRUTHS:
        for length in LENGTHS:
            for name in rules:
                found = replay(truth, length, args.runs, tables[name], rng)
                wrong_met = truth <= TARGET
                met = f"{found['met']:6.2%}" + ("*" if wrong_met else " ")
                not_met = f"{found['not_met']:6.2%}" + (" " if wrong_met else "*")
                median = "—" if np.isnan(found["median_items"]) else f"{found['median_items']:.0f}"
                print(f"  {truth:.2f}    {length:4d}   {name:8s}  {met}  {not_met}    {found['undecided']:6.1%}"
                      f"     {median}")
    if args.kappa_runs:
        kappa_part(args.kappa_runs, rng)
    print(f"total {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
