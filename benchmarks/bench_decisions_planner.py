"""The planner, simulated: does adding its N (the 80% figure) settle the question 80% of the time, and does
`judge-tui plan`'s study of the size it gives decide what it promises?

The report's TPR/TNR plans. Each trial draws a judge and a study of 12, 25, 46, 100 or 400 test items with 10%
or 30% human FAIL, decides TPR > 0.90 and TNR > 0.90 on their Wilson intervals, plans the undecided ones with the
report's own code (``analysis.targets.check``, as ``analysis.report`` calls it), adds the plan's N **test items**
(its ``more_items``, as its text words it: each falls in the class at the true FAIL share) drawn from the same
judge, and decides again with the same rule. "Settled" is the share of those trials then decided (met or not
met). Trials decided at the start need no plan; trials whose plan says "no practical number" are counted apart.

An assurance promises its 80% over the judges the data allow, so the first table draws the judge's true value
afresh for every trial (uniform on 0.5–1; ``--lowest 0``: on 0–1, the plan's own prior): there 80% of plans
should settle. The second holds one judge at 0.84
with 10% FAIL (a study near its target): no plan made from the data can be calibrated at every fixed judge
(docs/agreement.md, "How many more items"), and the table says how far it is there. ``--fixed`` adds the
fixed judges at 0.70, 0.90 and 0.97 and the point-estimate plan the report used before.

Then the kappa and r plans of the report at fixed truths; `judge-tui plan` per target (a study of the planned
size drawn from the expected values and decided by the report's interval functions should decide in 80%); and
`judge-tui plan` for the whole study: fresh studies (seeds the planner never used) of each size it gives, decided
by the same code (``whole_study.at_size``: ``targets.check`` and the stop notice's ``stopping.anytime_check``),
should decide every target at once, or fire the stop notice, in 80%.

Run from the project root:  .venv/bin/python benchmarks/bench_decisions_planner.py [--trials 1000]
[--study-runs 2000] [--parts report kappa before whole] [--fixed] [--lowest 0.5]
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time

import numpy as np

from judge_tui.analysis.targets import TargetCheck, check
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats import decisions
from judge_tui.stats import intervals as iv
from judge_tui.stats.agreement import Undefined
from judge_tui.study.plan import (
    Expected,
    TargetPlan,
    binary_table,
    graded_table,
    items_for_all,
    plan_study,
)
from judge_tui.study.whole_study import RUNS as WHOLE_RUNS
from judge_tui.study.whole_study import AtSize, at_size, plan_whole

SETTINGS = AgreementSettings()
TARGET = SETTINGS.tpr_tnr_target
TRUTHS = (0.70, 0.90, 0.97)
SIZES = (12, 25, 46, 100, 400)
FAIL_SHARES = (0.1, 0.3)
PARTS = ("report", "kappa", "before", "whole")
# A cell's settle share is read only over this many planned trials or more (standard error ≤ 4 points at 80%).
MEASURABLE = 100


@functools.cache
def planned(key: str, successes: int, n: int, scope: int) -> TargetCheck:
    """The report's check of TPR or TNR on `successes` of `n` items of the class, out of `scope` test items
    (the plan is in test items, the share of the class among them drawn from n of scope)."""
    return check(key, key.upper(), "test split", successes / n, iv.wilson(successes, n), n, TARGET, strict=True,
                 settings=SETTINGS, share=(successes, n), class_share=n / scope,
                 class_label="PASS" if key == "tpr" else "FAIL")


def decided(successes: int, n: int) -> bool:
    return decisions.decide(iv.wilson_at(successes / n, n), TARGET, strict=True, n=n) != "undecided"


def point_plan(successes: int, n: int) -> int | None:
    """The plan before: the fewest more items at which the Wilson interval of the same share clears the target."""
    share = successes / n
    if share == TARGET:
        return None
    above = share > TARGET
    for total in range(n + 1, 200_000):
        bounds = iv.wilson_at(share, total)
        if (bounds.low > TARGET) if above else (bounds.high <= TARGET):
            return total - n
    return None


def run_trial(rng: np.random.Generator, key: str, truth: float, class_items: int, size: int, share: float,
              planner: str) -> tuple[str, int | None]:
    """One study's figure of one class: "decided", "impractical", or "settled"/"unsettled" with the N added.
    The assurance plan's N is test items, as its text says: each added item falls in the class at the true
    share (``share``). The point-estimate plan's N is items of the class, as it was worded."""
    if class_items == 0:
        return "empty", None
    successes = int(rng.binomial(class_items, truth))
    if decided(successes, class_items):
        return "decided", None
    if planner == "assurance":
        more = planned(key, successes, class_items, size).more_items
        of_class = None if more is None else int(rng.binomial(more, share))
    else:
        more = of_class = point_plan(successes, class_items)
    if more is None or of_class is None:
        return "impractical", None
    if of_class == 0:
        return "unsettled", more
    added = int(rng.binomial(of_class, truth))
    return ("settled" if decided(successes + added, class_items + of_class) else "unsettled"), more


