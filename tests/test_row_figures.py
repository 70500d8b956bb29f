"""The figure table (analysis/row_figures.py: ROW_FIGURES) lays out the per-dimension tables: each entry names the
tables that show it and its place there, so a new figure reaches the text and Markdown tables from its entry; and
a figure added to the table alone, with its point and interval functions beside it, reaches the JSON and every
table with its interval."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import get_args

import pytest

import judge_tui
from judge_tui.analysis.row_figures import ROW_FIGURES, DimensionTable
from judge_tui.cli import main
from judge_tui.store import Store
from tests.agreement_data import binary_items, exercise_items, load_ratings, ratings_file


@pytest.mark.parametrize("table", get_args(DimensionTable))
def test_the_figures_of_each_table_have_places_of_their_own(table: str):
    places = [f.column for f in ROW_FIGURES if table in f.tables]
    assert places  # every table shows some figure
    assert len(set(places)) == len(places)


def _markdown_header(tmp_path: Path, rubric, items, capsys) -> str:
    db = tmp_path / "figures.db"
    with Store(db) as store:
        store.add_items(items)
        human = ratings_file(tmp_path / "h.jsonl", rubric, items, seed=1)
        ratings_file(tmp_path / "j.jsonl", rubric, items, seed=2, base=human, noise=0.2, kind="judge")
        load_ratings(store, rubric, tmp_path / "h.jsonl", "EXP001", "human")
        load_ratings(store, rubric, tmp_path / "j.jsonl", "judge:test-model:x@1", "judge")
    capsys.readouterr()
    assert main(["report", "--db", str(db), "--format", "markdown"]) == 0
    return next(line for line in capsys.readouterr().out.splitlines() if line.startswith("| Dimension | n |"))


def test_a_pass_fail_report_shows_the_class_shares_before_the_correlation(tmp_path, rubrics, capsys):
    header = _markdown_header(tmp_path, rubrics["binary"], binary_items(30), capsys)
    assert header == "| Dimension | n | Align | κ | TPR | TNR | Acc | r | J−H | Alignment band | Kappa band |"


def test_a_scale_report_shows_the_weighted_kappa_and_the_rank_correlations(tmp_path, rubrics, capsys):
    rubric = rubrics["exercise-quality"]
    header = _markdown_header(tmp_path, rubric, exercise_items(12, rubric), capsys)
    assert header == "| Dimension | n | Align | κ | κ quad | r | ρ | τ | J−H | Alignment band | Kappa band |"


# A trial figure, as a maintainer would add one: its point function, its interval and its entry, all in
# analysis/row_figures.py. The report is then run from a copy of the package with that one file changed.
TRIAL_FIGURE = '''
def _exact_share_of(p: PairedScores) -> Figure:
    return float(np.count_nonzero(p.human == p.judge) / p.n) if p.n else Undefined(_EMPTY)


def _exact_share_interval(row: RowData) -> IntervalFigure:
    return _share(int(np.count_nonzero(row.paired.a == row.paired.b)), row.paired.n, row.confidence, _EMPTY)


'''
TRIAL_ENTRY = '''    RowFigure("exact_share", "Same", _exact_share_of, _exact_share_interval, percent=True,
              tables=_shown("non-binary"), column=95),
'''


def _with_trial_figure(package: Path) -> None:
    table = package / "analysis" / "row_figures.py"
    text = table.read_text(encoding="utf-8")
    opening = text.index("ROW_FIGURES = (\n")
    closing = text.index("\n)\n", opening) + 1
    table.write_text(text[:opening] + TRIAL_FIGURE.lstrip("\n") + text[opening:closing] + TRIAL_ENTRY
                     + text[closing:], encoding="utf-8")


REPORTS = """
import sys
from judge_tui.cli import main
for fmt in ("json", "markdown", "text"):
    assert main(["report", "--db", sys.argv[1], "--format", fmt, "--output", f"{sys.argv[2]}/report.{fmt}"]) == 0
"""


def _reports_from(code: Path, db: Path, out: Path) -> dict[str, str]:
    """The report in each format, written by a process that runs the package copied to ``code``."""
    out.mkdir()
    subprocess.run([sys.executable, "-c", REPORTS, str(db), str(out)], env={**os.environ, "PYTHONPATH": str(code)},
                   cwd=code, check=True)
    return {fmt: (out / f"report.{fmt}").read_text(encoding="utf-8") for fmt in ("json", "markdown", "text")}


@pytest.mark.slow  # a fresh process
def test_a_figure_added_to_the_table_alone_reaches_the_json_and_the_tables_with_its_interval(tmp_path, rubrics):
    code = tmp_path / "code"
    shutil.copytree(Path(judge_tui.__file__).parent, code / "judge_tui", ignore=shutil.ignore_patterns("__pycache__"))
    _with_trial_figure(code / "judge_tui")
    rubric = rubrics["exercise-quality"]
    items = exercise_items(40, rubric)
    db = tmp_path / "figures.db"
    with Store(db) as store:
        store.add_items(items)
        human = ratings_file(tmp_path / "h.jsonl", rubric, items, seed=1)
        judge = ratings_file(tmp_path / "j.jsonl", rubric, items, seed=2, base=human, noise=0.4, kind="judge")
        load_ratings(store, rubric, tmp_path / "h.jsonl", "EXP001", "human")
        load_ratings(store, rubric, tmp_path / "j.jsonl", "judge:test-model:x@1", "judge")
    reports = _reports_from(code, db, tmp_path / "reports")

    rows = {row["dimension"]: row for row in json.loads(reports["json"])["dimensions"]}
    for dimension in rubric.judged_dimensions:
        row = rows[dimension.id]
        same = sum(human[i.id][dimension.id] == judge[i.id][dimension.id] for i in items) / len(items)
        assert row["exact_share"] == pytest.approx(same)
        interval = row["intervals"]["exact_share"]
        assert interval["low"] < row["exact_share"] < interval["high"]

    first = rubric.judged_dimensions[0].id
    lines = reports["markdown"].splitlines()
    header = next(line for line in lines if line.startswith("| Dimension | n |"))
    assert header == "| Dimension | n | Align | κ | κ quad | r | ρ | τ | Same | J−H | Alignment band | Kappa band |"
    cells = next(line for line in lines if line.startswith(f"| {first} |")).split(" | ")
    assert re.fullmatch(r"\d+\.\d% \[\d+, \d+\]", cells[header.split(" | ").index("Same")])

    lines = reports["text"].splitlines()
    column = [cell.strip() for cell in next(line for line in lines if "┃ Dimension" in line).split("┃")].index("Same")
    at = next(i for i, line in enumerate(lines) if line.startswith(f"│ {first} "))
    assert re.fullmatch(r"\d+\.\d%", lines[at].split("│")[column].strip())
    assert re.fullmatch(r"\[\d+, \d+\]", lines[at + 1].split("│")[column].strip())  # its interval, beneath
