"""Trust or escalate: on which items the judge may decide alone, certified on the experts' ratings.

The judge's confidence in an item is how often its repeated runs (`judge-tui judge --repeat K`) agree with its
own verdict, the first run (the rating every figure takes as the judge's): the share of its runs of the item
whose scores all align with the first run's, as `scores.agreeing` counts alignment on the rubric's scale. It
needs no log-probabilities, which the Anthropic API does not give. An item judged once has no confidence and is
never kept.

Certification (`stats.selective.certify`) runs on the items of one split (dev by default; never test, which
the report decides on) that the experts rated and the judge judged: the judge's verdict disagrees with the
experts' when any judged dimension is out of the tolerance of the experts' consensus (an adjudicated score
first, else the experts' mean, or their PASS/FAIL majority; one expert suffices, as for the jury). The
certificate's threshold then tells, for every item no expert has rated yet outside the certification and test
splits (which the experts rate: the one for the certificate, the other for the report), whether the judge decides
it (confidence at or above λ̂) or it goes to the experts (below, judged once, or not judged at all).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from judge_tui.analysis.scores import RubricRatings, agreeing, load
from judge_tui.analysis.team import is_expert, load_team, team_consensus
from judge_tui.model.errors import UserError
from judge_tui.model.rubrics import Rubric, Scale
from judge_tui.stats.selective import Certificate, certify
from judge_tui.store import Store

DEFAULT_SPLIT = "dev"
CONFIDENCE_SOURCE = "repeats"  # the one source built so far: agreement among the judge's runs


def repeat_confidence(runs: np.ndarray, scale: Scale, tolerance: float) -> np.ndarray:
    """Per item, the share of the judge's runs (runs x items x dimensions, the first run first) whose every
    score aligns with the first run's; NaN where the first run is missing or fewer than two runs are there."""
    runs = np.asarray(runs, dtype=np.float64)
    present = ~np.isnan(runs).all(axis=2)  # runs x items
    verdict = runs[0]
    scored = ~np.isnan(verdict)  # items x dimensions
    aligned = agreeing(scale, runs, verdict[np.newaxis], tolerance) | ~scored[np.newaxis]
    agrees = aligned.all(axis=2) & present
    counted = present.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = agrees.sum(axis=0) / counted
    return np.where(present[0] & (counted >= 2), share, np.nan)


def disagreements(reference: np.ndarray, verdict: np.ndarray, scale: Scale,
                  tolerance: float) -> tuple[np.ndarray, np.ndarray]:
    """Per item (items x dimensions on both sides): whether both sides scored a dimension at all, and whether
    any dimension both scored is out of tolerance."""
    both = ~np.isnan(reference) & ~np.isnan(verdict)
    misaligned = both & ~agreeing(scale, reference, verdict, tolerance)
    return both.any(axis=1), misaligned.any(axis=1)


@dataclass(frozen=True)
class Certification:
    """A judge's certificate on one split and what it means for the items no expert has rated."""

    rubric: str
    judge: str
    split: str
    tolerance: float
    most_runs: int  # the most runs the judge made of one certification item
    expert_rated: int  # items of the split both the experts and the judge rated
    judged_once: int  # of them, those without a confidence (a single run): left out of the certificate
    certificate: Certificate
    decided: tuple[str, ...]  # the ids of the unrated items (outside this split and test) the judge keeps
    escalated: tuple[str, ...]  # the ids of the others: the experts rate them

    @property
    def unrated(self) -> int:
        return len(self.decided) + len(self.escalated)

    @property
    def judge_decides(self) -> int:
        return len(self.decided)

    @property
    def escalate(self) -> int:
        return len(self.escalated)

    @property
    def certified(self) -> bool:
        return self.certificate.threshold is not None

    def to_json(self) -> dict[str, Any]:
        cert = self.certificate
        found = cert.certified
        return {
            "rubric": self.rubric, "judge": self.judge, "split": self.split, "tolerance": self.tolerance,
            "confidence": CONFIDENCE_SOURCE, "most_runs": self.most_runs,
            "alpha": cert.alpha, "delta": cert.delta, "certified": self.certified,
            "lambda": found.threshold if found else None,
            "coverage": cert.coverage, "kept": found.kept if found else 0,
            "disagreements": found.disagreements if found else None,
            "bound": found.bound if found else None,
            "n": cert.n, "expert_rated": self.expert_rated, "judged_once": self.judged_once,
            "tests": [{"lambda": t.threshold, "kept": t.kept, "disagreements": t.disagreements, "bound": t.bound,
                       "passed": t.passed} for t in cert.tests],
            "unrated": self.unrated, "judge_decides": self.judge_decides, "escalate": self.escalate,
        }  # fmt: skip