def cell(rng: np.random.Generator, truth: float | None, size: int, fail_share: float, trials: int,
         planner: str, lowest: float = 0.5) -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    for key, share in (("tpr", 1 - fail_share), ("tnr", fail_share)):
        outcomes: dict[str, int] = {}
        added: list[int] = []
        for _ in range(trials):
            value = truth if truth is not None else float(rng.uniform(lowest, 1.0))
            result, more = run_trial(rng, key, value, int(rng.binomial(size, share)), size, share, planner)
            outcomes[result] = outcomes.get(result, 0) + 1
            if more is not None:
                added.append(more)
        out[key] = {"outcomes": outcomes, "added": added}
    return out


def rate(outcomes: dict[str, int]) -> str:
    planned_trials = outcomes.get("settled", 0) + outcomes.get("unsettled", 0)
    if planned_trials == 0:
        return "—"
    return f"{outcomes.get('settled', 0) / planned_trials:.1%} of {planned_trials}"


def print_cells(title: str, rng: np.random.Generator, truths: tuple[float | None, ...], trials: int,
                planner: str, sizes: tuple[int, ...] = SIZES, fail_shares: tuple[float, ...] = FAIL_SHARES,
                lowest: float = 0.5) -> None:
    print(f"\n{title}\n")
    unit = "test items" if planner == "assurance" else "items of the class"
    print("| truth | FAIL share | n | figure | decided at start | planner declined | settled after N | "
          f"N ({unit}): median (range) |")
    print("|---|---|---|---|---|---|---|---|")
    measured: list[tuple[str, float, int, int]] = []  # (cell, settled share, planned trials, undecided trials)
    for truth in truths:
        for fail_share in fail_shares:
            for size in sizes:
                found = cell(rng, truth, size, fail_share, trials, planner, lowest)
                for key, result in found.items():
                    outcomes = result["outcomes"]
                    assert isinstance(outcomes, dict)
                    added = result["added"]
                    assert isinstance(added, list)
                    spread = (f"{statistics.median(added):.0f} ({min(added)}–{max(added)})" if added else "—")
                    planned_trials = outcomes.get("settled", 0) + outcomes.get("unsettled", 0)
                    drawn = f"U({lowest:g}, 1)" if truth is None else f"{truth:.2f}"
                    name = f"{drawn}/{fail_share:.1f}/{size}/{key.upper()}"
                    if planned_trials:
                        measured.append((name, outcomes.get("settled", 0) / planned_trials, planned_trials,
                                         planned_trials + outcomes.get("impractical", 0)))
                    print(f"| {drawn} | {fail_share:.1f} | {size} | "
                          f"{key.upper()} | {outcomes.get('decided', 0) / trials:.0%} | "
                          f"{outcomes.get('impractical', 0) / trials:.0%} | {rate(outcomes)} | {spread} |", flush=True)
    summarise(measured)


