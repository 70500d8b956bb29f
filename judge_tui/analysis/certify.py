"""Trust or escalate: on which items the judge may decide alone, certified on the experts' ratings.

The judge's confidence in an item needs no log-probabilities, which the Anthropic API does not give:

* one judge: how often its repeated runs (`judge-tui judge --repeat K`) agree with its own verdict, the first
  run (the rating every figure takes as the judge's): the share of its runs of the item whose scores all align
  with the first run's, as `scores.agreeing` counts alignment on the rubric's scale;
* a jury (several judge raters): the verdict is the jury's (`jury.rule_for`: the majority, or the median on an
  ordered scale, from each member's first run), the confidence the share of members whose scores all align
  with it. A tied majority gives no verdict.

An item with one judgment (one run, or one member's) has no confidence and is never kept.

One judge's confidence may instead be what its judgment stored (the lead's choice, `source`):

* "stated": the probability, from 0 to 1, the judge gave in its answer that the experts would give its scores;
* "logprob": the probability of its scores' tokens, where the backend returned token log-probabilities (an
  OpenAI-compatible server; the Anthropic API gives none).

Either is read from the first run, the verdict; an item whose first run has none is never kept.

Certification (`stats.selective.certify`) runs on the items of one split (dev by default; never test, which
the report decides on) that the experts rated and the judge judged: the judge's verdict disagrees with the
experts' when any judged dimension is out of the tolerance of the experts' consensus (an adjudicated score
first, else the experts' mean, or their PASS/FAIL majority; one expert suffices, as for the jury). The
certificate's threshold then tells, for every item no expert has rated yet outside the certification and test
splits (which the experts rate: the one for the certificate, the other for the report), whether the judge decides
it (confidence at or above λ̂) or it goes to the experts (below, judged once, or not judged at all).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from judge_tui.analysis.judges import the_judge
from judge_tui.analysis.jury import RULE_NAMES, rule_for
from judge_tui.analysis.scores import RubricRatings, agreeing, load
from judge_tui.analysis.team import is_expert, load_team, team_consensus
from judge_tui.formats.numbers import short_text
from judge_tui.model.errors import UserError
from judge_tui.model.rubrics import Rubric, Scale
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats.selective import Certificate, certify
from judge_tui.store import CertificateTerms, Store

DEFAULT_SPLIT = "dev"
REPEATS, JURY = "repeats", "jury"  # where the confidence comes from
STATED, LOGPROB = "stated", "logprob"  # ... or what the judge's first run stored (judge/runner.py)
CONFIDENCES = (REPEATS, STATED, LOGPROB)  # one judge's, the lead's choice; a jury's is always its agreement


def repeat_confidence(runs: np.ndarray, scale: Scale, settings: AgreementSettings) -> np.ndarray:
    """Per item, the share of the judge's runs (runs x items x dimensions, the first run first) whose every
    score aligns with the first run's; NaN where the first run is missing or fewer than two runs are there."""
    runs = np.asarray(runs, dtype=np.float64)
    present = ~np.isnan(runs).all(axis=2)  # runs x items
    verdict = runs[0]
    scored = ~np.isnan(verdict)  # items x dimensions
    aligned = agreeing(scale, runs, verdict[np.newaxis], settings.tolerance) | ~scored[np.newaxis]
    agrees = aligned.all(axis=2) & present
    counted = present.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = agrees.sum(axis=0) / counted
    return np.where(present[0] & (counted >= 2), share, np.nan)


def jury_verdicts(matrix: np.ndarray, scale: Scale, settings: AgreementSettings) -> tuple[np.ndarray, np.ndarray]:
    """The jury's verdict per item and dimension (members x items x dimensions in; items x dimensions out, NaN
    where no member scored or the members tie) and its confidence per item: the share of the members who scored
    the item whose every score aligns with the verdict. NaN where fewer than two members scored it or a
    dimension they scored has no verdict."""
    matrix = np.asarray(matrix, dtype=np.float64)
    rule = rule_for(scale)
    verdict = np.column_stack([rule(matrix[:, :, d], scale).values for d in range(matrix.shape[2])]) \
        if matrix.shape[1] else np.empty((0, matrix.shape[2]))
    scored = ~np.isnan(matrix)
    present = scored.any(axis=2)  # members x items
    undecided = (scored.any(axis=0) & np.isnan(verdict)).any(axis=1)
    aligned = agreeing(scale, matrix, verdict[np.newaxis], settings.tolerance) | np.isnan(verdict)[np.newaxis]
    agrees = aligned.all(axis=2) & present
    counted = present.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = agrees.sum(axis=0) / counted
    return verdict, np.where((counted >= 2) & ~undecided, share, np.nan)


