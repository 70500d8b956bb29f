"""`judge-tui report` as a whole: every section computed once, from one read of the ratings (`FullReport`); it is
rendered once by analysis/report_render/full.py.

The sections are objects: the judge comparison (report.Report), the judge's biases (biases.Biases, one per
judge rater of the comparison: each rater is one model and prompt version, and pooling them would hide which one
leans), the team (team.TeamAgreement), the experts' self-agreement (drift.ExpertSelfAgreement), a version
comparison (compare.VersionComparison), a jury (jury.Jury), the judge's validity page and the flagged items.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

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
    by each figure where it needs a tolerance, a confidence or a target; never copied into scalars) and the one
    read of the ratings."""

    store: Store
    rubric: Rubric
    split: str | None
    settings: AgreementSettings
    ratings: RubricRatings


@dataclass(frozen=True)
class FullReport:
    rubric: Rubric
    split: str | None
    settings: AgreementSettings  # the tolerance, the confidence of every interval and the bands' bounds
    report: Report | None  # the judge comparison; None when it cannot be made (see judge_comparison)
    judge_comparison: str | None  # why there is no judge comparison (the team section then stands alone)
    team: TeamAgreement | None  # two or more experts
    expert_self_agreement: tuple[ExpertSelfAgreement, ...]
    comparison: VersionComparison | None  # `--compare V1 V2`: this section alone
    flagged: tuple[Flag, ...] | None  # None: not part of this report (a version comparison)
    judge_biases: tuple[Biases, ...] = ()  # one per judge rater of the comparison, when experts rated
    position_biases: tuple[PositionBiasFigures, ...] = ()  # pairwise judges asked in both orders
    jury: Jury | None = None  # two judges or more against the experts (analysis/jury.py)
    validity: ValidityPage | None = None  # what the judge may be used for: the report's first page
    judge_biases_missing: str | None = None  # why no judge the report names has its biases measured
    chosen_judge: ChosenJudge | None = None  # the judge compared, when no --raters named the groups


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
            return FullReport(rubric, split, settings, None, None, None, (), comparison, None)
        chosen = the_judge(store, rubric.id, named_judge) if judge is None else None
        if chosen is not None:
            judge = Group("judge", (chosen.rater,))
        ctx = ReportContext(store, rubric, split, settings, load(store, rubric, split))  # the one read of the ratings
        problem: NoComparison | None = None
        try:
            report: Report | None = build_report(store, rubric, human=human, judge=judge, split=split, by=by,
                                                 settings=settings, ratings=ctx.ratings)
        except NoComparison as exc:
            if human is not None:  # groups the user named that cannot be compared are an error
                raise
            report, problem = None, exc
        judge_id = None
        if report is not None and len(report.judge.rater_ids) == 1:
            judge_id = report.judge.rater_ids[0]
        team = team_figures(store, rubric, split, judge_id, settings=settings, ratings=ctx.ratings)
        if problem is not None and team is None:
            raise problem  # nothing to show but the reason
        drift = drift_figures(store, rubric, split, settings=settings, ratings=ctx.ratings)
        flagged = tuple(store.flags(rubric.id, split=split))
        biases, biases_missing = _judge_biases(ctx, report)
        swaps = [figures for rater in (report.judge.rater_ids if report is not None else ())
                 if (figures := position_bias(store, rubric, ctx.ratings, rater, settings)) is not None]
        if jury is None and chosen is not None:  # the judge compared sits on the jury for its model
            jury = tuple(sorted({*(m for m in default_members(store, rubric.id)
                                   if judge_model(m) != judge_model(chosen.rater)), chosen.rater}))
        panel = build_jury(store, rubric, jury, split=split, settings=settings, ratings=ctx.ratings,
                           among=report.human.rater_ids if report is not None else None)
        validity = every_judge_validity(store, report, ctx.ratings, settings) if report is not None else None
        if validity is not None:  # the certificate in force, with the page: the lead's view of the judge
            validity = replace(validity, certificate=certificate_in_force(store, rubric, settings, ctx.ratings))
    return FullReport(rubric, split, settings, report, str(problem) if problem else None, team, tuple(drift), None,
                      flagged, tuple(biases), tuple(swaps), panel, validity, biases_missing, chosen)


def _judge_biases(ctx: ReportContext, report: Report | None) -> tuple[list[Biases], str | None]:
    """The biases of each judge the comparison names, on either side, and why there are none when no expert
    rated the items compared."""
    biases: list[Biases] = []
    judges = set(ctx.ratings.raters_of_kind("judge"))
    named = (*report.human.rater_ids, *report.judge.rater_ids) if report is not None else ()
    measured = [rater for rater in dict.fromkeys(named) if rater in judges]  # each judge, on either side
    for rater in measured:
        assert report is not None  # measured is empty without one
        on_judge_side = rater in report.judge.rater_ids
        found = judge_biases(ctx.store, ctx.rubric, rater, split=ctx.split, settings=ctx.settings,
                             ratings=ctx.ratings, report=report if on_judge_side else None,
                             among=report.human.rater_ids)
        if found.experts:  # the consensus is the experts'; without one there is nothing to lean from
            biases.append(found)
    return biases, NO_EXPERTS_FOR_BIASES if measured and not biases else None
