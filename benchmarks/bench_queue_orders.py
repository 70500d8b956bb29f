"""Queue orders, simulated: how many expert ratings each order needs before the PASS/FAIL targets are decided,
and whether its estimates stay unbiased with intervals that cover the judge's true TPR and TNR.

The question is the judge, under every order: its TPR and TNR on items like these (the probabilities the data
are drawn with), not the share of one pool. Each run draws a pool afresh (seeded) from that truth: every item
has the expert's label and the judge's label. The expert rates the pool one item at a time in the order's
sequence, and after every STEP ratings TPR > target and TNR > target are decided as the report decides them, by
the report's own functions called in-process: for import and random order, Wilson's interval on the counts
(analysis/targets.check); for balanced order, the design-weighted share (stratum size ÷ rated in stratum) with
the two-phase stratified Jeffreys interval (analysis/design.weighted_share_figure) and the report's
reweighting of its targets (analysis/design.reweighted_checks: each verdict group needs 5 ratings first). A
balanced order is laid out as the app lays it out (analysis/queue_orders.py): equal draws between the judge's
verdicts for the first ALLOCATE_EVERY ratings, then, after every ALLOCATE_EVERY ratings, the items not yet
rated laid out again with the allocation that follows the uncertainty (model/queue_orders.allocation_shares).
One more row keeps equal draws throughout (what the allocation adds). "Ratings to decision" is the first count
at which both targets are decided (met or not met); runs that never decide count as the whole pool (and
"never decided" counts them).

Bias and coverage are read twice: at a fixed budget of ratings, and at the moment of decision (optional
stopping: the study stops as soon as its interval clears the threshold, which is when an interval is most
likely to be one of its unlucky 5%). Bias is the mean of estimate − true value, coverage the share of runs
whose 95% interval contains the true value (the judge's, not the pool's). "Wrong decisions" is the share of
runs where a target was decided the other way than the true value lies.

Run from the project root:  .venv/bin/python benchmarks/bench_queue_orders.py [--runs 200] [--budget 60]
"""

from __future__ import annotations

import argparse
import statistics
from dataclasses import dataclass
from functools import cache

import numpy as np

from judge_tui.analysis.design import Design, design_weights, reweighted_checks, weighted_share_figure
from judge_tui.analysis.targets import TargetCheck, check
from judge_tui.model import queue_orders as qo
from judge_tui.model.rubrics import Rubric, load_rubrics
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats import intervals as iv
from judge_tui.stats.agreement import Undefined
from judge_tui.stats.intervals import Interval

TARGET = AgreementSettings().tpr_tnr_target
CONFIDENCE = 0.95
SETTINGS = AgreementSettings(confidence=CONFIDENCE)


@dataclass(frozen=True)
class DataSet:
    name: str
    ids: list[str]  # import order
    human_pass: dict[str, bool]
    judge_pass: dict[str, bool]
    truth: dict[str, float]  # the judge's true TPR and TNR (the estimand)


def skewed_set(n: int = 200, fail_rate: float = 0.25, tpr: float = 0.97, tnr: float = 0.70, seed: int = 13) -> DataSet:
    """A PASS/FAIL pool drawn from a judge with the given true TPR and TNR, at a realistic FAIL rate."""
    rng = np.random.default_rng(seed)
    ids = [f"T{k:04d}" for k in range(n)]
    human = {i: bool(rng.random() >= fail_rate) for i in ids}
    judge = {i: bool(rng.random() < tpr) if human[i] else bool(rng.random() >= tnr) for i in ids}
    return DataSet(f"{n} items, {fail_rate:.0%} FAIL, judge TPR {tpr:.2f} TNR {tnr:.2f}", ids, human, judge,
                   {"tpr": tpr, "tnr": tnr})


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
    name: str
    kind: str  # the queue order
    adaptive: bool = False  # a balanced order laid out again with the allocation every ALLOCATE_EVERY ratings


VARIANTS = (
    Variant("import", qo.IMPORT),
    Variant("random", qo.RANDOM),
    Variant("balanced", qo.BALANCED, adaptive=True),
    Variant("balanced, equal allocation throughout", qo.BALANCED),
)


@cache
def binary_rubric() -> Rubric:
    return load_rubrics()["binary"][0]


def judged(data: DataSet, rated: list[str], kind: str, pool: dict[str, int]) -> dict[str, TargetCheck]:
    """TPR > target and TNR > target decided on the rated items as the report decides them for this order."""
    human = np.array([data.human_pass[i] for i in rated])
    judge = np.array([data.judge_pass[i] for i in rated])
    plain = {}
    for key, cls, hit, label in (("tpr", human, judge, "PASS"), ("tnr", ~human, ~judge, "FAIL")):
        of, hits = int(cls.sum()), int((cls & hit).sum())
        interval = iv.wilson(hits, of, CONFIDENCE) if of else Undefined(f"no {label} yet")
        estimate = hits / of if of else Undefined(f"no {label} yet")
        plain[key] = check(key, key.upper(), "test split", estimate, interval, of, TARGET, strict=True,
                           settings=SETTINGS, share=(hits, of), class_share=of / len(rated), class_label=label)
    if kind != qo.BALANCED:
        return plain
    strata = np.array(["PASS" if j else "FAIL" for j in judge])
    weights = design_weights(list(strata), pool)
    figures = tuple(weighted_share_figure(key, key.upper(), cls & hit, cls, weights, strata, pool, SETTINGS,
                                          qo.PASS_FAIL_CATEGORIES[key])
                    for key, cls, hit in (("tpr", human, judge), ("tnr", ~human, ~judge)))
    rated_per = {name: int((strata == name).sum()) for name in pool}
    design = Design(qo.BALANCED, "judge", len(rated), dict(pool), rated_per, iv.effective_sample_size(weights),
                    figures)
    # Every item of the pool is a test item: the test split's design is the pool's.
    return {c.key: c for c in reweighted_checks(list(plain.values()), design, binary_rubric(),
                                                  SETTINGS, design)}


