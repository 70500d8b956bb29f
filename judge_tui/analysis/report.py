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

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Any

import numpy as np

from judge_tui.analysis.design import Design, reweighted_checks, sampling_design, with_corrected_pass_rate
from judge_tui.analysis.figure_format import figure_with_interval, pct
from judge_tui.analysis.judges import default_judge
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
from judge_tui.analysis.targets import (
    Combined,
    DecideOn,
    TargetCheck,
    band_span,
    check,
    ruling,
    verdict_words,
)
from judge_tui.analysis.uncertainty import RowUncertainty, pooled_alignment_interval, row_uncertainty
from judge_tui.model.errors import UserError
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats import agreement as ag
from judge_tui.stats import intervals as iv
from judge_tui.stats.agreement import Figure, Interpretation, PairAgreement, Thresholds, Undefined
from judge_tui.stats.decisions import Decision
from judge_tui.stats.intervals import Interval, IntervalFigure
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
    confidence: float = 0.95
    decide_on: DecideOn = "interval"
    checks: tuple[TargetCheck, ...] = ()  # every target, decided; the undecided ones carry the plan
    ties: int = 0  # items whose PASS/FAIL human consensus is tied, left out (judge-tui adjudicate settles them)
    design: Design | None = None  # how the compared items were drawn (queue orders); None: not recorded
    settled_after: int | None = None  # the ratings every target was first found decided with (rating screen)

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


def _rows(pairing: Pairing, rubric: Rubric, tolerance: float, thresholds: Thresholds,
          confidence: float = 0.95, ranks: bool = True) -> tuple[tuple[Row, ...], Row]:
    rows = []
    for index, dimension in enumerate(rubric.dimensions):
        paired = pairing.column(index)
        pair = paired.compare(rubric, tolerance)
        rows.append(Row(dimension.id, dimension.name, dimension.method, pair,
                        ag.interpret_alignment(pair.alignment_rate, thresholds),
                        ag.interpret_kappa(pair.cohen_kappa, thresholds),
                        uncertainty=row_uncertainty(paired, pair, confidence, ranks=ranks)))
    paired = pairing.overall()
    if rubric.overall == "label":
        pair = paired.compare(rubric, tolerance)
    else:
        pair = _continuous_overall(paired.a, paired.b, tolerance)
    overall = Row(OVERALL, rubric.overall_name, "overall", pair,
                  ag.interpret_alignment(pair.alignment_rate, thresholds),
                  ag.interpret_kappa(pair.cohen_kappa, thresholds),
                  uncertainty=row_uncertainty(paired, pair, confidence, categorical=rubric.overall == "label",
                                              ranks=ranks))
    return tuple(rows), overall


def _summary(rows: Sequence[Row], pairing: Pairing, rubric: Rubric, tolerance: float, items: int,
             confidence: float = 0.95) -> Summary:
    judged = [r for r in rows if r.method == "judged"]
    paired = [pairing.column(rubric.dimension_ids.index(r.key)) for r in judged]
    agreements, pairs = aligned_count(paired, tolerance)
    rate = pooled_alignment(paired, tolerance, "no judged dimension was scored by both")
    lowest, highest = ag.lowest_and_highest({r.key: r.agreement.alignment_rate for r in judged})
    interval = pooled_alignment_interval(paired, tolerance, confidence)
    return Summary(int(pairing.keys.size), items, agreements, pairs, rate, lowest, highest, interval)


def _without_ties(scores: Scores, members: int, rubric: Rubric, ratings: RubricRatings) -> tuple[Scores, int]:
    """A PASS/FAIL group's consensus with ties settled as the team section settles them: the lead's adjudicated
    score where there is one, else left out (the mean of an even split is 1/2, which has no majority).
    Returns the scores and how many items still have a tie."""
    if members < 2 or rubric.scale.kind != "pass_fail":
        return scores, 0
    table = np.column_stack([scores.scores, scores.overall])
    tied = np.abs(table - 0.5) < 1e-9
    if not tied.any():
        return scores, 0
    from judge_tui.analysis.team import CONSENSUS_RATER

    adjudicated = (ratings.first_runs(CONSENSUS_RATER).rows_on(scores.keys)
                   if CONSENSUS_RATER in ratings.rater_ids else np.full(table.shape, np.nan))
    table = np.where(tied, adjudicated, table)
    left_out = tied & np.isnan(adjudicated)
    return Scores(scores.keys, table[:, :-1], table[:, -1]), int(np.count_nonzero(left_out.any(axis=1)))