def judge_runs(ratings: RubricRatings, judge: str, keys: np.ndarray) -> np.ndarray:
    """The judge's runs over ``keys``: runs x items x judged dimensions, the first run (repeat 0) first, NaN
    where a run is missing (an item with fewer runs than another)."""
    columns = [ratings.rubric.dimension_ids.index(d.id) for d in ratings.rubric.judged_dimensions]
    by_repeat = ratings.by_repeat(judge, restrict=keys)
    repeats = sorted(by_repeat, key=lambda r: (r != 0, r))
    out = np.full((max(len(repeats), 1), keys.size, len(columns)), np.nan)
    if 0 not in by_repeat:
        return out  # no first run: no verdict, so no confidence either
    for row, repeat in enumerate(repeats):
        out[row] = by_repeat[repeat].rows_on(keys)[:, columns]
    return out


def certify_judge(store: Store, rubric: Rubric, *, alpha: float, delta: float, tolerance: float,
                  judge: str | None = None, split: str = DEFAULT_SPLIT) -> Certification:
    """Certify ``judge`` (default: the judge that rated most items) on the experts' ratings of ``split``."""
    if split == "test":
        raise UserError("certify never uses the test split: the report decides on it, and a threshold chosen "
                        "there would be judged on its own items; certify on --split dev (default) or train")
    for name, value in (("--alpha", alpha), ("--delta", delta)):
        if not 0.0 < value < 1.0:
            raise UserError(f"{name} {value:g}: give a share strictly between 0 and 1, e.g. 0.1")
    ratings = load(store, rubric)
    judges = ratings.raters_of_kind("judge")
    how = f"`judge-tui judge --rubric {rubric.id} --split {split} --repeat 3`"
    if judge is None:
        if not judges:
            raise UserError(f"no judge has rated rubric {rubric.id!r}: run {how}")
        judge = max(judges, key=lambda j: ratings.rating_counts(j))
    elif judge not in judges:
        raise UserError(f"{judge!r} is not a judge of rubric {rubric.id!r}; its judges: "
                        f"{', '.join(judges) or 'none yet'} (run {how})")
    keys, _ = store.item_keys_in_order(rubric.id, split)
    if keys.size == 0:
        raise UserError(f"rubric {rubric.id!r} has no items in the {split} split: assign splits with "
                        f"`judge-tui split --rubric {rubric.id}`")
    view = load_team(store, rubric, split=split, judge=judge, ratings=ratings, notes=False)
    reference = np.column_stack([team_consensus(view, d, min_raters=1)[0] for d in view.dimensions])
    runs = judge_runs(ratings, judge, view.item_keys)
    rated, wrong = disagreements(reference, runs[0], rubric.scale, tolerance)
    if not rated.any():
        raise UserError(f"no item of the {split} split has both an expert's rating and judge {judge}'s: the "
                        f"experts rate them in `judge-tui rate`, the judge with {how}")
    confidence = repeat_confidence(runs, rubric.scale, tolerance)
    has_confidence = ~np.isnan(confidence)
    if not (rated & has_confidence).any():
        raise UserError(f"judge {judge} has judged each expert-rated item of the {split} split once; its "
                        f"confidence is how often its repeated runs agree: run {how}, then certify again")
    certificate = certify(confidence[rated], wrong[rated], alpha, delta)
    present_runs = ~np.isnan(runs).all(axis=2)
    unrated_keys, unrated_ids = _unrated(store, rubric, ratings, split)
    kept = certificate.keeps(repeat_confidence(judge_runs(ratings, judge, unrated_keys), rubric.scale, tolerance))
    return Certification(
        rubric=rubric.id, judge=judge, split=split, tolerance=tolerance,
        most_runs=int(present_runs[:, rated].sum(axis=0).max()), expert_rated=int(rated.sum()),
        judged_once=int((rated & ~has_confidence).sum()), certificate=certificate,
        decided=tuple(i for i, k in zip(unrated_ids, kept.tolist(), strict=True) if k),
        escalated=tuple(i for i, k in zip(unrated_ids, kept.tolist(), strict=True) if not k),
    )  # fmt: skip


def _unrated(store: Store, rubric: Rubric, ratings: RubricRatings, split: str) -> tuple[np.ndarray, list[str]]:
    """The keys and ids (in the rubric's order) of the items no expert has rated, outside ``split`` and the test
    split, whose items the experts rate whatever the judge says."""
    keys, ids = store.item_keys_in_order(rubric.id, None)
    rated = [ratings.first_runs(r).keys for r in ratings.raters_of_kind("human") if is_expert(r, "human")]
    rated += [store.item_keys_in_order(rubric.id, s)[0] for s in {split, "test"}]
    inside = ~np.isin(keys, np.concatenate(rated))
    return keys[inside], [i for i, k in zip(ids, inside.tolist(), strict=True) if k]
