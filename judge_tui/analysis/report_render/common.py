"""What the report's three renderings share: the status marks, the band cells, the plan and anytime lines."""

from __future__ import annotations

from collections.abc import Sequence

from judge_tui.analysis import bands
from judge_tui.analysis.bands import Interpret
from judge_tui.analysis.report import Report, Row, Summary
from judge_tui.analysis.targets import TargetCheck, ruling
from judge_tui.formats.numbers import figure_with_interval, pct, share_text
from judge_tui.model.settings import AgreementSettings
from judge_tui.model.textsafe import clean
from judge_tui.stats import agreement as ag
from judge_tui.stats.agreement import Figure
from judge_tui.stats.intervals import Interval, IntervalFigure

STATUS_STYLE = {"ok": "green", "caution": "yellow", "act": "dark_orange", "stop": "bold red", "unknown": "dim",
                "info": "cyan"}


STATUS_MARK = {"ok": "OK", "caution": "CAUTION", "act": "ACT", "stop": "STOP", "unknown": "?", "info": "i"}


def safe(text: object) -> str:
    return clean(str(text))


def interval_bands(estimate: Figure, interval: IntervalFigure,
                   interpret: Interpret, settings: AgreementSettings) -> str:
    """The bands an interval spans, lowest first: "moderate–almost perfect", or one band when the whole interval
    lies in it. Without an interval the point estimate's band says so ("substantial (no interval)"), and a figure
    too thin for an interval says "too few items"."""
    if isinstance(interval, Interval):
        low, high = interpret(interval.low, settings).label, interpret(interval.high, settings).label
        return low if low == high else f"{low}–{high}"
    if "too few items" in interval.reason:
        return "too few items"
    point = interpret(estimate, settings)
    return point.label if point.status == "unknown" else f"{point.label} (no interval)"


def row_bands(row: Row, report: Report) -> tuple[str, str]:
    """The alignment and kappa band cells of a row: the bands each interval spans."""
    intervals, t = row.uncertainty.intervals, report.settings
    alignment = interval_bands(row.agreement.alignment_rate, intervals.get("alignment_rate", ag.Undefined("none")),
                               bands.interpret_alignment, t)
    if row.method == "overall" and not ag.is_defined(row.agreement.cohen_kappa):
        return alignment, "—"
    return alignment, interval_bands(row.agreement.cohen_kappa, intervals.get("cohen_kappa", ag.Undefined("none")),
                                     bands.interpret_kappa, t)


def anytime_lines(report: Report) -> list[str]:
    """The targets decided by rules valid at any time, one line each, then how the targets combine."""
    lines = []
    for a in report.anytime:
        decision = a.decision or "cannot be decided"
        held = f"; held up: {a.held_up}" if a.held_up else ""
        lines.append(f"{a.check.goal} ({a.check.scope}): {decision}, {a.reading} ({a.method}){held}")
    return lines


def summary_lines(s: Summary, rates: dict[str, Figure], aligned: str) -> list[tuple[str, str]]:
    """The summary's rows; ``aligned``: what counts as aligned on the scale, in words (aligned_text)."""
    def named(key: str | None) -> str:
        return f"{key} ({pct(rates[key])})" if key else "n/a"

    return [
        ("Total cases reviewed", f"{s.cases}/{s.items}"),
        (f"Dimension agreements ({aligned})", f"{s.agreements}/{s.pairs}"),
        ("Overall alignment rate", figure_with_interval(s.alignment_rate, s.alignment_interval, percent=True)),
        ("Dimension with lowest alignment", named(s.lowest)),
        ("Dimension with highest alignment", named(s.highest)),
    ]


def plan_lines(report: Report) -> list[str]:
    """What would settle each undecided target, one sentence each, after how likely "undecided" is at the
    study's size."""
    lines = []
    for c in report.checks:
        if ruling(c, report.settings) == "undecided" or (c.decision == "undecided" and c.plan is not None):
            text = c.plan_text()
            if text:
                lines.append(f"{c.goal} ({c.scope}): undecided; {text}.")
    return [undecided_at_size_line(report.checks), *lines] if lines else []


def undecided_at_size_line(checks: Sequence[TargetCheck]) -> str:
    """"At this size (…), a study with a judge like this one ends undecided on TPR > 0.90 in about 85% of
    cases, …": the chance that repeating the study at its size, the judge's true figures drawn from what the
    data allow, leaves each target undecided."""
    parts = [f"{c.goal} {share_text(c.undecided_at_size)} (n = {c.n}{' ' + c.class_label if c.class_label else ''})"
             for c in checks if c.undecided_at_size is not None]
    return ("Chance that a study of this size ends undecided, for a judge like this one: " + "; ".join(parts)
            + ". Each plan below gives an 80% chance of settling its target over the judges these data allow (its "
            "true figure drawn from what the data say, and for TPR and TNR how many of the new test items are "
            "human PASS or FAIL too); for one particular judge the chance is higher far from the target, lower "
            "near it, and nil exactly on it.") if parts else ""


UNWEIGHTED_SECTIONS = ("dimensions", "confusion matrices", "breakdowns", "judge self-agreement", "team agreement")


UNWEIGHTED_NOTE = ("the per-dimension table, the confusion matrices, the breakdowns and the judge's self- and the "
                   "team's agreement are unweighted counts of the rated items, which over-represent the verdicts "
                   "the balanced order over-sampled; read the pool's figures from the design-weighted ones.")