def _corrected(rubric: Rubric, index: int, labelled: Pairing, judge: Scores, human: Scores,
               splits: dict[int, str], from_test: bool, confidence: float) -> Correction:
    """Rogan-Gladen on every item only the judge labelled (whatever its split), with TPR/TNR from ``labelled``:
    the test split's labelled items when splits exist, as `estimate_success_rate` of judgy takes them."""
    points = rubric.scale.points
    paired = labelled.column(index)
    only = ~np.isin(judge.keys, human.keys) & ~np.isnan(judge.scores[:, index])
    judge_only, _ = ag.snap_to_scale(judge.scores[only, index], points)
    human_labels, _ = ag.snap_to_scale(paired.a, points)
    judge_labels, _ = ag.snap_to_scale(paired.b, points)
    by_split: dict[str, int] = {}
    for key in judge.keys[only].tolist():
        name = splits.get(key) or "(none)"
        by_split[name] = by_split.get(name, 0) + 1
    rate = ag.corrected_pass_rate(judge_only, human_labels, judge_labels, confidence=confidence)
    if from_test and paired.n == 0 and judge_only.size:
        why = Undefined("no test-split item was labelled by both, and TPR and TNR for the correction come from "
                        "the test split only: label some test items")
        rate = replace(rate, estimate=why, low=why, high=why, tpr=why, tnr=why)
    return Correction(rate, "test split" if from_test else "all compared items", dict(sorted(by_split.items())))


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


def _checks(rows: Sequence[Row], overall: Row, summary: Summary, rubric: Rubric, thresholds: Thresholds,
            test_pairing: Pairing | None, split: str | None, confidence: float, *,
            plan: bool = True) -> list[TargetCheck]:
    """Every target of the report, decided on its interval, with a plan for the undecided ones (``plan=False``:
    decisions only, for the rating screen's count of settled questions)."""
    scope = f"{split} split" if split else "all compared items"
    one_score_each = summary.pairs == summary.cases  # one judged dimension: a plain Wilson share
    checks = [check("alignment", "alignment", scope, summary.alignment_rate, summary.alignment_interval,
                    summary.cases, thresholds.alignment_well_calibrated, percent=True, confidence=confidence, plan=plan,
                    share=(summary.agreements, summary.pairs) if one_score_each and summary.pairs else None)]
    for row in rows:
        if row.method == "judged":
            checks.append(check(f"kappa:{row.key}", f"κ of {row.key}", scope, row.agreement.cohen_kappa,
                                row.uncertainty.intervals.get("cohen_kappa", Undefined("no interval")),
                                row.agreement.n, thresholds.kappa_substantial, confidence=confidence, plan=plan))
    if rubric.overall != "label":
        checks.append(check("pearson", f"r of the {rubric.overall_name}", scope, overall.agreement.pearson_r,
                            overall.uncertainty.intervals.get("pearson_r", Undefined("no interval")),
                            overall.agreement.n, thresholds.pearson_target, confidence=confidence,
                            correlation=True, plan=plan))
    if test_pairing is not None and rubric.scale.kind == "pass_fail":
        tested = test_pairing.column(0)
        h = ag.snap_to_scale(tested.a, ag.BINARY_SCALE)[0]
        j = ag.snap_to_scale(tested.b, ag.BINARY_SCALE)[0]
        m = ag.binary_metrics(h, j)
        human_pass, human_fail = m.true_pass + m.false_fail, m.true_fail + m.false_pass
        for key, hits, of, label in (("tpr", m.true_pass, human_pass, "PASS"), ("tnr", m.true_fail, human_fail, "FAIL")):
            interval = iv.wilson(hits, of, confidence) if of else Undefined(f"the human labels contain no {label}")
            checks.append(check(key, key.upper(), "test split", getattr(m, key), interval, of,
                                thresholds.binary_target, strict=True, confidence=confidence, share=(hits, of),
                                class_share=of / m.n if m.n else None, class_label=label, plan=plan))
    return checks