def summarise(measured: list[tuple[str, float, int, int]], least: int = MEASURABLE) -> None:
    """Which cells keep the 75–85% promise, over the cells where the planner gave a number in at least
    ``least`` trials (fewer: a settle share with a standard error above 4 points, not a measurement)."""
    counted = [m for m in measured if m[2] >= least]
    inside = [m for m in counted if 0.75 <= m[1] <= 0.85]
    low = [m for m in counted if m[1] < 0.75]
    high = [m for m in counted if m[1] > 0.85]
    print(f"\nCells with at least {least} planned trials: {len(counted)} of {len(measured)}; settled 75–85% in "
          f"{len(inside)}, below in {len(low)}, above in {len(high)}.")
    for label, found in (("below", low), ("above", high)):
        if found:
            print(f"- {label}: " + ", ".join(f"{name} {share:.0%} ({planned} of {undecided} planned)"
                                              for name, share, planned, undecided in found))


def decides_kappa(rng: np.random.Generator, table: np.ndarray, n: int, target: float, weights: iv.KappaWeights,
                  runs: int) -> float:
    hits = 0
    for _ in range(runs):
        counts = rng.multinomial(n, table.ravel()).reshape(table.shape)
        interval = iv.kappa_interval(counts, weights)
        if not isinstance(interval, Undefined):
            hits += decisions.decide(interval, target, n=n) != "undecided"
    return hits / runs


def decides_r(rng: np.random.Generator, r: float, n: int, target: float, runs: int) -> float:
    hits = 0
    for _ in range(runs):
        x, y = rng.multivariate_normal([0.0, 0.0], [[1.0, r], [r, 1.0]], n).T
        estimate = float(np.corrcoef(x, y)[0, 1])
        interval = iv.fisher_z(estimate, n)
        if not isinstance(interval, Undefined):
            hits += decisions.decide(interval, target, n=n) != "undecided"
    return hits / runs


def before_a_study(rng: np.random.Generator, runs: int) -> None:
    settings = AgreementSettings()
    print("\nBefore a study (`judge-tui plan`): a study of the planned size, drawn from the expected values, "
          "decided by the report's interval\n")
    print("| expected | target | planned items | the plan says | decided in |")
    print("|---|---|---|---|---|")
    gaps: list[float] = []
    for tpr, tnr, fail in ((0.97, 0.97, 0.3), (0.95, 0.80, 0.3), (0.80, 0.97, 0.1)):
        for p in plan_study(Expected(tpr=tpr, tnr=tnr, fail_share=fail), settings):
            if p.items is None:
                print(f"| TPR {tpr}, TNR {tnr}, FAIL {fail} | {p.goal} | no practical number | — | — |")
                continue
            table = binary_table(tpr, tnr, fail)
            if p.key in ("tpr", "tnr"):  # the items to label, each in the class at the expected share
                value, share = (tpr, 1 - fail) if p.key == "tpr" else (tnr, fail)
                of_class = rng.binomial(p.items, share, size=runs)
                hits = sum(k > 0 and decided(int(rng.binomial(k, value)), int(k)) for k in of_class) / runs
            elif p.key == "kappa":
                hits = decides_kappa(rng, table, p.items, settings.kappa_substantial, None, runs)
            else:  # alignment: accuracy, a share of items
                accuracy = float(np.trace(table))
                hits = sum(decisions.decide(iv.wilson_at(int(rng.binomial(p.items, accuracy)) / p.items, p.items),
                                            settings.alignment_well_calibrated, n=p.items) != "undecided"
                           for _ in range(runs)) / runs
            gaps.append(hits - (p.chance_at_items or 0.0))
            print(f"| TPR {tpr}, TNR {tnr}, FAIL {fail} | {p.goal} | {p.items} | {p.chance_at_items:.1%} "
                  f"| {hits:.1%} |", flush=True)
    for kappa, weighted_kappa, r in ((0.80, 0.85, 0.85), (0.75, 0.80, 0.80), (0.45, 0.50, 0.55)):
        expected = Expected(kappa=kappa, weighted_kappa=weighted_kappa, r=r)
        for p in plan_study(expected, settings):
            if p.items is None:
                print(f"| {p.goal.split(' ')[0]} {p.expected} | {p.goal} | no practical number | — | — |")
                continue
            if p.key == "pearson":
                hits = decides_r(rng, r, p.items, settings.pearson_target, runs)
            else:
                weighted = p.key == "weighted_kappa"
                table = graded_table(p.expected, 5, weighted)
                hits = decides_kappa(rng, table, p.items, settings.kappa_substantial,
                                     "quadratic" if weighted else None, runs)
            gaps.append(hits - (p.chance_at_items or 0.0))
            print(f"| {p.key} {p.expected} (5 levels) | {p.goal} | {p.items} | {p.chance_at_items:.1%} "
                  f"| {hits:.1%} |", flush=True)
    print(f"\nDecided minus what the plan says: {min(gaps):+.1%} to {max(gaps):+.1%} over {len(gaps)} targets "
          "(the plan says its chance at the items it gives, above 80% where fewer items cannot give 80%)")


