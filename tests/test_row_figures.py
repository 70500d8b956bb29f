"""The figure table (analysis/row_figures.py: ROW_FIGURES) lays out the per-dimension tables: each entry names the
tables that show it and its place there, so a new figure reaches the text and Markdown tables from its entry."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest

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
