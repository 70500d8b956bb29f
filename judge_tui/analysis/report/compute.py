"""The agreement report computed: which ratings are compared, and every figure between the two groups.

`build_report` reads the scores from the store, pairs a human group with a judge group over the items both
rated, and returns a `Report` (report/model.py): typed data that the renderers show as text, Markdown or JSON and
that the summary screen shows. The verdict's words are report/findings.py's.

How groups combine (documented in the README, "Reading the agreement"):
* each rater contributes, per item, their first run (repeat 0) under the newest rubric version they used;
* a group of several raters scores an item with the mean of its members' scores (dimension by dimension,
  and for the overall score); means that fall between scale points are snapped to the nearest point
  (halfway goes down) for kappa, the confusion matrix and TPR/TNR, and counted as snapped;
* by default the human group is every human rater and the judge group is the judge (analysis/judges.py: the
  newest kept judge version); `--judge` names another, `--raters` names both groups.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from itertools import combinations
from typing import Any

import numpy as np

from judge_tui.analysis import bands
from judge_tui.analysis.design import reweighted_checks, sampling_design, with_corrected_pass_rate
from judge_tui.analysis.judges import default_judge
from judge_tui.analysis.pair_intervals import repeat_intervals
from judge_tui.analysis.report.findings import target_checks, verdict_findings, with_items_left
from judge_tui.analysis.report.model import (
    OVERALL,
    Breakdown,
    Correction,
    Group,
    HumanAgreement,
    HumanRow,
    JudgeSelfAgreement,
    NoComparison,
    Report,
    ReportError,
    Row,
    Section,
    SelfRow,
    Summary,
)
from judge_tui.analysis.row_figures import ROW_FIGURES
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
    key_places,
    load,
    majority_of,
    mean_of,
    pair,
    pooled_alignment,
)
from judge_tui.analysis.uncertainty import pooled_alignment_interval, row_uncertainty
from judge_tui.formats.numbers import word_for
from judge_tui.model.records import CONSENSUS_RATER
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats import agreement as ag
from judge_tui.stats.agreement import AVERAGED_OVERALL, Figure, Undefined
from judge_tui.store import Store

# Self-agreement compares at most this many repeats pairwise (10 pairs).
MAX_REPEATS = 5


# --------------------------------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------------------------------


def overall_is_category(rubric: Rubric) -> bool:
    """Whether the overall score is a category of the scale (the one dimension's label, as on every nominal
    rubric), compared as a dimension is; otherwise it is a weighted mean of the dimensions (AVERAGED_OVERALL)."""
    return rubric.overall == "label"


def _rows(pairing: Pairing, rubric: Rubric, settings: AgreementSettings,
          ranks: bool = True) -> tuple[tuple[Row, ...], Row]:
    rows = []
    for index, dimension in enumerate(rubric.dimensions):
        paired = pairing.column(index)
        pair = paired.compare(rubric, settings.tolerance)
        rows.append(Row(dimension.id, dimension.name, dimension.method, pair,
                        bands.interpret_alignment(pair.alignment_rate, settings),
                        bands.interpret_kappa(pair.cohen_kappa, settings),
                        uncertainty=row_uncertainty(paired, pair, settings.confidence, ranks=ranks)))
    paired = pairing.overall()
    categorical = overall_is_category(rubric)
    if categorical:
        pair = paired.compare(rubric, settings.tolerance)
    else:
        pair = ag.compare_averaged(paired.a, paired.b, tolerance=settings.tolerance, figures=ROW_FIGURES)
    overall = Row(OVERALL, rubric.overall_name, "overall", pair,
                  bands.interpret_alignment(pair.alignment_rate, settings),
                  bands.interpret_kappa(pair.cohen_kappa, settings),
                  uncertainty=row_uncertainty(paired, pair, settings.confidence, categorical=categorical, ranks=ranks))
    return tuple(rows), overall


def _summary(rows: Sequence[Row], pairing: Pairing, rubric: Rubric, settings: AgreementSettings,
             items: int) -> Summary:
    judged = [r for r in rows if r.method == "judged"]
    paired = [pairing.column(rubric.dimension_ids.index(r.key)) for r in judged]
    within = rubric.scale.alignment_tolerance(settings.tolerance)  # as each dimension's alignment counts
    agreements, pairs = aligned_count(paired, within)
    rate = pooled_alignment(paired, within, "no judged dimension was scored by both")
    lowest, highest = ag.lowest_and_highest({r.key: r.agreement.alignment_rate for r in judged})
    interval = pooled_alignment_interval(paired, within, settings.confidence)
    # Fewer than the items both rated when a side left a dimension unscored or tied (several experts on PASS/FAIL).
    # Each dimension's items are some of the pairing's (sorted) items: marked there rather than sorted again.
    covered = np.zeros(pairing.keys.size, dtype=bool)
    for p in paired:
        covered[np.searchsorted(pairing.keys, p.keys)] = True
    behind = int(np.count_nonzero(covered))
    return Summary(int(pairing.keys.size), items, agreements, pairs, rate, lowest, highest, interval, behind)


def _human_group(members: list[Scores], rubric: Rubric, ratings: RubricRatings) -> tuple[Scores, int]:
    """Several experts as one side: the majority on unordered categories (ties left out), else the mean with
    PASS/FAIL ties settled (`_without_ties`). Returns the scores and how many items still have a tie."""
    if rubric.scale.nominal:
        return majority_of(members, len(rubric.dimension_ids))
    return _without_ties(mean_of(members, len(rubric.dimension_ids)), len(members), rubric, ratings)


def _judge_group(members: list[Scores], rubric: Rubric) -> Scores:
    """Several judges as one side: their majority on unordered categories (a tie left out), else the mean."""
    if rubric.scale.nominal:
        return majority_of(members, len(rubric.dimension_ids))[0]
    return mean_of(members, len(rubric.dimension_ids))


def _without_ties(scores: Scores, members: int, rubric: Rubric, ratings: RubricRatings) -> tuple[Scores, int]:
    """A PASS/FAIL group's consensus with ties settled as the team section settles them: the lead's adjudicated
    score where there is one, else left out (the mean of an even split is 1/2, which has no majority).
    Returns the scores and how many items still have a tie."""
    if members < 2 or not rubric.scale.binary:
        return scores, 0
    table = np.column_stack([scores.scores, scores.overall])
    tied = np.abs(table - 0.5) < 1e-9
    if not tied.any():
        return scores, 0
    adjudicated = (ratings.first_runs(CONSENSUS_RATER).rows_on(scores.keys)
                   if CONSENSUS_RATER in ratings.rater_ids else np.full(table.shape, np.nan))
    table = np.where(tied, adjudicated, table)
    left_out = tied & np.isnan(adjudicated)
    return Scores(scores.keys, table[:, :-1], table[:, -1]), int(np.count_nonzero(left_out.any(axis=1)))


def _corrected(rubric: Rubric, index: int, labelled: Pairing, judge: Scores, human: Scores,
               splits: dict[int, str], from_test: bool, settings: AgreementSettings) -> Correction:
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
    rate = ag.corrected_pass_rate(judge_only, human_labels, judge_labels, confidence=settings.confidence)
    if from_test and paired.n == 0 and judge_only.size:
        why = Undefined("no test-split item was labelled by both, and TPR and TNR for the correction come from "
                        "the test split only: label some test items")
        rate = replace(rate, estimate=why, low=why, high=why, tpr=why, tnr=why)
    return Correction(rate, "test split" if from_test else "all compared items", dict(sorted(by_split.items())))


def _self_agreement(ratings: RubricRatings, rater_id: str, settings: AgreementSettings,
                    restrict: np.ndarray | None) -> JudgeSelfAgreement | None:
    """Repeat against repeat for one judge rater, on each item's newest rubric version."""
    rubric = ratings.rubric
    within = rubric.scale.alignment_tolerance(settings.tolerance)  # the overall too: nominal counts the same category
    runs = ratings.by_repeat(rater_id, restrict)
    available = sorted(runs)[:MAX_REPEATS]
    if len(available) < 2:
        return None
    pairs = tuple(combinations(available, 2))
    pairings = [pair(runs[a], runs[b]) for a, b in pairs]
    columns = [*((i, d.id) for i, d in enumerate(rubric.dimensions)), (OVERALL_COLUMN, OVERALL)]
    rows = []
    averaged = Undefined(AVERAGED_OVERALL)
    for index, key in columns:
        categorical = index != OVERALL_COLUMN or overall_is_category(rubric)
        alignments, kappas, n, columns_paired = [], [], 0, []
        for pairing in pairings:
            paired = pairing.column(index)
            columns_paired.append(paired)
            if categorical:
                figures = paired.compare(rubric, within)
                alignment, kappa = figures.alignment_rate, figures.cohen_kappa
            else:
                alignment, kappa = ag.alignment_rate(paired.a, paired.b, within), averaged
            n = max(n, paired.n)
            alignments.append(alignment)
            kappas.append(kappa)
        found = repeat_intervals(columns_paired, rubric, within, kappa=categorical,
                                 confidence=settings.confidence)
        intervals = {"alignment_rate": found["alignment"], "cohen_kappa": found.get("kappa", averaged)}
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
    keys = key_places(np.concatenate([m.keys for m in members]))[0]
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
# Building the report
# --------------------------------------------------------------------------------------------------


