"""The agreement report: which ratings are compared, every figure, and what the figures mean.

`build_report` reads the scores from the store, pairs a human group with a judge group over the items both
rated, and returns a `Report`: plain data that `report_format` renders as text, Markdown or JSON and that
the summary screen shows. `run` is the `judge-tui report` command.

How groups combine (documented in the README, "Reading the agreement"):
* each rater contributes, per item, their first run (repeat 0) under the newest rubric version they used;
* a group of several raters scores an item with the mean of its members' scores (dimension by dimension,
  and for the overall score); means that fall between scale points are snapped to the nearest point
  (halfway goes down) for kappa, the confusion matrix and TPR/TNR, and counted as snapped;
* by default the human group is every human rater and the judge group is the judge rater that rated most
  recently; `--raters` names both groups.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from judge_tui.analysis.figure_format import num, pct
from judge_tui.analysis.pair_intervals import DEFAULT_CONFIDENCE, repeat_intervals
from judge_tui.analysis.scores import (
    ITEM_COLUMNS,
    OVERALL_COLUMN,
    Pairing,
    RubricRatings,
    Scores,
    aligned_count,
    has_item_field,
    item_groups,
    items_at_least,
    load,
    mean_of,
    pair,
    pooled_alignment,
)
from judge_tui.model.errors import UserError
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats import agreement as ag
from judge_tui.stats.agreement import Figure, Interpretation, PairAgreement, Thresholds, Undefined
from judge_tui.stats.intervals import IntervalFigure
from judge_tui.store import Store

OVERALL = "overall"
# Self-agreement compares at most this many repeats pairwise (10 pairs).
MAX_REPEATS = 5


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

    @property
    def combine(self) -> str:
        if len(self.rater_ids) == 1:
            return "first run, newest rubric version"
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
    corrected: ag.CorrectedPassRate | None = None  # PASS/FAIL rubrics with judge-only items


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


@dataclass(frozen=True)
class Finding:
    """One line of the verdict."""

    topic: str  # alignment, kappa, pearson, tpr_tnr, range, checker, snapped
    status: str  # ok, caution, act, stop, unknown, info
    meets_target: bool | None
    scope: str
    text: str


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
    tolerance: float
    thresholds: Thresholds
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

    @property
    def judged_rows(self) -> tuple[Row, ...]:
        return tuple(r for r in self.rows if r.method == "judged")


def thresholds_from(settings: AgreementSettings) -> Thresholds:
    return Thresholds(
        alignment_well_calibrated=settings.alignment_well_calibrated,
        alignment_minor_drift=settings.alignment_minor_drift,
        alignment_significant_drift=settings.alignment_significant_drift,
        kappa_almost_perfect=settings.kappa_almost_perfect,
        kappa_substantial=settings.kappa_substantial,
        kappa_moderate=settings.kappa_moderate,
        pearson_target=settings.pearson_target,
        binary_target=settings.tpr_tnr_target,
    )


# --------------------------------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------------------------------


def _continuous_overall(human: np.ndarray, judge: np.ndarray, tolerance: float) -> PairAgreement:
    """Figures for an overall score that is an average: no categories, so no kappa or confusion."""
    why = Undefined("the overall score is an average of dimensions, not a category of the scale")
    n = int(human.size)
    return PairAgreement(
        n=n, scale=(), ordered=True, tolerance=tolerance,
        alignment_rate=ag.alignment_rate(human, judge, tolerance),
        cohen_kappa=why, weighted_kappa=why,
        pearson_r=ag.pearson_r(human, judge), spearman_rho=ag.spearman_rho(human, judge),
        kendall_tau=ag.kendall_tau(human, judge), mean_difference=ag.mean_difference(judge, human),
        confusion=(), snapped_human=0, snapped_judge=0,
        tpr=Undefined("only PASS/FAIL scales have TPR, TNR and accuracy"),
        tnr=Undefined("only PASS/FAIL scales have TPR, TNR and accuracy"),
        accuracy=Undefined("only PASS/FAIL scales have TPR, TNR and accuracy"),
    )  # fmt: skip


def _rows(pairing: Pairing, rubric: Rubric, tolerance: float,
          thresholds: Thresholds) -> tuple[tuple[Row, ...], Row]:
    rows = []
    for index, dimension in enumerate(rubric.dimensions):
        pair = pairing.column(index).compare(rubric, tolerance)
        rows.append(Row(dimension.id, dimension.name, dimension.method, pair,
                        ag.interpret_alignment(pair.alignment_rate, thresholds),
                        ag.interpret_kappa(pair.cohen_kappa, thresholds)))
    paired = pairing.overall()
    if rubric.overall == "label":
        pair = paired.compare(rubric, tolerance)
    else:
        pair = _continuous_overall(paired.a, paired.b, tolerance)
    overall = Row(OVERALL, rubric.overall_name, "overall", pair,
                  ag.interpret_alignment(pair.alignment_rate, thresholds),
                  ag.interpret_kappa(pair.cohen_kappa, thresholds))
    return tuple(rows), overall


def _summary(rows: Sequence[Row], pairing: Pairing, rubric: Rubric, tolerance: float, items: int) -> Summary:
    judged = [r for r in rows if r.method == "judged"]
    paired = [pairing.column(rubric.dimension_ids.index(r.key)) for r in judged]
    agreements, pairs = aligned_count(paired, tolerance)
    rate = pooled_alignment(paired, tolerance, "no judged dimension was scored by both")
    lowest, highest = ag.lowest_and_highest({r.key: r.agreement.alignment_rate for r in judged})
    return Summary(int(pairing.keys.size), items, agreements, pairs, rate, lowest, highest)


def _corrected(rubric: Rubric, row: Row, pairing: Pairing, judge: Scores, human: Scores) -> ag.CorrectedPassRate:
    index = rubric.dimension_ids.index(row.key)
    points = rubric.scale.points
    paired = pairing.column(index)
    only = ~np.isin(judge.keys, human.keys) & ~np.isnan(judge.scores[:, index])
    judge_only, _ = ag.snap_to_scale(judge.scores[only, index], points)
    human_labels, _ = ag.snap_to_scale(paired.a, points)
    judge_labels, _ = ag.snap_to_scale(paired.b, points)
    return ag.corrected_pass_rate(judge_only, human_labels, judge_labels)


def _self_agreement(ratings: RubricRatings, rater_id: str, tolerance: float,
                    restrict: np.ndarray | None, confidence: float = DEFAULT_CONFIDENCE) -> JudgeSelfAgreement | None:
    """Repeat against repeat for one judge rater, on each item's newest rubric version."""
    rubric = ratings.rubric
    runs = ratings.by_repeat(rater_id, restrict)
    available = sorted(runs)[:MAX_REPEATS]
    if len(available) < 2:
        return None
    pairs = tuple(combinations(available, 2))
    pairings = [pair(runs[a], runs[b]) for a, b in pairs]
    columns = [*((i, d.id) for i, d in enumerate(rubric.dimensions)), (OVERALL_COLUMN, OVERALL)]
    rows = []
    for index, key in columns:
        alignments, kappas, n, columns_paired = [], [], 0, []
        for pairing in pairings:
            paired = pairing.column(index)
            columns_paired.append(paired)
            if index != OVERALL_COLUMN:
                figures = paired.compare(rubric, tolerance)
                alignment, kappa = figures.alignment_rate, figures.cohen_kappa
            else:
                alignment = ag.alignment_rate(paired.a, paired.b, tolerance)
                kappa = Undefined("the overall score is an average of dimensions, not a category of the scale")
            n = max(n, paired.n)
            alignments.append(alignment)
            kappas.append(kappa)
        found = repeat_intervals(columns_paired, rubric, tolerance, kappa=index != OVERALL_COLUMN,
                                 confidence=confidence)
        no_kappa = Undefined("the overall score is an average of dimensions, not a category of the scale")
        intervals = {"alignment_rate": found["alignment"], "cohen_kappa": found.get("kappa", no_kappa)}
        rows.append(SelfRow(key, n, _mean_figure(alignments), _mean_figure(kappas), intervals))
    items = items_at_least((runs[r] for r in available), 2)
    return JudgeSelfAgreement(rater_id, len(available), pairs, items, tuple(rows))