def _with_items_left(store: Store, rubric: Rubric, checks: Sequence[TargetCheck], total: int,
                     rated: np.ndarray, split: str | None) -> list[TargetCheck]:
    """Each check with how many items of its scope are still unrated by the compared experts, so a plan that
    asks for more than the pool holds says so. Only counted when some plan asks for more items."""
    if not any(c.more_items is not None for c in checks):
        return list(checks)
    left = {f"{split} split" if split else "all compared items": total - int(rated.size)}
    if any(c.scope == "test split" for c in checks) and "test split" not in left:
        in_test = sum(1 for s in item_groups(store, rubric, "split", rated, None) if s == "test")
        left["test split"] = store.count_items(rubric.id, "test") - in_test
    return [replace(c, left=max(0, left[c.scope])) if c.scope in left else c for c in checks]


def _findings(report_rows: Sequence[Row], overall: Row, summary: Summary, rubric: Rubric, tolerance: float,
              thresholds: Thresholds, test_binary: ag.BinaryMetrics | None, split: str | None,
              checks: Sequence[TargetCheck], decide_on: DecideOn, ties: int) -> list[Finding]:
    scope = f"{split} split" if split else "all compared items"
    by_key = {c.key: c for c in checks}
    findings = []
    findings.append(_target_finding(
        "alignment", by_key["alignment"], ag.interpret_alignment, thresholds, decide_on,
        f"Alignment {figure_with_interval(summary.alignment_rate, summary.alignment_interval, percent=True)} "
        f"({summary.agreements} of {summary.pairs} judged scores within ±{tolerance:g})",
    ))
    judged = [r for r in report_rows if r.method == "judged"]
    defined = [r for r in judged if ag.is_defined(r.agreement.cohen_kappa)]
    if defined:
        findings.append(_kappa_finding(defined, by_key, thresholds, decide_on, scope))
        findings += _kappa_ac1_findings(defined, rubric, thresholds, scope)
    else:
        reason = judged[0].agreement.cohen_kappa if judged else Undefined("no judged dimension")
        assert isinstance(reason, Undefined)  # no judged dimension has a defined kappa here
        findings.append(Finding("kappa", "unknown", None, scope, f"Cohen's kappa cannot be computed: {reason.reason}."))
    if rubric.overall != "label":
        c = by_key["pearson"]
        findings.append(_target_finding(
            "pearson", c, _pearson_band, thresholds, decide_on,
            f"Pearson r of the {rubric.overall_name} scores {c.reading}",
        ))
    if rubric.scale.kind == "pass_fail":
        findings.append(_binary_finding(judged[0] if judged else overall, test_binary, thresholds,
                                        by_key.get("tpr"), by_key.get("tnr"), decide_on))
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
    if ties:
        findings.append(Finding(
            "ties", "info", None, scope,
            f"{ties} item(s) have a tied PASS/FAIL human consensus (as many PASS as FAIL) and are left out of "
            "this comparison, as in the team section; settle them with `judge-tui adjudicate`.",
        ))
    return findings


def _pearson_band(r: Figure, thresholds: Thresholds) -> Interpretation:
    return ag.meets_pearson_target(r, thresholds)


def _target_finding(topic: str, c: TargetCheck, interpret: Callable[[Figure, Thresholds], Interpretation],
                    thresholds: Thresholds, decide_on: DecideOn, opening: str) -> Finding:
    """A finding for one target: the band of the estimate, the bands its interval spans, the decision, and
    advice only as strong as the interval supports (the band of the interval's best end when not met)."""
    band = interpret(c.estimate, thresholds)
    decision = ruling(c, decide_on)
    span = band_span(c.interval, interpret, thresholds)
    sign = ">" if c.strict else "≥"
    goal = f"{c.target:.0%}" if c.percent else f"{c.target:.2f}"
    text = f"{opening} (target {sign} {goal}): {band.label}" + (f"; the interval lies {span}" if span else "")
    status, action = band.status, band.action
    if decision is not None:
        words = verdict_words(c, decide_on)
        text += f". {words[0].upper()}{words[1:]}"
        if decision == "undecided":
            status, action = "unknown", ""
        elif decision == "not met" and decide_on == "interval" and isinstance(c.interval, Interval):
            best = interpret(c.interval.high, thresholds)  # the most the data allows
            status, action = best.status, best.action
    text += "." + (f" {action}" if action else "")
    return Finding(topic, status, meets_by_decision(decision), c.scope, text, decision, band.meets_target)


