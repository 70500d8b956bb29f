"""Which confidence orders items best by agreement with the experts, and what `judge-tui certify` keeps, on the
published data sets of tests/data/alt_test (SummEval, MT-Bench, CEBaB and six more).

    .venv/bin/python benchmarks/bench_confidence_public.py [--splits 200] [--delta 0.1] [--seed 41]

Each data set holds several experts' labels of every item and six LLMs' (four for the lesion set). The experts'
consensus is the command's (`analysis.scores.consensus`: the mean on a scale of numbers, the majority on named
categories; an item whose majority ties is left out), and a verdict disagrees with it as the command counts it
(`analysis.certify.disagreements`, at the default agreement tolerance). The files hold one label per LLM and
item: no repeated runs, no stated confidence, no token log-probabilities. So the confidences measured are those
the files allow:

* jury: the six LLMs as one jury (`analysis.certify.jury_verdicts`, as `certify --jury` computes it): its
  verdict, and the share of its members agreeing with it;
* one LLM (gpt-4o) and the share of the other LLMs agreeing with its label: a stand-in for the agreement of a
  judge's own repeated runs (`certify --confidence repeats`), which the files do not hold;
* chance: a random number per item, the baseline a confidence must beat.

For scale, the agreement the experts reach among themselves: each expert's label against the other experts'
consensus. How well a confidence orders items is its AUROC: the chance that an item the verdict gets right (aligned with
the experts) has a higher confidence than one it gets wrong, ties counting half (0.5: no better than chance).

Then the certificate on held-out items, `--splits` times: the items are split at random in two halves; the
threshold is certified on one (`stats.selective.certify`, α and δ as given) and applied to the other, where the
coverage (the share of its items kept) and the agreement on the kept items are measured. Shown: the first
split's λ, coverage and agreement on kept items with its one-sided 95% Clopper–Pearson lower bound, and over
every split the share certifying any threshold, the mean coverage and agreement on kept items, and the share
of splits whose held-out disagreement on kept items exceeds α (a finite half, so this is a noisy look at the
guarantee, which is about the rate over items like these in the long run).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judge_tui.analysis.certify import disagreements, jury_verdicts  # noqa: E402
from judge_tui.analysis.scores import agreeing, consensus  # noqa: E402
from judge_tui.model.rubrics import Scale  # noqa: E402
from judge_tui.model.settings import DEFAULT_TOLERANCE, AgreementSettings  # noqa: E402
from judge_tui.stats.selective import certify, clopper_pearson_upper  # noqa: E402

DATA = ROOT / "tests" / "data" / "alt_test"
SETS = ("summeval", "mtbench", "cebab_stars", "cebab_aspects", "10k_prompts", "lesion", "framing", "lgbteen", "wax")
ONE_JUDGE = "gpt-4o"


def published(name: str) -> dict[str, dict[str, dict[str, object]]]:
    """The authors' files: "humans" and "llms", each rater's label by item."""
    path = DATA / f"{name}.json"
    text = path.read_bytes() if path.exists() else gzip.decompress((DATA / f"{name}.json.gz").read_bytes())
    data: dict[str, dict[str, dict[str, object]]] = json.loads(text)
    return data


def scale_of(data: dict[str, dict[str, dict[str, object]]]) -> Scale:
    """Whole numbers from the lowest to the highest given, else the labels as nominal categories (as
    tests/test_alt_test_published.py enters each set)."""
    values = [v for side in data.values() for ratings in side.values() for v in ratings.values()]
    numbers = [v for v in values if isinstance(v, int)]
    if len(numbers) == len(values):
        return Scale(kind="integers", lowest=min(numbers), highest=max(numbers))
    return Scale(kind="categories", categories=sorted({str(v) for v in values}), order="nominal")


def matrix(scale: Scale, raters: dict[str, dict[str, object]], items: list[str]) -> np.ndarray:
    """Raters x items of stored scores, NaN where a rater left an item out."""
    out = np.full((len(raters), len(items)), np.nan)
    for row, labels in enumerate(raters.values()):
        for column, item in enumerate(items):
            if item in labels:
                value = labels[item]
                out[row, column] = scale.parse(value if isinstance(value, int) else str(value))
    return out


def expert_agreement(experts: np.ndarray, scale: Scale) -> float:
    """How often one expert's label aligns with the other experts' consensus, over every expert and item: the
    agreement the experts reach among themselves, for scale."""
    hits = total = 0
    for row in range(experts.shape[0]):
        others, _ = consensus(np.delete(experts, row, axis=0), ordered=not scale.nominal, min_raters=1)
        both = ~np.isnan(others) & ~np.isnan(experts[row])
        hits += int(agreeing(scale, experts[row][both], others[both], DEFAULT_TOLERANCE).sum())
        total += int(both.sum())
    return hits / total


def auroc(confidence: np.ndarray, right: np.ndarray) -> float:
    """P(confidence of a right item > that of a wrong one), ties half: the Mann–Whitney statistic over n1 n0."""
    values, inverse = np.unique(confidence, return_inverse=True)
    counts = np.bincount(inverse)
    rank_of = np.cumsum(counts) - (counts - 1) / 2.0  # the mean rank of each distinct value
    ranks = rank_of[inverse]
    n1, n0 = int(right.sum()), int((~right).sum())
    if not n1 or not n0:
        return float("nan")
    return float((ranks[right].sum() - n1 * (n1 + 1) / 2.0) / (n1 * n0))


def held_out(confidence: np.ndarray, wrong: np.ndarray, alpha: float, delta: float, splits: int,
             rng: np.random.Generator) -> dict[str, float | None]:
    """Certify on a random half, measure on the other, ``splits`` times."""
    n = confidence.size
    first: dict[str, float | None] = {}
    certifying = over = wrong_certificates = 0
    coverages, agreements = [], []
    for split in range(splits):
        order = rng.permutation(n)
        calibration, test = order[: n // 2], order[n // 2:]
        threshold = certify(confidence[calibration], wrong[calibration], alpha, delta).threshold
        kept = test[confidence[test] >= threshold] if threshold is not None else test[:0]
        coverage = kept.size / test.size
        k = int(wrong[kept].sum())
        agreement = 1.0 - k / kept.size if kept.size else None
        if split == 0:
            first = {"lambda": threshold, "coverage": coverage, "agreement": agreement,
                     "lower": 1.0 - clopper_pearson_upper(k, kept.size, 0.05) if kept.size else None}
        if threshold is not None:
            certifying += 1
            over += kept.size > 0 and k / kept.size > alpha
            # The data set as the population the halves are drawn from: its rate among the items λ̂ keeps.
            wrong_certificates += float(wrong[confidence >= threshold].mean()) > alpha
        coverages.append(coverage)
        if agreement is not None:
            agreements.append(agreement)
    return {**{f"first_{key}": value for key, value in first.items()}, "certifying": certifying / splits,
            "coverage": float(np.mean(coverages)), "agreement": float(np.mean(agreements)) if agreements else None,
            "over_alpha": over / splits, "wrong": wrong_certificates / splits}


def _share(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--splits", type=int, default=200)
    parser.add_argument("--alpha", type=float, action="append", help="α (repeat for several; default 0.1, 0.2 and 0.3)")
    parser.add_argument("--delta", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--sets", default=",".join(SETS), help="comma-separated data sets")
    args = parser.parse_args()
    alphas = args.alpha or [0.1, 0.2, 0.3]
    started = time.process_time()
    ordering = ["| data set | an expert vs the others | items | confidence | agreement, all items | AUROC |",
                "| --- | --- | --- | --- | --- | --- |"]
    certified = ["| data set | confidence | α | first split: λ, coverage, agreement on kept (95% lower) | "
                 f"over {args.splits} splits: certifying, mean coverage, mean agreement on kept | held-out "
                 "disagreement on kept > α | whole set's disagreement at λ̂ > α |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for name in args.sets.split(","):
        data = published(name)
        scale = scale_of(data)
        items = sorted(set().union(*data["humans"].values()))
        experts = matrix(scale, data["humans"], items)
        llms = matrix(scale, data["llms"], items)
        reference, _ = consensus(experts, ordered=not scale.nominal, min_raters=1)
        sources: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        verdict, confidence = jury_verdicts(llms[:, :, np.newaxis], scale, AgreementSettings())
        sources[f"jury of {len(data['llms'])} LLMs"] = (verdict, confidence)
        one = list(data["llms"]).index(ONE_JUDGE)
        others = np.delete(llms, one, axis=0)
        peers = agreeing(scale, others, llms[one][np.newaxis], DEFAULT_TOLERANCE).mean(axis=0)
        sources[f"{ONE_JUDGE}, other LLMs agreeing"] = (llms[one][:, np.newaxis], peers)
        rng = np.random.default_rng(args.seed)
        sources[f"{ONE_JUDGE}, chance"] = (llms[one][:, np.newaxis], rng.random(len(items)))
        for label, (verdict, confidence) in sources.items():
            rated, wrong = disagreements(reference[:, np.newaxis], verdict, scale, AgreementSettings())
            usable = rated & ~np.isnan(confidence)
            c, w = confidence[usable], wrong[usable]
            among = f"{expert_agreement(experts, scale):.1%}" if label.startswith("jury") else ""
            ordering.append(f"| {name} | {among} | {usable.sum()} | {label} | {1 - w.mean():.1%} | "
                            f"{auroc(c, ~w):.3f} |")
            if label.endswith("chance"):
                continue
            for alpha in alphas:
                found = held_out(c, w, alpha, args.delta, args.splits, np.random.default_rng(args.seed))
                lam = found["first_lambda"]
                first = ("nothing certified" if lam is None else
                         f"λ {lam:.3g}, {_share(found['first_coverage'])}, {_share(found['first_agreement'])} "
                         f"({_share(found['first_lower'])})")
                certified.append(f"| {name} | {label} | {alpha} | {first} | {found['certifying']:.0%}, "
                                 f"{_share(found['coverage'])}, {_share(found['agreement'])} | "
                                 f"{found['over_alpha']:.1%} | {found['wrong']:.1%} |")
    print(f"δ {args.delta}, tolerance {DEFAULT_TOLERANCE}, seed {args.seed}\n")
    print("\n".join(ordering))
    print()
    print("\n".join(certified))
    print(f"\n{time.process_time() - started:.1f} CPU seconds")


if __name__ == "__main__":
    main()
