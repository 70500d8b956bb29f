"""The agreement report as text: Rich tables and lines, drawn to a width.

Rater ids and item field values are untrusted: they go into Text (never markup) after control characters are
stripped.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from judge_tui.analysis import bands
from judge_tui.analysis.design import TEST_WEIGHTED_SCOPE
from judge_tui.analysis.report import Report, Row, combined
from judge_tui.analysis.report.anytime import FIXED_N
from judge_tui.analysis.report_render.common import (
    STATUS_MARK,
    STATUS_STYLE,
    UNWEIGHTED_NOTE,
    anytime_lines,
    plan_lines,
    row_bands,
    safe,
    summary_lines,
)
from judge_tui.analysis.report_render.interval_bars import Bar, IntervalBars
from judge_tui.analysis.row_figures import ROW_FIGURES, DimensionTable
from judge_tui.analysis.targets import combination
from judge_tui.formats.numbers import (
    aligned_text,
    decimal_text,
    figure_with_interval,
    interval_text,
    num,
    pct,
    share_text,
    short_text,
    signed,
    tolerance_text,
)
from judge_tui.formats.terminal import SplittableTable, add_id_column, render_plain
from judge_tui.stats import agreement as ag
from judge_tui.stats.intervals import IntervalFigure


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
    text.append(f"  {combination(report.settings)}\n")
    return text


def header(report: Report) -> Text:
    c = report.counts
    text = Text()
    text.append(f"Agreement: {report.rubric.name}", style="bold")
    text.append(f" ({report.rubric.id}, scale {report.rubric.scale.kind})\n")
    text.append("Human: ", style="bold")
    text.append(safe(", ".join(report.human.rater_ids)))
    text.append(f" ({report.human.combine(report.rubric.scale)})\n")
    text.append("Judge: ", style="bold")
    text.append(safe(", ".join(report.judge.rater_ids)))
    text.append(f" ({report.judge.combine(report.rubric.scale)})\n")
    text.append(f"Split: {safe(report.split or 'all')} · "
                f"{tolerance_text(report.rubric.scale, report.settings.tolerance)} · "
                f"compared {c['compared']} of {c['items']} items (human rated {c['rated_by_human']}, "
                f"judge {c['rated_by_judge']}, judge only {c['judge_only']})")
    return text


def summary_table(report: Report) -> Table:
    s = report.summary
    rates = {r.key: r.agreement.alignment_rate for r in report.rows}
    table = Table(title="Summary metrics", title_justify="left")
    table.add_column("Metric")
    add_id_column(table, "Value")  # names a dimension
    for metric, value in summary_lines(s, rates, aligned_text(report.rubric.scale, report.settings.tolerance)):
        table.add_row(metric, Text(value))
    return table


def _columns(report: Report, compact: bool = False) -> list[tuple[str, str]]:
    """(header, figure) for the per-dimension table: the item count, then the figures whose entry in ROW_FIGURES
    names this table (compact: the summary screen's), in their column order."""
    table: DimensionTable = (("binary compact" if compact else "binary") if report.rubric.scale.binary
                             else ("non-binary compact" if compact else "non-binary"))
    shown = sorted((f for f in ROW_FIGURES if table in f.tables), key=lambda f: f.column)
    return [("n", "n"), *((f.label, f.key) for f in shown)]


PERCENT_FIGURES = (*(f.key for f in ROW_FIGURES if f.percent), "corrected_pass_rate")
SIGNED_FIGURES = tuple(f.key for f in ROW_FIGURES if f.signed)


# The figures interval_bars draws: the summary screen's compact table writes them without their intervals.
BAR_FIGURES = ("alignment_rate", "cohen_kappa", "weighted_kappa", "pearson_r", "tpr", "tnr")


CORRELATION_FIGURES = tuple(f.key for f in ROW_FIGURES if f.correlation)


def cell(row: Row, figure: str, *, interval: bool = False) -> str:
    """A figure of a row; with ``interval`` followed by its interval ("83.3% [55, 95]")."""
    if figure == "n":
        return str(row.agreement.n)
    value = row.agreement.figures[figure]
    if figure in PERCENT_FIGURES:
        text = pct(value)
    elif figure in SIGNED_FIGURES:
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
        align_band, kappa_band = row_bands(row, report)
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
        t = report.settings
        table.caption = Text(
            f"Colours: alignment ≥ {share_text(t.alignment_well_calibrated)} green, ≥ {share_text(t.alignment_minor_drift)} yellow, "
            f"≥ {share_text(t.alignment_significant_drift)} orange, else red; κ ≥ {short_text(t.kappa_substantial)} green, "
            f"≥ {short_text(t.kappa_moderate)} yellow, else red.", style="dim")
        table.caption_justify = "left"
    return table


def interval_bars(report: Report) -> list[IntervalBars]:
    """Each judged dimension's alignment and kappa as an interval against the band thresholds."""
    t = report.settings
    judged = report.judged_rows
    if not judged:
        return []

    def alignment_status(value: float) -> str:
        return bands.interpret_alignment(value, t).status

    def kappa_status(value: float) -> str:
        return bands.interpret_kappa(value, t).status

    level = f"{share_text(report.settings.confidence)}"
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
          if not report.rubric.scale.binary else []),
        *_target_bars(report, level),
    ]