def _kappa_finding(defined: Sequence[Row], by_key: dict[str, TargetCheck], thresholds: Thresholds,
                   decide_on: DecideOn, scope: str) -> Finding:
    groups: dict[str, list[str]] = {"met": [], "not met": [], "undecided": []}
    statuses: list[str] = []
    actions: list[str] = []
    for row in defined:
        c = by_key[f"kappa:{row.key}"]
        decision = ruling(c, decide_on) or "undecided"
        span = band_span(c.interval, ag.interpret_kappa, thresholds)
        detail = f"{row.key} ({c.reading}, {row.kappa_band.label}" + (f", {span}" if span else "") + ")"
        groups[decision].append(row.key if decision == "met" else detail)
        if decision == "met":
            statuses.append(row.kappa_band.status)
        elif decision == "undecided":
            statuses.append("unknown")
        else:
            best = (ag.interpret_kappa(c.interval.high, thresholds)
                    if decide_on == "interval" and isinstance(c.interval, Interval) else row.kappa_band)
            statuses.append(best.status)
            actions.append(best.action)
    worst = max(statuses, key=lambda s: _SEVERITY[s])
    text = f"Cohen's kappa target (≥ {thresholds.kappa_substantial:.2f}) on {len(defined)} judged dimension(s): "
    parts = [f"{name} on {', '.join(keys)}" for name, keys in groups.items() if keys]
    text += "; ".join(parts) + "."
    if groups["undecided"]:
        text += " Undecided: rate more items (see the plan)."
    if actions:
        text += f" {actions[0]}"
    decision = "not met" if groups["not met"] else ("undecided" if groups["undecided"] else "met")
    meets = all(r.kappa_band.meets_target for r in defined)
    return Finding("kappa", worst, meets_by_decision(decision), scope, text, decision, meets)


# Labels count as skewed when the most common one exceeds an even share (1/categories) by this much.
SKEWED_BY = 0.2


def _kappa_ac1_findings(defined: Sequence[Row], rubric: Rubric, thresholds: Thresholds, scope: str) -> list[Finding]:
    """When kappa and Gwet's AC1 fall in different bands, say why: skewed labels (the kappa paradox)."""
    out = []
    for row in defined:
        ac1 = row.uncertainty.figures.get("ac1", Undefined("not computed"))
        if not ag.is_defined(ac1):
            continue
        kappa_band, ac1_band = row.kappa_band, ag.interpret_kappa(ac1, thresholds)
        if kappa_band.label == ac1_band.label:
            continue
        counts = np.asarray(row.agreement.confusion).sum(axis=1)
        common = int(np.argmax(counts))
        share = float(counts[common] / counts.sum())
        label = rubric.scale.label(row.agreement.scale[common])
        intervals = row.uncertainty.intervals
        baseline = row.uncertainty.figures.get("baseline_accuracy", Undefined("not computed"))
        both = (f"On {row.key}, kappa {figure_with_interval(row.agreement.cohen_kappa, intervals.get('cohen_kappa'))}"
                f" ({kappa_band.label}) and Gwet's AC1 {figure_with_interval(ac1, intervals.get('ac1'))} "
                f"({ac1_band.label}) fall in different bands")
        table = np.asarray(row.agreement.confusion)
        observed = float(np.trace(table) / table.sum())
        if share < 1.0 / len(counts) + SKEWED_BY:
            kappa = row.agreement.cohen_kappa
            assert ag.is_defined(kappa)  # rows without a kappa never reach here
            difference = abs(float(ac1) - kappa)
            text = (f"{both}, on either side of a band edge: they differ by {difference:.3f} and the labels are not "
                    f"skewed (the most common, {label}, is {share:.0%}), so read them as the same agreement.")
        else:
            text = (f"{both} because the labels are skewed: {share:.0%} of the human labels are {label}. With one "
                    "label that common, two raters agree by chance so often that kappa stays low even when they "
                    "seldom disagree (the kappa paradox); AC1 estimates chance agreement in a way skew does not "
                    f"inflate. A judge that always answered {label} would be right on {pct(baseline)} of these "
                    f"items; this judge gives the human category on {pct(observed)}.")
        out.append(Finding("kappa_ac1", "info", None, scope, text))
    return out


