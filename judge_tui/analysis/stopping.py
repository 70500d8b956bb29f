"""Whether the study's questions are settled, decided by rules that stay valid however often they are looked at.

The report's own decisions are fixed-n: each target's 95% interval, read once, at the number of items the study
has. The rating screen looks after every rating and stops at the first decision, which a fixed-n rule cannot
survive (at a threshold it says "met" wrongly in 7–12% of studies instead of 2.5%). So every decision made while
ratings still come in (the stop notice, the "n/m questions settled" count) is made here, by a rule valid at any
time (stats.sequential):

* TPR and TNR on the test split (a share of independent items of one class): the one-sided conjugate beta
  mixture test, exact;
* every other target (alignment, kappa and weighted kappa per dimension, Pearson r, a design-weighted figure,
  a balanced order's TPR and TNR weighted within the test split among them): the asymptotic confidence
  sequence, the fixed-n interval widened to the normal-mixture boundary, as valid as the figure's normal
  approximation.

How targets combine is stated once, in ``analysis.targets.Combined``: each target on its own, at one-sided
(1 - confidence) / 2 per side, 2.5% by default, the same level per target as the fixed-n report's 95% intervals;
with no correction from one target to another.

A study can hold a target that no rating left can settle (a kappa sitting on its threshold, a TNR without a
human FAIL item, a pool rated to its last item): the notice then says which target holds it up and why, instead
of waiting for a decision that will not come. What a rater may be told is only counts and which targets are
held up, never which way any target goes.

The first time the study is found settled, the number of compared ratings is kept in the database
(Store.record_settled): the report says "decided after N ratings".
"""

from __future__ import annotations

from dataclasses import dataclass

from judge_tui.analysis.design import TEST_WEIGHTED_SCOPE
from judge_tui.analysis.report import Group, Report, ReportError, build_report, default_groups
from judge_tui.analysis.report.anytime import (
    DECIDED,
    SHARE_SCOPE,
    TEST_SCOPES,
    AnytimeCheck,
    decide_at_any_time,
    is_exact_share,
)
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.store import Store


def anytime_checks(report: Report, left: dict[str, int] | None = None) -> tuple[AnytimeCheck, ...]:
    """Every target of the report decided by a rule valid at any time (``left``: items not yet compared, by
    scope, when known; the report's own, `Report.anytime`, count what the report knows)."""
    return decide_at_any_time(report.checks, report.settings, left)


@dataclass(frozen=True)
class Settledness:
    decided: int  # targets met or not met by a rule valid at any time
    targets: int
    ratings: int  # the compared items behind the figures
    held_up: tuple[tuple[str, str], ...] = ()  # (target, why) for each target no rating left can settle
    pool_rated: bool = False  # every item of the targets' scopes is compared

    @property
    def settled(self) -> bool:
        return self.targets > 0 and self.decided == self.targets

    @property
    def as_far_as_the_pool_allows(self) -> bool:
        """Every target is decided or held up, so more ratings of this pool are not expected to change the count.
        Said once some target is decided, or once the pool is rated: a pool too small to decide anything early
        is still worth rating whole, for the report's fixed-n figures at its full size."""
        return (self.targets > 0 and not self.settled and self.decided + len(self.held_up) == self.targets
                and (self.decided > 0 or self.pool_rated))

    def notice(self) -> str:
        """The rating screen's notice (counts and names of targets only, never which way one went)."""
        if self.settled:
            return (f"The study's questions are settled with the {self.ratings} ratings so far (by decisions valid "
                    "at any time); further ratings are optional.")
        reasons = "; ".join(f"{goal}: {why}" for goal, why in self.held_up)
        return (f"The study's questions are settled as far as this pool allows: {self.decided}/{self.targets} "
                f"decided with the {self.ratings} ratings so far, and no rating left can settle the rest "
                f"({reasons}). Further ratings are optional; the lead may add items.")


def settledness_of(report: Report, *, has_test_split: bool = True, left: dict[str, int] | None = None) -> Settledness:
    """Without a test split the test-split targets (TPR, TNR) have nothing to be read from: more ratings
    cannot settle them, so they are not questions of this study."""
    found = [a for a in anytime_checks(report, left) if has_test_split or a.check.scope not in TEST_SCOPES]
    held = tuple((a.check.goal, a.held_up) for a in found if a.held_up and a.decision not in DECIDED)
    scopes = {a.check.scope for a in found}
    pool_rated = left is not None and all(left.get(scope) == 0 for scope in scopes)
    return Settledness(sum(a.decision in DECIDED for a in found), len(found), report.counts["compared"], held,
                       pool_rated)


def items_left(store: Store, rubric: Rubric, report: Report) -> dict[str, int]:
    """Items of each scope of the report's targets that are not yet compared (rated by both sides)."""
    left = {c.scope: max(0, report.counts["items"] - report.counts["compared"])
            for c in report.checks if c.scope not in TEST_SCOPES}
    tested = [c.n for c in report.checks if is_exact_share(c)]
    if tested:
        left[SHARE_SCOPE] = max(0, store.count_items(rubric.id, "test") - sum(tested))
    for c in report.checks:  # a balanced order's: counted by its design (analysis/design.reweighted_checks)
        if c.scope == TEST_WEIGHTED_SCOPE and c.left is not None:
            left[c.scope] = c.left
    return left


def study_settledness(store: Store, rubric: Rubric, settings: AgreementSettings,
                      *, leave_out: frozenset[str] = frozenset()) -> Settledness | None:
    """Over every expert's ratings but those of `leave_out` (raters who are not part of the study, such as the
    demo's bundled expert) against the report's judge; None while there is nothing to compare. The figures and
    the items left are read from one snapshot of the database."""
    with store.snapshot():
        try:
            human, judge = default_groups(store, rubric.id)
            experts = tuple(rater for rater in human.rater_ids if rater not in leave_out)
            if not experts:
                return None
            report = build_report(store, rubric, human=Group("human", experts), judge=judge, settings=settings,
                                  checks_only=True)
        except ReportError:
            return None
        return settledness_of(report, has_test_split=store.has_items(rubric.id, "test"),
                              left=items_left(store, rubric, report))