def _mean_figure(figures: Sequence[Figure]) -> Figure:
    defined = [f for f in figures if ag.is_defined(f)]
    if defined:
        return float(np.mean(defined))
    undefined = [f for f in figures if isinstance(f, Undefined)]
    return undefined[0] if undefined else Undefined("no repeats to compare")


def _human_agreement(members: Sequence[Scores], rater_ids: Sequence[str],
                     rubric: Rubric) -> HumanAgreement | None:
    if len(members) < 2:
        return None
    keys = np.unique(np.concatenate([m.keys for m in members]))
    level: ag.AlphaLevel = "ordinal" if rubric.scale.ordered else "nominal"
    points = rubric.scale.points
    rows = []
    for index, dimension in enumerate(rubric.dimensions):
        matrix = np.full((len(members), keys.size), np.nan)
        for r, member in enumerate(members):
            matrix[r, np.searchsorted(keys, member.keys)] = member.scores[:, index]
        matrix, _ = ag.snap_to_scale(matrix, points)
        items = int(np.count_nonzero(np.count_nonzero(~np.isnan(matrix), axis=0) >= 2))
        alpha = ag.krippendorff_alpha(matrix, level, points)
        table = ag.pairwise_kappa(matrix, points)
        off_diagonal = [table[a][b] for a, b in combinations(range(len(members)), 2)]
        rows.append(HumanRow(dimension.id, items, alpha, _mean_figure(off_diagonal)))
    return HumanAgreement(tuple(rater_ids), level, tuple(rows))


