"""Coverage of every interval the report decides on, cell by cell, with a known truth.

Each study draws n items from a known joint distribution of (expert, judge) scores, pairs them as the report
does (`analysis.scores.AlignedPair`), computes the row's figures with `AlignedPair.compare` and their intervals
with `analysis.uncertainty.row_uncertainty`: the functions `report._rows` calls for every dimension. The
targets' TPR and TNR intervals come from the same Wilson interval `report._checks` uses. An interval covers
when the truth (the figure of the joint distribution itself) lies within it; "too few" counts the studies in
which the interval is Undefined because no interval would cover (the figure may still be shown).

* PASS/FAIL cells (the `binary` rubric): TPR and TNR each 0.70, 0.90 or 0.97, FAIL share 0.1 or 0.3, n 12, 25,
  46, 100 or 400 items. Intervals: Cohen's kappa, alignment (share of agreeing labels), TPR, TNR.
* Graded cells (the `cis` rubric's 0–1 scale in quarter steps): two expert distributions (spread over the
  scale, or skewed to its top) times three judges (close: 75% exact, medium: 50%, loose: 35% exact with
  two-step slips). Intervals: Cohen's kappa, quadratic-weighted kappa, Pearson's r, alignment (within ±0.15).

``--part exact`` gives the PASS/FAIL kappa coverage without Monte Carlo error: every possible table of n items
(all 455 at 12 items, 176,851 at 100; those below a 1e-12 chance in every cell left out) gets the report's own
interval (``kappa_interval``) once, and each cell's coverage is the sum of the multinomial probabilities of the
tables whose interval holds the truth, over the tables that get an interval ("too few items" is the probability
of the rest). ``--part scan`` does the same at every size from 12 to 50 items, one line per size.
``--part five-point`` gives the five-point kappa and weighted kappa coverage at 25-400 items, from confusion
tables drawn from the graded cells (``--part three-point`` and ``four-point`` the same on the 0/0.5/1 scale and
on four points, with experts of their own and the same three judges' slips; with ``--no-size-rule --sizes 12,15,20,24``, also the intervals the
25-item rule withholds); ``--part large`` the PASS/FAIL kappa coverage at 400 items, from drawn
tables. ``--part pearson`` gives Pearson's r interval beside Fisher's z on five and three points;
``--part corrected`` the corrected pass rate's (Rogan-Gladen) interval beside the bootstrap it replaced;
``--part small-kappa`` PASS/FAIL kappa at 12-24 items, exactly, for the Donner-Eliasziw goodness-of-fit and the
profile-likelihood intervals beside the report's posterior.

A third part (``--part methods``) compares, on the confusion tables of the same kind of studies, the kappa
interval before (kappa ± 1.96·SE), the log-disagreement t interval on either weighting, and the report's own
(the t interval unweighted, the jackknife root-disagreement interval weighted).

Studies in which the figure itself is undefined (say, no human FAIL for TNR) are left out of that figure's
coverage. A cell's coverage over S studies has a Monte Carlo standard error of about
sqrt(0.95·0.05/S): 0.7 points at S = 1,000.

Run from the project root:
    .venv/bin/python benchmarks/bench_decisions_coverage.py [--studies 1000] [--part binary|graded|exact|scan|three-point|four-point|five-point|large|pearson|corrected|small-kappa|methods|all]
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from judge_tui.analysis.scores import AlignedPair
from judge_tui.analysis.uncertainty import row_uncertainty
from judge_tui.model.rubrics import get_rubric
from judge_tui.stats import agreement as ag
from judge_tui.stats import intervals
from judge_tui.stats.agreement import Undefined
from judge_tui.stats.intervals import (
    Interval,
    IntervalFigure,
    KappaWeights,
    chance_held_interval,
    kappa_interval,
    kappa_standard_error,
    kappa_too_few,
    t_value,
    z_value,
)

CONFIDENCE = 0.95
TOLERANCE = 0.15
SIZES = (12, 25, 46, 100, 400)
RATES = (0.7, 0.9, 0.97)
FAIL_SHARES = (0.1, 0.3)
EXPERTS = {"spread": np.array([0.10, 0.20, 0.30, 0.25, 0.15]), "skewed": np.array([0.03, 0.07, 0.15, 0.35, 0.40])}
JUDGES = {"close": {-1: 0.10, 0: 0.75, 1: 0.15}, "medium": {-1: 0.20, 0: 0.50, 1: 0.25, 2: 0.05},
          "loose": {-2: 0.10, -1: 0.25, 0: 0.35, 1: 0.20, 2: 0.10}}


@dataclass(frozen=True)
class Cell:
    name: str
    joint: np.ndarray  # P(expert category i, judge category j)
    points: np.ndarray  # the scale's points, one per category


def kappa_of(joint: np.ndarray, quadratic: bool) -> float:
    k = joint.shape[0]
    index = np.arange(k)
    w = 1.0 - (index[:, None] - index[None, :]) ** 2 / (k - 1) ** 2 if quadratic else np.eye(k)
    chance = float(joint.sum(axis=1) @ w @ joint.sum(axis=0))
    return (float((w * joint).sum()) - chance) / (1.0 - chance)


def pearson_of(joint: np.ndarray, points: np.ndarray) -> float:
    ex, ey = joint.sum(axis=1) @ points, joint.sum(axis=0) @ points
    vx = joint.sum(axis=1) @ points**2 - ex**2
    vy = joint.sum(axis=0) @ points**2 - ey**2
    return float((points @ joint @ points - ex * ey) / np.sqrt(vx * vy))


def alignment_of(joint: np.ndarray, points: np.ndarray) -> float:
    return float(joint[np.abs(points[:, None] - points[None, :]) <= TOLERANCE + 1e-9].sum())


def binary_cells() -> Iterator[tuple[Cell, dict[str, float]]]:
    for tpr in RATES:
        for tnr in RATES:
            for fail in FAIL_SHARES:
                joint = np.array([[fail * tnr, fail * (1 - tnr)], [(1 - fail) * (1 - tpr), (1 - fail) * tpr]])
                truth = {"cohen_kappa": kappa_of(joint, False), "alignment_rate": alignment_of(joint, np.array([0.0, 1.0])),
                         "tpr": tpr, "tnr": tnr}
                yield Cell(f"TPR {tpr:.2f} TNR {tnr:.2f} FAIL {fail:.0%}", joint, np.array([0.0, 1.0])), truth


# The experts of shorter scales (0/0.5/1 and four points): spread over the scale, or skewed to its top.
SHORT_EXPERTS = {3: {"spread": np.array([0.30, 0.40, 0.30]), "skewed": np.array([0.10, 0.30, 0.60])},
                 4: {"spread": np.array([0.20, 0.30, 0.30, 0.20]), "skewed": np.array([0.05, 0.15, 0.35, 0.45])}}


def joint_of(expert: np.ndarray, slips: dict[int, float]) -> np.ndarray:
    """P(expert category i, judge category j): the judge slips from the expert's category by the given steps,
    held at the ends of the scale."""
    k = expert.size
    joint = np.zeros((k, k))
    for i in range(k):
        for step, share in slips.items():
            joint[i, min(k - 1, max(0, i + step))] += expert[i] * share
    return joint


def graded_cells(points: int = 5) -> Iterator[tuple[Cell, dict[str, float]]]:
    experts = EXPERTS if points == 5 else SHORT_EXPERTS[points]
    scale = np.linspace(0.0, 1.0, points)
    for expert_name, expert in experts.items():
        for judge_name, slips in JUDGES.items():
            joint = joint_of(expert, slips)
            truth = {"cohen_kappa": kappa_of(joint, False), "weighted_kappa": kappa_of(joint, True),
                     "pearson_r": pearson_of(joint, scale), "alignment_rate": alignment_of(joint, scale)}
            yield Cell(f"{expert_name} expert, {judge_name} judge", joint, scale), truth


def coverage(cell: Cell, truth: dict[str, float], n: int, studies: int, rubric_name: str,
             seed: int) -> dict[str, tuple[int, int, int]]:
    """{figure: (covered, intervals given, too few items)} over ``studies`` studies of n items."""
    rubric = get_rubric(rubric_name)
    rng = np.random.default_rng(np.random.SeedSequence([20261127, seed]))
    k = cell.points.size
    drawn = rng.choice(k * k, size=(studies, n), p=cell.joint.ravel())
    keys = np.arange(n)
    tally = {name: [0, 0, 0] for name in truth}
    for codes in drawn:
        paired = AlignedPair(keys, cell.points[codes // k], cell.points[codes % k])
        figures = paired.compare(rubric, TOLERANCE)
        # ranks=False skips the rank correlations' bootstraps only: every kappa interval is the dimension row's.
        found = row_uncertainty(paired, figures, CONFIDENCE, ranks=False).intervals
        for name, value in truth.items():
            interval = found[name]
            if isinstance(interval, Interval):
                tally[name][0] += interval.low <= value <= interval.high
                tally[name][1] += 1
            elif "too few items" in interval.reason:
                tally[name][2] += 1
    return {name: (c, g, f) for name, (c, g, f) in tally.items()}


def run(part: str, cells: Iterator[tuple[Cell, dict[str, float]]], rubric: str, studies: int) -> None:
    header = None
    for index, (cell, truth) in enumerate(cells):
        if header is None:
            names = list(truth)
            print(f"\n### {part}: coverage of the 95% intervals ({studies} studies per cell)\n")
            print("| cell | truth (" + ", ".join(names) + ") | n | " + " | ".join(names) + " |")
            print("|---|---|---:|" + "---:|" * len(names))
            header = names
        for n in SIZES:
            found = coverage(cell, truth, n, studies, rubric, seed=index * len(SIZES) + SIZES.index(n))
            cells_text = []
            for name in header:
                covered, given, few = found[name]
                text = f"{covered / given:.1%}" if given else "—"
                if few:
                    text += f" ({few / studies:.0%} too few)"
                cells_text.append(text)
            truths = ", ".join(f"{truth[name]:.3f}" for name in header)
            print(f"| {cell.name} | {truths} | {n} | " + " | ".join(cells_text) + " |", flush=True)


# ------------------------------------------------------------------------------------ the choice of method

METHOD_SIZES = (12, 25, 46, 100)


def _wald(table: np.ndarray, weights: KappaWeights) -> IntervalFigure:
    """The interval before: kappa ± 1.96·SE (Fleiss–Cohen–Everitt), Wilson's for the agreement when every item
    agreed (the standard error is 0 there)."""
    found = kappa_standard_error(table, weights)
    if isinstance(found, Undefined):
        return found
    kappa, se = found
    if se > 0:
        z = z_value(CONFIDENCE)
        return Interval(max(-1.0, kappa - z * se), min(1.0, kappa + z * se), "wald", CONFIDENCE)
    k = table.shape[0]
    index = np.arange(k)
    w = 1.0 - (index[:, None] - index[None, :]) ** 2 / (k - 1) ** 2 if weights else np.eye(k)
    p = table / table.sum()
    chance = float(p.sum(axis=1) @ w @ p.sum(axis=0))
    return chance_held_interval(float((w * p).sum()), chance, float(table.sum()), CONFIDENCE)


def _log_t(table: np.ndarray, weights: KappaWeights) -> IntervalFigure:
    """log(1 - kappa) ± t(n - 1)·SE/(1 - kappa): the unweighted choice, here tried on any weights."""
    found = kappa_standard_error(table, weights)
    if isinstance(found, Undefined) or kappa_too_few(table) is not None:
        return Undefined("too few items")
    kappa, se = found
    if kappa >= 1:
        return kappa_interval(table, weights)
    q, spread = t_value(CONFIDENCE, table.sum() - 1), se / (1 - kappa)
    return Interval(max(-1.0, 1 - (1 - kappa) * np.exp(q * spread)), 1 - (1 - kappa) * np.exp(-q * spread), "log-t",
                    CONFIDENCE)


def compare_methods(studies: int) -> None:
    """Coverage of kappa intervals made three ways, on the confusion tables of the same simulated studies: the
    Wald interval (before), the log-disagreement t interval, and the report's own (kappa_interval)."""
    print(f"\n### The choice of method: kappa coverage ({studies} studies per cell; too few items left out)\n")
    print("| cell | weights | truth | n | Wald (before) | log(1 − κ), t | report (kappa_interval) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    both: tuple[KappaWeights, ...] = (None, "quadratic")
    cells = [(cell, None) for cell, _ in binary_cells()] + [(cell, w) for cell, _ in graded_cells() for w in both]
    for index, (cell, weights) in enumerate(cells):
        k = cell.points.size
        truth = kappa_of(cell.joint, weights == "quadratic")
        for n in METHOD_SIZES:
            rng = np.random.default_rng(np.random.SeedSequence([20261128, index, n]))
            tables = rng.multinomial(n, cell.joint.ravel(), size=studies).reshape(studies, k, k)
            tally = {name: [0, 0] for name in ("wald", "log-t", "report")}
            for table in tables:
                if isinstance(kappa_standard_error(table, weights), Undefined):
                    continue
                for name, make in (("wald", _wald), ("log-t", _log_t), ("report", kappa_interval)):
                    found = make(table, weights)
                    if isinstance(found, Interval):
                        tally[name][0] += found.low <= truth <= found.high
                        tally[name][1] += 1
            text = [f"{c / g:.1%}" if g else "—" for c, g in tally.values()]
            print(f"| {cell.name} | {weights or 'none'} | {truth:.3f} | {n} | " + " | ".join(text) + " |", flush=True)


def large_binary(studies: int, n: int = 400) -> None:
    """PASS/FAIL kappa coverage at a size too large to enumerate: ``studies`` confusion tables per cell drawn from
    the cell, each given the report's interval."""
    print(f"\n### PASS/FAIL kappa at {n} items: coverage of kappa_interval ({studies} studies per cell)\n")
    found = []
    for index, (cell, truth) in enumerate(binary_cells()):
        rng = np.random.default_rng(np.random.SeedSequence([778, index, n]))
        tables = rng.multinomial(n, cell.joint.ravel(), size=studies).reshape(studies, 2, 2)
        covered = given = 0
        for table in tables:
            interval = kappa_interval(table)
            if isinstance(interval, Interval):
                given += 1
                covered += interval.low <= truth["cohen_kappa"] <= interval.high
        found.append(covered / given)
        print(f"| {cell.name} | {truth['cohen_kappa']:.3f} | {covered / given:.1%} |", flush=True)
    print(f"\n{sum(not 0.93 <= c <= 0.97 for c in found)} of 18 cells outside 93–97% "
          f"(range {min(found):.1%}–{max(found):.1%})")


FIVE_POINT_SIZES = (25, 30, 35, 40, 46, 100, 400)


def scale_kappa(studies: int, sizes: tuple[int, ...] = FIVE_POINT_SIZES, points: int = 5, seed: int = 777) -> None:
    """Coverage of the report's kappa intervals on a scale of ``points`` points (the log-disagreement t interval
    unweighted, the jackknife root-disagreement interval with quadratic weights) from the 25 items every kappa
    interval needs (35 for weighted kappa on three points: "too few items" below), on confusion tables drawn from
    the graded cells; the figure beside each is the share of tables whose interval lies wholly below the truth
    (the rest of the misses lie above)."""
    print(f"\n### {points}-point kappa from 25 items: coverage of kappa_interval ({studies} studies per cell)\n")
    cells = list(graded_cells(points))
    print("| weights | n | " + " | ".join(cell.name for cell, _ in cells) + " | outside 93–97% |")
    print("|---|---:|" + "---:|" * (len(cells) + 1))
    for weights in ("quadratic", None):
        for n in sizes:
            found = []
            for index, (cell, _) in enumerate(cells):
                truth = kappa_of(cell.joint, weights == "quadratic")
                rng = np.random.default_rng(np.random.SeedSequence([seed, index, n] + ([] if points == 5 else [points])))
                tables = rng.multinomial(n, cell.joint.ravel(), size=studies).reshape(studies, points, points)
                covered = given = below = 0
                for table in tables:
                    interval = kappa_interval(table, weights, CONFIDENCE)
                    if isinstance(interval, Interval):
                        given += 1
                        covered += interval.low <= truth <= interval.high
                        below += interval.high < truth
                found.append((covered / given, below / given) if given else (float("nan"), float("nan")))
            outside = sum(not 0.93 <= c <= 0.97 for c, _ in found if not math.isnan(c))
            print(f"| {weights or 'none'} | {n} | " + " | ".join("too few items" if math.isnan(c) else f"{c:.1%} ({b:.1%})"
                                                                  for c, b in found)
                  + f" | {outside} |", flush=True)


PEARSON_SIZES = (12, 25, 46, 100, 400)


def pearson(studies: int, sizes: tuple[int, ...] = PEARSON_SIZES) -> None:
    """Coverage of the report's Pearson r interval (``pearson_interval``, the function ``row_uncertainty`` and
    every team, jury and drift pairing call) beside Fisher's z with 1/(n - 3) (the one it replaced), on scores
    drawn from the graded cells of five and three points. Studies in which r is undefined or ±1 are left out;
    "no interval" is the share of the rest where one item carries the figure and the interval says so."""
    print(f"\n### Pearson's r: coverage of the 95% intervals ({studies} studies per cell)\n")
    print("| scale | cell | true r | n | jackknife on Fisher's z, t (report) | no interval | Fisher's z, 1/(n − 3) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for points in (5, 3):
        for index, (cell, truth) in enumerate(graded_cells(points)):
            rho = truth["pearson_r"]
            k = cell.points.size
            for n in sizes:
                rng = np.random.default_rng(np.random.SeedSequence([779, points, index, n]))
                drawn = rng.choice(k * k, size=(studies, n), p=cell.joint.ravel())
                tally = {"report": [0, 0], "fisher": [0, 0]}
                refused = defined = 0
                for codes in drawn:
                    x, y = cell.points[codes // k], cell.points[codes % k]
                    if np.ptp(x) == 0 or np.ptp(y) == 0:
                        continue
                    r = float(np.corrcoef(x, y)[0, 1])
                    if abs(r) >= 1.0 - 1e-12:
                        continue
                    defined += 1
                    refused += isinstance(intervals.pearson_interval(x, y, r, CONFIDENCE), Undefined)
                    for name, found in (("report", intervals.pearson_interval(x, y, r, CONFIDENCE)),
                                        ("fisher", intervals.fisher_z(r, n, CONFIDENCE))):
                        if isinstance(found, Interval):
                            tally[name][0] += found.low <= rho <= found.high
                            tally[name][1] += 1
                text = [f"{c / g:.1%}" if g else "—" for c, g in tally.values()]
                text.insert(1, f"{refused / defined:.1%}" if defined else "—")
                print(f"| {points} points | {cell.name} | {rho:.3f} | {n} | " + " | ".join(text) + " |", flush=True)


CORRECTED_SIZES = (25, 46, 100)
JUDGE_ONLY_ITEMS = 200


def _corrected_before(human: np.ndarray, judge: np.ndarray, only: np.ndarray, rng: np.random.Generator,
                      draws: int = 2000) -> tuple[float, float] | None:
    """The corrected pass rate's interval before: the labelled items bootstrapped (one multinomial over the
    four cells), the judge-only pass rate from its Jeffreys posterior; None where over 5% of resamples fail."""
    cells = np.array([(human & judge).sum(), (human & ~judge).sum(), (~human & ~judge).sum(), (~human & judge).sum()])
    tp, fn, tn, fp = rng.multinomial(human.size, cells / human.size, size=draws).T
    seen = rng.beta(only.sum() + 0.5, only.size - only.sum() + 0.5, size=draws)
    with np.errstate(divide="ignore", invalid="ignore"):
        tpr, tnr = tp / (tp + fn), tn / (tn + fp)
        usable = (tp + fn > 0) & (tn + fp > 0) & (tpr + tnr > 1.0)
        found = np.clip((seen + tnr - 1.0) / (tpr + tnr - 1.0), 0.0, 1.0)[usable]
    if found.size < 0.95 * draws:
        return None
    low, high = np.percentile(found, [2.5, 97.5])
    return float(low), float(high)


def corrected_studies(rate: float, tpr: float, tnr: float, n: int, studies: int) -> Iterator[
        tuple[np.ndarray, np.ndarray, np.ndarray, ag.CorrectedPassRate, np.random.Generator]]:
    """One cell's simulated studies whose correction is defined, as ``report`` computes it: (the experts' and
    the judge's verdicts on the n labelled items, the judge's on the judge-only items, the corrected pass rate,
    the cell's generator). The same seed a cell, so every benchmark that draws through here sees the same
    studies; a caller that draws more from the generator does so between studies, as before."""
    rng = np.random.default_rng(np.random.SeedSequence([780, round(rate * 100), round(tpr * 100),
                                                        round(tnr * 100), n]))
    for _ in range(studies):
        human = rng.random(n) < rate
        judge = np.where(human, rng.random(n) < tpr, rng.random(n) >= tnr)
        only = rng.random(JUDGE_ONLY_ITEMS) < rate * tpr + (1 - rate) * (1 - tnr)
        found = ag.corrected_pass_rate(only.astype(float), human.astype(float), judge.astype(float))
        if ag.is_defined(found.estimate):
            yield human, judge, only, found, rng


def corrected(studies: int, sizes: tuple[int, ...] = CORRECTED_SIZES) -> None:
    """Coverage of the corrected pass rate's interval (``agreement.corrected_pass_rate``, as ``report`` calls it)
    and of the bootstrap it replaced: labelled items with a known pass rate and judge TPR and TNR, and 200 items
    the judge alone labelled, drawn from the same pool. "no interval" is the share of studies whose correction
    is defined but gets no interval."""
    print(f"\n### Corrected pass rate: coverage of the 95% intervals ({studies} studies per cell, "
          f"{JUDGE_ONLY_ITEMS} judge-only items)\n")
    print("| pass rate | TPR | TNR | labelled | Jeffreys posteriors (report) | no interval | bootstrap (before) "
          "| no interval |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for rate in (0.5, 0.74, 0.9):
        for tpr in (0.8, 0.95, 1.0):
            for tnr in (0.7, 0.82, 0.95):
                for n in sizes:
                    tally = {"report": [0, 0, 0], "before": [0, 0, 0]}
                    for human, judge, only, found, rng in corrected_studies(rate, tpr, tnr, n, studies):
                        before = _corrected_before(human, judge, only, rng)
                        low, high = found.low, found.high
                        report = (low, high) if isinstance(low, float) and isinstance(high, float) else None
                        for name, ends in (("report", report), ("before", before)):
                            if ends is None:
                                tally[name][2] += 1
                            else:
                                tally[name][0] += ends[0] <= rate <= ends[1]
                                tally[name][1] += 1
                    text = []
                    for covered, given, refused in tally.values():
                        text += [f"{covered / given:.1%}" if given else "—",
                                 f"{refused / (given + refused):.0%}" if given + refused else "—"]
                    print(f"| {rate:.2f} | {tpr:.2f} | {tnr:.2f} | {n} | " + " | ".join(text) + " |", flush=True)


def _all_tables(n: int) -> np.ndarray:
    """Every 2×2 table of n items, as rows (a, b, c, d)."""
    rows = [(a, b, c, n - a - b - c) for a in range(n + 1) for b in range(n + 1 - a) for c in range(n + 1 - a - b)]
    return np.array(rows, dtype=np.int64)


def _log_multinomial(tables: np.ndarray, n: int, p: np.ndarray) -> np.ndarray:
    from math import lgamma
    log_factorial = np.array([lgamma(i + 1.0) for i in range(n + 1)])
    with np.errstate(divide="ignore"):
        logs = np.where(tables > 0, tables * np.log(np.where(p > 0, p, 1.0)), 0.0)
        logs = np.where((tables > 0) & (p <= 0), -np.inf, logs)
    log_p: np.ndarray = log_factorial[n] - log_factorial[tables].sum(axis=1) + logs.sum(axis=1)
    return log_p


# A table less likely than this in every cell adds at most (tables × this) to any coverage: left out.
NEGLIGIBLE = 1e-12


def exact_binary(sizes: tuple[int, ...] = (12, 25, 46, 100), *, table: bool = True) -> None:
    """PASS/FAIL kappa coverage by enumeration: no Monte Carlo error. The report's interval is made once per
    table that has a chance above ``NEGLIGIBLE`` in some cell."""
    print("\n### PASS/FAIL kappa: exact coverage of the report's interval (every table enumerated)\n")
    if table:
        print("| cell | truth | " + " | ".join(f"n = {n}" for n in sizes) + " |")
        print("|---|---:|" + "---:|" * len(sizes))
    rows: dict[str, list[str]] = {}
    truths: dict[str, float] = {}
    outside: dict[int, list[float]] = {n: [] for n in sizes}
    ranges: dict[int, list[float]] = {n: [] for n in sizes}
    for n in sizes:
        tables = _all_tables(n)
        likely = np.zeros(len(tables), dtype=bool)
        for cell, _ in binary_cells():
            likely |= _log_multinomial(tables, n, cell.joint.ravel()) > np.log(NEGLIGIBLE)
        tables = tables[likely]
        lows, highs, given = np.zeros(len(tables)), np.zeros(len(tables)), np.zeros(len(tables), dtype=bool)
        for i, row in enumerate(tables):
            found = kappa_interval(row.reshape(2, 2))
            if isinstance(found, Interval):
                lows[i], highs[i], given[i] = found.low, found.high, True
        for cell, truth in binary_cells():
            kappa = truth["cohen_kappa"]
            chance = np.exp(_log_multinomial(tables, n, cell.joint.ravel()))
            share = float(chance[given].sum())
            covered = float(chance[given & (lows <= kappa) & (highs >= kappa)].sum()) / share if share else float("nan")
            truths[cell.name] = kappa
            text = ("too few items" if share < 0.005 else
                    f"{covered:.1%}" + (f" ({1 - share:.0%} too few)" if 1 - share >= 0.005 else ""))
            rows.setdefault(cell.name, []).append(text)
            if share >= 0.005:
                ranges[n].append(covered)
                if not 0.93 <= covered <= 0.97:
                    outside[n].append(covered)
        if not table:
            found_range = f"{min(ranges[n]):.1%}–{max(ranges[n]):.1%}" if ranges[n] else "every cell too few items"
            print(f"{n} items: {len(outside[n])} of 18 cells outside 93–97% (range {found_range})", flush=True)
    if table:
        for name, texts in rows.items():
            print(f"| {name} | {truths[name]:.3f} | " + " | ".join(texts) + " |", flush=True)
    print("\nCells outside 93–97% (of 18): " + "; ".join(
        f"{n} items: {len(v)}" + (f" ({min(v):.1%}–{max(v):.1%})" if v else "") for n, v in outside.items()))


SMALL_KAPPA_SIZES = (12, 18, 24)
CHI2_1_95 = 3.841458820694124  # the chi-square quantile with one degree of freedom at 95%
KAPPA_GRID = np.linspace(-1.0, 1.0, 801)


def _donner_eliasziw(tables: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The goodness-of-fit interval of Donner and Eliasziw (1992) for every 2×2 table (rows a, b, c, d): the
    kappas at which the common-correlation model's three outcomes (both FAIL, one each, both PASS), with the
    PASS share estimated from both raters, fit the counts with chi-square ≤ 3.84 (one degree of freedom). Read
    on a grid of 801 kappas (steps of 0.0025); NaN where a rater's labels leave the PASS share 0 or 1."""
    n = tables.sum(axis=1).astype(float)
    both_fail, split, both_pass = tables[:, 0], tables[:, 1] + tables[:, 2], tables[:, 3]
    share = (2 * both_pass + split) / (2 * n)
    spread = share * (1 - share)
    kappa = KAPPA_GRID[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = [(1 - share)[:, None] ** 2 + spread[:, None] * kappa, 2 * spread[:, None] * (1 - kappa),
                    share[:, None] ** 2 + spread[:, None] * kappa]
        chi2 = sum((seen[:, None] - n[:, None] * e) ** 2 / (n[:, None] * e)
                   for seen, e in zip((both_fail, split, both_pass), expected, strict=True))
        possible = np.all([e >= 0 for e in expected], axis=0)
    inside = possible & (chi2 <= CHI2_1_95) & (spread[:, None] > 0)
    low = np.where(inside.any(axis=1), KAPPA_GRID[np.argmax(inside, axis=1)], np.nan)
    high = np.where(inside.any(axis=1), KAPPA_GRID[::-1][np.argmax(inside[:, ::-1], axis=1)], np.nan)
    return low, high


def _profile_likelihood(tables: np.ndarray, steps: int = 41) -> tuple[np.ndarray, np.ndarray]:
    """The profile-likelihood interval of Cohen's kappa for every 2×2 table: the kappas whose multinomial
    likelihood, maximised over both raters' PASS shares (a grid of ``steps``² pairs), is within chi-square 3.84 /
    2 of the unconstrained maximum. Given the two PASS shares and kappa, the table's cells are fixed:
    p(PASS, PASS) = (κ(1 − pₑ) + pₑ − 1 + p₁ + q₁) / 2."""
    counts = tables.astype(float)
    n = counts.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        best = np.where(counts > 0, counts * np.log(counts / n[:, None]), 0.0).sum(axis=1)
    shares = (np.arange(steps) + 0.5) / steps
    p1, q1 = (a.ravel() for a in np.meshgrid(shares, shares))
    chance = p1 * q1 + (1 - p1) * (1 - q1)
    inside = np.zeros((len(tables), KAPPA_GRID.size), dtype=bool)
    for k, kappa in enumerate(KAPPA_GRID):
        both = (kappa * (1 - chance) + chance - 1 + p1 + q1) / 2  # p(PASS, PASS); rows FAIL, PASS
        cells = np.stack([1 - p1 - q1 + both, q1 - both, p1 - both, both])  # (FAIL, FAIL), (FAIL, PASS), ...
        valid = np.all(cells >= 0, axis=0)
        if not valid.any():
            continue
        with np.errstate(divide="ignore"):
            logs = np.log(np.clip(cells[:, valid], 0.0, None))
        # 0·log 0 = 0: a count of zero never penalises an empty cell.
        found = np.where(counts[:, :, None] > 0, counts[:, :, None] * logs[None, :, :], 0.0).sum(axis=1).max(axis=1)
        inside[:, k] = 2 * (best - found) <= CHI2_1_95
    low = np.where(inside.any(axis=1), KAPPA_GRID[np.argmax(inside, axis=1)], np.nan)
    high = np.where(inside.any(axis=1), KAPPA_GRID[::-1][np.argmax(inside[:, ::-1], axis=1)], np.nan)
    return low, high


def small_kappa(sizes: tuple[int, ...] = SMALL_KAPPA_SIZES) -> None:
    """PASS/FAIL kappa below 25 items, exactly (every table with its multinomial chance): the Donner–Eliasziw
    goodness-of-fit interval and the profile-likelihood interval beside the report's Jeffreys posterior, on the
    18 cells (most of them with unequal marginals: the judge's TPR and TNR differ, or its errors do not balance
    the expert's classes). A table where a rater used one label gets no interval from any of them."""
    print("\n### PASS/FAIL kappa below 25 items: exact coverage of three intervals (the 25-item rule off)\n")
    print("| n | interval | cells outside 93–97% (of 18) | lowest | highest |")
    print("|---:|---|---:|---:|---:|")
    for n in sizes:
        tables = _all_tables(n)
        likely = np.zeros(len(tables), dtype=bool)
        for cell, _ in binary_cells():
            likely |= _log_multinomial(tables, n, cell.joint.ravel()) > np.log(NEGLIGIBLE)
        tables = tables[likely]
        one_label = ((tables[:, 0] + tables[:, 1] == 0) | (tables[:, 2] + tables[:, 3] == 0)
                     | (tables[:, 0] + tables[:, 2] == 0) | (tables[:, 1] + tables[:, 3] == 0))
        ends = [intervals.kappa_posterior_interval(row.reshape(2, 2)) for row in tables]
        posterior = np.array([(e.low, e.high) for e in ends])
        made = {"Jeffreys posterior (report, from 25 items)": (posterior[:, 0], posterior[:, 1]),
                "Donner–Eliasziw goodness of fit": _donner_eliasziw(tables),
                "profile likelihood": _profile_likelihood(tables)}
        for name, (lows, highs) in made.items():
            given = ~one_label & np.isfinite(lows)
            covered = []
            for cell, truth in binary_cells():
                chance = np.exp(_log_multinomial(tables, n, cell.joint.ravel()))
                share = float(chance[given].sum())
                kappa = truth["cohen_kappa"]
                hit = given & (lows <= kappa + 1e-9) & (highs >= kappa - 1e-9)
                covered.append(float(chance[hit].sum()) / share)
            outside = sum(not 0.93 <= c <= 0.97 for c in covered)
            print(f"| {n} | {name} | {outside} | {min(covered):.1%} | {max(covered):.1%} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--studies", type=int, default=1000)
    parser.add_argument("--part", choices=("binary", "graded", "methods", "exact", "scan", "three-point", "four-point",
                                           "five-point", "large", "pearson", "corrected", "small-kappa", "all"),
                        default="all")
    parser.add_argument("--sizes", default=None,
                        help="study sizes for --part exact (default 12,25,46,100) or --part five-point (default "
                             "25,30,35,40,46,100,400), comma-separated; --part scan takes every size 12-50")
    parser.add_argument("--no-size-rule", action="store_true",
                        help="give kappa intervals below their size rule too (kappa_min_items; to show why the rule is there)")
    parser.add_argument("--seed", type=int, default=777,
                        help="the seed of --part three-point, four-point and five-point (another draw of the same cells)")
    args = parser.parse_args()
    if args.no_size_rule:
        intervals.KAPPA_MIN_ITEMS = 0
        intervals.WEIGHTED_KAPPA_THREE_MIN_ITEMS = 0
    args.sizes_given = args.sizes is not None
    args.sizes = args.sizes or "12,25,46,100"
    start = time.perf_counter()
    if args.part in ("binary", "all"):
        run("PASS/FAIL", binary_cells(), "binary", args.studies)
    if args.part in ("graded", "all"):
        run("Graded (CIS-like, five points)", graded_cells(), "cis", args.studies)
    if args.part in ("exact", "all"):
        exact_binary(tuple(int(n) for n in args.sizes.split(",")))
    if args.part == "scan":
        exact_binary(tuple(range(12, 51)), table=False)
    points = {"three-point": 3, "four-point": 4, "five-point": 5}.get(args.part)
    if points is not None:
        scale_kappa(args.studies, tuple(int(n) for n in args.sizes.split(",")) if args.sizes_given
                    else FIVE_POINT_SIZES, points, args.seed)
    if args.part == "large":
        large_binary(args.studies)
    if args.part == "small-kappa":
        small_kappa(tuple(int(n) for n in args.sizes.split(",")) if args.sizes_given else SMALL_KAPPA_SIZES)
    if args.part == "corrected":
        corrected(args.studies, tuple(int(n) for n in args.sizes.split(",")) if args.sizes_given else CORRECTED_SIZES)
    if args.part == "pearson":
        pearson(args.studies, tuple(int(n) for n in args.sizes.split(",")) if args.sizes_given else PEARSON_SIZES)
    if args.part in ("methods", "all"):
        compare_methods(args.studies)
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