def decided(checks: dict[str, TargetCheck]) -> bool:
    return all(c.decision in ("met", "not met") for c in checks.values())


def pool_of(data: DataSet) -> dict[str, int]:
    passed = sum(data.judge_pass.values())
    return {"PASS": passed, "FAIL": len(data.ids) - passed}


Read = dict[str, tuple[float, bool]]  # per figure: estimate − true value, and whether the interval covers it


def run(variant: Variant, seed: int, budget: int, step: int, shape: dict[str, float]
        ) -> tuple[int | None, Read, Read, bool]:
    """Ratings to decision (None: not decided with the whole pool rated), the reads at the budget and at
    decision, and whether a decision went the wrong way (met while the true value is not above the target, or
    not met while it is)."""
    data = skewed_set(seed=seed, **shape)  # type: ignore[arg-type]  # each run its own pool, whose import order is as arbitrary as a real one's
    order = order_of(data, variant.kind, seed)
    pool = pool_of(data)
    to_decision: int | None = None
    at_decision = at_budget = None
    for n in range(step, len(order) + 1, step):
        if variant.adaptive and n % qo.ALLOCATE_EVERY == 0:
            order = relaid(data, order, n, seed, pool)  # the next items follow the allocation
        found = judged(data, order[:n], variant.kind, pool)
        if n == budget:
            at_budget = found
        if at_decision is None and decided(found):
            to_decision, at_decision = n, found
        if at_decision is not None and n >= budget:
            break
    wrong = at_decision is not None and any(
        c.decision != ("met" if data.truth[key] > TARGET else "not met") for key, c in at_decision.items())
    if at_decision is None:
        at_decision = judged(data, order, variant.kind, pool)
    assert at_budget is not None

    def read(found: dict[str, TargetCheck]) -> Read:
        out = {}
        for key, c in found.items():
            if isinstance(c.interval, Interval) and isinstance(c.estimate, float):
                out[key] = (c.estimate - data.truth[key], c.interval.low <= data.truth[key] <= c.interval.high)
            else:
                out[key] = (float("nan"), False)
        return out

    return to_decision, read(at_budget), read(at_decision), wrong


SETS = {  # name: pool shape, the judge's true TPR and TNR
    "A": {"n": 200, "fail_rate": 0.25, "tpr": 0.97, "tnr": 0.70},
    "B": {"n": 200, "fail_rate": 0.30, "tpr": 0.90, "tnr": 0.85},
    "C": {"n": 400, "fail_rate": 0.30, "tpr": 0.97, "tnr": 0.80},
}


def summary(variant: Variant, args: argparse.Namespace, shape: dict[str, float]) -> dict[str, float]:
    counts: list[int] = []
    never: list[bool] = []
    wrong: list[bool] = []
    biases: dict[str, dict[str, list[float]]] = {w: {"tpr": [], "tnr": []} for w in ("budget", "decision")}
    covered: dict[str, dict[str, list[bool]]] = {w: {"tpr": [], "tnr": []} for w in ("budget", "decision")}
    for seed in range(args.runs):
        to_decision, at_budget, at_decision, went_wrong = run(variant, seed, args.budget, args.step, shape)
        counts.append(int(shape["n"]) if to_decision is None else to_decision)
        never.append(to_decision is None)
        wrong.append(went_wrong)
        for when, read in (("budget", at_budget), ("decision", at_decision)):
            for key, (bias, cover) in read.items():
                if np.isfinite(bias):
                    biases[when][key].append(bias)
                covered[when][key].append(cover)
    q1, median, q3 = np.percentile(counts, [25, 50, 75])
    out = {"median": median, "q1": q1, "q3": q3, "wrong": statistics.fmean(wrong),
           "never": statistics.fmean(never)}
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
    parser.add_argument("--sets", default="A,B,C", help="which pools: A (200 items, 25%% FAIL, judge TPR 0.97 / "
                        "TNR 0.70), B (200, 30%% FAIL, TPR 0.90 / TNR 0.85), C (400, 30%% FAIL, TPR 0.97 / TNR 0.80)")
    parser.add_argument("--variants", default="", help="only these rows (numbers from 1, comma-separated)")
    args = parser.parse_args()
    chosen = [VARIANTS[int(k) - 1] for k in args.variants.split(",")] if args.variants else list(VARIANTS)
    print(f"targets TPR and TNR > {TARGET:.2f}; the truth is the judge's TPR and TNR; {args.runs} seeded runs per "
          f"row; bias and coverage at {args.budget} ratings, then at decision")
    print("| set | order | median ratings to decision | IQR | fewer than import | never decided | wrong decisions | "
          "bias TPR | bias TNR | coverage TPR | coverage TNR | bias TPR | bias TNR | coverage TPR | coverage TNR |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.sets.split(","):
        shape = SETS[name]
        base = None
        for variant in chosen:
            found = summary(variant, args, shape)
            base = found["median"] if base is None else base  # the first row chosen (import by default)
            cells = [f"{found['median']:.0f}", f"{found['q1']:.0f}–{found['q3']:.0f}",
                     signed(1 - found["median"] / base, "+.0%"), f"{found['never']:.0%}", f"{found['wrong']:.1%}"]
            cells += [signed(found[f"bias {k} {w}"], "+.4f") if what == "bias" else f"{found[f'cover {k} {w}']:.1%}"
                      for w in ("budget", "decision") for what in ("bias", "cover") for k in ("tpr", "tnr")]
            print(f"| {name} | {variant.name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
