"""The agreement report rendered three ways, each from the typed report (analysis/report/model.py): JSON
(as_json.py), text with Rich tables (as_text.py) and Markdown (as_markdown.py); common.py holds what they share."""

from __future__ import annotations

from judge_tui.analysis.report import Report
from judge_tui.analysis.report_render.as_json import render_json
from judge_tui.analysis.report_render.as_markdown import render_markdown
from judge_tui.analysis.report_render.as_text import render_text


def render(report: Report, fmt: str, width: int | None = None) -> str:
    """The report in a format; text at ``width``, or fitted to standard output (see cli_output)."""
    if fmt == "json":
        return render_json(report)
    if fmt == "markdown":
        return render_markdown(report)
    return render_text(report, width)
