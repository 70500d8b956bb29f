"""Queue orders, simulated: how many expert ratings each order needs before the PASS/FAIL targets are decided,
and whether the design-weighted estimates of a balanced order stay unbiased with honest intervals.

A labelled data set (drawn afresh, seeded, for each run) is replayed: every item has the expert's label (the
truth the report estimates) and the judge's label. Each run draws the expert's order (its own seed), rates items
one at a time in that order, and after every STEP ratings decides TPR > target and TNR > target on their 95%
intervals exactly as the report does (on at least MIN_ITEMS_TO_DECIDE items: of the figure's class, or for a
balanced order its effective n and the fewest rated in a verdict group, analysis/design.deciding_n): Wilson intervals for import and random order (every weight 1); for
balanced order the design-weighted share (stratum size ÷ rated in stratum) with the finite-population
stratified interval (analysis/design.py). A balanced order is laid out as the app lays it out
(analysis/queue_orders.py): equal draws between the judge's verdicts for the first ALLOCATE_EVERY ratings,
then, after every ALLOCATE_EVERY ratings, the items not yet rated laid out again with the allocation that
follows the uncertainty (model/queue_orders.allocation_shares). Three more rows take the design apart: equal
draws throughout with Wilson's interval at Kish's effective n (the design before), equal draws with the
finite-population interval (the interval's share of the gain), and random order read with the
finite-population interval over one stratum (what the interval alone gives without stratifying). "Ratings to decision" is the first count at which both targets are decided (met or not met);
runs that never decide count as the whole pool.

Bias and coverage are read twice: at a fixed budget of ratings, and at the moment of decision (optional
stopping: the study stops as soon as its interval clears the threshold, which is when an interval is most
likely to be one of its unlucky 5%). Bias is the mean of estimate − full-data value, coverage the share of
runs whose 95% interval contains the full-data value (the figure over every item of the pool).

"Wrong decisions" is the share of runs where a target was decided the other way than its full-data value
lies (met while the value is not above the target, or not met while it is).

Run from the project root:  .venv/bin/python benchmarks/bench_queue_orders.py [--runs 200] [--budget 60]
"""

from __future__ import annotations

import argparse
import statistics
from dataclasses import dataclass

import numpy as np

from judge_tui.analysis.design import deciding_n, design_weights, weighted_share_figure
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


def stratum(data: DataSet, item_id: str) -> str:
    return "PASS" if data.judge_pass[item_id] else "FAIL"


def order_of(data: DataSet, kind: str, seed: int) -> list[str]:
    """The order's first layout (a balanced one is laid out again as ratings come in: relaid)."""
    if kind == qo.IMPORT:
        return list(data.ids)
    if kind == qo.RANDOM:
        return qo.random_order(data.ids, seed)
    return [i for i, _ in qo.balanced_order({i: stratum(data, i) for i in data.ids}, seed)]


def relaid(data: DataSet, order: list[str], rated: int, seed: int, pool: dict[str, int]) -> list[str]:
    """A balanced order after `rated` ratings, its unrated items laid out again with the allocation (as
    analysis/queue_orders.prepare_queue does, the seed moved on by the number kept)."""
    done = order[:rated]
    questions = qo.pass_fail_questions({i: (stratum(data, i), data.human_pass[i]) for i in done}, TARGET)
    rest = {i: stratum(data, i) for i in order[rated:]}
    left = {name: sum(s == name for s in rest.values()) for name in pool}
    shares = qo.allocation_shares(pool, left, questions)
    return done + [i for i, _ in qo.balanced_order(rest, seed + rated, shares)]


@dataclass(frozen=True)
class Variant:
    """An order and the interval its figures are read with."""

    name: str
    kind: str  # the queue order
    interval: str = "wilson"  # wilson: the report's for import/random; finite: the balanced design's; kish: before
    adaptive: bool = False  # a balanced order laid out again with the allocation every ALLOCATE_EVERY ratings


