"""Does `judge-tui certify` err no more often than δ? Simulated studies with a known truth.

    .venv/bin/python benchmarks/bench_selective.py [--studies 2000] [--runs 3] [--alpha 0.1] [--delta 0.1]
    .venv/bin/python benchmarks/bench_selective.py --confidence stated [--studies 2000]

Each study has N expert-rated PASS/FAIL items (25, 50, 100, 200, 500; 80% PASS) and a judge that rated each K times.
Every item belongs to a kind of item with a known chance that the judge's first run (its verdict) is wrong and
known chances that each further run agrees with the first, depending on whether the first was right:

* informative: 70% easy items (each run right 97% of the time), 30% hard ones (70%): runs agree more often where
  the verdict is right, as real repeats do; the cell where certification pays;
* borderline: 49% easy items (97%) and 51% on which the judge guesses (each run right half the time), so
  that with K = 3 the disagreement on the items whose runs all agree is 0.111, just above α = 0.1: the cell
  where a wrong certificate is likeliest;
* useless: the verdict is wrong on 11% of items whatever the runs do (they agree 60% or 95% of the time, half
  the items each): every threshold keeps items just over α = 0.1 wrong;
* misleading: wrong on 11% of items, and the runs agree more often (97%) with a wrong verdict than a right one
  (70%): the surest items are the worst;
* rarely errs: 90% of items right 99% of the time, 10% right 80%.

With `--confidence stated` the judge's confidence is a number it gives with each verdict (its stated
confidence, or its scores' token probability: `certify --confidence stated|logprob`), on 20 levels from 0.525 to
1 drawn evenly, many more candidate thresholds than repeats give. The chance that the verdict is wrong depends
on the level:

* informative: 0.6 × (1 − level): 0 at 1, 0.285 at 0.525, 0.143 on average;
* borderline: 0.105 on the five levels from 0.9 up, 0.3 below: the surest items are just over α = 0.1 wrong;
* useless: 0.11 whatever the level;
* misleading: rising with the level, from 0.01 at 0.525 to 0.22 at 1: the surest items are the worst;
* rarely errs: 0.02 × (1 − level).

The runs are drawn item by item, the judge's confidence is computed by the command's own
`analysis.certify.repeat_confidence` and its disagreement with the experts by `analysis.certify.disagreements`,
and the threshold by `stats.selective.certify`. The true disagreement rate among the items a threshold keeps is
computed exactly from the kinds of items (no sampling). A study errs when it certifies a threshold whose true
rate exceeds α; the guarantee is that at most δ of studies err. Also shown: the share of studies certifying any
threshold and the mean true coverage (the share of all items the judge keeps; 0 when nothing is certified).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judge_tui.analysis.certify import disagreements, repeat_confidence  # noqa: E402
from judge_tui.model.rubrics import Scale, get_rubric  # noqa: E402
from judge_tui.model.settings import AgreementSettings  # noqa: E402
from judge_tui.stats.selective import certify  # noqa: E402

SIZES = (25, 50, 100, 200, 500)
PASS_SHARE = 0.8
SETTINGS = AgreementSettings(tolerance=0.15)


@dataclass(frozen=True)
class Kind:
    """A kind of item: its share, the chance the verdict is wrong, and the chance a further run agrees with the
    verdict when it is right and when it is wrong."""

    share: float
    wrong: float
    agree_if_right: float
    agree_if_wrong: float


def runs_right(share: float, right: float) -> Kind:
    """Items on which each run is right with chance ``right``, independently: two runs agree when both are right
    or both wrong (PASS/FAIL)."""
    return Kind(share, 1.0 - right, right, 1.0 - right)


SCENARIOS: dict[str, tuple[Kind, ...]] = {
    "informative": (runs_right(0.7, 0.97), runs_right(0.3, 0.70)),
    "borderline": (runs_right(0.49, 0.97), runs_right(0.51, 0.5)),
    "useless": (Kind(0.5, 0.11, 0.60, 0.60), Kind(0.5, 0.11, 0.95, 0.95)),
    "misleading": (Kind(1.0, 0.11, 0.70, 0.97),),
    "rarely errs": (runs_right(0.9, 0.99), runs_right(0.1, 0.80)),
}


LEVELS = np.round(np.linspace(0.525, 1.0, 20), 12)  # the stated confidences, drawn evenly


def _stated(wrong: np.ndarray) -> np.ndarray:
    return np.asarray(wrong, dtype=np.float64)


STATED_SCENARIOS: dict[str, np.ndarray] = {  # the chance the verdict is wrong at each level
    "informative": _stated(0.6 * (1.0 - LEVELS)),
    "borderline": _stated(np.where(LEVELS >= 0.9, 0.105, 0.3)),
    "useless": _stated(np.full(LEVELS.size, 0.11)),
    "misleading": _stated(0.01 + 0.21 * (LEVELS - LEVELS[0]) / (LEVELS[-1] - LEVELS[0])),
    "rarely errs": _stated(0.02 * (1.0 - LEVELS)),
}


def stated_rates(wrong: np.ndarray) -> dict[float, tuple[float, float]]:
    """For every level as a threshold: the true share of items kept and the true disagreement rate among them."""
    return {float(level): (float((level <= LEVELS).mean()), float(wrong[level <= LEVELS].mean()))
            for level in LEVELS.tolist()}


def draw_stated(wrong_at: np.ndarray, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The experts' labels, the judge's verdicts (n x 1) and its stated confidences of one simulated study."""
    level = rng.integers(0, LEVELS.size, size=n)
    truth = (rng.random(n) < PASS_SHARE).astype(np.float64)
    wrong = rng.random(n) < wrong_at[level]
    return truth, np.where(wrong, 1.0 - truth, truth)[:, np.newaxis], LEVELS[level]