# --------------------------------------------------------------------------------------------------
# The verdict
# --------------------------------------------------------------------------------------------------


_SEVERITY = {"ok": 0, "info": 0, "unknown": 1, "caution": 2, "act": 3, "stop": 4}


def _findings(report_rows: Sequence[Row], overall: Row, summary: Summary, rubric: Rubric, tolerance: float,
              thresholds: Thresholds, test_binary: ag.BinaryMetrics | None, split: str | None) -> list[Finding]:
    scope = f"{split} split" if split else "all compared items"
    findings = []
    band = ag.interpret_alignment(summary.alignment_rate, thresholds)
    findings.append(Finding(
        "alignment", band.status, band.meets_target, scope,
        f"Alignment {pct(summary.alignment_rate)} ({summary.agreements} of {summary.pairs} judged scores "
        f"within ±{tolerance:g}): {band.label}. {band.action}",
    ))
    judged = [r for r in report_rows if r.method == "judged"]
    defined = [r for r in judged if ag.is_defined(r.agreement.cohen_kappa)]
    if defined:
        below = [r for r in defined if not r.kappa_band.meets_target]
        worst = max(defined, key=lambda r: _SEVERITY[r.kappa_band.status])
        text = (f"Cohen's kappa reaches the target band (≥ {thresholds.kappa_substantial:.2f}) on "
                f"{len(defined) - len(below)} of {len(defined)} judged dimensions")
        if below:
            text += "; below it: " + ", ".join(
                f"{r.key} ({num(r.agreement.cohen_kappa)}, {r.kappa_band.label})" for r in below)
            text += f". {worst.kappa_band.action}"
        else:
            text += "."
        findings.append(Finding("kappa", worst.kappa_band.status, not below, scope, text))
    else:
        reason = judged[0].agreement.cohen_kappa if judged else Undefined("no judged dimension")
        assert isinstance(reason, Undefined)  # no judged dimension has a defined kappa here
        findings.append(Finding("kappa", "unknown", None, scope, f"Cohen's kappa cannot be computed: {reason.reason}."))
    if rubric.overall != "label":
        target = ag.meets_pearson_target(overall.agreement.pearson_r, thresholds)
        findings.append(Finding(
            "pearson", target.status, target.meets_target, scope,
            f"Pearson r of the {rubric.overall_name} scores: {num(overall.agreement.pearson_r)} "
            f"(target ≥ {thresholds.pearson_target:.2f}): {target.label}. {target.action}",
        ))
    if rubric.scale.kind == "pass_fail":
        findings.append(_binary_finding(judged[0] if judged else overall, test_binary, thresholds))
    if len(judged) > 1 and summary.lowest and summary.highest:
        rates = {r.key: r.agreement.alignment_rate for r in judged}
        findings.append(Finding(
            "range", "info", None, scope,
            f"Lowest alignment: {summary.lowest} ({pct(rates[summary.lowest])}); "
            f"highest: {summary.highest} ({pct(rates[summary.highest])}).",
        ))
    for row in report_rows:
        if row.method == "code" and row.agreement.n:
            differ = row.agreement.n - sum(row.agreement.confusion[i][i] for i in range(len(row.agreement.confusion)))
            if differ:
                findings.append(Finding(
                    "checker", "act", False, scope,
                    f"{row.key} is computed by code, yet the two sides differ on {differ} item(s): "
                    "look for a bug in the checker or in the imported scores, not in the judge.",
                ))
    snapped_judge = sum(r.agreement.snapped_judge for r in report_rows)
    snapped_human = sum(r.agreement.snapped_human for r in report_rows)
    if snapped_judge or snapped_human:
        findings.append(Finding(
            "snapped", "info", None, scope,
            f"{snapped_judge} judge score(s) and {snapped_human} human-group score(s) lay between scale points; "
            "they were moved to the nearest point (halfway goes down) for kappa, the confusion matrix and "
            "TPR/TNR. Alignment and correlations use them as given.",
        ))
    return findings