VARIANTS = (
    Variant("import", qo.IMPORT),
    Variant("random", qo.RANDOM),
    Variant("balanced", qo.BALANCED, "finite", adaptive=True),
    Variant("balanced, equal allocation (before: Wilson at Kish's n)", qo.BALANCED, "kish"),
    Variant("balanced, equal allocation, finite-population interval", qo.BALANCED, "finite"),
    Variant("random, finite-population interval (one stratum)", qo.RANDOM, "finite"),
)


Found = dict[str, tuple[float, Interval | None, int]]  # per figure: estimate, interval, items it is decided on


def estimates(data: DataSet, rated: list[str], variant: Variant, pool: dict[str, int]) -> Found:
    """TPR and TNR of the rated items with their 95% intervals and the number of items their decision stands
    on, as the report computes them for this order."""
    human = np.array([data.human_pass[i] for i in rated])
    judge = np.array([data.judge_pass[i] for i in rated])
    out: Found = {}
    if variant.interval == "wilson":
        for key, cls, hit in (("tpr", human, judge), ("tnr", ~human, ~judge)):
            of = int(cls.sum())
            if not of:
                out[key] = (float("nan"), None, 0)
                continue
            hits = int((cls & hit).sum())
            found = iv.wilson(hits, of)
            out[key] = (hits / of, found if isinstance(found, Interval) else None, of)
        return out
    if variant.kind == qo.BALANCED:
        strata = np.array(["PASS" if j else "FAIL" for j in judge])
    else:  # one stratum, the whole pool
        strata, pool = np.array(["all"] * len(rated)), {"all": sum(pool.values())}
    weights = design_weights(list(strata), pool)
    seen = {name: int((strata == name).sum()) for name in pool}
    for key, cls, hit in (("tpr", human, judge), ("tnr", ~human, ~judge)):
        found = weighted_share_figure(key, key, cls & hit, cls, weights, strata, pool, 0.95,
                                      qo.PASS_FAIL_CATEGORIES[key] if variant.kind == qo.BALANCED else None)
        interval = found.interval if isinstance(found.interval, Interval) else None
        n = round(found.n)
        if interval is not None and variant.interval == "kish":
            interval = iv.wilson_at(float(found.estimate), found.n, 0.95)
        elif variant.interval == "finite":
            n = deciding_n(found.n, seen, pool)
        out[key] = (float(found.estimate) if interval is not None else float("nan"), interval, n)
    return out


def decided(found: Found) -> bool:
    return all(interval is not None and decisions.decide(interval, TARGET, strict=True, n=n) != "undecided"
               for _, interval, n in found.values())


Read = dict[str, tuple[float, bool]]  # per figure: estimate − full-data value, and whether the interval covers it


def run(variant: Variant, seed: int, budget: int, step: int, shape: dict[str, float]
        ) -> tuple[int, Read, Read, bool]:
    """Ratings to decision, the reads at the budget and at decision, and whether a decision went the wrong way
    (met while the full-data value is not above the target, or not met while it is)."""
    data = skewed_set(seed=seed, **shape)  # type: ignore[arg-type]  # each run its own data set, whose import order is as arbitrary as a real one's
    order = order_of(data, variant.kind, seed)
    pool = {"PASS": sum(data.judge_pass.values()), "FAIL": len(data.ids) - sum(data.judge_pass.values())}
    truth = full_data(data)
    to_decision, at_decision = len(order), None
    for n in range(step, len(order) + 1, step):
        if variant.adaptive and n % qo.ALLOCATE_EVERY == 0:
            order = relaid(data, order, n, seed, pool)  # the next items follow the allocation
        found = estimates(data, order[:n], variant, pool)
        if n == budget:
            at_budget = found
        if at_decision is None and decided(found):
            to_decision, at_decision = n, found
        if at_decision is not None and n >= budget:
            break
    wrong = at_decision is not None and any(
        decisions.decide(interval, TARGET, strict=True, n=n) != ("met" if truth[key] > TARGET else "not met")
        for key, (_, interval, n) in at_decision.items() if interval is not None)
    if at_decision is None:
        at_decision = estimates(data, order, variant, pool)

    def read(found: Found) -> Read:
        return {key: (value - truth[key], interval is not None and interval.low <= truth[key] <= interval.high)
                for key, (value, interval, _) in found.items()}

    return to_decision, read(at_budget), read(at_decision), wrong


