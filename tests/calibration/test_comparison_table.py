"""The judge screen's comparison of two prompt versions at 80 columns: every figure, interval and verdict shown
whole, even beside dimension names as long as a real rubric's."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from judge_tui.analysis.compare import compare_versions
from judge_tui.analysis.report_render.comparison import compare_rows
from judge_tui.store import Store
from judge_tui.tui.screens.calibrate import comparison_table
from tests.test_report_golden import team_db  # noqa: F401  (a fixture: three experts, two judge prompt versions)


def test_at_80_columns_every_figure_and_verdict_is_whole(team_db: Path, rubrics):  # noqa: F811
    with Store(team_db) as store:  # the comparison `report --compare p1 p2 --split test` pins
        rows = compare_rows(compare_versions(store, rubrics["exercise-quality"], "p1", "p2", split="test"))
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