def _binary_finding(row: Row, test: ag.BinaryMetrics | None, thresholds: Thresholds) -> Finding:
    target = thresholds.binary_target
    if test is None or test.n == 0:
        return Finding(
            "tpr_tnr", "unknown", None, "test split",
            f"The TPR/TNR target (both above {target:.2f}) applies to the test split, and no test-split item was "
            f"labelled by both; over the compared items TPR is {num(row.agreement.tpr)} and TNR "
            f"{num(row.agreement.tnr)}, for guidance only. Assign splits with `judge-tui split`.",
        )
    verdict = ag.meets_binary_target(test.tpr, test.tnr, thresholds)
    return Finding(
        "tpr_tnr", verdict.status, verdict.meets_target, "test split",
        f"On the test split ({test.n} items): TPR {num(test.tpr)}, TNR {num(test.tnr)} "
        f"(target: both above {target:.2f}): {verdict.label}. {verdict.action}",
    )


# --------------------------------------------------------------------------------------------------
# Building the report
# --------------------------------------------------------------------------------------------------


def _natural_key(value: str) -> tuple[Any, ...]:
    return (value == "(none)", value.lower())


def judges_by_coverage(store: Store, rubric_id: str) -> list[tuple[str, int]]:
    """The rubric's judge raters with how many of its items each rated: the most items first, then the one
    that rated most recently (a judge that rated 2 of 25 items is not the default over one that rated all)."""
    judges = [r for r in store.rubric_raters(rubric_id) if r["kind"] == "judge"]
    rated = {r["id"]: store.progress(r["id"], rubric_id, total=0)["rated"] for r in judges}
    judges.sort(key=lambda r: (rated[r["id"]], r["last_id"]), reverse=True)
    return [(r["id"], rated[r["id"]]) for r in judges]


def default_judge(store: Store, rubric_id: str) -> str | None:
    judges = judges_by_coverage(store, rubric_id)
    return judges[0][0] if judges else None


def default_groups(store: Store, rubric_id: str) -> tuple[Group, Group]:
    """Every human rater against the judge rater that covers the rubric best (judges_by_coverage).

    The adjudicated "consensus" rater is derived from the experts, so it is not one of them here (see team.py).
    """
    from judge_tui.analysis.team import is_expert

    raters = store.rubric_raters(rubric_id)
    humans = tuple(r["id"] for r in raters if is_expert(r["id"], r["kind"]))
    judge = default_judge(store, rubric_id)
    if not raters:
        raise NoComparison(f"no ratings of rubric {rubric_id!r} yet: rate items, or bring ratings in with "
                          "`judge-tui import-ratings FILE --rater ID --kind human|judge`")
    if not humans:
        raise NoComparison(f"rubric {rubric_id!r} has no human ratings to compare the judge with: rate items in "
                          "the app, or `judge-tui import-ratings FILE --rater ID --kind human`")
    if judge is None:
        raise NoComparison(f"rubric {rubric_id!r} has no judge ratings yet: run `judge-tui judge --rubric "
                          f"{rubric_id}`, or `judge-tui import-ratings FILE --rater ID --kind judge`")
    return Group("human", humans), Group("judge", (judge,))


