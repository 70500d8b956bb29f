"""Pearson's r and the corrected pass rate: the report's interval beside the alternatives measured against it.

The cells, sizes and seeds are those of ``bench_decisions_coverage.py --part pearson`` and ``--part corrected``;
each study is scored by the report's own function and by every alternative on the same draws, and the summary
gives each method's coverage range over the cells and how many fall outside 93–97%.

Pearson's r (studies where r is undefined or ±1, or the report gives no interval, left out):

* ``jackknife, t`` — the report's ``intervals.pearson_interval``: Fisher's z ± t(n − 1)·SE, SE the jackknife's;
* ``jackknife, z`` — the same SE with the normal quantile;
* ``delta, t`` — the infinitesimal jackknife's (delta method's) SE of r from ``linearised.pearson_influence``,
  on z's scale, with t(n − 1); ``delta × n/(n − 1), t`` the same variance scaled up by n/(n − 1);
* ``mean of both, t`` — the mean of the jackknife's and the delta method's variances;
* not a method but a yardstick: z ± 1.96 × z's true standard deviation in the cell, which no study knows, and
  the half-width on z that would cover exactly 95% there (``oracle``).

The corrected pass rate (labelled items and 200 judge-only items from one pool; studies whose correction is
undefined left out; "no interval" counted apart):

* ``Jeffreys, equal tails`` — the report's ``agreement.corrected_pass_rate``;
* ``Jeffreys, shortest`` — the shortest interval holding 95% of the same draws;
* ``Jeffreys, one-sided at an edge`` — the same draws' [5%, 100%] (or [0%, 95%]) quantiles when 2.5% or more of
  them sit on one edge of [0, 1] only, equal tails otherwise;
* ``Lang–Reiczigel`` — Lang and Reiczigel (2014), the adjusted Wald interval with its shift;
* ``posterior over the pass rate`` — the pass rate's own posterior under a Jeffreys prior, TPR and TNR from
  their Jeffreys posteriors, the judge-only passes binomial in π·TPR + (1 − π)(1 − TNR) (a 400-point grid,
  1,000 draws of TPR and TNR);
* and the same yardstick as for r: the estimate ± 1.96 × its true standard deviation in the cell.

Run from the project root (niced on a shared machine):
    nice .venv/bin/python benchmarks/bench_interval_alternatives.py --part pearson --studies 1000
    nice .venv/bin/python benchmarks/bench_interval_alternatives.py --part corrected --studies 300 --rates 0.9   # and 0.74, 0.5
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from bench_decisions_coverage import JUDGE_ONLY_ITEMS, corrected_studies, graded_cells

from judge_tui.stats import agreement as ag
from judge_tui.stats.intervals import Interval, pearson_interval, t_value, z_value
from judge_tui.stats.linearised import pearson_influence

CONFIDENCE = 0.95
Ends = tuple[float, float] | None


def summary(tallies: dict[str, list[float]]) -> None:
    print("\n| method | coverage, lowest–highest | cells below 93% | cells above 97% |")
    print("|---|---:|---:|---:|")
    for name, found in tallies.items():
        below = sum(c < 0.93 for c in found)
        above = sum(c > 0.97 for c in found)
        print(f"| {name} | {min(found):.1%}–{max(found):.1%} | {below} of {len(found)} | {above} of {len(found)} |")


def pearson_methods(x: np.ndarray, y: np.ndarray, r: float, found: Interval) -> dict[str, Ends]:
    n = x.size
    centre, t = math.atanh(r), t_value(CONFIDENCE, n - 1)
    jack = (math.atanh(found.high) - math.atanh(found.low)) / (2.0 * t)  # the report's jackknife SE on z's scale
    g = pearson_influence(x, y)
    delta = float(((g - g.mean()) ** 2).sum()) / (1.0 - r * r) ** 2
    halves = {"jackknife, t (report)": t * jack, "jackknife, z": z_value(CONFIDENCE) * jack,
              "delta, t": t * math.sqrt(delta), "delta × n/(n − 1), t": t * math.sqrt(delta * n / (n - 1)),
              "mean of both, t": t * math.sqrt((jack * jack + delta) / 2.0)}
    return {name: (math.tanh(centre - half), math.tanh(centre + half)) for name, half in halves.items()}


# Not methods: what an interval could do in a cell if it knew the cell (see ``oracle``).
ORACLE = "z ± 1.96 × its true SD (knows the cell)"
ORACLE_RATE = "estimate ± 1.96 × its true SD (knows the cell)"


def oracle(estimates: np.ndarray, truth: float) -> tuple[float, float]:
    """The estimate ± 1.96 × its true standard deviation in this cell (read off the cell's own studies; for r,
    on Fisher's z): its coverage, and the half-width a fixed-width interval around the estimate needs to cover
    exactly 95%, in those deviations (1.96 for a normal estimate). Where that is far from 1.96 the estimate's
    draws are lumped or skewed (a skewed expert's few distinct scores, a judge whose rare errors most samples
    never show), and no interval as wide as the estimate's own spread covers 95% there."""
    spread = float(np.std(estimates))
    errors = np.abs(estimates - truth)
    return float(np.mean(errors <= 1.96 * spread)), float(np.quantile(errors, 0.95)) / spread


def pearson(studies: int, sizes: tuple[int, ...]) -> None:
    print(f"\n### Pearson's r: coverage of each method ({studies} studies a cell)\n")
    tallies: dict[str, list[float]] = {}
    for points in (5, 3):
        for index, (cell, truth) in enumerate(graded_cells(points)):
            rho, k = truth["pearson_r"], cell.points.size
            for n in sizes:
                rng = np.random.default_rng(np.random.SeedSequence([779, points, index, n]))
                drawn = rng.choice(k * k, size=(studies, n), p=cell.joint.ravel())
                covered: dict[str, int] = {}
                given, zs = 0, []
                for codes in drawn:
                    x, y = cell.points[codes // k], cell.points[codes % k]
                    if np.ptp(x) == 0 or np.ptp(y) == 0:
                        continue
                    r = float(np.corrcoef(x, y)[0, 1])
                    found = pearson_interval(x, y, r, CONFIDENCE) if abs(r) < 1.0 - 1e-12 else None
                    if not isinstance(found, Interval):
                        continue
                    given += 1
                    zs.append(math.atanh(r))
                    for name, ends in pearson_methods(x, y, r, found).items():
                        assert ends is not None
                        covered[name] = covered.get(name, 0) + (ends[0] <= rho <= ends[1])
                shares = {name: c / given for name, c in covered.items()}
                shares[ORACLE], needed = oracle(np.asarray(zs), math.atanh(rho))
                for name, share in shares.items():
                    tallies.setdefault(name, []).append(share)
                print(f"| {points} points | {cell.name} | {n} | "
                      + " | ".join(f"{name} {share:.1%}" for name, share in shares.items())
                      + f" | 95% needs ± {needed:.2f} true SDs |", flush=True)
    summary(tallies)


def lang_reiczigel(tp: int, fn: int, tn: int, fp: int, passes: int, n: int) -> Ends:
    """Lang and Reiczigel (2014): TPR and TNR with one success and one failure added, the judge's pass rate with
    z²/2 of each, a Wald interval on the corrected rate shifted by their bias term, clipped to [0, 1]."""
    z = z_value(CONFIDENCE)
    n_pass, n_fail, n_only = tp + fn + 2, tn + fp + 2, n + z * z
    tpr, tnr, seen = (tp + 1) / n_pass, (tn + 1) / n_fail, (passes + z * z / 2) / n_only
    youden = tpr + tnr - 1.0
    if youden <= 0:
        return None
    rate = (seen + tnr - 1.0) / youden
    se = math.sqrt(seen * (1 - seen) / n_only + tpr * (1 - tpr) / n_pass * rate**2
                   + tnr * (1 - tnr) / n_fail * (1 - rate) ** 2) / youden
    shift = 2 * z * z * (rate * tpr * (1 - tpr) / n_pass - (1 - rate) * tnr * (1 - tnr) / n_fail)
    return max(0.0, rate + shift - z * se), min(1.0, rate + shift + z * se)


GRID = (np.arange(400) + 0.5) / 400


def pass_rate_posterior(tp: int, fn: int, tn: int, fp: int, passes: int, n: int, rng: np.random.Generator) -> Ends:
    tpr = rng.beta(tp + 0.5, fn + 0.5, 1000)
    tnr = rng.beta(tn + 0.5, fp + 0.5, 1000)
    keep = tpr + tnr > 1.0
    if keep.mean() < ag.MIN_USABLE_RESAMPLES:
        return None
    q = GRID[None, :] * tpr[keep, None] + (1.0 - GRID[None, :]) * (1.0 - tnr[keep, None])
    log_likelihood = passes * np.log(q) + (n - passes) * np.log1p(-q)
    weight = np.exp(log_likelihood - log_likelihood.max()).mean(axis=0) / np.sqrt(GRID * (1.0 - GRID))
    cdf = np.cumsum(weight) / weight.sum()
    return float(GRID[np.searchsorted(cdf, 0.025)]), float(GRID[np.searchsorted(cdf, 0.975)])


def report_draws(tp: int, fn: int, tn: int, fp: int, passes: int, n: int) -> np.ndarray | None:
    """The corrected rates ``corrected_pass_rate`` draws (its default seed and count), sorted."""
    rng = np.random.default_rng(20260128)
    tpr = rng.beta(tp + 0.5, fn + 0.5, size=2000)
    tnr = rng.beta(tn + 0.5, fp + 0.5, size=2000)
    seen = ag.judge_only_pass_rates(passes / n, n, 2000, rng)
    usable = tpr + tnr > 1.0
    if usable.sum() < ag.MIN_USABLE_RESAMPLES * 2000:
        return None
    return np.sort(ag.rogan_gladen(seen, tpr, tnr)[usable])


def shortest(s: np.ndarray) -> tuple[float, float]:
    k = int(np.ceil(CONFIDENCE * s.size)) - 1
    i = int(np.argmin(s[k:] - s[: s.size - k]))
    return float(s[i]), float(s[i + k])


def one_sided_at_an_edge(s: np.ndarray) -> tuple[float, float]:
    top, bottom = float(np.mean(s >= 1.0)), float(np.mean(s <= 0.0))
    low = 0.05 if top >= 0.025 > bottom else (0.0 if bottom >= 0.025 > top else 0.025)
    ends = np.percentile(s, [100 * low, 100 * (low + CONFIDENCE)])
    return float(ends[0]), float(ends[1])


def corrected(studies: int, rates: tuple[float, ...]) -> None:
    print(f"\n### The corrected pass rate: coverage of each method ({studies} studies a cell)\n")
    tallies: dict[str, list[float]] = {}
    for rate in rates:
        for tpr in (0.8, 0.95, 1.0):
            for tnr in (0.7, 0.82, 0.95):
                for n in (25, 46, 100):
                    tally: dict[str, list[int]] = {}
                    estimates = []
                    for human, judge, only, found, rng in corrected_studies(rate, tpr, tnr, n, studies):
                        assert isinstance(found.estimate, float)
                        estimates.append(found.estimate)
                        counts = (int((human & judge).sum()), int((human & ~judge).sum()),
                                  int((~human & ~judge).sum()), int((~human & judge).sum()), int(only.sum()),
                                  JUDGE_ONLY_ITEMS)
                        draws = report_draws(*counts)
                        report = (found.low, found.high) if isinstance(found.low, float) and isinstance(
                            found.high, float) else None
                        if draws is not None and report is not None:  # the same draws as the report's
                            assert np.allclose(np.percentile(draws, [2.5, 97.5]), report, atol=1e-9)
                        methods: dict[str, Ends] = {
                            "Jeffreys, equal tails (report)": report,
                            "Jeffreys, shortest": None if draws is None else shortest(draws),
                            "Jeffreys, one-sided at an edge": None if draws is None else one_sided_at_an_edge(draws),
                            "Lang–Reiczigel": lang_reiczigel(*counts),
                            "posterior over the pass rate": pass_rate_posterior(*counts, rng),
                        }
                        for name, ends in methods.items():
                            entry = tally.setdefault(name, [0, 0, 0])
                            if ends is None:
                                entry[2] += 1
                            else:
                                entry[0] += ends[0] <= rate <= ends[1]
                                entry[1] += 1
                    for name, (c, g, _) in tally.items():
                        tallies.setdefault(name, []).append(c / g)
                    known, needed = oracle(np.asarray(estimates), rate)
                    tallies.setdefault(ORACLE_RATE, []).append(known)
                    print(f"| {rate:.2f} | {tpr:.2f} | {tnr:.2f} | {n} | " + " | ".join(
                        f"{name} {c / g:.1%} ({none} none)" for name, (c, g, none) in tally.items())
                        + f" | {ORACLE_RATE} {known:.1%} | 95% needs ± {needed:.2f} true SDs |", flush=True)
    summary(tallies)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("pearson", "corrected"), required=True)
    parser.add_argument("--studies", type=int, default=1000)
    parser.add_argument("--sizes", default="12,25,46,100,400", help="study sizes for --part pearson")
    parser.add_argument("--rates", default="0.5,0.74,0.9", help="pass rates for --part corrected")
    args = parser.parse_args()
    start = time.perf_counter()
    if args.part == "pearson":
        pearson(args.studies, tuple(int(n) for n in args.sizes.split(",")))
    else:
        corrected(args.studies, tuple(float(r) for r in args.rates.split(",")))
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
