"""The agreement report rendered three ways: text (Rich tables), Markdown and JSON.

The JSON schema is documented in the README ("Reading the agreement") and is stable: keys are only ever
added, and SCHEMA_VERSION changes if one is removed or changes meaning. A figure that cannot be computed
is null, and the object holding it has an "undefined" map from the figure's name to the reason.

Rater ids and item field values are untrusted: Rich output wraps them in Text (never markup) after
stripping control characters; Markdown escapes table separators.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from judge_tui.analysis.figure_format import (
    figure_with_interval,
    interval_json,
    interval_text,
    num,
    pct,
    signed,
)
from judge_tui.analysis.interval_bars import Bar, IntervalBars
from judge_tui.analysis.report import Group, Report, Row, Summary, band_decisions, combined, meets_by_decision
from judge_tui.analysis.stopping import (
    ANYTIME,
    FIXED_N,
    AnytimeCheck,
    all_decided_at_any_time,
    anytime_checks,
    report_items_left,
)
from judge_tui.analysis.targets import TargetCheck, combination, ruling
from judge_tui.analysis.uncertainty import CHANCE_FIGURES, INTERVAL_FIGURES
from judge_tui.formats.terminal import SplittableTable, add_id_column, render_plain
from judge_tui.model.rubrics import Rubric
from judge_tui.model.textsafe import clean
from judge_tui.stats import agreement as ag
from judge_tui.stats.agreement import Figure
from judge_tui.stats.assurance import PRACTICAL_MORE
from judge_tui.stats.intervals import Interval, IntervalFigure

SCHEMA_VERSION = 1
FIGURES = ("alignment_rate", "cohen_kappa", "weighted_kappa", "pearson_r", "spearman_rho", "kendall_tau",
           "mean_difference", "tpr", "tnr", "accuracy")
STATUS_STYLE = {"ok": "green", "caution": "yellow", "act": "dark_orange", "stop": "bold red", "unknown": "dim",
                "info": "cyan"}
STATUS_MARK = {"ok": "OK", "caution": "CAUTION", "act": "ACT", "stop": "STOP", "unknown": "?", "info": "i"}


def render(report: Report, fmt: str, width: int | None = None) -> str:
    """The report in a format; text at ``width``, or fitted to standard output (see cli_output)."""
    if fmt == "json":
        return render_json(report)
    if fmt == "markdown":
        return render_markdown(report)
    return render_text(report, width)


# --------------------------------------------------------------------------------------------------
# Numbers
# --------------------------------------------------------------------------------------------------


def safe(text: object) -> str:
    return clean(str(text))


# --------------------------------------------------------------------------------------------------
# JSON
# --------------------------------------------------------------------------------------------------


def _figure(value: Figure, name: str, undefined: dict[str, str]) -> float | None:
    if isinstance(value, ag.Undefined):
        undefined[name] = value.reason
        return None
    return float(value)


def _band(interpretation: ag.Interpretation, decision: str | None, spanned: str) -> dict[str, Any]:
    """A band in the JSON: the point estimate's band (label, status), the bands its interval spans, and whether
    the target is met, which follows the decision (``point_meets_target`` keeps the point estimate's reading)."""
    return {"label": interpretation.label, "status": interpretation.status,
            "meets_target": meets_by_decision(decision), "decision": decision,
            "point_meets_target": interpretation.meets_target, "interval_bands": spanned}


def interval_bands(estimate: Figure, interval: IntervalFigure,
                   interpret: Callable[[Figure, ag.Thresholds], ag.Interpretation], thresholds: ag.Thresholds) -> str:
    """The bands an interval spans, lowest first: "moderate–almost perfect", or one band when the whole interval
    lies in it. Without an interval the point estimate's band says so ("substantial (no interval)"), and a figure
    too thin for an interval says "too few items"."""
    if isinstance(interval, Interval):
        low, high = interpret(interval.low, thresholds).label, interpret(interval.high, thresholds).label
        return low if low == high else f"{low}–{high}"
    if "too few items" in interval.reason:
        return "too few items"
    point = interpret(estimate, thresholds)
    return point.label if point.status == "unknown" else f"{point.label} (no interval)"


def _row_bands(row: Row, report: Report) -> tuple[str, str]:
    """The alignment and kappa band cells of a row: the bands each interval spans."""
    intervals, t = row.uncertainty.intervals, report.thresholds
    alignment = interval_bands(row.agreement.alignment_rate, intervals.get("alignment_rate", ag.Undefined("none")),
                               ag.interpret_alignment, t)
    if row.method == "overall" and not ag.is_defined(row.agreement.cohen_kappa):
        return alignment, "—"
    return alignment, interval_bands(row.agreement.cohen_kappa, intervals.get("cohen_kappa", ag.Undefined("none")),
                                     ag.interpret_kappa, t)


def row_to_dict(row: Row, report: Report) -> dict[str, Any]:
    pair = row.agreement
    undefined: dict[str, str] = {}
    out: dict[str, Any] = {"dimension": row.key, "name": row.name, "method": row.method, "n": pair.n}
    for name in FIGURES:
        out[name] = _figure(getattr(pair, name), name, undefined)
    corrected: dict[str, Any] = {"value": None, "ci_low": None, "ci_high": None, "confidence": 0.95,
                                 "observed_pass_rate": None, "n_judge_only": 0}
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
    elif report.rubric.scale.kind != "pass_fail":
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
    spans = _row_bands(row, report)
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
    anytime = anytime_checks(report, report_items_left(report))
    for c, a in zip(report.checks, anytime, strict=True):
        undefined: dict[str, str] = {}
        out.append({
            "target": c.key, "goal": c.goal, "scope": c.scope, "threshold": c.target, "strict": c.strict,
            "estimate": _figure(c.estimate, "estimate", undefined), "n": c.n,
            "interval": interval_json(c.interval, "interval", undefined),
            "decision": ruling(c, report.decide_on), "decision_interval": c.decision,
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
        "at_interval_ends": [{"value": v, "more_items": None if m is None else c.in_scope(m),
                              "more_of_class": m if c.class_share is not None else None}
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
    alpha = (1.0 - report.confidence) / 2.0
    return {"fixed_n": f"{FIXED_N}: each target's {report.confidence:.0%} interval read once, at the "
                       f"{report.counts['compared']} items compared; looked at again as ratings come in, it errs "
                       "more often than it says",
            "anytime": f"{ANYTIME}: the stop notice and the settled count; a wrong decision per target and side in "
                       f"at most {alpha:.1%} of studies however often the figures are looked at",
            "one_sided_alpha": alpha, "combination": combination(report.confidence)}


def anytime_lines(report: Report) -> list[str]:
    """The targets decided by rules valid at any time, one line each, then how the targets combine."""
    lines = []
    for a in anytime_checks(report, report_items_left(report)):
        decision = a.decision or "cannot be decided"
        held = f"; held up: {a.held_up}" if a.held_up else ""
        lines.append(f"{a.check.goal} ({a.check.scope}): {decision}, {a.reading} ({a.method}){held}")
    return lines


def anytime_text(report: Report) -> Text | None:
    lines = anytime_lines(report)
    if not lines:
        return None
    text = Text()
    text.append("Decisions valid at any time\n", style="bold")
    text.append(f"  The verdict's decisions are {FIXED_N}. These, with their anytime-valid intervals, stay valid "
                "however often the figures are looked at while ratings come in; the stop notice uses only them.\n")
    for line in lines:
        text.append(f"  {line}\n")
    text.append(f"  {combination(report.confidence)}\n")
    return text


def rubric_to_dict(rubric: Rubric) -> dict[str, Any]:
    return {"id": rubric.id, "name": rubric.name, "version": rubric.version, "scale": rubric.scale.kind,
            "overall_name": rubric.overall_name}


def thresholds_to_dict(tolerance: float, t: ag.Thresholds) -> dict[str, Any]:
    return {
        "tolerance": tolerance,
        "alignment": {"well_calibrated": t.alignment_well_calibrated, "minor_drift": t.alignment_minor_drift,
                      "significant_drift": t.alignment_significant_drift},
        "kappa": {"almost_perfect": t.kappa_almost_perfect, "substantial": t.kappa_substantial,
                  "moderate": t.kappa_moderate},
        "pearson_target": t.pearson_target,
        "tpr_tnr_target": t.binary_target,
    }


def no_comparison_to_dict(rubric: Rubric, split: str | None, tolerance: float, thresholds: ag.Thresholds,
                          humans: Sequence[str], reason: str) -> dict[str, Any]:
    """The report's documented shape when there is no judge comparison (the team section stands alone): every
    key present, the judge comparison's figures null or empty, and why in ``undefined``."""
    return {
        "schema_version": SCHEMA_VERSION, "rubric": rubric_to_dict(rubric), "split": split,
        "raters": {"human": {"ids": list(humans), "combine": Group("human", tuple(humans)).combine},
                   "judge": {"ids": [], "combine": None}},
        "thresholds": thresholds_to_dict(tolerance, thresholds),
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
            "human": {"ids": list(report.human.rater_ids), "combine": report.human.combine},
            "judge": {"ids": list(report.judge.rater_ids), "combine": report.judge.combine},
        },
        "thresholds": thresholds_to_dict(report.tolerance, report.thresholds),
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
        "confidence": report.confidence,
        "decide_on": report.decide_on,
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
    return {"rule": "each target on its own interval" if found.decide_on == "interval" else "point estimates",
            "valid_for": "this n only", "targets": found.targets, "confidence_each": found.confidence,
            "any_wrong_at_most": found.wrong_at_most if found.decide_on == "interval" else None,
            "confidence_for_study": found.study_confidence if found.decide_on == "interval" else None,
            "text": found.text()}


def render_json(report: Report) -> str:
    return json.dumps(report_to_dict(report), indent=2, ensure_ascii=False) + "\n"


# --------------------------------------------------------------------------------------------------
# Rich (the text format and the summary screen share these)
# --------------------------------------------------------------------------------------------------


def header(report: Report) -> Text:
    c = report.counts
    text = Text()
    text.append(f"Agreement: {report.rubric.name}", style="bold")
    text.append(f" ({report.rubric.id}, scale {report.rubric.scale.kind})\n")
    text.append("Human: ", style="bold")
    text.append(safe(", ".join(report.human.rater_ids)))
    text.append(f" ({report.human.combine})\n")
    text.append("Judge: ", style="bold")
    text.append(safe(", ".join(report.judge.rater_ids)))
    text.append(f" ({report.judge.combine})\n")
    text.append(f"Split: {safe(report.split or 'all')} · tolerance ±{report.tolerance:g} · "
                f"compared {c['compared']} of {c['items']} items (human rated {c['rated_by_human']}, "
                f"judge {c['rated_by_judge']}, judge only {c['judge_only']})")
    return text


def summary_table(report: Report) -> Table:
    s = report.summary
    rates = {r.key: r.agreement.alignment_rate for r in report.rows}
    table = Table(title="Summary metrics", title_justify="left")
    table.add_column("Metric")
    add_id_column(table, "Value")  # names a dimension
    for metric, value in summary_lines(s, rates, report.tolerance):
        table.add_row(metric, Text(value))
    return table


def summary_lines(s: Summary, rates: dict[str, Figure], tolerance: float) -> list[tuple[str, str]]:
    def named(key: str | None) -> str:
        return f"{key} ({pct(rates[key])})" if key else "n/a"

    return [
        ("Total cases reviewed", f"{s.cases}/{s.items}"),
        (f"Dimension agreements (within ±{tolerance:g})", f"{s.agreements}/{s.pairs}"),
        ("Overall alignment rate", figure_with_interval(s.alignment_rate, s.alignment_interval, percent=True)),
        ("Dimension with lowest alignment", named(s.lowest)),
        ("Dimension with highest alignment", named(s.highest)),
    ]


def _columns(report: Report, compact: bool = False) -> list[tuple[str, str]]:
    """(header, figure) for the per-dimension table; compact leaves out the rank correlations."""
    columns = [("n", "n"), ("Align", "alignment_rate"), ("κ", "cohen_kappa")]
    if report.rubric.scale.kind == "pass_fail":
        columns += [("TPR", "tpr"), ("TNR", "tnr"), ("Acc", "accuracy")]
        columns += [] if compact else [("r", "pearson_r")]
    else:
        columns += [("κ quad", "weighted_kappa"), ("r", "pearson_r")]
        columns += [] if compact else [("ρ", "spearman_rho"), ("τ", "kendall_tau")]
    return [*columns, ("J−H", "mean_difference")]


PERCENT_FIGURES = ("alignment_rate", "tpr", "tnr", "accuracy", "corrected_pass_rate")
# The figures interval_bars draws: the summary screen's compact table writes them without their intervals.
BAR_FIGURES = ("alignment_rate", "cohen_kappa", "weighted_kappa", "pearson_r", "tpr", "tnr")
CORRELATION_FIGURES = ("pearson_r", "spearman_rho", "kendall_tau", "mean_difference")


def cell(row: Row, figure: str, *, interval: bool = False) -> str:
    """A figure of a row; with ``interval`` followed by its interval ("83.3% [55, 95]")."""
    if figure == "n":
        return str(row.agreement.n)
    value = getattr(row.agreement, figure)
    if figure in PERCENT_FIGURES:
        text = pct(value)
    elif figure == "mean_difference":
        text = signed(value)
    else:
        text = num(value)
    bounds = interval_text(row.uncertainty.intervals.get(figure), percent=figure in PERCENT_FIGURES)
    return f"{text} {bounds}" if interval and bounds and text != "n/a" else text


def stacked_cell(row: Row, figure: str) -> str:
    """A figure over its interval on the next line, so a table of intervals stays narrow."""
    text = cell(row, figure)
    if figure == "n" or text == "n/a":
        return text
    bounds = interval_text(row.uncertainty.intervals.get(figure), percent=figure in PERCENT_FIGURES)
    return f"{text}\n{bounds}" if bounds else text


def dimension_table(report: Report, *, compact: bool = False) -> Table:
    """The per-dimension figures and the overall row, with the alignment and kappa bands.

    Compact (the summary screen) leaves out the rank correlations and the band names; the alignment and
    kappa cells are coloured by their band instead.
    """
    rows = report.rows
    columns = _columns(report, compact)
    # On a page too narrow for every column (80 columns of figures over intervals), two tables.
    figures = [f for _, f in columns]
    agreement = [i + 1 for i, f in enumerate(figures) if f not in CORRELATION_FIGURES]
    band_columns = [] if compact else [len(columns) + 1, len(columns) + 2]
    table = SplittableTable(title="Per dimension", title_justify="left", groups=[
        ("agreement", agreement), ("bands", band_columns),
        ("correlation and bias", [1, *(i + 1 for i, f in enumerate(figures) if f in CORRELATION_FIGURES)])])
    names = [row.key + (" (code)" if row.method == "code" else "") for row in [*rows, report.overall]]
    # The summary screen keeps the names readable; a command's output gives them what the figures leave.
    add_id_column(table, "Dimension", min_width=min(max(map(len, names)), 18) if compact else None)
    for head, _ in columns:
        table.add_column(head, justify="right", no_wrap=True)
    if not compact:
        table.add_column("Alignment band")  # words: they wrap, and a command's table keeps each whole
        table.add_column("κ band")
    for row, name in zip([*rows, report.overall], names, strict=True):
        align_band, kappa_band = _row_bands(row, report)
        align_style = STATUS_STYLE[row.alignment_band.status]
        kappa_style = STATUS_STYLE[row.kappa_band.status] if kappa_band != "—" else ""
        cells = []
        for _, figure in columns:
            style = {"alignment_rate": align_style, "cohen_kappa": kappa_style}.get(figure, "") if compact else ""
            # The summary screen draws most intervals as bars below, which keeps 80 columns; the rest stack here.
            plain = compact and figure in BAR_FIGURES
            cells.append(Text(cell(row, figure) if plain else stacked_cell(row, figure), style=style))
        # A band cell spanning several bands takes the colour of "unknown", as an undecided target does.
        bands = [] if compact else [Text(band, style=STATUS_STYLE["unknown"] if "–" in band else style)
                                    for band, style in ((align_band, align_style), (kappa_band, kappa_style))]
        table.add_row(Text(name, style="bold" if row.method == "overall" else ""), *cells, *bands,
                      end_section=row is rows[-1])
    if compact:
        t = report.thresholds
        table.caption = Text(
            f"Colours: alignment ≥ {t.alignment_well_calibrated:.0%} green, ≥ {t.alignment_minor_drift:.0%} yellow, "
            f"≥ {t.alignment_significant_drift:.0%} orange, else red; κ ≥ {t.kappa_substantial:g} green, "
            f"≥ {t.kappa_moderate:g} yellow, else red.", style="dim")
        table.caption_justify = "left"
    return table


def interval_bars(report: Report) -> list[IntervalBars]:
    """Each judged dimension's alignment and kappa as an interval against the band thresholds."""
    t = report.thresholds
    judged = report.judged_rows
    if not judged:
        return []

    def alignment_status(value: float) -> str:
        return ag.interpret_alignment(value, t).status

    def kappa_status(value: float) -> str:
        return ag.interpret_kappa(value, t).status

    level = f"{report.confidence:.0%}"
    return [
        IntervalBars(f"Alignment, {level} intervals against the bands", [
            Bar(r.key, r.agreement.alignment_rate, _interval(r, "alignment_rate")) for r in judged
        ] + [Bar("all judged", report.summary.alignment_rate, report.summary.alignment_interval)],
            (t.alignment_significant_drift, t.alignment_minor_drift, t.alignment_well_calibrated),
            alignment_status, percent=True),
        IntervalBars(f"Cohen's κ, {level} intervals against the bands",
                     [Bar(r.key, r.agreement.cohen_kappa, _interval(r, "cohen_kappa")) for r in judged],
                     (t.kappa_moderate, t.kappa_substantial, t.kappa_almost_perfect), kappa_status),
        *([IntervalBars(f"Quadratic-weighted κ, {level} intervals against the bands",
                        [Bar(r.key, r.agreement.weighted_kappa, _interval(r, "weighted_kappa")) for r in judged],
                        (t.kappa_moderate, t.kappa_substantial, t.kappa_almost_perfect), kappa_status)]
          if report.rubric.scale.kind != "pass_fail" else []),
        *_target_bars(report, level),
    ]


def _target_bars(report: Report, level: str) -> list[IntervalBars]:
    """The figures with a target of their own against it: TPR and TNR on a PASS/FAIL scale, else Pearson's r."""
    t = report.thresholds

    def against(target: float, strict: bool = False) -> Callable[[float], str]:
        return lambda value: "ok" if (value > target if strict else value >= target) else "act"

    rows = [*report.judged_rows, report.overall]
    if report.rubric.scale.kind == "pass_fail":
        return [IntervalBars(f"TPR and TNR, {level} intervals against the {t.binary_target:.0%} target", [
            Bar(f"{r.key} {name}", getattr(r.agreement, figure), _interval(r, figure))
            for r in report.judged_rows for name, figure in (("TPR", "tpr"), ("TNR", "tnr"))],
            (t.binary_target,), against(t.binary_target, strict=True), percent=True)]
    return [IntervalBars(f"Pearson's r, {level} intervals against the {t.pearson_target:g} target",
                         [Bar(r.key, r.agreement.pearson_r, _interval(r, "pearson_r")) for r in rows],
                         (t.pearson_target,), against(t.pearson_target))]


def _interval(row: Row, figure: str) -> IntervalFigure:
    return row.uncertainty.intervals.get(figure, ag.Undefined("not computed"))


def plan_lines(report: Report) -> list[str]:
    """What would settle each undecided target, one sentence each, after how likely "undecided" is at the
    study's size."""
    lines = []
    for c in report.checks:
        if ruling(c, report.decide_on) == "undecided" or (c.decision == "undecided" and c.plan is not None):
            text = c.plan_text()
            if text:
                lines.append(f"{c.goal} ({c.scope}): undecided; {text}.")
    return [undecided_at_size_line(report.checks), *lines] if lines else []


def undecided_at_size_line(checks: Sequence[TargetCheck]) -> str:
    """"At this size (…), a study with a judge like this one ends undecided on TPR > 0.90 in about 85% of
    cases, …": the chance that repeating the study at its size, the judge's true figures drawn from what the
    data allow, leaves each target undecided."""
    parts = [f"{c.goal} {c.undecided_at_size:.0%} (n = {c.n}{' ' + c.class_label if c.class_label else ''})"
             for c in checks if c.undecided_at_size is not None]
    return ("Chance that a study of this size ends undecided, for a judge like this one: " + "; ".join(parts)
            + ". Each plan below gives an 80% chance of settling its target, counting how unsure the estimate "
            "still is.") if parts else ""


def plan_text(report: Report) -> Text | None:
    lines = plan_lines(report)
    if not lines:
        return None
    text = Text()
    text.append("What would settle it\n", style="bold")
    for line in lines:
        text.append(f"  {line}\n")
    return text


CHANCE_COLUMNS = (("κ", "cohen_kappa"), ("AC1", "ac1"), ("AC2", "ac2"), ("PABAK", "pabak"),
                  ("Prev", "prevalence"), ("Bias", "bias_index"), ("Acc", "accuracy"), ("Base", "baseline_accuracy"))


CHANCE_NOTES = (("prevalence", "Prev: share of human PASS."),
                ("bias_index", "Bias: + when the judge fails more human PASS than it passes human FAIL."),
                ("baseline_accuracy", "Base: accuracy of a judge always giving the most common human label."))


def _chance_columns(report: Report) -> list[tuple[str, str]]:
    rows = [r for r in report.rows if r.agreement.confusion]
    columns = []
    for head, name in CHANCE_COLUMNS:
        if name in ("cohen_kappa", "accuracy"):
            keep = any(ag.is_defined(getattr(r.agreement, name)) for r in rows)
        else:
            keep = any(ag.is_defined(r.uncertainty.figures.get(name, ag.Undefined(""))) for r in rows)
        if keep:
            columns.append((head, name))
    return columns


def chance_cell(row: Row, name: str) -> str:
    if name in ("cohen_kappa", "accuracy"):
        return stacked_cell(row, name)
    value = row.uncertainty.figures.get(name)
    if name in ("prevalence", "baseline_accuracy"):
        return pct(value)
    text = num(value)
    bounds = interval_text(row.uncertainty.intervals.get(name)) if name in ("ac1", "ac2") else ""
    return f"{text}\n{bounds}" if bounds and text != "n/a" else text


def chance_table(report: Report) -> Table | None:
    """Kappa beside the figures skewed labels do not pull down: Gwet's AC1/AC2, PABAK, prevalence and bias,
    the judge's accuracy beside a constant judge's."""
    rows = [r for r in report.rows if r.agreement.confusion and r.agreement.n]
    columns = _chance_columns(report)
    if not rows or not columns:
        return None
    table = Table(title="Chance-corrected agreement beside kappa", title_justify="left")
    add_id_column(table, "Dimension")
    for head, _ in columns:
        table.add_column(head, justify="right", no_wrap=True)
    for row in rows:
        table.add_row(row.key, *(Text(chance_cell(row, name)) for _, name in columns))
    shown = {name for _, name in columns}
    notes = [note for name, note in CHANCE_NOTES if name in shown]  # only the columns this table has
    table.caption = Text(" ".join(notes), style="dim") if notes else None
    table.caption_justify = "left"
    return table


def verdict(report: Report) -> Text:
    text = Text()
    text.append("Verdict\n", style="bold")
    for finding in report.findings:
        text.append(f"[{STATUS_MARK[finding.status]}] ", style=STATUS_STYLE[finding.status])
        text.append(finding.text + "\n")
    found = combined(report)
    if found is not None:
        text.append(found.text() + "\n", style="dim")
    return text


def undefined_notes(report: Report) -> Text | None:
    shown = [f for _, f in _columns(report) if f != "n"]  # in column order, the same on every run
    notes: dict[str, list[str]] = {}
    for row in [*report.rows, report.overall]:
        for figure in shown:
            value = getattr(row.agreement, figure)
            if isinstance(value, ag.Undefined):
                notes.setdefault(value.reason, []).append(f"{row.key} {figure}")
    if not notes:
        return None
    text = Text("n/a means:\n", style="dim")
    for reason, where in notes.items():
        text.append(f"  {', '.join(where)}: {reason}\n", style="dim")
    return text


def corrected_text(report: Report) -> Text | None:
    rows = [r for r in report.rows if r.corrected is not None]
    if not rows:
        return None
    text = Text()
    for row in rows:
        assert row.corrected is not None
        c = row.corrected.rate
        if c.n_judge_only == 0:
            text.append("No item was labelled by the judge alone, so there is no pass rate to correct.\n")
            continue
        text.append(f"Pass rate on the {c.n_judge_only} items only the judge labelled: ", style="bold")
        if isinstance(c.estimate, ag.Undefined):
            text.append(f"cannot be corrected ({c.estimate.reason}).\n")
            continue
        text.append(f"observed {pct(c.observed_pass_rate)}, corrected {pct(c.estimate)}")
        if ag.is_defined(c.low) and ag.is_defined(c.high):
            text.append(f" ({c.confidence:.0%} interval {pct(c.low)} to {pct(c.high)})")
        else:
            text.append(f" (no interval: {c.low.reason})" if isinstance(c.low, ag.Undefined) else "")
        splits = ", ".join(f"{n} {'never split' if name == '(none)' else name}"
                           for name, n in row.corrected.judge_only_splits.items())
        text.append(f". TPR and TNR from the {c.n_labelled} items of the {row.corrected.labelled_from} labelled "
                    f"by both; corrected: every item only the judge labelled ({safe(splits)}).\n")
    return text


def design_text(report: Report) -> Text | None:
    """How the compared items were drawn and, for a balanced order, the figures weighted back to the pool."""
    d = report.design
    if d is None:
        return None
    text = Text()
    n = report.counts["compared"]
    if not d.weighted:
        text.append("Sampling design: ", style="bold")
        text.append(f"{d.kind} order; every item weighs the same, so the figures above are the design's "
                    f"(effective sample size {n}).\n")
        return text
    text.append("Sampling design: ", style="bold")
    text.append(f"balanced order, stratified by the verdicts of {safe(d.judge_rater)}; each stratum is weighted "
                "by its share of the items (stratum size ÷ items rated in it). ")
    strata = ", ".join(f"{safe(s)} {d.rated.get(s, 0)} of {d.pool.get(s, 0)}" for s in sorted({*d.pool, *d.rated}))
    text.append(f"Rated per stratum: {strata}. Effective sample size {d.effective_n:.1f} of {n} compared.\n")
    text.append("Design-weighted figures: ", style="bold")
    parts = [f"{f.label} {figure_with_interval(f.estimate, f.interval, percent=f.key in PERCENT_FIGURES)}"
             for f in d.figures]
    text.append("; ".join(parts) + f" ({report.confidence:.0%} intervals for the judge on items like these, not "
                "for this pool alone: stratified Jeffreys for shares and the corrected pass rate, a stratified "
                "bootstrap for the others, both with the pool itself a sample). The targets are decided on these.\n")
    text.append("Unweighted: ", style="bold")
    text.append(UNWEIGHTED_NOTE + "\n")
    return text


UNWEIGHTED_SECTIONS = ("dimensions", "confusion matrices", "breakdowns", "judge self-agreement", "team agreement")
UNWEIGHTED_NOTE = ("the per-dimension table, the confusion matrices, the breakdowns and the judge's self- and the "
                   "team's agreement are unweighted counts of the rated items, which over-represent the verdicts "
                   "the balanced order over-sampled; read the pool's figures from the design-weighted ones.")


def settled_text(report: Report) -> Text | None:
    """When the rating screen found every target decided: after how many ratings (and whether it still is)."""
    if report.settled_after is None:
        return None
    still = all_decided_at_any_time(report)
    text = Text()
    text.append("Decided after ", style="bold")
    text.append(f"{report.settled_after} ratings: every target was decided then" +
                (f" (and is, with the {report.counts['compared']} compared now).\n" if still else
                 f"; with the {report.counts['compared']} compared now, not every target is.\n"))
    return text


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


def confusion_tables(report: Report) -> list[Table]:
    scale = report.rubric.scale
    tables = []
    for row in report.rows:
        if not row.agreement.confusion:
            continue
        table = Table(title=f"{row.key}: rows human, columns judge", title_justify="left")
        add_id_column(table, "human \\ judge")
        for point in row.agreement.scale:
            add_id_column(table, scale.label(point), justify="right")
        for point, counts in zip(row.agreement.scale, row.agreement.confusion, strict=True):
            table.add_row(scale.label(point), *(str(c) for c in counts))
        tables.append(table)
    return tables


def breakdown_tables(report: Report) -> list[SplittableTable]:
    """Alignment and the overall figure per group, each figure over its interval."""
    tables = []
    judged = [r.key for r in report.judged_rows]
    for breakdown in report.breakdowns:
        table = SplittableTable(title=Text(f"By {safe(breakdown.by)}"), title_justify="left")
        add_id_column(table, Text(safe(breakdown.by)))
        table.add_column("n", justify="right")
        table.add_column("Align", justify="right")
        for key in judged:
            add_id_column(table, key, justify="right")
        overall_figure = "pearson_r" if report.rubric.overall != "label" else "cohen_kappa"
        table.add_column("r (overall)" if overall_figure == "pearson_r" else "κ", justify="right")
        for section in breakdown.sections:
            rows = {r.key: r for r in section.rows}
            pooled = pct(section.summary.alignment_rate)
            bounds = interval_text(section.summary.alignment_interval, percent=True)
            table.add_row(Text(safe(section.value)), str(section.summary.cases),
                          f"{pooled}\n{bounds}" if bounds and pooled != "n/a" else pooled,
                          *(stacked_cell(rows[k], "alignment_rate") for k in judged),
                          stacked_cell(section.overall, overall_figure))
        tables.append(table)
    return tables


def self_agreement_tables(report: Report) -> list[Table]:
    tables = []
    for s in report.self_agreement:
        pairs = ", ".join(f"{a}–{b}" for a, b in s.pairs)
        title = (f"Judge self-agreement: {safe(s.rater_id)}, {s.items} items judged {s.repeats} times "
                 f"(repeat pairs {pairs}, averaged)")
        table = Table(title=Text(title), title_justify="left")
        add_id_column(table, "Dimension")
        for head in ("n", "Align", "κ"):
            table.add_column(head, justify="right")
        for r in s.rows:
            table.add_row(r.key, str(r.n), figure_with_interval(r.alignment_rate, r.intervals["alignment_rate"],
                                                                percent=True),
                          figure_with_interval(r.cohen_kappa, r.intervals["cohen_kappa"]))
        tables.append(table)
    return tables


def human_agreement_table(report: Report) -> Table | None:
    h = report.human_agreement
    if h is None:
        return None
    table = Table(title=Text(f"Agreement among humans ({safe(', '.join(h.rater_ids))}; {h.level} alpha)"),
                  title_justify="left")
    add_id_column(table, "Dimension")
    for head in ("items", "Krippendorff α", "mean pairwise κ"):
        table.add_column(head, justify="right")
    for r in h.rows:
        table.add_row(r.key, str(r.items), num(r.krippendorff_alpha), num(r.mean_pairwise_kappa))
    return table


def rich_sections(report: Report, *, confusion: bool = True) -> list[RenderableType]:
    sections: list[RenderableType | None] = [
        header(report), summary_table(report), dimension_table(report), *interval_bars(report),
        chance_table(report), undefined_notes(report), verdict(report), plan_text(report), anytime_text(report),
        corrected_text(report),
        design_text(report), settled_text(report),
    ]
    if confusion:
        sections += confusion_tables(report)
    sections += [*breakdown_tables(report), *self_agreement_tables(report), human_agreement_table(report)]
    return [s for s in sections if s is not None]


def render_text(report: Report, width: int | None = None) -> str:
    """The text report at ``width``, or fitted to the terminal (full width to a pipe or file)."""
    return render_plain(rich_sections(report), width=width, gap=True, split=True)


# --------------------------------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------------------------------


def md(text: object) -> str:
    """A table cell: no control characters, no line breaks, no column separators."""
    return safe(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _md_table(head: Sequence[str], rows: Sequence[Sequence[str]], right_from: int = 1) -> list[str]:
    align = ["---" if i < right_from else "---:" for i in range(len(head))]
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def render_markdown(report: Report) -> str:
    rubric = report.rubric
    c = report.counts
    out = [f"# Agreement report: {md(rubric.name)}", ""]
    out.append(f"Rubric `{rubric.id}` (version {md(rubric.version)}, scale {rubric.scale.kind}); "
               f"split: {md(report.split or 'all')}; tolerance ±{report.tolerance:g}.  ")
    out.append(f"Human: {md(', '.join(report.human.rater_ids))} ({report.human.combine}).  ")
    out.append(f"Judge: {md(', '.join(report.judge.rater_ids))} ({report.judge.combine}).  ")
    out.append(f"Items: {c['items']}; rated by the human side {c['rated_by_human']}, by the judge "
               f"{c['rated_by_judge']}, by both {c['compared']}, by the judge only {c['judge_only']}.")
    out += ["", "## Summary metrics", ""]
    rates = {r.key: r.agreement.alignment_rate for r in report.rows}
    out += _md_table(["Metric", "Value"], summary_lines(report.summary, rates, report.tolerance), right_from=2)
    out += ["", "## Verdict", ""]
    out += [f"- **{STATUS_MARK[f.status]}** {md(f.text)}" for f in report.findings]
    found = combined(report)
    if found is not None:
        out += ["", md(found.text())]
    plan = plan_lines(report)
    if plan:
        out += ["", "## What would settle it", ""]
        out += [f"- {md(line)}" for line in plan]
    anytime = anytime_lines(report)
    if anytime:
        out += ["", "## Decisions valid at any time", "",
                f"The verdict's decisions are {FIXED_N}. These stay valid however often the figures are looked at "
                "while ratings come in; the stop notice uses only them.", ""]
        out += [f"- {md(line)}" for line in anytime]
        out += ["", md(combination(report.confidence))]
    out += ["", "## Per dimension", ""]
    columns = _columns(report)
    out += _md_table(["Dimension", *(h for h, _ in columns), "Alignment band", "Kappa band"],
                     [[f"**{r.key}**" if r.method == "overall" else r.key + (" (code)" if r.method == "code" else ""),
                       *(cell(r, f, interval=True) for _, f in columns), *_row_bands(r, report)]
                      for r in [*report.rows, report.overall]])
    out += ["", f"Intervals: {report.confidence:.0%}, in brackets after each figure (shares in percent)."]
    chance = chance_table(report)
    if chance is not None:
        out += ["", "## Chance-corrected agreement beside kappa", ""]
        out += _md_table([md(col.header) for col in chance.columns], _table_cells(chance))
    notes = undefined_notes(report)
    if notes is not None:
        out += ["", *(f"- {line.strip()}" for line in notes.plain.splitlines()[1:] if line.strip())]
    corrected = corrected_text(report)
    if corrected is not None:
        out += ["", corrected.plain.strip()]
    for extra in (design_text(report), settled_text(report)):
        if extra is not None:
            out += ["", md(extra.plain.strip())]
    confusions = [r for r in report.rows if r.agreement.confusion]
    if confusions:
        out += ["", "## Confusion matrices (rows: human, columns: judge)"]
        for row in confusions:
            labels = [rubric.scale.label(p) for p in row.agreement.scale]
            out += ["", f"**{row.key}**", ""]
            out += _md_table(["human \\\\ judge", *labels],
                             [[label, *(str(v) for v in counts)]
                              for label, counts in zip(labels, row.agreement.confusion, strict=True)])
    for group_table, breakdown in zip(breakdown_tables(report), report.breakdowns, strict=True):
        out += ["", f"## By {md(breakdown.by)}", ""]
        out += _md_table([md(col.header) for col in group_table.columns], _table_cells(group_table))
    for table in self_agreement_tables(report):
        out += ["", "## Judge self-agreement", "", md(table.title), ""]
        out += _md_table([md(col.header) for col in table.columns], _table_cells(table))
    human = human_agreement_table(report)
    if human is not None:
        out += ["", "## Agreement among humans", "", md(human.title), ""]
        out += _md_table([md(col.header) for col in human.columns], _table_cells(human))
    return "\n".join(out) + "\n"


def _table_cells(table: Table) -> list[list[str]]:
    columns = [[md(c.plain if isinstance(c, Text) else c) for c in col.cells] for col in table.columns]
    return [list(row) for row in zip(*columns, strict=True)]
