"""A scale of named categories: declared in a rubric file, read by name only, stored as numbers in [0, 1]."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_tui.judge.schema import JudgmentError, OutputFormat
from judge_tui.model.rubrics import RubricError, Scale, ScoreError, load_rubric

RUBRIC = """
id = "tone"
name = "Tone"
version = "1"
description = "The tone of a reply."
overall = "label"

[scale]
kind = "categories"
order = "{order}"
categories = {categories}

[[fields]]
name = "reply"
label = "Reply"

[[dimensions]]
id = "tone"
name = "Tone"
measures = "The reply's tone."
"""


def write(tmp_path: Path, order: str = "nominal", categories: str = '["warm", "neutral", "curt"]') -> Path:
    path = tmp_path / "tone.rubric.toml"
    path.write_text(RUBRIC.format(order=order, categories=categories), encoding="utf-8")
    return path


def test_categories_are_stored_as_positions_and_shown_by_name(tmp_path: Path) -> None:
    rubric = load_rubric(write(tmp_path))
    scale = rubric.scale
    assert scale.points == (0.0, 0.5, 1.0)
    assert scale.labels == ("warm", "neutral", "curt")
    assert not scale.ordered
    assert scale.named
    assert rubric.parse_scores({"tone": "neutral"}) == {"tone": 0.5}
    assert rubric.verdict({"tone": 1.0}) == "curt"
    assert load_rubric(write(tmp_path, order="ordered")).scale.ordered


@pytest.mark.parametrize("raw", ["Warm", "warmish", "", 2, 0.25, True, None, "1"])
def test_anything_but_a_category_name_or_its_stored_position_is_refused(tmp_path: Path, raw: object) -> None:
    rubric = load_rubric(write(tmp_path))
    with pytest.raises(ScoreError, match="not one of the categories warm, neutral, curt"):
        rubric.parse_scores({"tone": raw})
    with pytest.raises(ScoreError):
        rubric.parse_scores({"tone": raw}, continuous=True)  # a judge names a category as an expert does


def test_a_stored_position_reads_back_as_its_category(tmp_path: Path) -> None:
    """Another database's rows carry the stored number; it must be a category's position exactly."""
    rubric = load_rubric(write(tmp_path))
    assert rubric.parse_scores({"tone": 1.0}) == {"tone": 1.0}
    assert rubric.parse_scores({"tone": 0}) == {"tone": 0.0}


@pytest.mark.parametrize(("order", "categories", "problem"), [
    ("", '["a", "b"]', "order"),
    ("nominal", '["only"]', "2 to 99 categories"),
    ("nominal", str([f"c{n}" for n in range(100)]).replace("'", '"'), "2 to 99 categories"),
    ("nominal", '["a", "a"]', "unique"),
    ("nominal", '["a", " b"]', "without spaces around it"),
    ("sideways", '["a", "b"]', "order"),
])
def test_a_badly_declared_scale_names_its_problem(tmp_path: Path, order: str, categories: str,
                                                  problem: str) -> None:
    path = write(tmp_path, order=order, categories=categories)
    if not order:
        path.write_text(path.read_text().replace('order = ""\n', ""))
    with pytest.raises(RubricError, match=problem):
        load_rubric(path)


def test_categories_belong_to_their_kind_only() -> None:
    with pytest.raises(ValueError, match="belong to kind"):
        Scale(kind="quarter", categories=["a", "b"])


# Each built-in rubric's content hash before scales could hold categories (the versions databases recorded).
HASHES_BEFORE_CATEGORIES = {"binary": "8827d351f1d8e9a2", "cis": "4f7132b077c83619",
                            "reasoning-trace": "06ee58e609058614", "exercise-quality": "812a803f2539141a"}


def test_existing_rubrics_keep_their_whole_definitions_hash(rubrics) -> None:
    """The new scale fields must not give every existing database's rubric a new version (the whole definition's
    hash, which a database recorded; the migration m017 gives its version the hash without the judge's settings)."""
    assert {r: rubrics[r].judge_hash for r in HASHES_BEFORE_CATEGORIES} == HASHES_BEFORE_CATEGORIES


def test_the_pairwise_rubric_ships(rubrics) -> None:
    rubric = rubrics["pairwise"]
    assert rubric.scale.labels == ("A", "B", "tie")
    assert not rubric.scale.ordered
    assert [f.name for f in rubric.fields] == ["prompt", "response_a", "response_b"]


def test_the_judge_schema_accepts_exactly_the_category_names(rubrics) -> None:
    output = OutputFormat(rubrics["pairwise"], "flat")
    schema = output.json_schema()
    assert schema["properties"]["preference"] == {"type": "string", "enum": ["A", "B", "tie"]}
    judgment = output.parse('{"preference": "tie", "reasoning": "both right"}')
    assert judgment.scores == {"preference": 1.0}
    for answer in ('{"preference": "a", "reasoning": ""}', '{"preference": "Tie", "reasoning": ""}',
                   '{"preference": 0.5, "reasoning": ""}', '{"preference": "A ", "reasoning": ""}'):
        with pytest.raises(JudgmentError) as failed:
            output.parse(answer)
        assert failed.value.kind == "schema_mismatch"
    assert output.example()["preference"] == "A"
    assert '"preference": "B"' in output.render({"preference": 0.5}, {"reasoning": "x"})
