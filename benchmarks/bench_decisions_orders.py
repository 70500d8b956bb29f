"""Decisions under each queue order, for the judge: ratings to a decision for import, random and balanced order,
under the report's fixed-n rule and under the stop notice's rule valid at any time, and, with every item of a
pool rated, how often a judge exactly on its target is left undecided.

The estimand is the judge's TPR and TNR on items like these (the probabilities each pool is drawn with), under
every order; every item of a pool is a test item. TPR > 0.90 and TNR > 0.90 are decided with the report's own
functions, called in-process (benchmarks/bench_queue_orders.judged): Wilson's interval and
analysis/targets.check for import and random order; the design-weighted share with the two-phase stratified
Jeffreys interval, then analysis/design.reweighted_checks, for balanced order.

1. Ratings to a decision (fixed-n): each run draws a pool from the truth and rates it in the order's sequence
   (a balanced order laid out again with the allocation every 10 ratings, as the app does), deciding after
   every second rating with the report's fixed-n rule; "never" counts runs still undecided with the whole pool
   rated, "wrong" runs that decided against the truth.
2. Ratings to a decision under the any-time rule, the rule of the rating screen's stop notice: the same runs,
   each target decided after every second rating by analysis/stopping.anytime_check, the function the stop
   check calls on every target (the exact beta mixture for import and random order's TPR and TNR; for a
   balanced order's weighted TPR and TNR, the asymptotic confidence sequence at half the level). Per order:
   ratings until both targets are decided, until each alone, runs never decided, and first decisions that
   went against the truth. With --app-check K, the first K runs of each order on the first set again through
   the app's own path, a real SQLite database (items, the judge's ratings, a balanced order's draws recorded,
   the expert's ratings saved one by one in the run's order), read after every second rating by
   build_report(checks_only=True) and analysis/stopping.anytime_checks, as study_settledness reads them: its
   decisions must be part 2's, look by look.
3. Every item rated: POOLS pools of 200 items (30% FAIL) from a judge whose TPR and TNR are exactly 0.90, every
   item rated; per order, how often each target comes out met, not met and undecided, and the width of its
   interval (never zero). With every item rated import and random order hold the same items, so their rows
   agree by construction; balanced order is read through its design.
4. With --end-to-end K, the first K of those pools again through the app's own path: a real SQLite database
   (items, the judge's ratings, the expert's balanced queue prepared, every item rated), then build_report,
   the function behind `judge-tui report`; its decisions must be part 3's balanced ones, pool by pool.

Run from the project root:  .venv/bin/python benchmarks/bench_decisions_orders.py [--runs 200] [--pools 400]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

import numpy as np
from bench_queue_orders import (
    SETS,
    SETTINGS,
    TARGET,
    VARIANTS,
    DataSet,
    Variant,
    judged,
    order_of,
    pool_of,
    relaid,
    run,
    skewed_set,
)

from judge_tui.analysis.queue_orders import prepare_queue
from judge_tui.analysis.report import build_report
from judge_tui.analysis.report.anytime import anytime_check
from judge_tui.analysis.stopping import anytime_checks
from judge_tui.analysis.targets import TargetCheck
from judge_tui.model import queue_orders as qo
from judge_tui.model.records import Item, Rating
from judge_tui.model.rubrics import Rubric, load_rubrics
from judge_tui.stats.decisions import Decision
from judge_tui.stats.intervals import Interval
from judge_tui.store import Store

ON_TARGET = {"n": 200, "fail_rate": 0.30, "tpr": 0.90, "tnr": 0.90}
ORDERS = (qo.IMPORT, qo.RANDOM, qo.BALANCED)
DECIDED = ("met", "not met")
# The any-time sets: the fixed-n benchmark's three, and a judge that rarely errs either way.
ANYTIME_SETS = {**SETS, "D": {"n": 200, "fail_rate": 0.30, "tpr": 0.97, "tnr": 0.97}}


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


def anytime(checks: dict[str, TargetCheck]) -> dict[str, Decision | None]:
    """Each target as the stop check decides it: the rule valid at any time, on the report's own check."""
    return {key: anytime_check(c, SETTINGS).decision for key, c in checks.items()}


def anytime_run(variant: Variant, seed: int, step: int, shape: dict[str, float]
                ) -> tuple[dict[str, int | None], bool, list[tuple[list[str], dict[str, Decision | None]]]]:
    """Ratings to each target's first decision under the any-time rule and to both (None: never, with the
    whole pool rated), whether a first decision went against the truth, and every look (rated items, decisions)."""
    data = skewed_set(seed=seed, **shape)  # type: ignore[arg-type]  # n is a whole number, the rest shares
    order = order_of(data, variant.kind, seed)
    pool = pool_of(data)
    first: dict[str, int | None] = {"tpr": None, "tnr": None}
    wrong = False
    looks = []
    for n in range(step, len(order) + 1, step):
        if variant.adaptive and n % qo.ALLOCATE_EVERY == 0:
            order = relaid(data, order, n, seed, pool)  # the next items follow the allocation, as in the app
        found = anytime(judged(data, order[:n], variant.kind, pool))
        looks.append((order[:n], found))
        for key, decision in found.items():
            if first[key] is None and decision in DECIDED:
                first[key] = n
                wrong |= decision != ("met" if data.truth[key] > TARGET else "not met")
        if all(first.values()):
            break
    both = None if None in first.values() else max(v for v in first.values() if v is not None)
    return {**first, "both": both}, wrong, looks


