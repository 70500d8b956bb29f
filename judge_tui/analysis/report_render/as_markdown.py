"""The agreement report as Markdown; table separators in untrusted text are escaped."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text

from judge_tui.analysis.report import Report, combined
from judge_tui.analysis.report.anytime import FIXED_N
from judge_tui.analysis.report_render.as_text import (
    _columns,
    breakdown_tables,
    cell,
    chance_table,
    corrected_text,
    design_text,
    human_agreement_table,
    self_agreement_tables,
    settled_text,
    undefined_notes,
)
from judge_tui.analysis.report_render.blocks import md
from judge_tui.analysis.report_render.common import (
    STATUS_MARK,
    anytime_lines,
    plan_lines,
    row_bands,
    summary_lines,
)
from judge_tui.analysis.targets import combination
from judge_tui.formats.numbers import aligned_text, share_text, tolerance_text


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
               f"split: {md(report.split or 'all')}; {tolerance_text(rubric.scale, report.settings.tolerance)}.  ")
    out.append(f"Human: {md(', '.join(report.human.rater_ids))} ({report.human.combine(rubric.scale)}).  ")
    out.append(f"Judge: {md(', '.join(report.judge.rater_ids))} ({report.judge.combine(rubric.scale)}).  ")
    out.append(f"Items: {c['items']}; rated by the human side {c['rated_by_human']}, by the judge "
               f"{c['rated_by_judge']}, by both {c['compared']}, by the judge only {c['judge_only']}.")
    out += ["", "## Summary metrics", ""]
    rates = {r.key: r.agreement.alignment_rate for r in report.rows}
    aligned = aligned_text(report.rubric.scale, report.settings.tolerance)
    out += _md_table(["Metric", "Value"], summary_lines(report.summary, rates, aligned), right_from=2)
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
        out += ["", md(combination(report.settings))]
    out += ["", "## Per dimension", ""]
    columns = _columns(report)
    out += _md_table(["Dimension", *(h for h, _ in columns), "Alignment band", "Kappa band"],
                     [[f"**{r.key}**" if r.method == "overall" else r.key + (" (code)" if r.method == "code" else ""),
                       *(cell(r, f, interval=True) for _, f in columns), *row_bands(r, report)]
                      for r in [*report.rows, report.overall]])
    out += ["", f"Intervals: {share_text(report.settings.confidence)}, in brackets after each figure "
                "(shares in percent)."]
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