def _binary_finding(row: Row, test: ag.BinaryMetrics | None, thresholds: Thresholds,
                    tpr: TargetCheck | None, tnr: TargetCheck | None, decide_on: DecideOn) -> Finding:
    target = thresholds.binary_target
    if test is None or test.n == 0 or tpr is None or tnr is None:
        intervals = row.uncertainty.intervals
        return Finding(
            "tpr_tnr", "unknown", None, "test split",
            f"The TPR/TNR target (both above {target:.2f}) applies to the test split, and no test-split item was "
            f"labelled by both; over the compared items TPR is {figure_with_interval(row.agreement.tpr, intervals.get('tpr'))} "
            f"and TNR {figure_with_interval(row.agreement.tnr, intervals.get('tnr'))}, for guidance only. "
            "Assign splits with `judge-tui split`.",
        )
    verdict = ag.meets_binary_target(test.tpr, test.tnr, thresholds)
    rulings = [ruling(c, decide_on) for c in (tpr, tnr)]
    if None in rulings:
        decision = None
    elif "not met" in rulings:
        decision = "not met"
    elif "undecided" in rulings:
        decision = "undecided"
    else:
        decision = "met"
    baseline = row.uncertainty.figures.get("baseline_accuracy", Undefined("not computed"))
    if test.n != row.agreement.n:  # the row's baseline is over other items than the test split's
        baseline = Undefined("the test split is part of the compared items")
    text = (f"On the test split ({test.n} items): TPR {tpr.reading}, TNR {tnr.reading} "
            f"(target: both above {target:.2f}): ")
    text += "; ".join(f"{c.figure} {verdict_words(c, decide_on)}" for c in (tpr, tnr))
    status, action = verdict.status, verdict.action
    if decision == "undecided":
        status, action = "unknown", ""
    elif decision == "met":
        status, action = "ok", verdict.action
    text += "." + (f" {action}" if action else "")
    if ag.is_defined(baseline):
        text += (f" Accuracy {pct(test.accuracy)}, against {pct(baseline)} for a judge that always answers the "
                 "most common human label.")
    return Finding("tpr_tnr", status, meets_by_decision(decision), "test split", text, decision, verdict.meets_target)


def meets_by_decision(decision: str | None) -> bool | None:
    """What a field saying "the target is met" holds: the decision's answer, never the point estimate's alone
    (True beside "undecided" would lead a script to act on a target the data have not settled)."""
    return {"met": True, "not met": False}.get(decision or "")


def combined(report: Report) -> Combined | None:
    """The statement of how the report's decided targets combine, or None when none was decided."""
    decided = [c for c in report.checks if c.decision is not None]
    return Combined(len(decided), report.confidence, report.decide_on) if decided else None


def band_decisions(row: Row, report: Report) -> dict[str, Decision | None]:
    """The alignment and kappa targets decided on this row's own intervals ("alignment", "kappa"), as the
    report decides its targets (targets.check, under agreement.decide_on); None where a figure is undefined."""
    t = report.thresholds
    intervals = row.uncertainty.intervals
    found: dict[str, Decision | None] = {}
    for name, figure, target, percent in (("alignment", "alignment_rate", t.alignment_well_calibrated, True),
                                          ("kappa", "cohen_kappa", t.kappa_substantial, False)):
        c = check(name, name, "", getattr(row.agreement, figure), intervals.get(figure, Undefined("no interval")),
                  row.agreement.n, target, percent=percent, confidence=report.confidence)
        found[name] = ruling(c, report.decide_on)
    return found


# --------------------------------------------------------------------------------------------------
# Building the report
# --------------------------------------------------------------------------------------------------