def true_rates(kinds: tuple[Kind, ...], runs: int) -> dict[float, tuple[float, float]]:
    """For every threshold a/K: the true share of items kept and the true disagreement rate among them."""
    out = {}
    for agreeing in range(1, runs + 1):
        kept = wrong = 0.0
        for kind in kinds:
            for is_wrong, agree in ((False, kind.agree_if_right), (True, kind.agree_if_wrong)):
                chance = kind.share * (kind.wrong if is_wrong else 1.0 - kind.wrong)
                at_least = sum(math.comb(runs - 1, a) * agree ** a * (1 - agree) ** (runs - 1 - a)
                               for a in range(agreeing - 1, runs))
                kept += chance * at_least
                wrong += chance * at_least * is_wrong
        out[round(agreeing / runs, 12)] = (kept, wrong / kept if kept else 0.0)
    return out


def draw_study(kinds: tuple[Kind, ...], n: int, runs: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The experts' labels (n) and the judge's runs (runs x n x 1) of one simulated study."""
    which = rng.choice(len(kinds), size=n, p=[k.share for k in kinds])
    wrong_chance = np.array([k.wrong for k in kinds])[which]
    truth = (rng.random(n) < PASS_SHARE).astype(np.float64)
    wrong = rng.random(n) < wrong_chance
    verdict = np.where(wrong, 1.0 - truth, truth)
    agree = np.where(wrong, np.array([k.agree_if_wrong for k in kinds])[which],
                     np.array([k.agree_if_right for k in kinds])[which])
    others = rng.random((runs - 1, n)) < agree
    table = np.vstack([verdict[np.newaxis], np.where(others, verdict, 1.0 - verdict)])
    return truth, table[:, :, np.newaxis]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--studies", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--alpha", type=float, default=0.1)
    parser.add_argument("--delta", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--confidence", choices=["repeats", "stated"], default="repeats",
                        help="the agreement of the judge's runs (default), or a confidence it states")
    args = parser.parse_args()
    scale = get_rubric("binary").scale
    rng = np.random.default_rng(args.seed)
    started = time.process_time()
    if args.confidence == "stated":
        print(f"α {args.alpha}, δ {args.delta}, a stated confidence on {LEVELS.size} levels, {args.studies} "
              "studies a cell\n")
        _stated_table(args.alpha, args.delta, args.studies, scale, rng)
        print(f"\n{time.process_time() - started:.1f} CPU seconds")
        return
    print(f"α {args.alpha}, δ {args.delta}, {args.runs} runs an item, {args.studies} studies a cell\n")
    print("| judge's confidence | true rate per threshold (kept share: rate) | items | studies erring "
          "(95% upper) | certifying any | mean true coverage |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, kinds in SCENARIOS.items():
        rates = true_rates(kinds, args.runs)
        described = ", ".join(f"λ {lam:.2f}: {kept:.0%} kept, {rate:.3f}" for lam, (kept, rate)
                              in sorted(rates.items(), reverse=True))
        for n in SIZES:
            erring = certifying = 0
            coverage = 0.0
            for _ in range(args.studies):
                truth, runs = draw_study(kinds, n, args.runs, rng)
                confidence = repeat_confidence(runs, scale, SETTINGS)
                _, wrong = disagreements(truth[:, np.newaxis], runs[0], scale, SETTINGS)
                threshold = certify(confidence, wrong, args.alpha, args.delta).threshold
                if threshold is None:
                    continue
                certifying += 1
                kept, rate = rates[round(threshold, 12)]
                coverage += kept
                erring += rate > args.alpha
            upper = 1.0 - (0.05 ** (1 / args.studies)) if erring == 0 else _upper(erring, args.studies)
            print(f"| {name} | {described} | {n} | {erring / args.studies:.3f} ({upper:.3f}) | "
                  f"{certifying / args.studies:.2f} | {coverage / args.studies:.2f} |")
            described = ""
    print(f"\n{time.process_time() - started:.1f} CPU seconds")


def _stated_table(alpha: float, delta: float, studies: int, scale: Scale, rng: np.random.Generator) -> None:
    print("| judge's confidence | true rate at λ 1, 0.9, 0.75, 0.525 (kept share: rate) | items | studies erring "
          "(95% upper) | certifying any | mean true coverage |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, wrong_at in STATED_SCENARIOS.items():
        rates = stated_rates(wrong_at)
        described = ", ".join(f"λ {lam:.3g}: {rates[lam][0]:.0%} kept, {rates[lam][1]:.3f}"
                              for lam in (1.0, 0.9, 0.75, 0.525))
        for n in SIZES:
            erring = certifying = 0
            coverage = 0.0
            for _ in range(studies):
                truth, verdict, confidence = draw_stated(wrong_at, n, rng)
                _, wrong = disagreements(truth[:, np.newaxis], verdict, scale, SETTINGS)
                threshold = certify(confidence, wrong, alpha, delta).threshold
                if threshold is None:
                    continue
                certifying += 1
                kept, rate = rates[round(threshold, 12)]
                coverage += kept
                erring += rate > alpha
            upper = 1.0 - (0.05 ** (1 / studies)) if erring == 0 else _upper(erring, studies)
            print(f"| {name} | {described} | {n} | {erring / studies:.3f} ({upper:.3f}) | "
                  f"{certifying / studies:.2f} | {coverage / studies:.2f} |")
            described = ""


def _upper(k: int, n: int) -> float:
    """The one-sided 95% Clopper–Pearson upper bound of k of n studies (the same bound, at δ = 0.05)."""
    from judge_tui.stats.selective import clopper_pearson_upper

    return clopper_pearson_upper(k, n, 0.05)


if __name__ == "__main__":
    main()