def _natural_key(value: str) -> tuple[Any, ...]:
    return (value == "(none)", value.lower())


def default_groups(store: Store, rubric_id: str, judge_group: Group | None = None) -> tuple[Group, Group]:
    """Every human rater against the judge (judges.the_judge: the newest kept judge version), or against
    ``judge_group`` when one is already chosen (then the judge is not looked for again).

    The adjudicated "consensus" rater is derived from the experts, so it is not one of them here (see team.py).
    """
    from judge_tui.analysis.team import is_expert

    raters = store.rubric_raters(rubric_id)
    humans = tuple(r["id"] for r in raters if is_expert(r["id"], r["kind"]))
    judge = None if judge_group is not None else default_judge(store, rubric_id)
    if not raters:
        raise NoComparison(f"no ratings of rubric {rubric_id!r} yet: rate items, or bring ratings in with "
                          "`judge-tui import-ratings FILE --rater ID --kind human|judge`")
    if not humans:
        raise NoComparison(f"rubric {rubric_id!r} has no human ratings to compare the judge with: rate items in "
                          "the app, or `judge-tui import-ratings FILE --rater ID --kind human`")
    if judge_group is not None:
        return Group("human", humans), judge_group
    if judge is None:
        raise NoComparison(f"rubric {rubric_id!r} has no judge ratings yet: run `judge-tui judge --rubric "
                          f"{rubric_id}`, or `judge-tui import-ratings FILE --rater ID --kind judge`")
    return Group("human", humans), Group("judge", (judge,))


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
    plans: bool | None = None,
) -> Report:
    """Every agreement figure between two rater groups over the items both rated.

    ``by`` lists breakdown fields (an unknown field is an error unless ``skip_missing_fields``);
    ``judge_only=False`` leaves out everything computed on items the human group has not rated (the
    corrected pass rate), as the summary screen must under the blind rule. ``ratings``: the rubric's
    ratings in ``split`` when the caller has loaded them already (see scores.load). ``checks_only``: the targets'
    decisions and little else (no rank intervals, breakdowns, self- or team agreement, corrected pass rate), and
    no plans for the undecided ones unless ``plans`` (the validity page's blocks need them).
    """
    settings = settings or AgreementSettings()
    with store.snapshot():
        if not skip_missing_fields:  # first, so a mistyped field is never hidden behind another message
            for field in by:
                _require_field(store, rubric, field)
        if human is None or judge is None:
            default_human, judge = default_groups(store, rubric.id, judge)
            human = human or default_human
        if ratings is None:
            ratings = load(store, rubric, split)
        human_members = [ratings.first_runs(r) for r in human.rater_ids]
        human_scores, ties = _human_group(human_members, rubric, ratings)
        judge_scores = _judge_group([ratings.first_runs(r) for r in judge.rater_ids], rubric)
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
        needs_split = rubric.scale.binary and not split
        wanted = list(dict.fromkeys([*by, *(["split"] if needs_split else [])]))
        for field in wanted:
            if has_item_field(store, rubric, field):
                field_values[field] = item_groups(store, rubric, field, pairing.keys, split)
        correction = None
        if rubric.scale.binary and judge_only and not checks_only:
            correction = _correction_sides(store, rubric, human, judge, ratings, human_scores, judge_scores)

    rows, overall = _rows(pairing, rubric, settings, ranks=not checks_only)
    if correction is not None:
        labelled, all_human, all_judge, splits, from_test = correction
        rows = tuple(
            replace(r, corrected=_corrected(rubric, index, labelled, all_judge, all_human, splits, from_test,
                                            settings))
            for index, r in enumerate(rows)
        )
    summary = _summary(rows, pairing, rubric, settings, total)

    test_binary = None
    test_pairing: Pairing | None = None
    if rubric.scale.binary:
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
    checks = target_checks(rows, overall, summary, rubric, settings, test_pairing, split,
                           plan=not checks_only if plans is None else plans)
    checks = with_items_left(store, rubric, checks, total, human_scores.keys, split)
    design = sampling_design(store, rubric, human.rater_ids, pairing, split, settings)
    if design is not None and design.weighted:
        test_design = design if split == "test" else (
            sampling_design(store, rubric, human.rater_ids, test_pairing, "test", settings, rates_only=True)
            if test_pairing is not None and test_pairing.keys.size else None)
        checks = reweighted_checks(checks, design, rubric, settings, test_design)
        fixed = overall.corrected or next((r.corrected for r in rows if r.corrected is not None), None)
        if fixed is not None and ag.is_defined(fixed.rate.observed_pass_rate) and not checks_only:
            design = with_corrected_pass_rate(design, pairing, float(fixed.rate.observed_pass_rate),
                                              fixed.rate.n_judge_only, settings)
    findings = verdict_findings(rows, overall, summary, rubric, settings, test_binary, split, checks, ties)

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
            part_rows, part_overall = _rows(part, rubric, settings, ranks=False)
            sections.append(Section(value, _summary(part_rows, part, rubric, settings, int(part.keys.size)),
                                    part_rows, part_overall))
        breakdowns.append(Breakdown(field, tuple(sections)))

    restrict = pairing.keys if not judge_only else None
    self_agreement = () if checks_only else tuple(
        s for s in (_self_agreement(ratings, r, settings, restrict) for r in judge.rater_ids) if s is not None
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
        rubric=rubric, split=split, human=human, judge=judge, settings=settings,
        counts=counts, summary=summary, rows=rows, overall=overall, findings=tuple(findings),
        breakdowns=tuple(breakdowns), self_agreement=self_agreement,
        human_agreement=None if checks_only else _human_agreement(human_members, human.rater_ids, rubric),
        human_overall=paired_overall.a, judge_overall=paired_overall.b,
        checks=tuple(checks), ties=ties, design=design,
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
        members = [everything.first_runs(r) for r in human.rater_ids]
        human_scores, _ = _human_group(members, rubric, everything)
        judge_scores = _judge_group([everything.first_runs(r) for r in judge.rater_ids], rubric)
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
    return f"the {group.role} {word_for(len(group.rater_ids), 'rater')} {ids}"