WHOLE_STUDIES = (Expected(tpr=0.97, tnr=0.97, fail_share=0.3), Expected(tpr=0.95, tnr=0.97, fail_share=0.3),
                 Expected(tpr=0.95, tnr=0.93, fail_share=0.2), Expected(tpr=0.80, tnr=0.97, fail_share=0.1),
                 Expected(tpr=0.97, tnr=0.80, fail_share=0.3), Expected(kappa=0.80, weighted_kappa=0.85, r=0.85),
                 Expected(kappa=0.75, weighted_kappa=0.80, r=0.80, alignment=0.85))


def _expected_text(e: Expected) -> str:
    if e.fail_share is not None:
        return f"TPR {e.tpr}, TNR {e.tnr}, FAIL {e.fail_share}"
    given = (("κ", e.kappa), ("weighted κ", e.weighted_kappa), ("r", e.r), ("alignment", e.alignment))
    return ", ".join(f"{name} {value}" for name, value in given if value is not None)


def _fresh(plans: list[TargetPlan], expected: Expected, n: int, runs: int, seed: int) -> AtSize:
    """`runs` studies of n items drawn with seeds the planner never used, decided by the same code (the
    report's checks and the stop notice's rules valid at any time), pooled."""
    settings = AgreementSettings()
    found = [at_size(plans, expected, settings, n, seed=seed + i) for i in range(max(1, runs // WHOLE_RUNS))]
    alone = tuple((goal, float(np.mean([dict(f.alone)[goal] for f in found]))) for goal, _ in found[0].alone)
    return AtSize(n, alone, float(np.mean([f.together for f in found])), float(np.mean([f.anytime for f in found])))


def whole_studies(runs: int, seed: int) -> None:
    """`judge-tui plan`'s whole study: each target's own items (every target alone there, and all at once), the
    items for every target at once, and the items for the stop notice, each measured on fresh studies."""
    settings = AgreementSettings()
    print(f"\nThe whole study (`judge-tui plan`): fresh studies ({runs} a size) decided by the report's checks and "
          "the stop notice's rules\n")
    print("| expected | each target's own items: n, each alone, all at once | every target at once: n, all at once, "
          "stop notice | stop notice: n, fires | plan time |")
    print("|---|---|---|---|---|")
    within: list[float] = []
    for expected in WHOLE_STUDIES:
        started = time.perf_counter()
        plans = plan_study(expected, settings)
        each, _ = items_for_all(plans, expected.fail_share)
        whole = plan_whole(plans, expected, settings, chance=0.8, items_each=each)
        took = time.perf_counter() - started
        if each is None or whole.together is None or whole.anytime is None:
            print(f"| {_expected_text(expected)} | no practical number | — | — | {took:.1f} s |")
            continue
        at_each = _fresh(plans, expected, each, runs, seed)
        at_together = _fresh(plans, expected, whole.together, runs, seed + 100)
        at_anytime = _fresh(plans, expected, whole.anytime, runs, seed + 200)
        within += [at_together.together - 0.8, at_anytime.anytime - 0.8]
        alone = ", ".join(f"{chance:.0%}" for _, chance in at_each.alone)
        print(f"| {_expected_text(expected)} | {each}: {alone}; {at_each.together:.1%} | {whole.together}: "
              f"{at_together.together:.1%}, {at_together.anytime:.1%} | {whole.anytime}: {at_anytime.anytime:.1%} | "
              f"{took:.1f} s |", flush=True)
    if within:
        print(f"\nEvery-target and stop-notice plans against their 80%: {min(within):+.1%} to {max(within):+.1%}.")


def kappa_and_r_cells(rng: np.random.Generator, trials: int) -> None:
    """The report's plan for kappa (binary table from TPR = TNR and the FAIL share) and for r (bivariate normal
    scores), at a fixed truth: decided on the report's intervals, its N added from the same truth."""
    settings = AgreementSettings()
    print("\nKappa and r: the report's plan at a fixed truth (add its N, decide again on the report's interval)\n")
    print("| figure | truth | n | decided at start | no practical number | settled after N | N: median (range) |")
    print("|---|---|---|---|---|---|---|")
    for value, fail_share in ((0.70, 0.3), (0.80, 0.3), (0.90, 0.3), (0.97, 0.3)):
        table = binary_table(value, value, fail_share)
        p = table.ravel()
        kappa = float((np.trace(table) - table.sum(1) @ table.sum(0)) / (1 - table.sum(1) @ table.sum(0)))
        for size in (25, 46, 100):
            outcomes: dict[str, int] = {}
            added: list[int] = []
            for _ in range(trials):
                counts = rng.multinomial(size, p).reshape(2, 2)
                interval = iv.kappa_interval(counts)
                estimate = iv.kappa_standard_error(counts)
                if isinstance(interval, Undefined) or isinstance(estimate, Undefined):
                    outcomes["undefined"] = outcomes.get("undefined", 0) + 1
                    continue
                c = check("kappa:label", "κ", "all", estimate[0], interval, size, settings.kappa_substantial,
                          settings=settings)
                if c.decision != "undecided":
                    outcomes["decided"] = outcomes.get("decided", 0) + 1
                    continue
                if c.more_items is None:
                    outcomes["impractical"] = outcomes.get("impractical", 0) + 1
                    continue
                added.append(c.more_items)
                total = counts + rng.multinomial(c.more_items, p).reshape(2, 2)
                after = iv.kappa_interval(total)
                settled = (not isinstance(after, Undefined)
                           and decisions.decide(after, settings.kappa_substantial, n=size + c.more_items) != "undecided")
                outcomes["settled" if settled else "unsettled"] = outcomes.get("settled" if settled else "unsettled", 0) + 1
            _row(f"κ (TPR = TNR = {value}, FAIL {fail_share})", kappa, size, outcomes, added, trials)
    for r in (0.55, 0.85):
        cov = [[1.0, r], [r, 1.0]]
        for size in (25, 46, 100):
            outcomes = {}
            added = []
            for _ in range(trials):
                x, y = rng.multivariate_normal([0.0, 0.0], cov, size).T
                r_estimate = float(np.corrcoef(x, y)[0, 1])
                interval = iv.fisher_z(r_estimate, size)
                assert not isinstance(interval, Undefined)
                c = check("pearson", "r", "all", r_estimate, interval, size, settings.pearson_target, settings=settings,
                          correlation=True)
                if c.decision != "undecided":
                    outcomes["decided"] = outcomes.get("decided", 0) + 1
                    continue
                if c.more_items is None:
                    outcomes["impractical"] = outcomes.get("impractical", 0) + 1
                    continue
                added.append(c.more_items)
                x2, y2 = rng.multivariate_normal([0.0, 0.0], cov, c.more_items).T
                both = float(np.corrcoef(np.concatenate([x, x2]), np.concatenate([y, y2]))[0, 1])
                after = iv.fisher_z(both, size + c.more_items)
                settled = (not isinstance(after, Undefined)
                           and decisions.decide(after, settings.pearson_target, n=size + c.more_items) != "undecided")
                outcomes["settled" if settled else "unsettled"] = outcomes.get("settled" if settled else "unsettled", 0) + 1
            _row("r (bivariate normal)", r, size, outcomes, added, trials)


def _row(figure: str, truth: float, size: int, outcomes: dict[str, int], added: list[int], trials: int) -> None:
    spread = f"{statistics.median(added):.0f} ({min(added)}–{max(added)})" if added else "—"
    print(f"| {figure} | {truth:.3f} | {size} | {outcomes.get('decided', 0) / trials:.0%} | "
          f"{outcomes.get('impractical', 0) / trials:.0%} | {rate(outcomes)} | {spread} |", flush=True)


def speed() -> None:
    cases = [("tnr", 10, 12), ("tpr", 31, 34), ("tpr", 360, 400), ("tnr", 13, 14)]
    print("\nPlanner time per undecided target (the report's check, first call: a plan keeps the chances it has "
          "found, so a repeat is faster)\n")
    for key, successes, n in cases:
        started = time.perf_counter()
        check(key, key.upper(), "test split", successes / n, iv.wilson(successes, n), n, TARGET, strict=True,
              settings=SETTINGS, share=(successes, n), class_share=0.3, class_label="FAIL")
        print(f"- {key.upper()} {successes}/{n}: {(time.perf_counter() - started) * 1000:.1f} ms")
    interval = iv.Interval(0.46, 0.776, "fleiss-cohen-everitt", 0.95)
    started = time.perf_counter()
    check("kappa:x", "κ", "all", 0.618, interval, 100, 0.61, settings=SETTINGS)
    print(f"- κ 0.618 [0.46, 0.78] on 100 items: {(time.perf_counter() - started) * 1000:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--study-runs", type=int, default=2000, help="runs per row of the before-a-study tables")
    parser.add_argument("--seed", type=int, default=20261127)
    parser.add_argument("--lowest", type=float, default=0.5,
                        help="the lowest true TPR/TNR of the judges drawn for the report's plans (default 0.5; 0: "
                             "the plan's own uniform prior)")
    parser.add_argument("--fixed", action="store_true",
                        help="also the fixed judges at 0.70, 0.90 and 0.97 and the point-estimate plan (slow)")
    parser.add_argument("--parts", nargs="*", choices=PARTS, default=list(PARTS),
                        help="report: the report's TPR/TNR plans; kappa: its kappa and r plans; before: `judge-tui "
                             "plan` per target; whole: `judge-tui plan` for the whole study (default: all)")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    if "report" in args.parts:
        speed()
        print_cells(f"The assurance plan over judges drawn uniformly from {args.lowest:g}–1 (what an 80% assurance "
                    "promises): add its N test items, decide again", rng, (None,), 3 * args.trials, "assurance",
                    lowest=args.lowest)
        print_cells("The assurance plan at one fixed judge, TPR = TNR = 0.84 (no promise is made at a fixed "
                    "judge)", rng, (0.84,), args.trials, "assurance", sizes=(25, 46, 100), fail_shares=(0.1,))
    if args.fixed:
        print_cells("The assurance plan at a fixed truth (add its N test items, decide again)", rng, TRUTHS,
                    args.trials, "assurance")
        print_cells("The point-estimate plan (before), at a fixed truth", rng, (0.70, 0.97), args.trials, "point")
    if "kappa" in args.parts:
        kappa_and_r_cells(rng, max(args.trials // 2, 100))
    if "before" in args.parts:
        before_a_study(rng, args.study_runs)
    if "whole" in args.parts:
        whole_studies(args.study_runs, args.seed)
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