def disagreements(reference: np.ndarray, verdict: np.ndarray, scale: Scale,
                  settings: AgreementSettings) -> tuple[np.ndarray, np.ndarray]:
    """Per item (items x dimensions on both sides): whether both sides scored a dimension at all, and whether
    any dimension both scored is out of tolerance."""
    both = ~np.isnan(reference) & ~np.isnan(verdict)
    misaligned = both & ~agreeing(scale, reference, verdict, settings.tolerance)
    return both.any(axis=1), misaligned.any(axis=1)


@dataclass(frozen=True)
class Certification:
    """A judge's certificate on one split and what it means for the items no expert has rated."""

    rubric: str
    judge: str  # the judge rater, or "jury" (its members in ``members``)
    members: tuple[str, ...]  # the jury's judges; () for one judge's repeats
    jury_rule: str  # how the jury's verdict is made: "majority" or "median" ("" for one judge)
    split: str
    settings: AgreementSettings  # its tolerance is the one the certificate is made with
    most_judgments: int  # the most judgments of one certification item: the judge's runs, or the jury's members
    expert_rated: int  # items of the split both the experts and the judge (or a jury member) rated
    without_confidence: int  # of them, those with one judgment, or a jury's tie: left out of the certificate
    certificate: Certificate
    decided: tuple[str, ...]  # the ids of the unrated items (outside this split and test) the judge keeps
    escalated: tuple[str, ...]  # the ids of the others: the experts rate them
    unsure_of: int  # of the escalated, those without a confidence (one judgment, a tie, not judged)
    confidence: str = REPEATS  # where the confidence comes from, recorded with the certificate: one of
    # CONFIDENCES for one judge, JURY for a jury

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

    def terms(self) -> CertificateTerms:
        """The certificate as the store records it (store/judge_decisions.py)."""
        found = self.certificate.certified
        return CertificateTerms(
            rubric=self.rubric, judge=self.judge, members=self.members, jury_rule=self.jury_rule,
            confidence=self.confidence, split=self.split, alpha=self.certificate.alpha, delta=self.certificate.delta,
            lambda_=found.threshold if found else None, tolerance=self.settings.tolerance, n=self.certificate.n,
            kept=found.kept if found else 0, disagreements=found.disagreements if found else None,
            bound=found.bound if found else None, unrated=self.unrated)

    def to_json(self) -> dict[str, Any]:
        cert = self.certificate
        found = cert.certified
        return {
            "rubric": self.rubric, "judge": self.judge, "members": list(self.members), "split": self.split,
            "tolerance": self.settings.tolerance, "confidence": self.confidence,
            "jury_rule": self.jury_rule or None,
            "most_judgments": self.most_judgments,
            "alpha": cert.alpha, "delta": cert.delta, "certified": self.certified,
            "lambda": found.threshold if found else None,
            "coverage": cert.coverage, "kept": found.kept if found else 0,
            "disagreements": found.disagreements if found else None,
            "bound": found.bound if found else None,
            "n": cert.n, "expert_rated": self.expert_rated, "without_confidence": self.without_confidence,
            "tests": [{"lambda": t.threshold, "kept": t.kept, "disagreements": t.disagreements, "bound": t.bound,
                       "passed": t.passed} for t in cert.tests],
            "unrated": self.unrated, "judge_decides": self.judge_decides, "escalate": self.escalate,
            "escalate_without_confidence": self.unsure_of,
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


def member_matrix(ratings: RubricRatings, members: Sequence[str], keys: np.ndarray) -> np.ndarray:
    """The members' first runs over ``keys``: members x items x judged dimensions."""
    columns = [ratings.rubric.dimension_ids.index(d.id) for d in ratings.rubric.judged_dimensions]
    return ratings.first_run_matrix(list(members), keys)[:, :, columns]


def judged_with_confidence(store: Store, ratings: RubricRatings, keys: np.ndarray, settings: AgreementSettings,
                           source: str, *,
                           judge: str | None, members: Sequence[str] = ()) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Over ``keys``: the verdict (items x judged dimensions), the confidence and the number of judgments of each
    item, with the confidence named by ``source`` (the name a certificate records): ``judge``'s repeats, what its
    first run stored (stated, logprob), or the jury its ``members`` make."""
    scale = ratings.rubric.scale
    if source not in (*CONFIDENCES, JURY):
        raise UserError(f"the judge's confidence {source!r} is not one this judge-tui computes "
                        f"({', '.join((*CONFIDENCES, JURY))}): certify again with `judge-tui assign --escalate`")
    if source == JURY:
        matrix = member_matrix(ratings, members, keys)
        return (*jury_verdicts(matrix, scale, settings), (~np.isnan(matrix).all(axis=2)).sum(axis=0))
    runs = judge_runs(ratings, str(judge), keys)
    if source != REPEATS:  # what its first run stored; the verdict is the first run's
        first = runs[:1]
        return (first[0], stored_confidence(store, ratings.rubric, str(judge), source, keys),
                (~np.isnan(first).all(axis=2)).sum(axis=0))
    return runs[0], repeat_confidence(runs, scale, settings), (~np.isnan(runs).all(axis=2)).sum(axis=0)


def stored_confidence(store: Store, rubric: Rubric, judge: str, source: str, keys: np.ndarray) -> np.ndarray:
    """The confidence named ``source`` the judge's first run of each item stored, over ``keys`` (NaN: none)."""
    found, values = store.judgment_confidences(rubric.id, judge, source)
    out = np.full(keys.size, np.nan)
    if found.size:
        at = np.clip(np.searchsorted(found, keys), 0, found.size - 1)
        present = found[at] == keys
        out[present] = values[at[present]]
    return out


def _no_stored_confidence(judge: str, source: str, split: str) -> str:
    if source == STATED:
        return (f"judge {judge} gave no stated confidence on the {split} split's expert-rated items: its answers were "
                f"made before judge-tui asked for one, or the model left it out (each judgment's confidence_notes say "
                f"why); certify on its repeats instead (--confidence repeats)")
    return (f"judge {judge} has no token confidence on the {split} split's expert-rated items: its backend gave no "
            f"token log-probabilities (the Anthropic API gives none; an OpenAI-compatible server, --backend openai, "
            f"gives them where it can); certify on its stated confidence or its repeats (--confidence stated|repeats)")


Judged = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]


