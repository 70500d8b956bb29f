"""`judge-tui report` as a whole: every section computed once, from one read of the ratings (`FullReport`); it is
rendered once by analysis/report_render/full.py.

The sections are objects, each built by its own `build_*(ctx) -> section | None` from one `ReportContext` (None:
the section is not part of this report), in the order of `SECTIONS`, which is the JSON report's order: the judge
comparison (report.Report, or `NoJudgeComparison`), the judge compared with its validity page (`TheJudge`), the
judge's biases (`JudgeBiases`: one biases.Biases per judge rater of the comparison: each rater is one model and
prompt version, and pooling them would hide which one leans), its position bias (`PositionBiases`), the team
(team.TeamAgreement), a jury (jury.Jury), the experts' self-agreement (`SelfAgreement`) and the flagged items
(`FlaggedItems`). A version comparison (compare.VersionComparison, `--compare`) is a report of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from judge_tui.analysis.biases import Biases, judge_biases
from judge_tui.analysis.compare import VersionComparison, compare_versions
from judge_tui.analysis.drift import ExpertSelfAgreement, drift_figures
from judge_tui.analysis.judge_certificate import certificate_in_force
from judge_tui.analysis.judges import ChosenJudge, judge_model, the_judge
from judge_tui.analysis.jury import Jury, build_jury, default_members
from judge_tui.analysis.position_bias import PositionBiasFigures, position_bias
from judge_tui.analysis.report import Group, NoComparison, Report, build_report
from judge_tui.analysis.scores import RubricRatings, load
from judge_tui.analysis.team import TeamAgreement, team_figures
from judge_tui.analysis.validity import ValidityPage, every_judge_validity
from judge_tui.model.records import Flag
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.store import Store

NO_EXPERTS_FOR_BIASES = ("not measured: the biases lean from the experts' consensus, and no expert rated the "
                         "items compared (`judge-tui import-ratings --kind human` brings experts' ratings in)")


@dataclass(frozen=True)
class ReportContext:
    """What every section of the report is built from: the rubric, the split, the user's agreement settings (read
    by each figure where it needs a tolerance, a confidence or a target; never copied into scalars), the one
    read of the ratings, and the judge comparison the other sections follow."""

    store: Store
    rubric: Rubric
    split: str | None
    settings: AgreementSettings
    ratings: RubricRatings
    report: Report | None  # the judge comparison; None when it cannot be made
    chosen: ChosenJudge | None  # the judge compared, when no --raters named the groups
    jury: Sequence[str] | None  # the jury's members named by --jury (None: the default)


@dataclass(frozen=True)
class NoJudgeComparison:
    """Why there is no judge comparison: the team section then stands alone."""

    reason: str
    experts: tuple[str, ...]


@dataclass(frozen=True)
class TheJudge:
    """The judge compared and what it may be used for: the report's first page."""

    chosen: ChosenJudge | None
    validity: ValidityPage | None

    @property
    def named_by_page(self) -> bool:
        """Whether the validity page's first block is the judge compared (its heading then names it)."""
        page = self.validity
        return (self.chosen is not None and page is not None and bool(page.judges)
                and page.judges[0].judge == self.chosen.rater)


@dataclass(frozen=True)
class JudgeBiases:
    biases: tuple[Biases, ...]  # one per judge rater of the comparison, when experts rated
    missing: str | None  # why no judge the report names has its biases measured


@dataclass(frozen=True)
class PositionBiases:
    figures: tuple[PositionBiasFigures, ...]  # pairwise judges asked in both orders


@dataclass(frozen=True)
class SelfAgreement:
    experts: tuple[ExpertSelfAgreement, ...]  # each expert who re-rated items blind


@dataclass(frozen=True)
class FlaggedItems:
    flags: tuple[Flag, ...]


Section = (Report | VersionComparison | NoJudgeComparison | TheJudge | JudgeBiases | PositionBiases | TeamAgreement
           | Jury | SelfAgreement | FlaggedItems)


S = TypeVar("S", bound=Section)


@dataclass(frozen=True)
class FullReport:
    rubric: Rubric
    split: str | None
    settings: AgreementSettings  # the tolerance, the confidence of every interval and the bands' bounds
    sections: tuple[Section, ...]  # in the JSON report's order

    def section(self, kind: type[S]) -> S | None:
        """The report's section of this kind, or None when it is not part of the report."""
        return next((s for s in self.sections if isinstance(s, kind)), None)


def build_the_judge(ctx: ReportContext) -> TheJudge | None:
    validity = (every_judge_validity(ctx.store, ctx.report, ctx.ratings, ctx.settings)
                if ctx.report is not None else None)
    if validity is not None:  # the certificate in force, with the page: the lead's view of the judge
        assert ctx.report is not None  # a validity page needs a comparison
        judges = ctx.report.judge.rater_ids
        compared = judges[0] if len(judges) == 1 and ctx.ratings.kinds.get(judges[0]) == "judge" else None
        validity = replace(validity, certificate=certificate_in_force(ctx.store, ctx.rubric, ctx.settings,
                                                                      ctx.ratings, compared))
    return TheJudge(ctx.chosen, validity) if ctx.chosen is not None or validity is not None else None


