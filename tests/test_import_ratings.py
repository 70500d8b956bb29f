"""judge-tui import-ratings: rating forms, judge output, reasoning JSON, our JSONL and CSV."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judge_tui.store import Store
from judge_tui.transfer.importing import ImportFailed, import_items, import_ratings
from tests.formats_helpers import (
    FIXTURES,
    cis_item,
    exercise_item,
    line_of,
    run,
    table_counts,
    trace_item,
    write_jsonl,
)
from tests.narrowing import present


@pytest.fixture
def three_rubrics_db(tmp_path: Path) -> Path:
    """A database holding CIS submissions C001-C003, traces T001-T002 and exercises E1-E2."""
    path = tmp_path / "r.db"
    with Store(path) as store:
        import_items(store, write_jsonl(tmp_path / "c.jsonl", [cis_item(f"C00{i}", i - 1) for i in (1, 2, 3)]), "cis")
        import_items(store, write_jsonl(tmp_path / "t.jsonl", [trace_item("T001", 1), trace_item("T002", 2)]),
                     "reasoning-trace")
        import_items(store, write_jsonl(tmp_path / "e.jsonl", [exercise_item("E1"), exercise_item("E2", broken=True)]),
                     "exercise-quality")
    return path


def test_rating_form_import(three_rubrics_db: Path, capsys):
    code, out, err = run(capsys, "import-ratings", FIXTURES / "rating_form.json", "--rater", "EXP001",
                         "--kind", "human", "--db", three_rubrics_db)
    assert code == 0, err
    assert "ratings: 3 added, 0 updated, 0 unchanged (EXP001)" in out
    # expert_cis 0.31 is 0.3125 rounded: within the form's rounding, so no warning
    assert err == ""
    with Store(three_rubrics_db) as store:
        first = present(store.rating("C001", "EXP001"))
        assert first.scores == {"r": 0.75, "a": 0.75, "t": 0.5, "l": 0.75}
        assert first.overall == pytest.approx(0.6875)
        assert first.seconds == 360.0
        assert first.notes == "Sound eviction; no test for capacity one."
        assert present(store.rating("C002", "EXP001")).seconds == 450.0
        assert present(store.rater("EXP001"))["kind"] == "human"
        assert present(store.finish("EXP001", "cis")).summary_notes == "Edge-case tests were the most common gap."
    code, out, _err = run(capsys, "import-ratings", FIXTURES / "rating_form.json", "--rater", "EXP001",
                          "--kind", "human", "--db", three_rubrics_db)
    assert "ratings: 0 added, 0 updated, 3 unchanged" in out


def test_rating_form_under_another_rater_warns(three_rubrics_db: Path, capsys):
    code, _out, err = run(capsys, "import-ratings", FIXTURES / "rating_form.json", "--rater", "EXP009",
                          "--kind", "human", "--db", three_rubrics_db)
    assert code == 0
    assert "warning: the form's expert_id is 'EXP001'; filing its ratings under --rater 'EXP009'" in err


def test_judge_output_import(three_rubrics_db: Path, capsys):
    code, out, err = run(capsys, "import-ratings", FIXTURES / "judge_output.json", "--rater", "judge:opus:cis@1",
                         "--kind", "judge", "--model", "claude-opus-4-6", "--db", three_rubrics_db)
    assert code == 0, err
    with Store(three_rubrics_db) as store:
        rating = present(store.rating("C003", "judge:opus:cis@1"))
        assert rating.scores == {"r": 0.0, "a": 0.25, "t": 0.25, "l": 0.25}
        assert rating.notes == "Network lookup breaks the regex-only constraint."
        assert present(store.rater("judge:opus:cis@1"))["model"] == "claude-opus-4-6"


def test_reasoning_json_object_list_and_lines(three_rubrics_db: Path, tmp_path: Path, capsys):
    code, _out, err = run(capsys, "import-ratings", FIXTURES / "reasoning_output.jsonl", "--rater", "j1",
                          "--kind", "judge", "--db", three_rubrics_db)
    assert code == 0, err
    with Store(three_rubrics_db) as store:
        t2 = present(store.rating("T002", "j1"))
        assert t2.scores["accuracy"] == 0.7  # a judge's continuous score is kept exactly
        assert t2.verdict == "needs_revision"
        assert t2.overall == pytest.approx(0.68)
        assert t2.details["issues"] == ["Skips the unit conversion."]
        assert "stated_verdict" not in t2.details  # kept only when the file disagrees with the rubric
        assert t2.notes == "Right answer, thin working."
    rows = [json.loads(line) for line in (FIXTURES / "reasoning_output.jsonl").read_text().splitlines()]
    single = tmp_path / "one.json"
    single.write_text(json.dumps({**rows[0], "verdict": "reject"}, indent=2))
    code, _out, err = run(capsys, "import-ratings", single, "--rater", "j2", "--kind", "judge", "--db", three_rubrics_db)
    assert code == 0
    assert "the file's verdict 'reject' differs from the rubric's 'approve'; keeping the rubric's" in err
    with Store(three_rubrics_db) as store:
        assert present(store.rating("T001", "j2")).details["stated_verdict"] == "reject"
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps(rows, indent=2))
    code, out, _err = run(capsys, "import-ratings", listed, "--rater", "j3", "--kind", "judge", "--db", three_rubrics_db)
    assert code == 0
    assert "2 added" in out


def test_our_jsonl_and_csv(three_rubrics_db: Path, tmp_path: Path, capsys):
    path = write_jsonl(tmp_path / "r.jsonl", [
        {"item_id": "E1", "scores": {"difficulty_match": 1, "instruction_clarity": 0.5,
                                     "learning_objective_alignment": 1}, "notes": "ok", "seconds": 42.5},
        {"item_id": "E2", "scores": {"difficulty_match": 0, "instruction_clarity": 0,
                                     "learning_objective_alignment": 0.5}},
    ])
    code, _out, err = run(capsys, "import-ratings", path, "--rater", "EXP002", "--kind", "human", "--db", three_rubrics_db)
    assert code == 0, err
    with Store(three_rubrics_db) as store:
        e1, e2 = present(store.rating("E1", "EXP002")), present(store.rating("E2", "EXP002"))
        # a person's exercise rating gets the structural validity the checker computes
        assert e1.scores["structural_validity"] == 1.0
        assert e2.scores["structural_validity"] == 0.5
        assert e1.verdict == "fail"
        assert e1.overall == pytest.approx(0.875)
        assert e1.seconds == 42.5
    csv_path = tmp_path / "r.csv"
    csv_path.write_text("item_id,r_score,a,t,l,notes,seconds\nC001,0.5,0.5,0.5,0.5,'=fine,30\nC002,1,1,1,1,,\n")
    code, _out, err = run(capsys, "import-ratings", csv_path, "--rater", "EXP003", "--kind", "human", "--db", three_rubrics_db)
    assert code == 0, err
    with Store(three_rubrics_db) as store:
        assert present(store.rating("C001", "EXP003")).notes == "'=fine"  # a hand-written CSV keeps its quote
        assert present(store.rating("C002", "EXP003")).scores == {"r": 1.0, "a": 1.0, "t": 1.0, "l": 1.0}


def test_bad_ratings_are_reported_and_nothing_is_written(three_rubrics_db: Path, tmp_path: Path, capsys):
    full = {"r": 0.5, "a": 0.5, "t": 0.5, "l": 0.5}
    rows: list[dict[str, Any]] = [
        {"item_id": "C001", "scores": full},
        {"item_id": "C404", "scores": full},
        {"item_id": "C002", "scores": {**full, "r": 0.6}},
        {"item_id": "C003", "scores": {**full, "a": 1.5}},
        {"item_id": "C001", "scores": full},
        {"item_id": "C002", "scores": {"r": 0.5}},
        {"item_id": "C003", "scores": {**full, "x": 1}},
        {"scores": full},
        {"item_id": "T001", "scores": full},
        {"item_id": "C002", "scores": full, "seconds": -3},
        {"item_id": "C003", "scores": {**full, "l": "PASS"}},
    ]
    path = write_jsonl(tmp_path / "bad.jsonl", rows)
    before = table_counts(three_rubrics_db)
    code, _out, err = run(capsys, "import-ratings", path, "--rater", "EXP004", "--kind", "human", "--rubric", "cis",
                          "--db", three_rubrics_db)
    assert code == 1
    for message in [
        f"{path}:2: unknown item id 'C404' (import the items first)",
        f"{path}:3: item 'C002': r: 0.6 is off the scale: allowed values are 0.00, 0.25, 0.50, 0.75, 1.00",
        f"{path}:4: item 'C003': a: 1.5 is outside the scale 0 to 1",
        f"{path}:5: duplicate rating of item 'C001' (first at line 1)",
        f"{path}:6: item 'C002': missing score for a, t, l (a person's rating scores every dimension)",
        f"{path}:7: item 'C003': unknown dimension 'x'; cis has r, a, t, l",
        f"{path}:8: missing required field \"item_id\" (or \"id\" / \"submission_id\")",
        f"{path}:9: item 'T001' belongs to rubric 'reasoning-trace', not 'cis'",
        f"{path}:10: item 'C002': seconds must be a number from 0 to 604800, not -3",
        f"{path}:11: item 'C003': l: 'PASS' is a PASS/FAIL label but this scale is numeric",
    ]:
        assert message in err
    assert "10 errors" in err
    assert table_counts(three_rubrics_db) == before


def test_off_step_is_allowed_for_a_judge_but_not_out_of_range(three_rubrics_db: Path, tmp_path: Path, capsys):
    path = write_jsonl(tmp_path / "j.jsonl", [{"item_id": "C001", "scores": {"r": 0.6, "a": 0.83}}])
    code, _out, err = run(capsys, "import-ratings", path, "--rater", "jx", "--kind", "judge", "--db", three_rubrics_db)
    assert code == 0, err
    with Store(three_rubrics_db) as store:
        rating = present(store.rating("C001", "jx"))
        assert rating.scores == {"r": 0.6, "a": 0.83}
        assert rating.overall is None  # partial judge rating
    path = write_jsonl(tmp_path / "j2.jsonl", [{"item_id": "C001", "scores": {"r": -0.1}}])
    code, _out, err = run(capsys, "import-ratings", path, "--rater", "jx", "--kind", "judge", "--db", three_rubrics_db)
    assert f"{path}:1: item 'C001': r: -0.1 is outside the scale 0 to 1" in err


def test_rating_form_problems(three_rubrics_db: Path, tmp_path: Path, capsys):
    form = json.loads((FIXTURES / "rating_form.json").read_text())
    del form["ratings"][1]["submission_id"]
    form["ratings"][2]["time_spent_minutes"] = "five"
    text = json.dumps(form, indent=2)
    path = tmp_path / "form.json"
    path.write_text(text)
    code, _out, err = run(capsys, "import-ratings", path, "--rater", "EXP001", "--kind", "human", "--db", three_rubrics_db)
    assert code == 1
    second = line_of(text, '"task_type": "Rate Limiter"') - 1  # the line of the entry's opening brace
    third = line_of(text, '"C003"') - 1
    assert f"{path}:{second}: missing required field \"submission_id\"" in err
    assert f"{path}:{third}: time_spent_minutes must be a number of minutes from 0 to 10080, not 'five'" in err
    path.write_text('{"ratings": 3}')
    code, _out, err = run(capsys, "import-ratings", path, "--rater", "EXP001", "--kind", "human", "--db", three_rubrics_db,
                          "--format", "rating-form")
    assert f"{path}:1: expected a rating form (rating_form.json): an object with a \"ratings\" array" in err


def test_kind_clash_unknown_rubric_and_several_raters(three_rubrics_db: Path, tmp_path: Path, capsys):
    path = write_jsonl(tmp_path / "r.jsonl", [{"item_id": "C001", "scores": {"r": 1, "a": 1, "t": 1, "l": 1}}])
    assert run(capsys, "import-ratings", path, "--rater", "EXP1", "--kind", "human", "--db", three_rubrics_db)[0] == 0
    code, _out, err = run(capsys, "import-ratings", path, "--rater", "EXP1", "--kind", "judge", "--db", three_rubrics_db)
    assert code == 1
    assert "rater 'EXP1' already exists as a human rater" in err
    code, _out, err = run(capsys, "import-ratings", path, "--rater", "EXP1", "--kind", "human", "--db", three_rubrics_db,
                          "--rubric", "nope")
    assert code == 1
    assert "unknown rubric 'nope'" in err
    rows = [{"item_id": "C001", "rater": "A", "scores": {"r": 1, "a": 1, "t": 1, "l": 1}},
            {"item_id": "C002", "rater": "B", "scores": {"r": 1, "a": 1, "t": 1, "l": 1}}]
    mixed = write_jsonl(tmp_path / "m.jsonl", rows)
    code, _out, err = run(capsys, "import-ratings", mixed, "--rater", "C", "--kind", "human", "--db", three_rubrics_db)
    assert code == 1
    assert "the file holds ratings of several raters (A, B) and none is 'C'" in err
    code, out, err = run(capsys, "import-ratings", mixed, "--rater", "B", "--kind", "human", "--db", three_rubrics_db)
    assert code == 0
    assert "1 added" in out
    assert "skipped 1 rows of A" in err


def test_library_call_raises_import_failed(three_rubrics_db: Path, tmp_path: Path):
    path = write_jsonl(tmp_path / "r.jsonl", [{"item_id": "nope", "scores": {}}])
    with Store(three_rubrics_db) as store, pytest.raises(ImportFailed) as failed:
        import_ratings(store, path, "EXP1", "human", rubric="cis")
    assert failed.value.problems[0].line == 1


@pytest.mark.slow
@pytest.mark.parametrize(("key", "value", "rule"), [
    ("study_date", {"x": [1]}, "\"study_date\" must be a date written as text"),
    ("completion_date", 20260115, "\"completion_date\" must be a date written as text"),
    ("summary_notes", ["a", "b"], "\"summary_notes\" must be text"),
])
def test_a_form_whose_dates_or_notes_are_not_text_is_refused(three_rubrics_db: Path, tmp_path: Path, hermetic_home: Path, key: str,
                                                             value: object, rule: str):
    from tests.faults.conftest import run as run_cli

    form = json.loads((FIXTURES / "rating_form.json").read_text())
    form[key] = value
    path = tmp_path / "rating_form.json"
    path.write_text(json.dumps(form, indent=2))
    proc = run_cli("import-ratings", path, "--db", three_rubrics_db, home=hermetic_home)
    assert proc.returncode == 1
    assert f"{path}:{line_of(path.read_text(), key)}: {rule}" in proc.stderr, proc.stderr
    assert table_counts(three_rubrics_db)["ratings"] == 0
    exported = run_cli("export", "--format", "rating-form", "--rater", "EXP001", "--db", three_rubrics_db, home=hermetic_home)
    assert exported.returncode == 1
    assert "study_date" not in exported.stdout  # nothing to export, no date made up


@pytest.mark.parametrize(("value", "rule"), [
    ("2099-01-15T14:30:00Z", "a completion date '2099-01-15T14:30:00Z' is in the future"),
    ("last Tuesday", "a completion date must be a date and time such as"),
])
def test_a_form_finished_in_the_future_or_on_no_date_is_refused(three_rubrics_db: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str], value: str,
                                                                rule: str):
    form = json.loads((FIXTURES / "rating_form.json").read_text())
    form["completion_date"] = value
    path = tmp_path / "rating_form.json"
    path.write_text(json.dumps(form, indent=2))
    code, _out, err = run(capsys, "import-ratings", path, "--db", three_rubrics_db)
    assert code == 1, err
    assert rule in " ".join(err.split()), err
    assert table_counts(three_rubrics_db)["ratings"] == 0
