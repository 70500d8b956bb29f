"""The judge screen's comparison of two prompt versions at 80 columns: every figure, interval and verdict shown
whole, even beside dimension names as long as a real rubric's."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console

from judge_tui.analysis.team_report import compare_rows
from judge_tui.tui.screens.calibrate import comparison_table

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "reports" / "compare.json"


def test_at_80_columns_every_figure_and_verdict_is_whole():
    rows = compare_rows(json.loads(FIXTURE.read_text())["version_comparison"])
    assert max(len(row[0]) for row in rows) >= 25  # long names: they once squeezed the figures out
    console = Console(width=76, record=True)  # the overview pane of an 80-column terminal
    console.print(comparison_table(rows))
    lines = console.export_text().splitlines()
    for dimension, figure, _n, before, after, change, verdict in rows:
        if dimension:
            assert dimension in lines
        row = next(line for line in lines if line.split()[:1] == [figure] and before in line and after in line
                   and change in line)
        assert row.rstrip().endswith(verdict)
    assert max(len(line.rstrip()) for line in lines) <= 76