def against_experts(store: Store, rubric: Rubric, ratings: RubricRatings, split: str, judged: Judged,
                    settings: AgreementSettings) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Over the split's items, in its order: whether the experts and the judge both rated each, whether its
    verdict disagrees with the experts' consensus, its confidence and its number of judgments."""
    view = load_team(store, rubric, split=split, ratings=ratings, notes=False)
    reference = np.column_stack([team_consensus(view, d, min_raters=1)[0] for d in view.dimensions])
    verdict, confidence, judgments = judged(view.item_keys)
    rated, wrong = disagreements(reference, verdict, rubric.scale, settings)
    return rated, wrong, confidence, judgments


def certify_judge(store: Store, rubric: Rubric, settings: AgreementSettings, *, alpha: float, delta: float,
                  judge: str | None = None, members: Sequence[str] = (),
                  split: str = DEFAULT_SPLIT, source: str = REPEATS) -> Certification:
    """Certify ``judge`` (default: the judge, judges.the_judge) on its confidence from ``source`` (one of
    CONFIDENCES), or with ``members`` the jury they make on its agreement, on the experts' ratings of ``split``."""
    if source not in CONFIDENCES:
        raise UserError(f"--confidence {source}: choose {', '.join(CONFIDENCES)}")
    if members and source != REPEATS:
        raise UserError(f"--confidence {source} is one judge's: a jury's confidence is the share of its members "
                        f"agreeing with its verdict; leave --confidence out with --jury")
    if split == "test":
        raise UserError("certify never uses the test split: the report decides on it, and a threshold chosen "
                        "there would be judged on its own items; certify on --split dev (default) or train")
    for name, value in (("--alpha", alpha), ("--delta", delta)):
        if not 0.0 < value < 1.0:
            raise UserError(f"{name} {short_text(value)}: give a share strictly between 0 and 1, e.g. 0.1")
    with store.snapshot():  # every read from one state of the database, as the report's
        ratings = load(store, rubric)
        how = f"`judge-tui judge --rubric {rubric.id} --split {split} --repeat 3`"
        judge = None if members else _chosen_judge(store, ratings, judge, how)
        keys, _ = store.item_keys_in_order(rubric.id, split)
        if keys.size == 0:
            raise UserError(f"rubric {rubric.id!r} has no items in the {split} split: assign splits with "
                            f"`judge-tui split --rubric {rubric.id}`")

        source = JURY if members else source

        def judged(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            return judged_with_confidence(store, ratings, keys, settings, source, judge=judge, members=members)

        rated, wrong, confidence, judgments = against_experts(store, rubric, ratings, split, judged, settings)
        who = f"the jury {'+'.join(members)}" if members else f"judge {judge}"
        if not rated.any():
            raise UserError(f"no item of the {split} split has both an expert's rating and {who}'s verdict: the "
                            f"experts rate them in `judge-tui rate`, the judge with {how}")
        has_confidence = ~np.isnan(confidence)
        if not (rated & has_confidence).any() and source in (STATED, LOGPROB):
            raise UserError(_no_stored_confidence(str(judge), source, split))
        if not (rated & has_confidence).any():
            raise UserError(
                f"the jury {'+'.join(members)} has no expert-rated item of the {split} split judged by two members "
                f"or more without a tie" if members else
                f"judge {judge} has judged each expert-rated item of the {split} split once; its confidence is how "
                f"often its repeated runs agree: run {how}, then certify again")
        certificate = certify(confidence[rated], wrong[rated], alpha, delta)
        unrated_keys, unrated_ids = _unrated(store, rubric, ratings, split)
        unrated_confidence = judged(unrated_keys)[1]
        kept = certificate.keeps(unrated_confidence)
        return Certification(
            rubric=rubric.id, judge=JURY if members else str(judge), members=tuple(members),
            jury_rule=RULE_NAMES[rule_for(rubric.scale)] if members else "", split=split,
            settings=settings, most_judgments=int(judgments[rated].max()), expert_rated=int(rated.sum()),
            without_confidence=int((rated & ~has_confidence).sum()), certificate=certificate,
            decided=tuple(i for i, k in zip(unrated_ids, kept.tolist(), strict=True) if k),
            escalated=tuple(i for i, k in zip(unrated_ids, kept.tolist(), strict=True) if not k),
            unsure_of=int(np.isnan(unrated_confidence).sum()), confidence=source,
        )  # fmt: skip


def _chosen_judge(store: Store, ratings: RubricRatings, judge: str | None, how: str) -> str:
    """The judge named (a rater id or a judge version), checked, or the judge (judges.the_judge)."""
    rubric = ratings.rubric.id
    chosen = the_judge(store, rubric, judge)
    if chosen is None:
        raise UserError(f"no judge has rated rubric {rubric!r}: run {how}")
    return chosen.rater


def _unrated(store: Store, rubric: Rubric, ratings: RubricRatings, split: str) -> tuple[np.ndarray, list[str]]:
    """The keys and ids (in the rubric's order) of the items no expert has rated, outside ``split`` and the test
    split, whose items the experts rate whatever the judge says."""
    keys, ids = store.item_keys_in_order(rubric.id, None)
    rated = [ratings.first_runs(r).keys for r in ratings.raters_of_kind("human") if is_expert(r, "human")]
    rated += [store.item_keys_in_order(rubric.id, s)[0] for s in {split, "test"}]
    inside = ~np.isin(keys, np.concatenate(rated))
    return keys[inside], [i for i, k in zip(ids, inside.tolist(), strict=True) if k]
