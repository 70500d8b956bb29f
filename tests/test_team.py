from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from judge_tui.analysis.full_report import build_full_report
from judge_tui.analysis.report_render.full import render_full
from judge_tui.analysis.scores import consensus
from judge_tui.analysis.team import (
    expert_disagreements,
    load_team,
    spread_exceeds,
    team_agreement,
    team_figures,
)
from judge_tui.model.rubrics import Scale
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats import agreement as ag
from judge_tui.store import Store
from judge_tui.transfer.merge import merge_database
from tests.team_fixtures import binary_item, exercise_item, expert_db, rate

NAN = np.nan
DIMS = ("difficulty_match", "instruction_clarity", "learning_objective_alignment")


def test_consensus_mean_for_ordered_and_majority_for_pass_fail():
    ordered = np.array([[0.5, 1.0, NAN, 0.0], [1.0, 1.0, 0.5, NAN], [NAN, 0.5, NAN, NAN]])
    values, tied = consensus(ordered, ordered=True)
    assert values[:2].tolist() == [0.75, pytest.approx(2.5 / 3)]
    assert math.isnan(values[2])
    assert math.isnan(values[3])  # a single rating is no consensus
    assert not tied.any()
    labels = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 0.0], [1.0, NAN, NAN]])
    values, tied = consensus(labels, ordered=False)
    assert values[0] == 1.0
    assert values[2] == 0.0
    assert math.isnan(values[1])
    assert tied.tolist() == [False, True, False]  # 1 vs 1: a tie


def test_spread_beyond_tolerance():
    matrix = np.array([[0.5, 0.5, 1.0, 0.75], [0.5, 0.65, 0.0, NAN]])
    assert spread_exceeds(Scale(kind="quarter"), matrix, AgreementSettings()).tolist() == [False, False, True, False]


def _three_expert_lead_db(tmp_path: Path, rubrics) -> Path:
    """Three experts rate six exercises on their own laptops; the lead merges them and adds the judge."""
    eq = rubrics["exercise-quality"]
    items = [exercise_item(n) for n in range(1, 7)]
    sheets = {
        "ann": [(1, 1, 1), (0.5, 1, 1), (0, 0.5, 1), (1, 0.5, 0.5), (0.5, 0.5, 0), (1, 1, 0.5)],
        "bob": [(1, 1, 1), (0.5, 0.5, 1), (0, 0.5, 1), (1, 1, 0.5), (0.5, 0, 0), (1, 1, 0.5)],
        "cat": [(1, 0.5, 1), (0.5, 1, 1), (0.5, 0.5, 1), (1, 0.5, 0.5), (0.5, 0.5, 0), (0.5, 1, 0.5)],
    }
    paths = []
    for rater, rows in sheets.items():
        scores = {f"E{n:02d}": dict(zip(DIMS, row, strict=True)) for n, row in enumerate(rows, start=1)}
        paths.append(expert_db(tmp_path / rater / "judge-tui.db", eq, items, rater, scores, notes=f"{rater} [b]x"))
    lead = tmp_path / "lead" / "judge-tui.db"
    with Store(lead) as store:
        for path in paths:
            assert merge_database(store, path).problems == 0
        judge = [(1, 1, 1), (1, 1, 1), (0, 1, 1), (1, 0.5, 0.5), (0.5, 0.5, 0), (1, 1, 1)]
        rate(store, eq, "judge:m:exercise-quality@p1", "judge",
             {f"E{n:02d}": dict(zip(DIMS, row, strict=True)) for n, row in enumerate(judge, start=1)})
    return lead


def test_team_figures_for_three_merged_experts(tmp_path: Path, rubrics):
    lead = _three_expert_lead_db(tmp_path, rubrics)
    with Store(lead) as store:
        view = load_team(store, rubrics["exercise-quality"])
        assert view.experts == ("ann", "bob", "cat")
        assert view.judge == "judge:m:exercise-quality@p1"
        result = team_agreement(view)
    diff = result.dimensions[0]  # difficulty_match
    assert diff.alpha_level == "ordinal"
    # Reference value from the krippendorff package on the same matrix.
    import krippendorff

    matrix = [[1, 0.5, 0, 1, 0.5, 1], [1, 0.5, 0, 1, 0.5, 1], [1, 0.5, 0.5, 1, 0.5, 0.5]]
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal",
                                  value_domain=[0, 0.5, 1])
    assert diff.alpha == pytest.approx(expected)
    assert diff.kappa[0][1] == pytest.approx(1.0)  # ann and bob agree on every difficulty score
    # ann vs judge on difficulty: differs only on E02 (0.5 vs 1) -> 5/6 within 0.15.
    assert diff.experts_vs_judge["ann"].alignment_rate == pytest.approx(5 / 6)
    # Consensus (mean) difficulty: 1, .5, 1/6, 1, .5, 5/6 vs judge 1, 1, 0, 1, .5, 1: E02 off, E03 off (1/6 > .15),
    # E06 off (1/6) -> 3/6.
    assert diff.consensus_vs_judge.alignment_rate == pytest.approx(0.5)
    assert diff.consensus_items == 6
    assert diff.ties == 0
    # Pooled over the three dimensions, ann: difficulty 5/6, clarity (1,1,.5,.5,.5,1 vs 1,1,1,.5,.5,1) 5/6,
    # alignment (1,1,1,.5,0,.5 vs 1,1,1,.5,0,1) 5/6 -> 15/18.
    assert result.pooled_vs_judge["ann"] == pytest.approx(15 / 18)


