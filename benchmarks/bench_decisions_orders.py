"""Decisions under each queue order, for the judge: ratings to a decision for import, random and balanced order,
and, with every item of a pool rated, how often a judge exactly on its target is left undecided.

The estimand is the judge's TPR and TNR on items like these (the probabilities each pool is drawn with), under
every order. Both parts decide TPR > 0.90 and TNR > 0.90 with the report's own functions, called in-process
(benchmarks/bench_queue_orders.judged): Wilson's interval and analysis/targets.check for import and random
order; the design-weighted share with the two-phase stratified Jeffreys interval, then
analysis/design.reweighted_checks, for balanced order.

1. Ratings to a decision: each run draws a pool from the truth and rates it in the order's sequence (a balanced
   order laid out again with the allocation every 10 ratings, as the app does), deciding after every second
   rating; "never" counts runs still undecided with the whole pool rated, "wrong" runs that decided against the
   truth.
2. Every item rated: POOLS pools of 200 items (30% FAIL) from a judge whose TPR and TNR are exactly 0.90, every
   item rated; per order, how often each target comes out met, not met and undecided, and the width of its
   interval (never zero). With every item rated import and random order hold the same items, so their rows
   agree by construction; balanced order is read through its design.
3. With --end-to-end K, the first K of those pools again through the app's own path: a real SQLite database
   (items, the judge's ratings, the expert's balanced queue prepared, every item rated), then build_report,
   the function behind `judge-tui report`; its decisions must be part 2's balanced ones, pool by pool.

Run from the project root:  .venv/bin/python benchmarks/bench_decisions_orders.py [--runs 200] [--pools 400]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

import numpy as np
from bench_queue_orders import SETS, VARIANTS, judged, pool_of, run, skewed_set

from judge_tui.analysis.queue_orders import prepare_queue
from judge_tui.analysis.report import build_report
from judge_tui.model import queue_orders as qo
from judge_tui.model.records import Item, Rating
from judge_tui.model.rubrics import load_rubrics
from judge_tui.stats.intervals import Interval
from judge_tui.store import Store

ON_TARGET = {"n": 200, "fail_rate": 0.30, "tpr": 0.90, "tnr": 0.90}
ORDERS = (qo.IMPORT, qo.RANDOM, qo.BALANCED)


def ratings_to_decision(args: argparse.Namespace) -> None:
    print(f"## Ratings to a decision ({args.runs} seeded runs per row; decided after every 2nd rating)\n")
    print("| set | order | median | IQR | never decided | wrong decisions |")
    print("|---|---|---:|---:|---:|---:|")
    for name in args.sets.split(","):
        shape = SETS[name]
        for variant in VARIANTS[:3]:  # import, random, balanced (with its allocation)
            counts, nevers, wrong = [], [], []
            for seed in range(args.runs):
                to_decision, _, _, went_wrong = run(variant, seed, budget=2, step=2, shape=shape)
                counts.append(int(shape["n"]) if to_decision is None else to_decision)
                nevers.append(to_decision is None)
                wrong.append(went_wrong)
            q1, median, q3 = np.percentile(counts, [25, 50, 75])
            never = statistics.fmean(nevers)
            print(f"| {name} | {variant.name} | {median:.0f} | {q1:.0f}–{q3:.0f} | {never:.0%} | "
                  f"{statistics.fmean(wrong):.1%} |", flush=True)


def every_item_rated(args: argparse.Namespace) -> None:
    print(f"\n## Every item rated: {args.pools} pools of {ON_TARGET['n']} items, {ON_TARGET['fail_rate']:.0%} FAIL, "
          f"judge's TPR and TNR exactly {ON_TARGET['tpr']:.2f}\n")
    print("| order | target | met | not met | undecided | mean width | narrowest |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for kind in ORDERS:
        outcomes: dict[str, list[str]] = {"tpr": [], "tnr": []}
        widths: dict[str, list[float]] = {"tpr": [], "tnr": []}
        for seed in range(args.pools):
            data = skewed_set(seed=100_000 + seed, **ON_TARGET)  # type: ignore[arg-type]  # n is a whole number, the rest shares
            for key, c in judged(data, list(data.ids), kind, pool_of(data)).items():
                outcomes[key].append(str(c.decision))
                if isinstance(c.interval, Interval):
                    widths[key].append(c.interval.high - c.interval.low)
        for key in ("tpr", "tnr"):
            share = {d: statistics.fmean(o == d for o in outcomes[key]) for d in ("met", "not met", "undecided")}
            print(f"| {kind} | {key.upper()} > 0.90 | {share['met']:.1%} | {share['not met']:.1%} | "
                  f"{share['undecided']:.1%} | {statistics.fmean(widths[key]):.3f} | {min(widths[key]):.3f} |",
                  flush=True)


def through_the_report(args: argparse.Namespace) -> None:
    rubric = load_rubrics()["binary"][0]
    dim = rubric.judged_dimensions[0].id
    same = 0
    undecided = {"tpr": 0, "tnr": 0}
    for seed in range(args.end_to_end):
        data = skewed_set(seed=100_000 + seed, **ON_TARGET)  # type: ignore[arg-type]  # n is a whole number, the rest shares
        with tempfile.TemporaryDirectory() as folder, Store(Path(folder) / "study.db") as store:
            version = store.ensure_rubric_version(rubric)
            store.add_items([Item(id=i, rubric=rubric.id, fields={"query": i, "criterion": "c", "response": "r"})
                             for i in data.ids])
            store.ensure_rater("judge:sim", "judge")
            store.ensure_rater("ann", "human")

            for rater, labels in (("judge:sim", data.judge_pass), ("ann", data.human_pass)):
                if rater == "ann":  # the expert's queue, balanced by the judge's verdicts, then every item rated
                    prepare_queue(store, rubric, "ann", qo.BALANCED)
                for item_id in data.ids:
                    scores = {dim: rubric.scale.points[-1] if labels[item_id] else rubric.scale.points[0]}
                    store.save_rating(Rating(item_id=item_id, rater_id=rater, rubric_version_id=version,
                                             scores=scores, overall=rubric.overall_score(scores),
                                             verdict=rubric.verdict(scores)))
            report = build_report(store, rubric)
        found = {c.key: c.decision for c in report.checks if c.key in ("tpr", "tnr")}
        expected = {key: c.decision for key, c in judged(data, list(data.ids), qo.BALANCED, pool_of(data)).items()}
        same += found == expected
        for key in undecided:
            undecided[key] += found[key] == "undecided"
    print(f"\n## Through build_report on a real database: {args.end_to_end} pools, balanced order, every item rated\n")
    print(f"decisions as in part 2 in {same} of {args.end_to_end} pools; undecided: TPR {undecided['tpr']}, "
          f"TNR {undecided['tnr']} of {args.end_to_end}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="runs per row of ratings to a decision")
    parser.add_argument("--pools", type=int, default=400, help="pools rated whole per order")
    parser.add_argument("--sets", default="A,B,C", help="pools of benchmarks/bench_queue_orders.py")
    parser.add_argument("--part", choices=("both", "decision", "whole"), default="both")
    parser.add_argument("--end-to-end", type=int, default=0, help="pools also run through build_report on SQLite")
    args = parser.parse_args()
    if args.part in ("both", "decision"):
        ratings_to_decision(args)
    if args.part in ("both", "whole"):
        every_item_rated(args)
    if args.end_to_end:
        through_the_report(args)


if __name__ == "__main__":
    main()
