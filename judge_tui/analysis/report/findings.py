"""The report's verdict: each target checked on its interval, and the findings that say what the figures mean.

`target_checks` decides every target (targets.check, with a plan for the undecided ones); `verdict_findings` turns the figures
and the decisions into the verdict's lines, in the words of analysis/bands.py. `band_decisions` decides the
alignment and kappa targets of one row, for the renderers' band columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from judge_tui.analysis import bands
from judge_tui.analysis.bands import Interpret, Interpretation
from judge_tui.analysis.report.model import (
    Finding,
    Report,
    Row,
    Summary,
    meets_by_decision,
)
from judge_tui.analysis.scores import Pairing, item_groups
from judge_tui.analysis.targets import TargetCheck, band_span, check, ruling, verdict_words
from judge_tui.formats.numbers import (
    aligned_text,
    decimal_text,
    figure_with_interval,
    pct,
    plural,
    share_text,
    word_for,
)
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats import agreement as ag
from judge_tui.stats import intervals as iv
from judge_tui.stats.agreement import Figure, Undefined
from judge_tui.stats.decisions import Decision
from judge_tui.stats.intervals import Interval
from judge_tui.store import Store

_SEVERITY = {"ok": 0, "info": 0, "unknown": 1, "caution": 2, "act": 3, "stop": 4}


def target_checks(rows: Sequence[Row], overall: Row, summary: Summary, rubric: Rubric,
                  settings: AgreementSettings, test_pairing: Pairing | None, split: str | None, *,
                  plan: bool = True) -> list[TargetCheck]:
    """Every target of the report (its value in ``settings``), decided on its interval at the settings'
    confidence, with a plan for the undecided ones (``plan=False``: decisions only, for the rating screen's count
    of settled questions)."""
    scope = f"{split} split" if split else "all compared items"
    behind = summary.cases if summary.aligned_items is None else summary.aligned_items  # the items it counts
    one_score_each = summary.pairs == behind  # one judged dimension: a plain Wilson share
    checks = [check("alignment", "alignment", scope, summary.alignment_rate, summary.alignment_interval, behind,
                    settings.alignment_well_calibrated, percent=True, settings=settings, plan=plan,
                    share=(summary.agreements, summary.pairs) if one_score_each and summary.pairs else None)]
    for row in rows:
        if row.method == "judged":
            checks.append(check(f"kappa:{row.key}", f"κ of {row.key}", scope, row.agreement.cohen_kappa,
                                row.uncertainty.intervals.get("cohen_kappa", Undefined("no interval")),
                                row.agreement.n, settings.kappa_substantial, settings=settings, plan=plan))
    if rubric.overall != "label":
        checks.append(check("pearson", f"r of the {rubric.overall_name}", scope, overall.agreement.pearson_r,
                            overall.uncertainty.intervals.get("pearson_r", Undefined("no interval")),
                            overall.agreement.n, settings.pearson_target, settings=settings,
                            correlation=True, plan=plan))
    if test_pairing is not None and rubric.scale.binary:
        tested = test_pairing.column(0)
        h = ag.snap_to_scale(tested.a, ag.BINARY_SCALE)[0]
        j = ag.snap_to_scale(tested.b, ag.BINARY_SCALE)[0]
        m = ag.binary_metrics(h, j)
        human_pass, human_fail = m.true_pass + m.false_fail, m.true_fail + m.false_pass
        # Without a test-split pair there is no label at all: said so, rather than "no PASS" or "no FAIL".
        unlabelled = None if m.n else Undefined("no test-split item was labelled by both")
        for key, hits, of, label in (("tpr", m.true_pass, human_pass, "PASS"), ("tnr", m.true_fail, human_fail, "FAIL")):
            interval = iv.wilson(hits, of, settings.confidence) if of else Undefined(f"the human labels contain no {label}")
            checks.append(check(key, key.upper(), "test split", unlabelled or getattr(m, key), unlabelled or interval, of,
                                settings.tpr_tnr_target, strict=True, settings=settings, share=(hits, of),
                                class_share=of / m.n if m.n else None, class_label=label, plan=plan))
    return checks


def with_items_left(store: Store, rubric: Rubric, checks: Sequence[TargetCheck], total: int,
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


def verdict_findings(report_rows: Sequence[Row], overall: Row, summary: Summary, rubric: Rubric,
                     settings: AgreementSettings, test_binary: ag.BinaryMetrics | None, split: str | None,
                     checks: Sequence[TargetCheck], ties: int) -> list[Finding]:
    scope = f"{split} split" if split else "all compared items"
    by_key = {c.key: c for c in checks}
    findings = []
    findings.append(_target_finding(
        "alignment", by_key["alignment"], bands.interpret_alignment, settings,
        f"Alignment {figure_with_interval(summary.alignment_rate, summary.alignment_interval, percent=True)} "
        f"({summary.agreements} of {summary.pairs} judged scores {aligned_text(rubric.scale, settings.tolerance)})",
    ))
    judged = [r for r in report_rows if r.method == "judged"]
    defined = [r for r in judged if ag.is_defined(r.agreement.cohen_kappa)]
    if defined:
        findings.append(_kappa_finding(defined, by_key, settings, scope))
        findings += _kappa_ac1_findings(defined, rubric, settings, scope)
    else:
        reason = judged[0].agreement.cohen_kappa if judged else Undefined("no judged dimension")
        assert isinstance(reason, Undefined)  # no judged dimension has a defined kappa here
        findings.append(Finding("kappa", "unknown", None, scope, f"Cohen's kappa cannot be computed: {reason.reason}."))
    if rubric.overall != "label":
        c = by_key["pearson"]
        findings.append(_target_finding(
            "pearson", c, _pearson_band, settings,
            f"Pearson r of the {rubric.overall_name} scores {c.reading}",
        ))
    if rubric.scale.binary:
        findings.append(_binary_finding(judged[0] if judged else overall, test_binary, settings,
                                        by_key.get("tpr"), by_key.get("tnr")))
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
                    f"{row.key} is computed by code, yet the two sides differ on {plural(differ, 'item')}: "
                    "look for a bug in the checker or in the imported scores, not in the judge.",
                ))
    snapped_judge = sum(r.agreement.snapped_judge for r in report_rows)
    snapped_human = sum(r.agreement.snapped_human for r in report_rows)
    if snapped_judge or snapped_human:
        findings.append(Finding(
            "snapped", "info", None, scope,
            f"{plural(snapped_judge, 'judge score')} and {plural(snapped_human, 'human-group score')} lay between"
            " scale points; "
            "they were moved to the nearest point (halfway goes down) for kappa, the confusion matrix and "
            "TPR/TNR. Alignment and correlations use them as given.",
        ))
    if ties:
        findings.append(Finding(
            "ties", "info", None, scope,
            f"{plural(ties, 'item')} {word_for(ties, 'has', 'have')} a tied PASS/FAIL human consensus (as many PASS"
            f" as FAIL) and {word_for(ties, 'is', 'are')} left out of this comparison, as in the team section; settle"
            f" {word_for(ties, 'it', 'them')} with `judge-tui adjudicate`.",
        ))
    return findings


def _pearson_band(r: Figure, settings: AgreementSettings) -> Interpretation:
    return bands.meets_pearson_target(r, settings)


def _target_finding(topic: str, c: TargetCheck, interpret: Interpret,
                    settings: AgreementSettings, opening: str) -> Finding:
    """A finding for one target: the band of the estimate, the bands its interval spans, the decision, and
    advice only as strong as the interval supports (the band of the interval's best end when not met)."""
    band = interpret(c.estimate, settings)
    decision = ruling(c, settings)
    span = band_span(c.interval, interpret, settings)
    sign = ">" if c.strict else "≥"
    goal = f"{share_text(c.target)}" if c.percent else f"{decimal_text(c.target, 2)}"
    text = f"{opening} (target {sign} {goal}): {band.label}" + (f"; the interval lies {span}" if span else "")
    status, action = band.status, band.action
    if decision is not None:
        words = verdict_words(c, settings)
        text += f". {words[0].upper()}{words[1:]}"
        if decision == "undecided":
            status, action = "unknown", ""
        elif decision == "not met" and settings.decide_on == "interval" and isinstance(c.interval, Interval):
            best = interpret(c.interval.high, settings)  # the most the data allows
            status, action = best.status, best.action
    text += "." + (f" {action}" if action else "")
    return Finding(topic, status, meets_by_decision(decision), c.scope, text, decision, band.meets_target)


def _kappa_finding(defined: Sequence[Row], by_key: dict[str, TargetCheck], settings: AgreementSettings,
                   scope: str) -> Finding:
    groups: dict[str, list[str]] = {"met": [], "not met": [], "undecided": []}
    statuses: list[str] = []
    actions: list[str] = []
    for row in defined:
        c = by_key[f"kappa:{row.key}"]
        decision = ruling(c, settings) or "undecided"
        span = band_span(c.interval, bands.interpret_kappa, settings)
        detail = f"{row.key} ({c.reading}, {row.kappa_band.label}" + (f", {span}" if span else "") + ")"
        groups[decision].append(row.key if decision == "met" else detail)
        if decision == "met":
            statuses.append(row.kappa_band.status)
        elif decision == "undecided":
            statuses.append("unknown")
        else:
            best = (bands.interpret_kappa(c.interval.high, settings)
                    if settings.decide_on == "interval" and isinstance(c.interval, Interval) else row.kappa_band)
            statuses.append(best.status)
            actions.append(best.action)
    worst = max(statuses, key=lambda s: _SEVERITY[s])
    text = (f"Cohen's kappa target (≥ {decimal_text(settings.kappa_substantial, 2)}) on"
            f" {plural(len(defined), 'judged dimension')}: ")
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


def _kappa_ac1_findings(defined: Sequence[Row], rubric: Rubric, settings: AgreementSettings, scope: str) -> list[Finding]:
    """When kappa and Gwet's AC1 fall in different bands, say why: skewed labels (the kappa paradox)."""
    out = []
    for row in defined:
        ac1 = row.uncertainty.figures.get("ac1", Undefined("not computed"))
        if not ag.is_defined(ac1):
            continue
        kappa_band, ac1_band = row.kappa_band, bands.interpret_kappa(ac1, settings)
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
            text = (f"{both}, on either side of a band edge: they differ by {decimal_text(difference, 3)} and the labels are not "
                    f"skewed (the most common, {label}, is {share_text(share)}), so read them as the same agreement.")
        else:
            text = (f"{both} because the labels are skewed: {share_text(share)} of the human labels are {label}. With one "
                    "label that common, two raters agree by chance so often that kappa stays low even when they "
                    "seldom disagree (the kappa paradox); AC1 estimates chance agreement in a way skew does not "
                    f"inflate. A judge that always answered {label} would be right on {pct(baseline)} of these "
                    f"items; this judge gives the human category on {pct(observed)}.")
        out.append(Finding("kappa_ac1", "info", None, scope, text))
    return out


def _binary_finding(row: Row, test: ag.BinaryMetrics | None, settings: AgreementSettings,
                    tpr: TargetCheck | None, tnr: TargetCheck | None) -> Finding:
    target = settings.tpr_tnr_target
    if test is None or test.n == 0 or tpr is None or tnr is None:
        intervals = row.uncertainty.intervals
        return Finding(
            "tpr_tnr", "unknown", None, "test split",
            f"The TPR/TNR target (both above {decimal_text(target, 2)}) applies to the test split, and no test-split item was "
            f"labelled by both; over the compared items TPR is {figure_with_interval(row.agreement.tpr, intervals.get('tpr'))} "
            f"and TNR {figure_with_interval(row.agreement.tnr, intervals.get('tnr'))}, for guidance only. "
            "Assign splits with `judge-tui split`.",
        )
    verdict = bands.meets_binary_target(test.tpr, test.tnr, settings)
    rulings = [ruling(c, settings) for c in (tpr, tnr)]
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
            f"(target: both above {decimal_text(target, 2)}): ")
    text += "; ".join(f"{c.figure} {verdict_words(c, settings)}" for c in (tpr, tnr))
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


def band_decisions(row: Row, report: Report) -> dict[str, Decision | None]:
    """The alignment and kappa targets decided on this row's own intervals ("alignment", "kappa"), as the
    report decides its targets (targets.check, under agreement.decide_on); None where a figure is undefined."""
    t = report.settings
    intervals = row.uncertainty.intervals
    found: dict[str, Decision | None] = {}
    for name, figure, target, percent in (("alignment", "alignment_rate", t.alignment_well_calibrated, True),
                                          ("kappa", "cohen_kappa", t.kappa_substantial, False)):
        c = check(name, name, "", getattr(row.agreement, figure), intervals.get(figure, Undefined("no interval")),
                  row.agreement.n, target, percent=percent, settings=report.settings)
        found[name] = ruling(c, report.settings)
    return found
