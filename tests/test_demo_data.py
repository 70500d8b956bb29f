"""Checks on the bundled demo datasets in data/.

Only json, re, xml and pytest are used, so these checks hold whatever state the application code is in.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent.parent / "data"
CIS_BUILD = DATA / "build" / "cis"

CIS_TASK_TYPES = {"Email Validator", "Rate Limiter", "LRU Cache", "Fibonacci"}
CIS_FIELDS = {"id", "task_type", "task", "rationale", "source_code", "test_code", "test_results"}
EXERCISE_FIELDS = {"id", "source_document", "instruction", "cefr_level", "focus", "exercise"}
REASONING_FIELDS = {"id", "question", "response"}
BINARY_FIELDS = {"id", "query", "criterion", "response"}

# The review template's twelve cases, in order.
EXERCISE_CASES = [
    ("A2", "Common vocabulary"),
    ("A2", "Time expressions"),
    ("A2", "Multiple blanks (3+)"),
    ("B1", "Scientific vocabulary"),
    ("B1", "Collocations/word pairs"),
    ("B1", "Verb forms/tenses"),
    ("B2", "Conditional structures"),
    ("B2", "Modal verbs"),
    ("B2", "Discourse markers"),
    ("C1", "Academic vocabulary"),
    ("C1", "Figurative language"),
    ("C1", "Mixed difficulty"),
]
# Documented in data/README.md: which exercises the structural check must fail, and how.
EXPECTED_STRUCTURE = {"E04": 0.0, "E07": 0.5, "E11": 0.5}

QUARTERS = {0.0, 0.25, 0.5, 0.75, 1.0}
HALVES = {0.0, 0.5, 1.0}

# (dataset, item file, dimensions, allowed values)
RATED = [
    ("cis", "cis.jsonl", ("r", "a", "t", "l"), QUARTERS),
    (
        "exercise-quality",
        "exercise-quality.jsonl",
        ("difficulty_match", "instruction_clarity", "learning_objective_alignment"),
        HALVES,
    ),
    (
        "reasoning-trace",
        "reasoning-trace.jsonl",
        ("completeness", "accuracy", "reasoning_validity", "answer_correctness", "clarity"),
        QUARTERS,
    ),
]

# C0 and C1 control characters other than tab and newline.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def read_jsonl(name: str) -> list[dict]:
    path = DATA / name
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        assert line.strip(), f"{name}:{number} is blank"
        row = json.loads(line)
        assert isinstance(row, dict), f"{name}:{number} is not a JSON object"
        rows.append(row)
    return rows


def by_id(rows: list[dict], key: str = "id") -> dict[str, dict]:
    ids = [row[key] for row in rows]
    assert len(ids) == len(set(ids)), f"duplicate ids: {sorted(i for i in ids if ids.count(i) > 1)}"
    return {row[key]: row for row in rows}


def structural_score(exercise_xml: str) -> float:
    """Fill-blank structure as the exercise-quality rubric defines it: 0.0, 0.5 or 1.0."""
    if "<exercise" not in exercise_xml or "</exercise>" not in exercise_xml:
        return 0.0
    blanks = re.findall(r"<blank\b[^>]*>", exercise_xml)
    # `student-answer=""` contains `answer=` too, so the answer attribute must stand on its own.
    complete = [tag for tag in blanks if re.search(r'(?<![\w-])answer="', tag) and 'student-answer=""' in tag]
    return 1.0 if blanks and len(complete) == len(blanks) else 0.5


def all_strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from all_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from all_strings(item)


# --- every file ----------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(DATA.glob("*.jsonl")), ids=lambda p: p.name)
def test_every_file_parses_and_has_no_control_characters(path):
    rows = read_jsonl(path.name)
    assert rows
    for row in rows:
        for text in all_strings(row):
            assert not CONTROL.search(text), f"{path.name}: control character in {text[:60]!r}"


# --- CIS ---------------------------------------------------------------------


def test_cis_items_have_exact_ids_fields_and_task_types():
    items = by_id(read_jsonl("cis.jsonl"))
    assert list(items) == [f"B{n:03d}" for n in range(1, 26)]
    for item in items.values():
        assert set(item) == CIS_FIELDS, item["id"]
        assert item["task_type"] in CIS_TASK_TYPES
        assert all(isinstance(item[key], str) and item[key].strip() for key in CIS_FIELDS)
    counts = {t: sum(i["task_type"] == t for i in items.values()) for t in CIS_TASK_TYPES}
    assert all(6 <= n <= 7 for n in counts.values()), counts


def test_cis_task_statements_name_their_constraints():
    items = read_jsonl("cis.jsonl")
    required = {
        "Email Validator": ("regular expressions only", "socket", "dns", "urllib"),
        "Rate Limiter": ("at most N requests", "time module", "no global state"),
        "LRU Cache": ("fixed capacity", "least-recently-used", "no file I/O", "network"),
        "Fibonacci": ("recursive", "no global variables", "negative"),
    }
    for item in items:
        for phrase in required[item["task_type"]]:
            assert phrase in item["task"], (item["id"], phrase)


def test_cis_items_match_their_build_sources():
    for item in read_jsonl("cis.jsonl"):
        folder = CIS_BUILD / item["id"]
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        assert item["task_type"] == meta["task_type"]
        assert item["rationale"] == meta["rationale"]
        assert item["source_code"] == (folder / "source.py").read_text(encoding="utf-8")
        assert item["test_code"] == (folder / "test_source.py").read_text(encoding="utf-8")


def test_cis_test_results_agree_with_the_expected_outcome():
    outcomes = {"pass": 0, "fail": 0}
    for item in read_jsonl("cis.jsonl"):
        meta = json.loads((CIS_BUILD / item["id"] / "meta.json").read_text(encoding="utf-8"))
        results = item["test_results"]
        assert results.startswith("$ python "), item["id"]
        status = re.search(r"\(exit status (\d+)\)\Z", results)
        assert status, f"{item['id']}: test_results lacks its exit status line"
        passed = status.group(1) == "0"
        assert passed == (meta["expect"] == "pass"), item["id"]
        if "pytest" in results.splitlines()[0]:
            assert ("failed" in results) != passed, item["id"]
        assert not re.search(r" in \d+\.\d+s", results), f"{item['id']}: timing left in output"
        assert "/tmp/" not in results, f"{item['id']}: scratch path left in output"
        assert "cis-" not in results, f"{item['id']}: scratch path left in output"
        outcomes[meta["expect"]] += 1
    assert outcomes["pass"] >= 5, outcomes
    assert outcomes["fail"] >= 5, outcomes


def test_cis_quality_and_length_vary():
    metas = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(CIS_BUILD.glob("B*/meta.json"))]
    qualities = [m["quality"] for m in metas]
    for band in ("high", "medium", "low"):
        assert 6 <= qualities.count(band) <= 11, (band, qualities.count(band))
    lengths = [
        len(p.read_text(encoding="utf-8").splitlines()) for p in sorted(CIS_BUILD.glob("B*/source.py"))
    ]
    assert max(lengths) >= 300
    assert sum(20 <= n <= 80 for n in lengths) > len(lengths) / 2


@pytest.mark.slow
def test_cis_jsonl_is_what_the_build_script_produces():
    script = DATA / "build" / "make_cis_results.py"
    done = subprocess.run(
        [sys.executable, str(script), "--check"], check=False, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr


# --- exercise quality ------------------------------------------------------------


def test_exercises_follow_the_review_template():
    items = by_id(read_jsonl("exercise-quality.jsonl"))
    assert list(items) == [f"E{n:02d}" for n in range(1, 13)]
    for (level, focus), item in zip(EXERCISE_CASES, items.values(), strict=True):
        assert set(item) == EXERCISE_FIELDS, item["id"]
        assert (item["cefr_level"], item["focus"]) == (level, focus), item["id"]
        assert item["instruction"].strip()


def test_exercise_sources_and_exercises_are_well_formed_xml():
    for item in read_jsonl("exercise-quality.jsonl"):
        assert ET.fromstring(item["source_document"]).tag == "document", item["id"]
        root = ET.fromstring(item["exercise"])
        assert root.find(".//blank") is not None, item["id"]
        assert root.find("instructions") is not None, item["id"]


def test_exercise_structural_cases_are_the_documented_ones():
    scores = {item["id"]: structural_score(item["exercise"]) for item in read_jsonl("exercise-quality.jsonl")}
    assert {i: s for i, s in scores.items() if s != 1.0} == EXPECTED_STRUCTURE
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    for item_id in EXPECTED_STRUCTURE:
        assert item_id in readme


def test_structural_score_does_not_mistake_student_answer_for_answer():
    assert structural_score('<exercise><blank solution="x" student-answer=""/></exercise>') == 0.5
    assert structural_score('<exercise><blank answer="x"/></exercise>') == 0.5
    assert structural_score('<exercise><blank answer="x" student-answer=""/></exercise>') == 1.0
    assert structural_score('<activity><blank answer="x" student-answer=""/></activity>') == 0.0


# --- reasoning traces and binary items ---------------------------------------------


def test_reasoning_traces():
    items = by_id(read_jsonl("reasoning-trace.jsonl"))
    assert list(items) == [f"R{n:02d}" for n in range(1, 13)]
    for item in items.values():
        assert REASONING_FIELDS <= set(item) <= REASONING_FIELDS | {"reference_answer"}, item["id"]
        assert all(isinstance(v, str) and v.strip() for v in item.values())


def test_binary_items_and_labels():
    items = by_id(read_jsonl("binary.jsonl"))
    assert list(items) == [f"P{n:02d}" for n in range(1, 21)]
    for item in items.values():
        assert set(item) == BINARY_FIELDS, item["id"]
        assert all(isinstance(v, str) and v.strip() for v in item.values())
    labels = by_id(read_jsonl("binary.labels.jsonl"), key="item_id")
    assert set(labels) == set(items)
    for row in labels.values():
        assert set(row) == {"item_id", "scores", "notes", "seconds"}
        assert set(row["scores"]) == {"label"}
        assert row["scores"]["label"] in {"PASS", "FAIL"}
        assert isinstance(row["seconds"], int)
        assert row["seconds"] > 0
    passes = sum(row["scores"]["label"] == "PASS" for row in labels.values())
    assert 0.5 <= passes / len(labels) <= 0.7


# --- demo ratings ---------------------------------------------------------------


@pytest.mark.parametrize("dataset, item_file, dims, allowed", RATED, ids=[r[0] for r in RATED])
@pytest.mark.parametrize("rater", ["expert-demo", "judge-demo"])
def test_demo_ratings_cover_every_item_on_the_right_scale(dataset, item_file, dims, allowed, rater):
    item_ids = [item["id"] for item in read_jsonl(item_file)]
    ratings = by_id(read_jsonl(f"{dataset}.{rater}.ratings.jsonl"), key="item_id")
    assert list(ratings) == item_ids
    for row in ratings.values():
        assert set(row) == {"item_id", "scores", "notes", "seconds"}, row["item_id"]
        assert tuple(row["scores"]) == dims, row["item_id"]
        assert all(value in allowed for value in row["scores"].values()), row
        assert isinstance(row["notes"], str)
        assert row["notes"].strip()
        assert isinstance(row["seconds"], int)
        assert row["seconds"] > 0


def _paired(dataset: str, dim: str) -> list[tuple[float, float]]:
    expert = by_id(read_jsonl(f"{dataset}.expert-demo.ratings.jsonl"), key="item_id")
    judge = by_id(read_jsonl(f"{dataset}.judge-demo.ratings.jsonl"), key="item_id")
    return [(expert[i]["scores"][dim], judge[i]["scores"][dim]) for i in expert]


def test_cis_demo_judge_is_close_to_the_expert_and_lenient_on_testing():
    expert = read_jsonl("cis.expert-demo.ratings.jsonl")
    assert all(180 <= row["seconds"] <= 600 for row in expert)
    pairs = [pair for dim in "ratl" for pair in _paired("cis", dim)]
    close = sum(abs(e - j) <= 0.25 for e, j in pairs)
    assert close / len(pairs) >= 0.85
    assert any(abs(e - j) > 0.25 for e, j in pairs), "the demo should show a few real disagreements"
    testing = _paired("cis", "t")
    assert sum(j for _, j in testing) > sum(e for e, _ in testing)


def test_exercise_demo_judge_is_lenient_on_instruction_clarity():
    clarity = _paired("exercise-quality", "instruction_clarity")
    assert sum(j >= e for e, j in clarity) == len(clarity)
    assert sum(j > e for e, j in clarity) >= 3
