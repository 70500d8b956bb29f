"""The judge's answers are parsed strictly: anything but the exact shape with on-scale scores fails."""

from __future__ import annotations

import dataclasses
import json

import pytest

from judge_tui.judge.schema import JudgmentError, OutputFormat
from judge_tui.model.rubrics import Rubric


@pytest.fixture
def cis(rubrics: dict[str, Rubric]) -> OutputFormat:
    return OutputFormat(rubrics["cis"], "flat", "{id}_score")


GOOD_CIS = {"r_score": 0.75, "a_score": 0.5, "t_score": 1, "l_score": 0.25, "reasoning": "tests miss capacity 1"}


def test_a_good_answer_parses_to_scale_values(cis: OutputFormat) -> None:
    judgment = cis.parse(json.dumps(GOOD_CIS))
    assert judgment.scores == {"r": 0.75, "a": 0.5, "t": 1.0, "l": 0.25}
    assert judgment.notes == "tests miss capacity 1"


@pytest.mark.parametrize(("raw", "kind"), [
    ("The code is good. r=0.75", "invalid_json"),
    ("```json\n" + json.dumps(GOOD_CIS) + "\n```", "invalid_json"),  # a fence is not repaired
    (json.dumps({**GOOD_CIS, "r_score": 0.7}), "off_scale"),
    (json.dumps({**GOOD_CIS, "l_score": 1.25}), "off_scale"),
    (json.dumps({**GOOD_CIS, "r_score": "0.75"}), "schema_mismatch"),  # a string is not a number
    (json.dumps({**GOOD_CIS, "r_score": True}), "schema_mismatch"),
    (json.dumps({k: v for k, v in GOOD_CIS.items() if k != "t_score"}), "schema_mismatch"),
    (json.dumps({**GOOD_CIS, "expert_cis": 0.6}), "schema_mismatch"),
    (json.dumps([GOOD_CIS]), "schema_mismatch"),
    ('{"r_score": NaN, "a_score": 0.5, "t_score": 1, "l_score": 0.25, "reasoning": ""}', "invalid_json"),
])
def test_anything_else_fails_with_its_reason(cis: OutputFormat, raw: str, kind: str) -> None:
    with pytest.raises(JudgmentError) as caught:
        cis.parse(raw)
    assert caught.value.kind == kind


def test_pass_fail_labels_are_exact(rubrics: dict[str, Rubric]) -> None:
    binary = OutputFormat(rubrics["binary"], "flat", "{id}")
    assert binary.parse('{"label": "FAIL", "critique": "honey"}').scores == {"label": 0.0}
    assert binary.parse('{"label": "PASS", "critique": "ok"}').scores == {"label": 1.0}
    with pytest.raises(JudgmentError):
        binary.parse('{"label": "pass", "critique": "ok"}')
    with pytest.raises(JudgmentError):
        binary.parse('{"label": 1, "critique": "ok"}')


def test_nested_layout_with_list_extras(rubrics: dict[str, Rubric]) -> None:
    trace = OutputFormat(rubrics["reasoning-trace"], "scores")
    answer = {"scores": {"completeness": 1, "accuracy": 0.75, "reasoning_validity": 1, "answer_correctness": 1,
                         "clarity": 0.5}, "reasoning": "r", "issues": ["step 3 skips a case"], "suggestions": []}
    judgment = trace.parse(json.dumps(answer))
    assert judgment.extras["issues"] == ["step 3 skips a case"]
    with pytest.raises(JudgmentError):
        trace.parse(json.dumps({**answer, "issues": "step 3"}))


def test_code_dimensions_are_not_asked_for(rubrics: dict[str, Rubric]) -> None:
    exercise = OutputFormat(rubrics["exercise-quality"], "scores")
    schema = exercise.json_schema()
    assert set(schema["properties"]["scores"]["required"]) == {
        "difficulty_match", "instruction_clarity", "learning_objective_alignment"}
    assert schema["properties"]["scores"]["properties"]["difficulty_match"]["enum"] == [0.0, 0.5, 1.0]


@pytest.mark.parametrize("rubric_id", ["cis", "reasoning-trace", "exercise-quality", "binary"])
def test_schema_is_closed_and_complete(rubrics: dict[str, Rubric], rubric_id: str) -> None:
    output = OutputFormat(rubrics[rubric_id])
    schema = output.json_schema()
    assert schema["additionalProperties"] is False
    assert schema["required"] == list(schema["properties"])
    # the example shape in the prompt has exactly the schema's keys, in order
    assert list(output.example()) == schema["required"]


def test_the_stated_confidence_is_the_last_key_and_checked_apart_from_the_scores(cis: OutputFormat) -> None:
    schema = cis.json_schema()
    assert schema["required"][-1] == "confidence"
    assert schema["properties"]["confidence"]["type"] == "number"
    assert cis.example()["confidence"] == 0.0
    judgment = cis.parse(json.dumps({**GOOD_CIS, "confidence": 0.85}))
    assert judgment.scores == {"r": 0.75, "a": 0.5, "t": 1.0, "l": 0.25}
    assert (judgment.confidence, judgment.confidence_note) == (0.85, "")
    assert cis.parse(json.dumps({**GOOD_CIS, "confidence": 1})).confidence == 1.0  # a whole number is a number


@pytest.mark.parametrize(("confidence", "note"), [
    (None, "the answer gives no confidence"),  # an answer from before it was asked for
    (1.7, "the confidence 1.7 is not between 0 and 1: left out"),
    (-0.1, "the confidence -0.1 is not between 0 and 1: left out"),
    (85, "the confidence 85 is not between 0 and 1: left out"),  # a percentage is not rescaled
    ("0.9", 'the confidence "0.9" is not a number: left out'),
    (True, "the confidence true is not a number: left out"),
    ("high" * 20, 'the confidence "' + "high" * 9 + "hi… is not a number: left out"),  # shortened
])
def test_a_missing_or_unusable_confidence_is_a_note_and_the_scores_still_count(
        cis: OutputFormat, confidence: object, note: str) -> None:
    answer = GOOD_CIS if confidence is None else {**GOOD_CIS, "confidence": confidence}
    judgment = cis.parse(json.dumps(answer))
    assert judgment.scores == {"r": 0.75, "a": 0.5, "t": 1.0, "l": 0.25}
    assert judgment.confidence is None
    assert judgment.confidence_note == note


def test_a_broken_answer_fails_whatever_its_confidence(cis: OutputFormat) -> None:
    with pytest.raises(JudgmentError) as caught:
        cis.parse(json.dumps({**GOOD_CIS, "r_score": 0.7, "confidence": 0.9}))
    assert caught.value.kind == "off_scale"
    with pytest.raises(JudgmentError) as caught:
        cis.parse(json.dumps({**GOOD_CIS, "confidence": 0.9, "certainty": 0.9}))
    assert caught.value.kind == "schema_mismatch"


def test_no_extra_may_take_the_confidences_name(rubrics: dict[str, Rubric]) -> None:
    rubric = dataclasses.replace(rubrics["binary"], judge_output_extras=["critique", "confidence"])
    with pytest.raises(ValueError, match="'confidence', the judge's stated confidence"):
        OutputFormat(rubric, "flat", "{id}")
