"""The judge's certificate in force (recorded by `judge-tui assign --escalate`) as the report's validity page
shows it: its terms, how many items it leaves to the judge, how the judge agrees with the experts on the test
split's items it would keep, and the expert hours it saves.

* Agreement on kept test items: the test split's items that the experts rated and the judge judged with a
  confidence (the certificate's own source, named in its terms) at or above λ; the share of them on which the
  judge's verdict agrees with the experts' consensus by the certificate's rule (analysis/certify.py), with a
  Wilson interval at the report's confidence. The test split never enters the certificate, so this is a check
  of it on items it never saw.
* Expert hours saved: the items the judge decides, times the mean recorded time of the experts' current ratings
  of the rubric (ratings without a recorded time left out), one expert rating per item; its interval is the
  normal interval of that mean (stats.intervals.mean_interval) times the items.
* Another judge's certificate: a certificate names the judge (or jury) it was made for; when the report compares
  another judge (analysis/judges.py::the_judge picks it), the certificate says nothing of that judge, and the
  page says so (`certifies_another_judge`, the one rule the judge screen uses too).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from judge_tui.analysis.certify import against_experts, judged_with_confidence
from judge_tui.analysis.scores import RubricRatings, load
from judge_tui.model.records import CONSENSUS_RATER
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats.agreement import Undefined
from judge_tui.stats.intervals import Interval, IntervalFigure, mean_interval, wilson
from judge_tui.store import CertificateTerms, Store

TEST = "test"


@dataclass(frozen=True)
class KeptOnTest:
    """The judge against the experts on the test split's items the certificate would keep."""

    compared: int  # test items the experts rated and the judge judged with a confidence
    kept: int  # of them, those whose confidence reaches λ
    agreeing: int  # of the kept, those where the judge's verdict agrees with the experts'
    interval: IntervalFigure  # of agreeing / kept

    @property
    def agreement(self) -> float | None:
        return self.agreeing / self.kept if self.kept else None

    @property
    def coverage(self) -> float | None:
        return self.kept / self.compared if self.compared else None


@dataclass(frozen=True)
class HoursSaved:
    items: int  # the items the judge decides
    timed_ratings: int  # the experts' current ratings of the rubric with a recorded time
    mean_seconds: float | None  # their mean; None without any
    hours: float | None  # items x mean seconds / 3600
    interval: IntervalFigure  # of the hours


@dataclass(frozen=True)
class CertificateInForce:
    terms: CertificateTerms
    decided: int  # items marked as decided by the judge
    test: KeptOnTest | None  # None when no threshold passed
    saved: HoursSaved
    compared: str | None = None  # the judge the report compares (None: one is not named)

    @property
    def for_another_judge(self) -> bool:
        return certifies_another_judge(self.terms, self.compared)

    @property
    def certified(self) -> bool:
        return self.terms.lambda_ is not None

    @property
    def coverage(self) -> float:
        """The share of the certification items the judge keeps at λ (0 when none passed)."""
        return self.terms.kept / self.terms.n if self.terms.n else 0.0

    @property
    def escalated(self) -> int:
        """The items no expert had rated (outside the certification and test splits) left to the experts."""
        return self.terms.unrated - self.decided


def certifies_another_judge(terms: CertificateTerms, judge: str | None) -> bool:
    """Whether ``terms`` certify a judge other than ``judge`` (a jury's certificate stands for its members
    together, so it is never another single judge's)."""
    return judge is not None and not terms.members and terms.judge != judge


def hours_saved(items: int, seconds: list[float], settings: AgreementSettings) -> HoursSaved:
    """``items`` expert ratings saved, each as long as the mean of ``seconds``."""
    times = np.asarray(seconds, dtype=np.float64)
    if times.size == 0:
        return HoursSaved(items, 0, None, None, Undefined("no expert rating of this rubric has a recorded time"))
    mean = float(times.mean())
    per_item = mean_interval(times, settings.confidence)
    interval: IntervalFigure = per_item
    if not isinstance(per_item, Undefined):
        interval = Interval(max(per_item.low, 0.0) * items / 3600, per_item.high * items / 3600,
                            per_item.method, per_item.confidence)
    return HoursSaved(items, int(times.size), mean, mean * items / 3600, interval)


def kept_on_test(store: Store, rubric: Rubric, ratings: RubricRatings, terms: CertificateTerms,
                 settings: AgreementSettings) -> KeptOnTest | None:
    """The certificate checked on the test split (None when it certified no threshold), by the tolerance it was
    made with."""
    if terms.lambda_ is None:
        return None
    if not store.item_keys_in_order(rubric.id, TEST)[0].size:
        return KeptOnTest(0, 0, 0, Undefined("no item is in the test split"))
    judge = None if terms.members else terms.judge
    made_with = replace(settings, tolerance=terms.tolerance)

    def judged(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return judged_with_confidence(store, ratings, keys, made_with, terms.confidence, judge=judge,
                                      members=terms.members)

    rated, wrong, sure, _ = against_experts(store, rubric, ratings, TEST, judged, made_with)
    with np.errstate(invalid="ignore"):
        compared = rated & ~np.isnan(sure)
        kept = compared & (sure >= terms.lambda_)
    n, agreeing = int(kept.sum()), int((kept & ~wrong).sum())
    return KeptOnTest(int(compared.sum()), n, agreeing, wilson(agreeing, n, settings.confidence))


def certificate_in_force(store: Store, rubric: Rubric, settings: AgreementSettings,
                         ratings: RubricRatings | None = None,
                         compared: str | None = None) -> CertificateInForce | None:
    """The rubric's certificate in force and its figures, or None when none is recorded. ``ratings``: the
    rubric's ratings over every split or the test split, when the caller has read them; ``compared``: the judge
    the report compares, to say when the certificate is another judge's."""
    terms = store.certificate_in_force(rubric.id)
    if terms is None:
        return None
    if ratings is None or ratings.split not in (None, TEST):
        ratings = load(store, rubric, TEST)
    decided = len(store.judge_decided(rubric.id))
    experts = [e["id"] for e in store.active_experts(rubric.id) if e["id"] != CONSENSUS_RATER]
    saved = hours_saved(decided, store.expert_rating_seconds(rubric.id, experts), settings)
    return CertificateInForce(terms, decided, kept_on_test(store, rubric, ratings, terms, settings), saved,
                              compared)
