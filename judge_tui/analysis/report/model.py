"""The agreement report's model: typed, frozen objects the computation fills and the renderers read.

`Report` holds every figure between a human group and a judge group; `Finding` is one line of the verdict;
`combined` says how the report's decisions combine (`analysis.targets.Combined`). Nothing here reads the store
or formats text for a format of its own (the renderers do).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from judge_tui.analysis.bands import Interpretation
from judge_tui.analysis.design import Design
from judge_tui.analysis.report.anytime import DECIDED, AnytimeCheck, decide_at_any_time, items_left_by_scope
from judge_tui.analysis.targets import Combined, TargetCheck
from judge_tui.analysis.uncertainty import RowUncertainty
from judge_tui.model.errors import UserError
from judge_tui.model.rubrics import Rubric, Scale
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats import agreement as ag
from judge_tui.stats.agreement import Figure, PairAgreement, Undefined
from judge_tui.stats.intervals import IntervalFigure

OVERALL = "overall"


class ReportError(UserError):
    """Nothing to compare (empty database, no overlap, unknown rater or field): a message, not a crash."""


class NoComparison(ReportError):
    """The two groups cannot be compared: one has no ratings, or they rated no item in common."""


# --------------------------------------------------------------------------------------------------
# The report model
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Group:
    role: str  # "human" or "judge"
    rater_ids: tuple[str, ...]

    def combine(self, scale: Scale) -> str:
        """How the group's raters make one score per item (report/compute.py's _human_group and _judge_group):
        categories that cannot be averaged take the majority."""
        if len(self.rater_ids) == 1:
            return "first run, newest rubric version"
        if scale.nominal:
            return (f"majority category of {len(self.rater_ids)} raters per item, a tie left out (first runs, "
                    "newest rubric version)")
        return f"mean of {len(self.rater_ids)} raters per item (first runs, newest rubric version)"


@dataclass(frozen=True)
class Row:
    """Every figure for one dimension, or for the overall score (key "overall")."""

    key: str
    name: str
    method: str  # "judged", "code" or "overall"
    agreement: PairAgreement
    alignment_band: Interpretation
    kappa_band: Interpretation
    corrected: Correction | None = None  # PASS/FAIL rubrics with judge-only items
    uncertainty: RowUncertainty = RowUncertainty()  # intervals, AC1/AC2, PABAK, prevalence, baseline


@dataclass(frozen=True)
class Correction:
    """The corrected pass rate of the judge-only items, and which items it came from."""

    rate: ag.CorrectedPassRate
    labelled_from: str  # "test split" when splits exist, else "all compared items"
    judge_only_splits: dict[str, int]  # judge-only items corrected, by split ("(none)": never split)


@dataclass(frozen=True)
class Summary:
    """The summary-metrics table: cases reviewed, dimension agreements, alignment, lowest and highest."""

    cases: int  # items rated by both groups
    items: int  # items of the rubric (in the split)
    agreements: int  # judged dimension scores within the tolerance
    pairs: int  # judged dimension scores compared
    alignment_rate: Figure
    lowest: str | None
    highest: str | None
    alignment_interval: IntervalFigure = Undefined("no interval computed")  # a cluster bootstrap over items
    aligned_items: int | None = None  # items behind the alignment: some judged dimension scored by both sides


@dataclass(frozen=True)
class Finding:
    """One line of the verdict."""

    topic: str  # alignment, kappa, kappa_ac1, pearson, tpr_tnr, range, checker, snapped, ties
    status: str  # ok, caution, act, stop, unknown, info
    meets_target: bool | None  # follows the decision: True when met, False when not met, None otherwise
    scope: str
    text: str
    decision: str | None = None  # met, not met, undecided (under agreement.decide_on); None: no target
    point_meets_target: bool | None = None  # the point estimate against the target, as the bands read it


@dataclass(frozen=True)
class Section:
    """The figures for one value of a breakdown field."""

    value: str
    summary: Summary
    rows: tuple[Row, ...]
    overall: Row


@dataclass(frozen=True)
class Breakdown:
    by: str
    sections: tuple[Section, ...]


@dataclass(frozen=True)
class SelfRow:
    key: str
    n: int
    alignment_rate: Figure  # mean over repeat pairs
    cohen_kappa: Figure
    intervals: dict[str, IntervalFigure]  # "alignment_rate", "cohen_kappa" (pair_intervals.repeat_intervals)


@dataclass(frozen=True)
class JudgeSelfAgreement:
    """A judge against itself: its repeats of the same items, pair by pair, averaged."""

    rater_id: str
    repeats: int
    pairs: tuple[tuple[int, int], ...]
    items: int  # items judged at least twice
    rows: tuple[SelfRow, ...]


@dataclass(frozen=True)
class HumanRow:
    key: str
    items: int  # items rated by at least two of the humans
    krippendorff_alpha: Figure
    mean_pairwise_kappa: Figure


@dataclass(frozen=True)
class HumanAgreement:
    rater_ids: tuple[str, ...]
    level: str
    rows: tuple[HumanRow, ...]


@dataclass(frozen=True)
class Report:
    rubric: Rubric
    split: str | None
    human: Group
    judge: Group
    settings: AgreementSettings  # the tolerance, the confidence, the targets and the bands' bounds it was built with
    counts: dict[str, int]  # items, rated_by_human, rated_by_judge, compared, judge_only
    summary: Summary
    rows: tuple[Row, ...]
    overall: Row
    findings: tuple[Finding, ...]
    breakdowns: tuple[Breakdown, ...]
    self_agreement: tuple[JudgeSelfAgreement, ...]
    human_agreement: HumanAgreement | None
    human_overall: np.ndarray  # paired overall scores, for the scatter plot
    judge_overall: np.ndarray
    checks: tuple[TargetCheck, ...] = ()  # every target, decided; the undecided ones carry the plan
    ties: int = 0  # items whose PASS/FAIL human consensus is tied, left out (judge-tui adjudicate settles them)
    design: Design | None = None  # how the compared items were drawn (queue orders); None: not recorded
    settled_after: int | None = None  # the ratings every target was first found decided with (rating screen)

    @property
    def judged_rows(self) -> tuple[Row, ...]:
        return tuple(r for r in self.rows if r.method == "judged")

    @cached_property
    def anytime(self) -> tuple[AnytimeCheck, ...]:
        """Every target decided by a rule valid at any time, beside its fixed-n check, with what may hold it up
        as far as the report knows the items left (analysis/stopping.py counts them in the database)."""
        return decide_at_any_time(self.checks, self.settings, items_left_by_scope(self.checks, self.counts))

    @property
    def decided_at_any_time(self) -> bool:
        """Whether every target is decided by a rule valid at any time."""
        return bool(self.checks) and all(a.decision in DECIDED for a in self.anytime)


def meets_by_decision(decision: str | None) -> bool | None:
    """What a field saying "the target is met" holds: the decision's answer, never the point estimate's alone
    (True beside "undecided" would lead a script to act on a target the data have not settled)."""
    return {"met": True, "not met": False}.get(decision or "")


def combined(report: Report) -> Combined | None:
    """The statement of how the report's decided targets combine, or None when none was decided."""
    decided = [c for c in report.checks if c.decision is not None]
    return Combined(len(decided), report.settings) if decided else None