def full_data(data: DataSet) -> dict[str, float]:
    human = np.array([data.human_pass[i] for i in data.ids])
    judge = np.array([data.judge_pass[i] for i in data.ids])
    return {"tpr": float((human & judge).sum() / human.sum()), "tnr": float((~human & ~judge).sum() / (~human).sum())}


SETS = {  # name: data set shape, judge's true TPR and TNR
    "A": {"n": 200, "fail_rate": 0.25, "tpr": 0.97, "tnr": 0.70},
    "B": {"n": 200, "fail_rate": 0.30, "tpr": 0.90, "tnr": 0.85},
}


def summary(variant: Variant, args: argparse.Namespace, shape: dict[str, float]) -> dict[str, float]:
    counts: list[int] = []
    wrong: list[bool] = []
    biases: dict[str, dict[str, list[float]]] = {w: {"tpr": [], "tnr": []} for w in ("budget", "decision")}
    covered: dict[str, dict[str, list[bool]]] = {w: {"tpr": [], "tnr": []} for w in ("budget", "decision")}
    for seed in range(args.runs):
        to_decision, at_budget, at_decision, went_wrong = run(variant, seed, args.budget, args.step, shape)
        counts.append(to_decision)
        wrong.append(went_wrong)
        for when, read in (("budget", at_budget), ("decision", at_decision)):
            for key, (bias, cover) in read.items():
                if np.isfinite(bias):
                    biases[when][key].append(bias)
                covered[when][key].append(cover)
    q1, median, q3 = np.percentile(counts, [25, 50, 75])
    out = {"median": median, "q1": q1, "q3": q3, "wrong": statistics.fmean(wrong)}
    for when in ("budget", "decision"):
        for key in ("tpr", "tnr"):
            out[f"bias {key} {when}"] = statistics.fmean(biases[when][key])
            out[f"cover {key} {when}"] = statistics.fmean(covered[when][key])
    return out


def signed(value: float, form: str) -> str:
    return format(value, form).replace("-", "−")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--budget", type=int, default=60, help="ratings at which bias and coverage are read")
    parser.add_argument("--step", type=int, default=2, help="decide after every STEP ratings")
    parser.add_argument("--sets", default="A,B", help="which data sets: A (25%% FAIL, judge TPR 0.97 / TNR 0.70), "
                        "B (30%% FAIL, judge TPR 0.90 / TNR 0.85)")
    parser.add_argument("--variants", default="", help="only these rows (numbers from 1, comma-separated)")
    args = parser.parse_args()
    chosen = [VARIANTS[int(k) - 1] for k in args.variants.split(",")] if args.variants else list(VARIANTS)
    print(f"targets TPR and TNR > {TARGET:.2f}; {args.runs} seeded runs per row; bias and coverage at "
          f"{args.budget} ratings, then at decision")
    print("| set | order | median ratings to decision | IQR | fewer than import | wrong decisions | "
          "bias TPR | bias TNR | coverage TPR | coverage TNR | bias TPR | bias TNR | coverage TPR | coverage TNR |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.sets.split(","):
        shape = SETS[name]
        base = None
        for variant in chosen:
            found = summary(variant, args, shape)
            base = found["median"] if base is None else base  # the first row chosen (import by default)
            cells = [f"{found['median']:.0f}", f"{found['q1']:.0f}–{found['q3']:.0f}",
                     signed(1 - found["median"] / base, "+.0%"), f"{found['wrong']:.1%}"]
            cells += [signed(found[f"bias {k} {w}"], "+.4f") if what == "bias" else f"{found[f'cover {k} {w}']:.1%}"
                      for w in ("budget", "decision") for what in ("bias", "cover") for k in ("tpr", "tnr")]
            print(f"| {name} | {variant.name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
