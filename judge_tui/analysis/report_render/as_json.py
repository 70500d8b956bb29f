"""The agreement report as JSON.

The JSON schema is documented in docs (the JSON schema page) and is stable: keys are only ever added, and
SCHEMA_VERSION changes if one is removed or changes meaning. A figure that cannot be computed is null, and the
object holding it has an "undefined" map from the figure's name to the reason.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from judge_tui.analysis.bands import Interpretation
from judge_tui.analysis.report import Group, Report, Row, Summary, band_decisions, combined, meets_by_decision
from judge_tui.analysis.report.anytime import ANYTIME, FIXED_N, AnytimeCheck
from judge_tui.analysis.report_render.common import UNWEIGHTED_SECTIONS, row_bands
from judge_tui.analysis.row_figures import ROW_FIGURES
from judge_tui.analysis.targets import TargetCheck, combination, ruling
from judge_tui.analysis.uncertainty import CHANCE_FIGURES, INTERVAL_FIGURES
from judge_tui.formats.numbers import interval_json, share_text
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats import agreement as ag
from judge_tui.stats.agreement import Figure
from judge_tui.stats.assurance import PRACTICAL_MORE

SCHEMA_VERSION = 1


def _figure(value: Figure, name: str, undefined: dict[str, str]) -> float | None:
    if isinstance(value, ag.Undefined):
        undefined[name] = value.reason
        return None
    return float(value)


def _band(interpretation: Interpretation, decision: str | None, spanned: str) -> dict[str, Any]:
    """A band in the JSON: the point estimate's band (label, status), the bands its interval spans, and whether
    the target is met, which follows the decision (``point_meets_target`` keeps the point estimate's reading)."""
    return {"label": interpretation.label, "status": interpretation.status,
            "meets_target": meets_by_decision(decision), "decision": decision,
            "point_meets_target": interpretation.meets_target, "interval_bands": spanned}


def row_to_dict(row: Row, report: Report) -> dict[str, Any]:
    pair = row.agreement
    undefined: dict[str, str] = {}
    out: dict[str, Any] = {"dimension": row.key, "name": row.name, "method": row.method, "n": pair.n}
    for f in ROW_FIGURES:
        out[f.key] = _figure(pair.figures[f.key], f.key, undefined)
    corrected: dict[str, Any] = {"value": None, "ci_low": None, "ci_high": None,
                                 "confidence": report.settings.confidence, "observed_pass_rate": None,
                                 "n_judge_only": 0}
    if row.corrected is not None:
        c = row.corrected.rate
        corrected.update(
            value=_figure(c.estimate, "corrected_pass_rate", undefined),
            ci_low=_figure(c.low, "corrected_pass_rate_interval", undefined),
            ci_high=_figure(c.high, "corrected_pass_rate_interval", undefined),
            confidence=c.confidence,
            observed_pass_rate=_figure(c.observed_pass_rate, "observed_pass_rate", undefined),
            n_judge_only=c.n_judge_only,
            n_labelled=c.n_labelled,
            tpr_tnr_from=row.corrected.labelled_from,
            judge_only_by_split=dict(row.corrected.judge_only_splits),
            method="rogan-gladen; interval: percentile bootstrap of the labelled pairs and the judge-only items",
        )
    elif not report.rubric.scale.binary:
        undefined["corrected_pass_rate"] = "only PASS/FAIL scales have a corrected pass rate"
    else:
        undefined["corrected_pass_rate"] = "not computed here: it uses items only the judge rated"
    out["corrected_pass_rate"] = corrected
    out["confusion"] = (
        {"labels": [report.rubric.scale.label(p) for p in pair.scale], "counts": [list(r) for r in pair.confusion]}
        if pair.confusion else None
    )
    out["snapped"] = {"human": pair.snapped_human, "judge": pair.snapped_judge}
    decided = band_decisions(row, report)
    spans = row_bands(row, report)
    out["alignment_band"] = _band(row.alignment_band, decided["alignment"], spans[0])
    out["kappa_band"] = _band(row.kappa_band, decided["kappa"], spans[1])
    out["undefined"] = undefined  # filled on below too: keys added later come after the original ones
    for name in CHANCE_FIGURES:
        out[name] = _figure(row.uncertainty.figures.get(name, ag.Undefined("not computed")), name, undefined)
    out["intervals"] = {name: interval_json(row.uncertainty.intervals.get(name, ag.Undefined("not computed")),
                                            f"{name}_interval", undefined)
                        for name in INTERVAL_FIGURES}
    return out


def summary_to_dict(summary: Summary) -> dict[str, Any]:
    undefined: dict[str, str] = {}
    intervals = {"alignment_rate": interval_json(summary.alignment_interval, "alignment_rate_interval", undefined)}
    return {
        "cases_reviewed": summary.cases,
        "items": summary.items,
        "dimension_agreements": summary.agreements,
        "dimension_pairs": summary.pairs,
        "alignment_rate": _figure(summary.alignment_rate, "alignment_rate", undefined),
        "lowest_alignment_dimension": summary.lowest,
        "highest_alignment_dimension": summary.highest,
        "undefined": undefined,
        "intervals": intervals,
    }


def plan_to_dicts(report: Report) -> list[dict[str, Any]]:
    """Every target, decided, with how many more items would settle an undecided one."""
    out = []
    for c, a in zip(report.checks, report.anytime, strict=True):
        undefined: dict[str, str] = {}
        out.append({
            "target": c.key, "goal": c.goal, "scope": c.scope, "threshold": c.target, "strict": c.strict,
            "estimate": _figure(c.estimate, "estimate", undefined), "n": c.n,
            "interval": interval_json(c.interval, "interval", undefined),
            "decision": ruling(c, report.settings), "decision_interval": c.decision,
            "decision_point": c.point_decision,
            "more_items": c.more_items, "more_of_class": c.more_of_class, "class": c.class_label,
            "text": c.plan_text() or None, "undefined": undefined,
            "assurance": _assurance_json(c), "undecided_chance_at_this_size": c.undecided_at_size,
            "decision_valid": FIXED_N, "anytime": anytime_to_dict(a),
        })
    return out


def _assurance_json(c: TargetCheck) -> dict[str, Any] | None:
    """The plan of an undecided target as numbers: more items (of the scope and of the class) for the chance,
    whether that is practical, and the same for a judge at either end of the interval."""
    if c.plan is None:
        return None
    p = c.plan
    return {
        "chance": p.chance, "practical": p.practical, "more_items": c.more_items, "more_of_class": c.more_of_class,
        "practical_limit": c.in_scope(PRACTICAL_MORE), "chance_at_limit": p.chance_at_limit,
        "at_interval_ends": [{"value": v, "more_items": m,
                              "more_of_class": None if m is None or c.class_share is None
                              else round(m * c.class_share)}
                             for v, m in zip(p.end_values, p.at_ends, strict=True)],
    }


def anytime_to_dict(a: AnytimeCheck) -> dict[str, Any]:
    """A target decided by a rule valid at any time (analysis/stopping.py), beside the fixed-n decision."""
    interval = a.interval
    return {"decision": a.decision, "valid": ANYTIME, "method": a.method,
            "interval": None if interval is None else {"low": interval[0], "high": interval[1]},
            "held_up": a.held_up or None}


def decision_rules(report: Report) -> dict[str, Any]:
    """Which decisions hold for this n only, which at any time, and how several targets combine."""
    alpha = (1.0 - report.settings.confidence) / 2.0
    return {"fixed_n": f"{FIXED_N}: each target's {share_text(report.settings.confidence)} interval read once, at the "
                       f"{report.counts['compared']} items compared; looked at again as ratings come in, it errs "
                       "more often than it says",
            "anytime": f"{ANYTIME}: the stop notice and the settled count; a wrong decision per target and side in "
                       f"at most {share_text(alpha, 1)} of studies however often the figures are looked at",
            "one_sided_alpha": alpha, "combination": combination(report.settings)}


def rubric_to_dict(rubric: Rubric) -> dict[str, Any]:
    return {"id": rubric.id, "name": rubric.name, "version": rubric.version, "scale": rubric.scale.kind,
            "overall_name": rubric.overall_name}


def thresholds_to_dict(settings: AgreementSettings) -> dict[str, Any]:
    return {
        "tolerance": settings.tolerance,
        "alignment": {"well_calibrated": settings.alignment_well_calibrated,
                      "minor_drift": settings.alignment_minor_drift,
                      "significant_drift": settings.alignment_significant_drift},
        "kappa": {"almost_perfect": settings.kappa_almost_perfect, "substantial": settings.kappa_substantial,
                  "moderate": settings.kappa_moderate},
        "pearson_target": settings.pearson_target,
        "tpr_tnr_target": settings.tpr_tnr_target,
    }


def no_comparison_to_dict(rubric: Rubric, split: str | None, settings: AgreementSettings,
                          humans: Sequence[str], reason: str) -> dict[str, Any]:
    """The report's documented shape when there is no judge comparison (the team section stands alone): every
    key present, the judge comparison's figures null or empty, and why in ``undefined``."""
    return {
        "schema_version": SCHEMA_VERSION, "rubric": rubric_to_dict(rubric), "split": split,
        "raters": {"human": {"ids": list(humans), "combine": Group("human", tuple(humans)).combine(rubric.scale)},
                   "judge": {"ids": [], "combine": None}},
        "thresholds": thresholds_to_dict(settings),
        "counts": None, "summary": None, "dimensions": [], "overall": None, "verdict": [], "breakdowns": [],
        "self_agreement": [], "human_agreement": None, "judge_comparison": reason,
        "undefined": {name: reason for name in ("counts", "summary", "overall")},
    }


def report_to_dict(report: Report) -> dict[str, Any]:
    self_agreement = []
    for s in report.self_agreement:
        rows = []
        for r in s.rows:
            undefined: dict[str, str] = {}
            rows.append({"dimension": r.key, "n": r.n,
                         "alignment_rate": _figure(r.alignment_rate, "alignment_rate", undefined),
                         "cohen_kappa": _figure(r.cohen_kappa, "cohen_kappa", undefined),
                         "intervals": {name: interval_json(interval, f"{name}_interval", undefined)
                                       for name, interval in r.intervals.items()},
                         "undefined": undefined})
        self_agreement.append({"rater": s.rater_id, "repeats": s.repeats, "items": s.items,
                               "repeat_pairs": [list(p) for p in s.pairs], "dimensions": rows})
    human_agreement = None
    if report.human_agreement is not None:
        human_rows = []
        for h in report.human_agreement.rows:
            undefined = {}
            human_rows.append({"dimension": h.key, "items": h.items,
                               "krippendorff_alpha": _figure(h.krippendorff_alpha, "krippendorff_alpha", undefined),
                               "mean_pairwise_kappa": _figure(h.mean_pairwise_kappa, "mean_pairwise_kappa",
                                                              undefined),
                               "undefined": undefined})
        human_agreement = {"raters": list(report.human_agreement.rater_ids), "level": report.human_agreement.level,
                           "dimensions": human_rows}
    return {
        "schema_version": SCHEMA_VERSION,
        "rubric": rubric_to_dict(report.rubric),
        "split": report.split,
        "raters": {
            "human": {"ids": list(report.human.rater_ids), "combine": report.human.combine(report.rubric.scale)},
            "judge": {"ids": list(report.judge.rater_ids), "combine": report.judge.combine(report.rubric.scale)},
        },
        "thresholds": thresholds_to_dict(report.settings),
        "counts": dict(report.counts),
        "summary": summary_to_dict(report.summary),
        "dimensions": [row_to_dict(r, report) for r in report.rows],
        "overall": row_to_dict(report.overall, report),
        "verdict": [{"topic": f.topic, "status": f.status, "meets_target": f.meets_target, "scope": f.scope,
                     "text": f.text, "decision": f.decision, "point_meets_target": f.point_meets_target}
                    for f in report.findings],
        "breakdowns": [
            {"by": b.by, "groups": [
                {"value": s.value, "summary": summary_to_dict(s.summary),
                 "dimensions": [row_to_dict(r, report) for r in s.rows], "overall": row_to_dict(s.overall, report)}
                for s in b.sections]}
            for b in report.breakdowns
        ],
        "self_agreement": self_agreement,
        "human_agreement": human_agreement,
        "confidence": report.settings.confidence,
        "decide_on": report.settings.decide_on,
        "plan": plan_to_dicts(report),
        "decisions_combine": _combined_to_dict(report),
        "decision_rules": decision_rules(report),
        "ties": {"left_out": report.ties, "settle_with": "judge-tui adjudicate"},
        # Only when the draws were recorded (queue orders), so reports of other studies stay as they were.
        **({"design": design_to_dict(report)} if report.design is not None else {}),
        **({"settled_after": report.settled_after} if report.settled_after is not None else {}),
    }


def _combined_to_dict(report: Report) -> dict[str, Any] | None:
    found = combined(report)
    if found is None:
        return None
    return {"rule": "each target on its own interval" if found.settings.decide_on == "interval" else "point estimates",
            "valid_for": "this n only", "targets": found.targets, "confidence_each": found.settings.confidence,
            "any_wrong_at_most": found.wrong_at_most if found.settings.decide_on == "interval" else None,
            "confidence_for_study": found.study_confidence if found.settings.decide_on == "interval" else None,
            "text": found.text()}


def render_json(report: Report) -> str:
    return json.dumps(report_to_dict(report), indent=2, ensure_ascii=False) + "\n"


def design_to_dict(report: Report) -> dict[str, Any]:
    d = report.design
    assert d is not None
    figures: dict[str, Any] = {}
    undefined: dict[str, str] = {}
    for f in d.figures:
        figures[f.key] = {"estimate": _figure(f.estimate, f.key, undefined),
                          "interval": interval_json(f.interval, f"{f.key}_interval", undefined)}
    return {"order": d.kind, "weighted": d.weighted, "judge_rater": d.judge_rater, "drawn": d.drawn,
            "strata": {s: {"pool": d.pool.get(s, 0), "rated": d.rated.get(s, 0)} for s in sorted({*d.pool, *d.rated})},
            "effective_sample_size": d.effective_n if d.weighted else report.counts["compared"],
            "weighted_figures": figures, "undefined": undefined,
            "unweighted_sections": list(UNWEIGHTED_SECTIONS) if d.weighted else []}