def build_judge_biases(ctx: ReportContext) -> JudgeBiases | None:
    """The biases of each judge the comparison names, on either side, or why there are none (no expert rated
    the items compared)."""
    report = ctx.report
    if report is None:
        return None
    biases: list[Biases] = []
    judges = set(ctx.ratings.raters_of_kind("judge"))
    named = (*report.human.rater_ids, *report.judge.rater_ids)
    measured = [rater for rater in dict.fromkeys(named) if rater in judges]  # each judge, on either side
    for rater in measured:
        on_judge_side = rater in report.judge.rater_ids
        found = judge_biases(ctx.store, ctx.rubric, rater, split=ctx.split, settings=ctx.settings,
                             ratings=ctx.ratings, report=report if on_judge_side else None,
                             among=report.human.rater_ids)
        if found.experts:  # the consensus is the experts'; without one there is nothing to lean from
            biases.append(found)
    if not measured:
        return None
    return JudgeBiases(tuple(biases), None if biases else NO_EXPERTS_FOR_BIASES)


def build_position_biases(ctx: ReportContext) -> PositionBiases | None:
    raters = ctx.report.judge.rater_ids if ctx.report is not None else ()
    swaps = tuple(figures for rater in raters
                  if (figures := position_bias(ctx.store, ctx.rubric, ctx.ratings, rater, ctx.settings)) is not None)
    return PositionBiases(swaps) if swaps else None


def build_team(ctx: ReportContext) -> TeamAgreement | None:
    report = ctx.report
    judge_id = report.judge.rater_ids[0] if report is not None and len(report.judge.rater_ids) == 1 else None
    return team_figures(ctx.store, ctx.rubric, ctx.split, judge_id, settings=ctx.settings, ratings=ctx.ratings)


def build_jury_section(ctx: ReportContext) -> Jury | None:
    members, chosen = ctx.jury, ctx.chosen
    if members is None and chosen is not None:  # the judge compared sits on the jury for its model
        members = tuple(sorted({*(m for m in default_members(ctx.store, ctx.rubric.id)
                                  if judge_model(m) != judge_model(chosen.rater)), chosen.rater}))
    return build_jury(ctx.store, ctx.rubric, members, split=ctx.split, settings=ctx.settings, ratings=ctx.ratings,
                      among=ctx.report.human.rater_ids if ctx.report is not None else None)


def build_self_agreement(ctx: ReportContext) -> SelfAgreement | None:
    found = drift_figures(ctx.store, ctx.rubric, ctx.split, settings=ctx.settings, ratings=ctx.ratings)
    return SelfAgreement(tuple(found)) if found else None


def build_flagged(ctx: ReportContext) -> FlaggedItems:
    return FlaggedItems(tuple(ctx.store.flags(ctx.rubric.id, split=ctx.split)))


# Every section after the judge comparison, in the JSON report's order: a new section is one builder here and its
# drawing in analysis/report_render/full.py.
SECTIONS: tuple[Callable[[ReportContext], Section | None], ...] = (
    build_the_judge, build_judge_biases, build_position_biases, build_team, build_jury_section,
    build_self_agreement, build_flagged,
)


def build_full_report(store: Store, rubric: Rubric, *, human: Group | None = None, judge: Group | None = None,
                      split: str | None = None, by: Iterable[str] = (), settings: AgreementSettings | None = None,
                      compare: tuple[str, str] | None = None, jury: Sequence[str] | None = None,
                      named_judge: str | None = None) -> FullReport:
    """Every section of the report. The judge comparison raises NoComparison when it cannot be made, unless
    the groups were not named and two or more experts rated: then the team section stands alone. ``jury``: its
    members (default: one rater per judge of the rubric, shown with two or more, the judge's model by the judge
    compared). Without ``judge``, the judge is the one `judges.the_judge` picks (``named_judge``: `--judge`)."""
    settings = settings or AgreementSettings()
    with store.snapshot():
        if compare:
            comparison = compare_versions(store, rubric, compare[0], compare[1], split, settings)
            return FullReport(rubric, split, settings, (comparison,))
        chosen = the_judge(store, rubric.id, named_judge) if judge is None else None
        if chosen is not None:
            judge = Group("judge", (chosen.rater,))
        ratings = load(store, rubric, split)  # the one read of the ratings every section uses
        problem: NoComparison | None = None
        try:
            report: Report | None = build_report(store, rubric, human=human, judge=judge, split=split, by=by,
                                                 settings=settings, ratings=ratings)
        except NoComparison as exc:
            if human is not None:  # groups the user named that cannot be compared are an error
                raise
            report, problem = None, exc
        ctx = ReportContext(store, rubric, split, settings, ratings, report, chosen, jury)
        sections = tuple(section for build in SECTIONS if (section := build(ctx)) is not None)
    if report is not None:
        return FullReport(rubric, split, settings, (report, *sections))
    assert problem is not None  # build_report either reports or raises
    team = next((s for s in sections if isinstance(s, TeamAgreement)), None)
    if team is None:
        raise problem  # nothing to show but the reason
    return FullReport(rubric, split, settings, (NoJudgeComparison(str(problem), team.experts), *sections))