def _target_bars(report: Report, level: str) -> list[IntervalBars]:
    """The figures with a target of their own against it: TPR and TNR on a PASS/FAIL scale, else Pearson's r."""
    t = report.settings

    def against(target: float, strict: bool = False) -> Callable[[float], str]:
        return lambda value: "ok" if (value > target if strict else value >= target) else "act"

    rows = [*report.judged_rows, report.overall]
    if report.rubric.scale.binary:
        return [IntervalBars(f"TPR and TNR, {level} intervals against the {share_text(t.tpr_tnr_target)} target", [
            Bar(f"{r.key} {name}", getattr(r.agreement, figure), _interval(r, figure))
            for r in report.judged_rows for name, figure in (("TPR", "tpr"), ("TNR", "tnr"))],
            (t.tpr_tnr_target,), against(t.tpr_tnr_target, strict=True), percent=True)]
    return [IntervalBars(f"Pearson's r, {level} intervals against the {short_text(t.pearson_target)} target",
                         [Bar(r.key, r.agreement.pearson_r, _interval(r, "pearson_r")) for r in rows],
                         (t.pearson_target,), against(t.pearson_target))]


def _interval(row: Row, figure: str) -> IntervalFigure:
    return row.uncertainty.intervals.get(figure, ag.Undefined("not computed"))


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
    shown = [(h, f) for h, f in _columns(report) if f != "n"]  # in column order, the same on every run
    notes: dict[str, dict[str, list[str]]] = {}  # reason: {row: the table's column headers}
    for row in [*report.rows, report.overall]:
        for header, figure in shown:
            value = row.agreement.figures[figure]
            if isinstance(value, ag.Undefined):
                notes.setdefault(value.reason, {}).setdefault(row.key, []).append(header)
    if not notes:
        return None
    text = Text("n/a means:\n", style="dim")
    for reason, where in notes.items():
        places = ", ".join(f"{row} ({', '.join(headers)})" for row, headers in where.items())
        text.append(f"  {places}: {reason}\n", style="dim")
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
            text.append(f" ({share_text(c.confidence)} interval {pct(c.low)} to {pct(c.high)})")
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
    text.append(f"Rated per stratum: {strata}. Effective sample size {decimal_text(d.effective_n, 1)} of {n} compared.\n")
    text.append("Design-weighted figures: ", style="bold")
    # TPR and TNR over every split would sit here beside the test split's, which decide: only those are shown.
    tested = {c.key: c for c in report.checks if c.scope == TEST_WEIGHTED_SCOPE}
    parts = [f"{f.label} {figure_with_interval(f.estimate, f.interval, percent=f.key in PERCENT_FIGURES)}"
             for f in d.figures if f.key not in tested]
    decided = "The targets are decided on these."
    if tested:
        on_test = "; ".join(f"{c.figure} {c.reading}" for c in tested.values())
        decided = (f"The targets are decided on these, and TPR and TNR on the test split's items alone, weighted "
                   f"within it: {on_test}.")
    text.append("; ".join(parts) + f" ({share_text(report.settings.confidence)} intervals for the judge on items like "
                "these, not for this pool alone: stratified Jeffreys for shares and the corrected pass rate, a "
                f"stratified bootstrap for the others, both with the pool itself a sample). {decided}\n")
    text.append("Unweighted: ", style="bold")
    text.append(UNWEIGHTED_NOTE + "\n")
    return text


def settled_text(report: Report) -> Text | None:
    """When the rating screen found every target decided: after how many ratings (and whether it still is)."""
    if report.settled_after is None:
        return None
    still = report.decided_at_any_time
    text = Text()
    text.append("Decided after ", style="bold")
    text.append(f"{report.settled_after} ratings: every target was decided then" +
                (f" (and is, with the {report.counts['compared']} compared now).\n" if still else
                 f"; with the {report.counts['compared']} compared now, not every target is.\n"))
    return text


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


