"""Whether the study's questions are settled: every target of the report decided (met or not met) on its
interval, and how many of them are so far. What a rater may be told while rating is only how many targets
are decided, never which way: a count says nothing of the judge's agreement.

The first time the study is found settled, the number of compared ratings is kept in the database
(Store.record_settled): the report says "decided after N ratings".
"""

from __future__ import annotations

from dataclasses import dataclass

from judge_tui.analysis.report import Report, ReportError, build_report
from judge_tui.analysis.targets import ruling
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.store import Store

DECIDED = ("met", "not met")


@dataclass(frozen=True)
class Settledness:
    decided: int  # targets met or not met
    targets: int
    ratings: int  # the compared items behind the figures

    @property
    def settled(self) -> bool:
        return self.targets > 0 and self.decided == self.targets


def settledness_of(report: Report, *, has_test_split: bool = True) -> Settledness:
    """Without a test split the test-split targets (TPR, TNR) have nothing to be read from: more ratings
    cannot settle them, so they are not questions of this study."""
    checks = [c for c in report.checks if has_test_split or c.scope != "test split"]
    rulings = [ruling(c, report.decide_on) for c in checks]
    return Settledness(sum(r in DECIDED for r in rulings), len(rulings), report.counts["compared"])


def study_settledness(store: Store, rubric: Rubric, settings: AgreementSettings) -> Settledness | None:
    """Over every expert's ratings against the report's judge; None while there is nothing to compare."""
    try:
        report = build_report(store, rubric, settings=settings, checks_only=True)
    except ReportError:
        return None
    return settledness_of(report, has_test_split=store.has_items(rubric.id, "test"))