def parse_raters(spec: str, store: Store, rubric_id: str) -> tuple[Group, Group]:
    """`A,B` or `A+B,C`: the reference group first, the group being checked second."""
    parts = [p.strip() for p in spec.split(",")]
    if len(parts) != 2 or not all(parts):
        raise ReportError(f"--raters {spec!r}: give two groups separated by a comma, e.g. EXP001,judge:... "
                          "(join several raters of one group with +)")
    known = {r["id"]: r for r in store.rubric_raters(rubric_id)}
    groups = []
    for role, part in zip(("human", "judge"), parts, strict=True):
        ids = tuple(dict.fromkeys(p.strip() for p in part.split("+") if p.strip()))
        unknown = [i for i in ids if i not in known]
        if unknown:
            listing = ", ".join(f"{r} ({known[r]['kind']})" for r in known) or "none"
            raise ReportError(f"--raters: no ratings of rubric {rubric_id!r} by {unknown[0]!r}; raters: {listing}")
        groups.append(Group(role, ids))
    return groups[0], groups[1]


def build_report(
    store: Store,
    rubric: Rubric,
    *,
    human: Group | None = None,
    judge: Group | None = None,
    split: str | None = None,
    by: Iterable[str] = (),
    settings: AgreementSettings | None = None,
    skip_missing_fields: bool = False,
    judge_only: bool = True,
    ratings: RubricRatings | None = None,
) -> Report:
    """Every agreement figure between two rater groups over the items both rated.

    ``by`` lists breakdown fields (an unknown field is an error unless ``skip_missing_fields``);
    ``judge_only=False`` leaves out everything computed on items the human group has not rated (the
    corrected pass rate), as the summary screen must under the blind rule. ``ratings``: the rubric's
    ratings in ``split`` when the caller has loaded them already (see scores.load).
    """
    settings = settings or AgreementSettings()
    thresholds = thresholds_from(settings)
    tolerance = settings.tolerance
    dims = rubric.dimension_ids
    with store.snapshot():
        if not skip_missing_fields:  # first, so a mistyped field is never hidden behind another message
            for field in by:
                _require_field(store, rubric, field)
        if human is None or judge is None:
            default_human, default_judge = default_groups(store, rubric.id)
            human, judge = human or default_human, judge or default_judge
        if ratings is None:
            ratings = load(store, rubric, split)
        human_members = [ratings.first_runs(r) for r in human.rater_ids]
        human_scores = mean_of(human_members, len(dims))
        judge_scores = mean_of([ratings.first_runs(r) for r in judge.rater_ids], len(dims))
        pairing = pair(human_scores, judge_scores)
        total = store.count_items(rubric.id, split)
        if pairing.keys.size == 0:
            where = f" in the {split} split" if split else ""
            raise NoComparison(
                f"no item of rubric {rubric.id!r}{where} was rated by both {_names(human)} and {_names(judge)} "
                f"({human_scores.keys.size} rated by the first, {judge_scores.keys.size} by the second)"
            )
        field_values = {}
        # The split of each item is needed for the PASS/FAIL target, which applies to the test split.
        needs_split = rubric.scale.kind == "pass_fail" and not split
        wanted = list(dict.fromkeys([*by, *(["split"] if needs_split else [])]))
        for field in wanted:
            if has_item_field(store, rubric, field):
                field_values[field] = item_groups(store, rubric, field, pairing.keys, split)

    rows, overall = _rows(pairing, rubric, tolerance, thresholds)
    if rubric.scale.kind == "pass_fail" and judge_only:
        rows = tuple(
            Row(r.key, r.name, r.method, r.agreement, r.alignment_band, r.kappa_band,
                _corrected(rubric, r, pairing, judge_scores, human_scores))
            for r in rows
        )
    summary = _summary(rows, pairing, rubric, tolerance, total)

    test_binary = None
    if rubric.scale.kind == "pass_fail":
        if split == "test":
            test_pairing = pairing
        elif "split" in field_values:
            test_pairing = pairing.subset(np.array([v == "test" for v in field_values["split"]], dtype=bool))
        else:
            test_pairing = None
        if test_pairing is not None:
            tested = test_pairing.column(0)
            h, j = tested.a, tested.b
            test_binary = ag.binary_metrics(ag.snap_to_scale(h, (0.0, 1.0))[0], ag.snap_to_scale(j, (0.0, 1.0))[0])
    findings = _findings(rows, overall, summary, rubric, tolerance, thresholds, test_binary, split)

    breakdowns = []
    for field in dict.fromkeys(by):
        if field not in field_values:
            continue
        values = field_values[field]
        if skip_missing_fields and all(v == "(none)" for v in values):
            continue
        sections = []
        for value in sorted(set(values), key=_natural_key):
            part = pairing.subset(np.array([v == value for v in values], dtype=bool))
            part_rows, part_overall = _rows(part, rubric, tolerance, thresholds)
            sections.append(Section(value, _summary(part_rows, part, rubric, tolerance, int(part.keys.size)),
                                    part_rows, part_overall))
        breakdowns.append(Breakdown(field, tuple(sections)))

    restrict = pairing.keys if not judge_only else None
    self_agreement = tuple(
        s for s in (_self_agreement(ratings, r, tolerance, restrict) for r in judge.rater_ids) if s is not None
    )
    counts = {
        "items": total,
        "rated_by_human": int(human_scores.keys.size),
        "rated_by_judge": int(judge_scores.keys.size),
        "compared": int(pairing.keys.size),
        "judge_only": int(np.count_nonzero(~np.isin(judge_scores.keys, human_scores.keys))),
    }
    paired_overall = pairing.overall()
    return Report(
        rubric=rubric, split=split, human=human, judge=judge, tolerance=tolerance, thresholds=thresholds,
        counts=counts, summary=summary, rows=rows, overall=overall, findings=tuple(findings),
        breakdowns=tuple(breakdowns), self_agreement=self_agreement,
        human_agreement=_human_agreement(human_members, human.rater_ids, rubric),
        human_overall=paired_overall.a, judge_overall=paired_overall.b,
    )  # fmt: skip