def test_team_section_renders_in_every_format_without_markup(tmp_path: Path, rubrics):
    lead = _three_expert_lead_db(tmp_path, rubrics)
    with Store(lead) as store:
        full = build_full_report(store, rubrics["exercise-quality"])  # the report's section, as `report` draws it
    assert json.loads(render_full(full, "json"))["team"]["experts"] == ["ann", "bob", "cat"]
    text = render_full(full, "text", width=10_000)
    assert "3 experts (ann, bob, cat) on 6 items" in text
    assert "consensus" in text
    assert "83.3%" in text  # ann's difficulty alignment
    markdown = render_full(full, "markdown")
    assert "## Team: agreement among experts" in markdown
    assert "difficulty_match, against the judge" in markdown
    assert "| ann | 6 |" in markdown


def test_no_team_section_with_one_expert(tmp_path: Path, rubrics):
    path = expert_db(tmp_path / "one.db", rubrics["binary"], [binary_item(1)], "ann", {"P01": {"label": 1.0}})
    with Store(path) as store:
        assert team_figures(store, rubrics["binary"]) is None


def test_adjudicated_consensus_replaces_the_computed_one_and_is_not_an_expert(tmp_path: Path, rubrics):
    binary = rubrics["binary"]
    with Store(tmp_path / "t.db") as store:
        store.add_items([binary_item(n) for n in range(1, 5)])
        rate(store, binary, "ann", "human", {"P01": {"label": 1}, "P02": {"label": 1}, "P03": {"label": 0},
                                             "P04": {"label": 1}})
        rate(store, binary, "bob", "human", {"P01": {"label": 1}, "P02": {"label": 0}, "P03": {"label": 0},
                                             "P04": {"label": 0}})
        rate(store, binary, "judge:x", "judge", {f"P0{n}": {"label": 1} for n in range(1, 5)})
        view = load_team(store, binary)
        assert [d.item_id for d in expert_disagreements(view, AgreementSettings())] == ["P02", "P04"]
        before = team_agreement(view).dimensions[0]
        assert before.ties == 2
        assert before.consensus_items == 2
        rate(store, binary, "consensus", "human", {"P02": {"label": 1}})
        view = load_team(store, binary)
        assert view.experts == ("ann", "bob")
        after = team_agreement(view).dimensions[0]
        assert after.ties == 1
        assert after.consensus_items == 3
        assert after.adjudicated_items == 1
        assert after.alpha_level == "nominal"
        assert after.consensus_vs_judge.alignment_rate == pytest.approx(2 / 3)  # P01 yes, P02 yes, P03 no
        assert [d.adjudicated for d in expert_disagreements(view, AgreementSettings())] == [True, False]
        # alpha is computed from the two experts only
        expected = ag.krippendorff_alpha(np.array([[1, 1, 0, 1], [1, 0, 0, 0]], dtype=float), "nominal", (0, 1))
        assert after.alpha == pytest.approx(expected)


@pytest.mark.parametrize("ordered", [True, False])
def test_consensus_over_all_items_at_once_matches_item_by_item(ordered):
    rng = np.random.default_rng(3)
    matrix = rng.choice([0.0, 0.5, 1.0] if ordered else [0.0, 1.0], size=(4, 300))
    matrix[rng.random(matrix.shape) < 0.3] = np.nan
    values, tied = consensus(matrix, ordered)
    for j in range(matrix.shape[1]):
        column = matrix[:, j][~np.isnan(matrix[:, j])]
        if column.size < 2:
            assert np.isnan(values[j])
            assert not tied[j]
        elif ordered:
            assert values[j] == column.mean()
            assert not tied[j]
        else:
            labels, counts = np.unique(column, return_counts=True)
            top = labels[counts == counts.max()]
            assert tied[j] == (top.size > 1)
            assert np.isnan(values[j]) if top.size > 1 else values[j] == top[0]