def _natural_key(value: str) -> tuple[Any, ...]:
    return (value == "(none)", value.lower())


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
    checks_only: bool = False,
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
        human_scores, ties = _without_ties(mean_of(human_members, len(dims)), len(human_members), rubric, ratings)
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
        correction = None
        if rubric.scale.kind == "pass_fail" and judge_only and not checks_only:
            correction = _correction_sides(store, rubric, human, judge, ratings, human_scores, judge_scores)

    confidence = settings.confidence
    rows, overall = _rows(pairing, rubric, tolerance, thresholds, confidence, ranks=not checks_only)
    if correction is not None:
        labelled, all_human, all_judge, splits, from_test = correction
        rows = tuple(
            replace(r, corrected=_corrected(rubric, index, labelled, all_judge, all_human, splits, from_test,
                                            confidence))
            for index, r in enumerate(rows)
        )
    summary = _summary(rows, pairing, rubric, tolerance, total, confidence)

    test_binary = None
    test_pairing: Pairing | None = None
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
    checks = _checks(rows, overall, summary, rubric, thresholds, test_pairing, split, confidence,
                     plan=not checks_only)
    checks = _with_items_left(store, rubric, checks, total, human_scores.keys, split)
    design = sampling_design(store, rubric, human.rater_ids, pairing, split, tolerance, confidence)
    if design is not None and design.weighted:
        checks = reweighted_checks(checks, design, rubric, confidence)
        fixed = overall.corrected or next((r.corrected for r in rows if r.corrected is not None), None)
        if fixed is not None and ag.is_defined(fixed.rate.observed_pass_rate) and not checks_only:
            design = with_corrected_pass_rate(design, pairing, float(fixed.rate.observed_pass_rate),
                                              fixed.rate.n_judge_only, confidence)
    findings = _findings(rows, overall, summary, rubric, tolerance, thresholds, test_binary, split, checks,
                         settings.decide_on, ties)

    breakdowns = []
    for field in dict.fromkeys(() if checks_only else by):
        if field not in field_values:
            continue
        values = field_values[field]
        if skip_missing_fields and all(v == "(none)" for v in values):
            continue
        sections = []
        for value in sorted(set(values), key=_natural_key):
            part = pairing.subset(np.array([v == value for v in values], dtype=bool))
            part_rows, part_overall = _rows(part, rubric, tolerance, thresholds, confidence, ranks=False)
            sections.append(Section(value, _summary(part_rows, part, rubric, tolerance, int(part.keys.size),
                                                    confidence), part_rows, part_overall))
        breakdowns.append(Breakdown(field, tuple(sections)))

    restrict = pairing.keys if not judge_only else None
    self_agreement = () if checks_only else tuple(
        s for s in (_self_agreement(ratings, r, tolerance, restrict, confidence) for r in judge.rater_ids) if s is not None
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
        human_agreement=None if checks_only else _human_agreement(human_members, human.rater_ids, rubric),
        human_overall=paired_overall.a, judge_overall=paired_overall.b, confidence=confidence,
        decide_on=settings.decide_on, checks=tuple(checks), ties=ties, design=design,
        settled_after=store.settled_after(rubric.id),
    )  # fmt: skip


def _correction_sides(store: Store, rubric: Rubric, human: Group, judge: Group, ratings: RubricRatings,
                      human_scores: Scores, judge_scores: Scores
                      ) -> tuple[Pairing, Scores, Scores, dict[int, str], bool]:
    """What the corrected pass rate uses, whatever split the report is restricted to: every item of the rubric
    the judge labelled (so unsplit production items are corrected too), and the labelled pairs that give TPR and
    TNR: the test split's when any item has a split, every compared item otherwise.

    Returns (labelled pairs, human scores, judge scores, split of each item key, whether from the test split).
    """
    if ratings.split is not None:  # the report is one split; the correction is the rubric's
        everything = load(store, rubric)
        n = rubric.dimension_ids.__len__()
        members = [everything.first_runs(r) for r in human.rater_ids]
        human_scores, _ = _without_ties(mean_of(members, n), len(members), rubric, everything)
        judge_scores = mean_of([everything.first_runs(r) for r in judge.rater_ids], n)
    keys, values = store.item_field_values(rubric.id, "split")
    splits = {k: v for k, v in zip(keys.tolist(), values, strict=True) if v}
    labelled = pair(human_scores, judge_scores)
    if not splits:
        return labelled, human_scores, judge_scores, splits, False
    in_test = np.array([splits.get(k) == "test" for k in labelled.keys.tolist()], dtype=bool)
    return labelled.subset(in_test), human_scores, judge_scores, splits, True


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


def judge_disagreements(store: Store, rubric: Rubric, human_id: str, judge_id: str,
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
