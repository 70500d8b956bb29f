"""A scale of whole numbers (kind = "integers"): declared in a rubric file, read and written as its numbers,
stored as places between 0 and 1, answered by a judge as whole numbers, and scored by the alternative annotator
test on its numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge_tui.judge.schema import JudgmentError, OutputFormat
from judge_tui.model.rubrics import RubricError, Scale, ScoreError, load_rubric
from judge_tui.transfer.exporting import score_value

RUBRIC = '''id = "lesion"
name = "Lesion features"
version = "1"
description = "How strongly a feature shows, from 0 (not at all) to 6."
overall = "label"

[scale]
kind = "integers"
{scale}

[[fields]]
name = "image"
label = "Image"

[[dimensions]]
id = "asymmetry"
name = "Asymmetry"
measures = "How asymmetric the lesion is."
'''


def write(tmp_path: Path, scale: str = "lowest = 0\nhighest = 6") -> Path:
    path = tmp_path / "lesion.rubric.toml"
    path.write_text(RUBRIC.format(scale=scale))
    return path


def test_a_scale_of_whole_numbers_reads_and_writes_its_numbers(tmp_path: Path) -> None:
    rubric = load_rubric(write(tmp_path))
    scale = rubric.scale
    assert scale.labels == ("0", "1", "2", "3", "4", "5", "6")
    assert scale.ordered
    assert not scale.named
    assert rubric.parse_scores({"asymmetry": 3}) == {"asymmetry": 0.5}
    assert rubric.parse_scores({"asymmetry": "6"}) == {"asymmetry": 1.0}
    assert rubric.parse_scores({"asymmetry": 2.5}, continuous=True) == {"asymmetry": pytest.approx(2.5 / 6)}
    assert score_value(rubric, 0.5) == 3
    assert isinstance(score_value(rubric, 0.5), int)
    assert scale.value(scale.parse(4)) == 4.0
    assert scale.label(scale.parse_continuous(2.5)) == "2.50"


@pytest.mark.parametrize(("raw", "problem"), [(7, "outside the scale 0 to 6"), (2.5, "allowed values are 0, 1"),
                                              (-1, "outside the scale 0 to 6"), ("PASS", "PASS/FAIL label")])
def test_a_number_off_the_scale_is_refused(tmp_path: Path, raw: object, problem: str) -> None:
    rubric = load_rubric(write(tmp_path))
    with pytest.raises(ScoreError, match=problem):
        rubric.parse_scores({"asymmetry": raw})


def test_a_stored_place_is_not_read_as_a_number(tmp_path: Path) -> None:
    """0.5 is the number 0.5 in a file (off a scale of whole numbers), but the place of 3 when stored."""
    scale = load_rubric(write(tmp_path)).scale
    assert scale.stored_point(0.5) == 0.5
    assert scale.label(scale.stored_point(0.5)) == "3"
    with pytest.raises(ScoreError):
        scale.parse(0.5)
    with pytest.raises(ScoreError):
        scale.stored_point(0.55)


@pytest.mark.parametrize(("scale", "problem"), [
    ("lowest = 1", "declares lowest and highest"),
    ("lowest = 5\nhighest = 5", "to a larger highest"),
    ("lowest = 0\nhighest = 100", "both 0 to 99"),
    ("lowest = -3\nhighest = 3", "both 0 to 99"),
    ('lowest = 0\nhighest = 6\norder = "ordered"', "belong to kind = \"categories\""),
])
def test_a_badly_declared_scale_names_its_problem(tmp_path: Path, scale: str, problem: str) -> None:
    with pytest.raises(RubricError, match=problem):
        load_rubric(write(tmp_path, scale))


def test_other_scales_take_no_numbers() -> None:
    with pytest.raises(ValueError, match="belong to kind = \"integers\""):
        Scale(kind="quarter", lowest=1, highest=5)


def test_a_judge_answers_with_the_whole_numbers(tmp_path: Path) -> None:
    output = OutputFormat(load_rubric(write(tmp_path)), "flat", "{id}")
    assert output.json_schema()["properties"]["asymmetry"] == {"type": "integer", "enum": [0, 1, 2, 3, 4, 5, 6]}
    assert output.example() == {"asymmetry": 0, "confidence": 0.0}
    assert output.parse(json.dumps({"asymmetry": 4})).scores == {"asymmetry": pytest.approx(4 / 6)}
    assert json.loads(output.render({"asymmetry": 0.5}, {})) == {"asymmetry": 3}
    for wrong in (7, 3.5, "3"):
        with pytest.raises(JudgmentError):
            output.parse(json.dumps({"asymmetry": wrong}))


def test_the_alt_test_scores_whole_numbers_by_rmse_on_their_numbers_and_categories_by_match() -> None:
    from judge_tui.analysis.validity import alt_test_scoring

    assert alt_test_scoring(Scale(kind="integers", lowest=1, highest=5)) == "neg_rmse"
    assert alt_test_scoring(Scale(kind="quarter")) == "neg_rmse"
    assert alt_test_scoring(Scale(kind="categories", order="ordered", categories=list("12345"))) == "accuracy"
    assert alt_test_scoring(Scale(kind="pass_fail")) == "accuracy"


def test_the_item_report_and_an_export_give_the_numbers(tmp_path: Path) -> None:
    """Through the CLI: ratings read as numbers come back out of `report --items` and `export` as the same numbers,
    the gap in them too."""
    from judge_tui.cli import main

    rubric, db = write(tmp_path), tmp_path / "lesion.db"
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps({"id": i, "image": f"lesion {i}"}) + "\n" for i in ("L1", "L2")))
    assert main(["import", str(items), "--rubric", str(rubric), "--db", str(db)]) in (0, None)
    for rater, kind, values in (("ann", "human", (4, 6)), ("judge:m", "judge", (3, 6))):
        path = tmp_path / f"{kind}.jsonl"
        path.write_text("".join(json.dumps({"item_id": i, "asymmetry": v}) + "\n"
                                for i, v in zip(("L1", "L2"), values, strict=True)))
        assert main(["import-ratings", str(path), "--rater", rater, "--kind", kind, "--db", str(db)]) in (0, None)
    out = tmp_path / "items_out.jsonl"
    assert main(["report", "--items", "--db", str(db), "--raters", "ann,judge:m", "--format", "jsonl",
                 "-o", str(out)]) in (0, None)
    rows = {r["item_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert (rows["L1"]["asymmetry_human"], rows["L1"]["asymmetry_judge"], rows["L1"]["asymmetry_gap"]) == (4, 3, -1)
    assert (rows["L2"]["asymmetry_human"], rows["L2"]["asymmetry_gap"]) == (6, 0)
    exported = tmp_path / "export.jsonl"
    assert main(["export", "--db", str(db), "--rubric", "lesion", "--format", "jsonl", "-o", str(exported)]) in (0, None)
    written = [json.loads(line) for line in exported.read_text().splitlines()]
    assert sorted(r["scores"]["asymmetry"] for r in written if r["rater"] == "ann") == [4, 6]
