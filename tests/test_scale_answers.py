"""What each kind of scale answers, asked of the scale rather than of its kind (model/rubrics.py: Scale)."""

from __future__ import annotations

import typing

import pytest

from judge_tui.analysis.jury import majority, median_score, rule_for
from judge_tui.model.rubrics import GRIDS, Scale
from judge_tui.tui.keys import point_codes

QUARTER = Scale(kind="quarter")
THREE = Scale(kind="three_point")
PASS_FAIL = Scale(kind="pass_fail")
ORDERED = Scale(kind="categories", categories=["low", "mid", "high"], order="ordered")
NOMINAL = Scale(kind="categories", categories=["A", "B"], order="nominal")
WHOLE = Scale(kind="integers", lowest=1, highest=4)
EVERY = [QUARTER, THREE, PASS_FAIL, ORDERED, NOMINAL, WHOLE]


def test_the_jury_takes_the_median_on_an_ordered_scale_and_the_majority_on_a_nominal_one() -> None:
    assert [scale.jury_rule for scale in EVERY] == ["median", "median", "majority", "median", "majority", "median"]
    assert rule_for(PASS_FAIL) is majority
    assert rule_for(WHOLE) is median_score


def test_the_judge_writes_each_scale_in_its_own_type() -> None:
    assert [scale.answer_type for scale in EVERY] == ["number", "number", "string", "string", "string", "integer"]
    assert QUARTER.answers == (0.0, 0.25, 0.5, 0.75, 1.0)
    assert PASS_FAIL.answers == ("FAIL", "PASS")
    assert ORDERED.answers == ("low", "mid", "high")
    assert WHOLE.answers == (1, 2, 3, 4)
    assert [scale.example_answer for scale in EVERY] == [0.0, 0.0, "PASS", "low", "A", 1]
    assert WHOLE.answer_of(2 / 3) == 3
    assert ORDERED.answer_of(0.5) == "mid"
    assert THREE.answer_of(0.5) == 0.5
    assert [scale.answer_wording for scale in EVERY] == [
        "a number", "a number", "a string", "a string, written exactly so", "a string, written exactly so",
        "a whole number"]


def test_every_answer_reads_back_as_its_point() -> None:
    for scale in EVERY:
        assert tuple(scale.parse(answer) for answer in scale.answers) == scale.points


def test_files_write_names_and_whole_numbers_as_themselves() -> None:
    assert PASS_FAIL.written(1.0) == "PASS"
    assert NOMINAL.written(0.0) == "A"
    assert WHOLE.written(1 / 3) == 2
    assert WHOLE.written(0.5) == 2.5
    assert QUARTER.written(0.25) == 0.25
    assert ORDERED.written(0.4) == 0.4  # off the scale: the number, not a name it is not


@pytest.mark.parametrize(("scale", "numbers"), [
    (QUARTER, (0, 1, 2, 3, 4)), (THREE, (0, 1, 2)), (PASS_FAIL, ()), (ORDERED, (1, 2, 3)), (WHOLE, (1, 2, 3, 4)),
    (Scale(kind="integers", lowest=0, highest=10), tuple(range(11))),
])
def test_each_point_is_typed_with_a_number_of_its_scale(scale: Scale, numbers: tuple[int, ...]) -> None:
    assert scale.key_numbers == numbers
    assert list(point_codes(scale).values()) == (list(scale.points) if numbers else [])


def test_only_declared_scales_have_a_key_per_point_and_only_pass_fail_gives_verdicts() -> None:
    assert [scale.declared for scale in EVERY] == [False, False, False, True, True, True]
    assert [scale.binary for scale in EVERY] == [False, False, True, False, False, False]


def test_the_screens_name_each_scale_s_points_as_the_scale_says() -> None:
    assert [scale.numbered for scale in EVERY] == [False, False, False, False, False, True]
    assert [scale.point_name for scale in EVERY] == ["point", "point", "verdict", "category", "category", "number"]
    assert [scale.points_name for scale in EVERY] == [
        "points", "points", "verdicts", "categories", "categories", "whole numbers"]
    assert [scale.called for scale in EVERY] == [
        "quarter scale", "three-point scale", "PASS/FAIL scale", "scale of categories", "scale of categories",
        "scale of whole numbers"]


def test_every_scale_a_rubric_only_names_is_a_grid_the_screens_list() -> None:
    """A kind whose points the rubric does not declare shares the keys 0 up, so help lists what each key gives on it
    (GRIDS); PASS/FAIL is typed by its letters."""
    named_only = []
    for kind in typing.get_args(typing.get_type_hints(Scale)["kind"]):
        try:
            named_only.append(Scale(kind=kind))
        except ValueError:  # a kind whose points the rubric declares (categories, whole numbers)
            continue
    assert [scale for scale in named_only if not scale.binary] == list(GRIDS)
    assert all(not grid.declared for grid in GRIDS)
    assert [grid.key_numbers for grid in GRIDS] == [(0, 1, 2, 3, 4), (0, 1, 2)]
