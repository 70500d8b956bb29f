"""Queue orders, simulated: how many expert ratings each order needs before the PASS/FAIL targets are decided,
and whether the design-weighted estimates of a balanced order stay unbiased with honest intervals.

A labelled data set (drawn afresh, seeded, for each run) is replayed: every item has the expert's label (the truth the report estimates) and the
judge's label. Each run draws the expert's order (its own seed), rates items one at a time in that order,
and after every rating decides TPR > target and TNR > target on their 95% intervals exactly as the report does:
Wilson intervals for import and random order (every weight 1); for balanced order the design-weighted share
(stratum size ÷ rated in stratum) with Wilson's interval at its effective sample size (analysis/design.py). "Ratings to decision" is the first count
at which both targets are decided (met or not met); runs that never decide count as the whole pool.

Bias and coverage are read at a fixed budget of ratings: the mean of estimate − full-data value, and the share
of runs whose 95% interval contains the full-data value (the figure over every item of the pool).

Run from the project root:  .venv/bin/python benchmarks/bench_queue_orders.py [--runs 200] [--budget 60]
"""

from __future__ import annotations

import argparse
import statistics
from dataclasses import dataclass

import numpy as np

from judge_tui.analysis.design import design_weights, weighted_share_figure
from judge_tui.model import queue_orders as qo
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats import decisions
from judge_tui.stats import intervals as iv
from judge_tui.stats.intervals import Interval

TARGET = AgreementSettings().tpr_tnr_target


@dataclass(frozen=True)
class DataSet:
    name: str
    ids: list[str]  # import order
    human_pass: dict[str, bool]
    judge_pass: dict[str, bool]


def skewed_set(n: int = 200, fail_rate: float = 0.25, tpr: float = 0.97, tnr: float = 0.70, seed: int = 13) -> DataSet:
    """A PASS/FAIL set with a realistic FAIL rate; the judge passes most true PASSes and misses many FAILs."""
    rng = np.random.default_rng(seed)
    ids = [f"T{k:04d}" for k in range(n)]
    human = {i: bool(rng.random() >= fail_rate) for i in ids}
    judge = {i: bool(rng.random() < tpr) if human[i] else bool(rng.random() >= tnr) for i in ids}
    return DataSet(f"skewed ({n} items, {fail_rate:.0%} FAIL, judge TPR {tpr:.2f} TNR {tnr:.2f})", ids, human, judge)


def order_of(data: DataSet, kind: str, seed: int) -> list[str]:
    if kind == qo.IMPORT:
        return list(data.ids)
    if kind == qo.RANDOM:
        return qo.random_order(data.ids, seed)
    strata = {i: "PASS" if data.judge_pass[i] else "FAIL" for i in data.ids}
    return [i for i, _ in qo.balanced_order(strata, seed)]


def estimates(data: DataSet, rated: list[str], kind: str, pool: dict[str, int]
              ) -> dict[str, tuple[float, Interval | None]]:
    """TPR and TNR of the rated items with their 95% intervals, as the report computes them for this order."""
    human = np.array([data.human_pass[i] for i in rated])
    judge = np.array([data.judge_pass[i] for i in rated])
    out: dict[str, tuple[float, Interval | None]] = {}
    if kind != qo.BALANCED:
        for key, cls, hit in (("tpr", human, judge), ("tnr", ~human, ~judge)):
            of = int(cls.sum())
            if not of:
                out[key] = (float("nan"), None)
                continue
            hits = int((cls & hit).sum())
            found = iv.wilson(hits, of)
            out[key] = (hits / of, found if isinstance(found, Interval) else None)
        return out
    strata = ["PASS" if j else "FAIL" for j in judge]
    weights = design_weights(strata, pool)
    for key, cls, hit in (("tpr", human, judge), ("tnr", ~human, ~judge)):
        found = weighted_share_figure(key, key, cls & hit, cls, weights, 0.95)
        interval = found.interval if isinstance(found.interval, Interval) else None
        out[key] = (float(found.estimate) if interval is not None else float("nan"), interval)
    return out


def decided(found: dict[str, tuple[float, Interval | None]], n: int) -> bool:
    return all(interval is not None and decisions.decide(interval, TARGET, strict=True, n=n) != "undecided"
               for _, interval in found.values())


def run(kind: str, seed: int, budget: int, step: int, shape: dict[str, float]
        ) -> tuple[int, dict[str, tuple[float, bool]]]:
    data = skewed_set(seed=seed, **shape)  # type: ignore[arg-type]  # each run its own data set, whose import order is as arbitrary as a real one's
    order = order_of(data, kind, seed)
    pool = {"PASS": sum(data.judge_pass.values()), "FAIL": len(data.ids) - sum(data.judge_pass.values())}
    truth = full_data(data)
    to_decision = len(order)
    for n in range(step, len(order) + 1, step):
        if decided(estimates(data, order[:n], kind, pool), n):
            to_decision = n
            break
    at_budget = estimates(data, order[:budget], kind, pool)
    read = {key: (value - truth[key], interval is not None and interval.low <= truth[key] <= interval.high)
            for key, (value, interval) in at_budget.items()}
    return to_decision, read


def full_data(data: DataSet) -> dict[str, float]:
    human = np.array([data.human_pass[i] for i in data.ids])
    judge = np.array([data.judge_pass[i] for i in data.ids])
    return {"tpr": float((human & judge).sum() / human.sum()), "tnr": float((~human & ~judge).sum() / (~human).sum())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--budget", type=int, default=60, help="ratings at which bias and coverage are read")
    parser.add_argument("--step", type=int, default=2, help="decide after every STEP ratings")
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--fail-rate", type=float, default=0.25)
    parser.add_argument("--judge-tpr", type=float, default=0.97, help="the judge's true TPR (PASS found)")
    parser.add_argument("--judge-tnr", type=float, default=0.70, help="the judge's true TNR (FAIL found)")
    args = parser.parse_args()
    shape = {"n": args.items, "fail_rate": args.fail_rate, "tpr": args.judge_tpr, "tnr": args.judge_tnr}
    print(f"{skewed_set(**shape).name}, one data set drawn per run; targets > {TARGET:.2f}; {args.runs} seeded runs "
          "per order")
    print(f"{'order':<9} {'median ratings to decision':>27} {'IQR':>10}   "
          f"{'bias TPR':>9} {'bias TNR':>9} {'cover TPR':>10} {'cover TNR':>10}  (at {args.budget} ratings)")
    medians = {}
    for kind in qo.ORDERS:
        counts, biases, covered = [], {"tpr": [], "tnr": []}, {"tpr": [], "tnr": []}
        for seed in range(args.runs):
            to_decision, read = run(kind, seed, args.budget, args.step, shape)
            counts.append(to_decision)
            for key, (bias, cover) in read.items():
                if np.isfinite(bias):
                    biases[key].append(bias)
                covered[key].append(cover)
        q1, median, q3 = np.percentile(counts, [25, 50, 75])
        medians[kind] = median
        print(f"{kind:<9} {median:>27.0f} {f'{q1:.0f}-{q3:.0f}':>10}   "
              f"{statistics.fmean(biases['tpr']):>+9.4f} {statistics.fmean(biases['tnr']):>+9.4f} "
              f"{statistics.fmean(covered['tpr']):>10.1%} {statistics.fmean(covered['tnr']):>10.1%}")
    saving = 1 - medians[qo.BALANCED] / medians[qo.IMPORT]
    print(f"balanced needs {saving:.0%} fewer ratings than import order to decide TPR and TNR (median)")


if __name__ == "__main__":
    main()