def _require_field(store: Store, rubric: Rubric, field: str) -> None:
    if not has_item_field(store, rubric, field):
        fields = ", ".join([*ITEM_COLUMNS, *(f.name for f in rubric.fields)])
        raise ReportError(f"--by {field!r}: no item of rubric {rubric.id!r} has that field; try one of {fields}")


def _names(group: Group) -> str:
    ids = ", ".join(group.rater_ids)
    return f"the {group.role} rater{'s' if len(group.rater_ids) > 1 else ''} {ids}"


# --------------------------------------------------------------------------------------------------
# Disagreements, item by item (the disagreement browser)
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JudgeDisagreement:
    item_id: str
    human_overall: float | None
    judge_overall: float | None
    gap: float  # |human - judge| on the overall score (a PASS/FAIL mismatch is 1)
    differing: int  # dimensions whose scores differ by more than the tolerance


def disagreements(store: Store, rubric: Rubric, human_id: str, judge_id: str,
                  tolerance: float = 0.15) -> list[JudgeDisagreement]:
    """Items rated by both raters, the largest overall gap first (then the most differing dimensions)."""
    with store.snapshot():
        ratings = load(store, rubric)
        keys, ids = store.item_field_values(rubric.id, "id")
    pairing = pair(ratings.first_runs(human_id), ratings.first_runs(judge_id))
    human_overall, judge_overall = pairing.a.overall, pairing.b.overall
    gap = np.abs(human_overall - judge_overall)
    gap = np.where(np.isnan(gap), 0.0, gap)
    with np.errstate(invalid="ignore"):
        differing = np.count_nonzero(np.abs(pairing.a.scores - pairing.b.scores) > tolerance + ag.ALIGNMENT_EPSILON,
                                     axis=1)
    order = np.lexsort((pairing.keys, -differing, -gap))
    item_ids = [ids[i] for i in np.searchsorted(keys, pairing.keys[order]).tolist()]

    def plain(value: float) -> float | None:
        return None if np.isnan(value) else float(value)

    return [
        JudgeDisagreement(item_id, plain(human_overall[i]), plain(judge_overall[i]), float(gap[i]),
                     int(differing[i]))
        for item_id, i in zip(item_ids, order.tolist(), strict=True)
    ]