def ratings_to_decision_anytime(args: argparse.Namespace) -> None:
    print(f"\n## Ratings to a decision under the any-time rule ({args.runs} seeded runs per row; decided after "
          "every 2nd rating by analysis/stopping.anytime_check)\n")
    print("| set | order | median (both) | IQR | never decided | median TPR alone | median TNR alone | "
          "wrong decisions |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for name in args.anytime_sets.split(","):
        shape = ANYTIME_SETS[name]
        whole = int(shape["n"])
        for variant in VARIANTS[:3]:  # import, random, balanced (with its allocation)
            counts: dict[str, list[int]] = {"both": [], "tpr": [], "tnr": []}
            nevers, wrongs = [], []
            for seed in range(args.runs):
                first, wrong, _ = anytime_run(variant, seed, 2, shape)
                for key, found in first.items():
                    counts[key].append(whole if found is None else found)
                nevers.append(first["both"] is None)
                wrongs.append(wrong)
            q1, median, q3 = np.percentile(counts["both"], [25, 50, 75])
            print(f"| {name} | {variant.name} | {median:.0f} | {q1:.0f}–{q3:.0f} | {statistics.fmean(nevers):.1%} | "
                  f"{np.median(counts['tpr']):.0f} | {np.median(counts['tnr']):.0f} | "
                  f"{statistics.fmean(wrongs):.1%} |", flush=True)


def study_db(store: Store, rubric: Rubric, data: DataSet, kind: str) -> int:
    """The pool as test items, the judge's ratings, and the expert's order's draws recorded; the version id."""
    version = store.ensure_rubric_version(rubric)
    store.add_items([Item(id=i, rubric=rubric.id, fields={"query": i, "criterion": "c", "response": "r"},
                          split="test") for i in data.ids])
    store.ensure_rater("judge:sim", "judge")
    store.ensure_rater("ann", "human")
    for item_id in data.ids:
        save(store, rubric, version, "judge:sim", item_id, data.judge_pass[item_id])
    if kind != qo.IMPORT:  # each item's draw: its order, and for a balanced one the judge's verdict group
        prepare_queue(store, rubric, "ann", kind)
    return version


def save(store: Store, rubric: Rubric, version: int, rater: str, item_id: str, passed: bool) -> None:
    dim = rubric.judged_dimensions[0].id
    scores = {dim: rubric.scale.points[-1] if passed else rubric.scale.points[0]}
    store.save_rating(Rating(item_id=item_id, rater_id=rater, rubric_version_id=version, scores=scores,
                             overall=rubric.overall_score(scores), verdict=rubric.verdict(scores)))


def through_the_stop_check(args: argparse.Namespace) -> None:
    """The first runs again through a real database, read as the rating screen's stop check reads it."""
    rubric = load_rubrics()["binary"][0]
    name = args.anytime_sets.split(",")[0]
    shape = ANYTIME_SETS[name]
    looks = mismatches = 0
    for variant in VARIANTS[:3]:
        for seed in range(args.app_check):
            data = skewed_set(seed=seed, **shape)  # type: ignore[arg-type]  # n is a whole number, the rest shares
            _, _, seen = anytime_run(variant, seed, 2, shape)
            with tempfile.TemporaryDirectory() as folder, Store(Path(folder) / "study.db") as store:
                version = study_db(store, rubric, data, variant.kind)
                rated: set[str] = set()
                for items, expected in seen:
                    for item_id in items:
                        if item_id not in rated:
                            save(store, rubric, version, "ann", item_id, data.human_pass[item_id])
                            rated.add(item_id)
                    report = build_report(store, rubric, checks_only=True)
                    found = {a.check.key: a.decision for a in anytime_checks(report) if a.check.key in expected}
                    looks += 1
                    mismatches += found != expected
    print(f"\n## Through the stop check on a real database: set {name}, {args.app_check} runs per order\n")
    print(f"{looks} looks (build_report(checks_only=True), then analysis/stopping.anytime_checks), "
          f"{mismatches} decisions that differ from part 2's")


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
            store.add_items([Item(id=i, rubric=rubric.id, fields={"query": i, "criterion": "c", "response": "r"},
                                  split="test") for i in data.ids])
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
    print(f"decisions as in part 3 in {same} of {args.end_to_end} pools; undecided: TPR {undecided['tpr']}, "
          f"TNR {undecided['tnr']} of {args.end_to_end}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="runs per row of ratings to a decision")
    parser.add_argument("--pools", type=int, default=400, help="pools rated whole per order")
    parser.add_argument("--sets", default="A,B,C", help="pools of benchmarks/bench_queue_orders.py")
    parser.add_argument("--anytime-sets", default="A,B,C,D",
                        help="pools for the any-time part: those of benchmarks/bench_queue_orders.py, and D (200 "
                        "items, 30%% FAIL, judge TPR and TNR 0.97)")
    parser.add_argument("--part", choices=("all", "decision", "anytime", "whole"), default="all")
    parser.add_argument("--app-check", type=int, default=0,
                        help="runs per order of the any-time part also read through the stop check on SQLite")
    parser.add_argument("--end-to-end", type=int, default=0, help="pools also run through build_report on SQLite")
    args = parser.parse_args()
    if args.part in ("all", "decision"):
        ratings_to_decision(args)
    if args.part in ("all", "anytime"):
        ratings_to_decision_anytime(args)
    if args.app_check:
        through_the_stop_check(args)
    if args.part in ("all", "whole"):
        every_item_rated(args)
    if args.end_to_end:
        through_the_report(args)


if __name__ == "__main__":
    main()
