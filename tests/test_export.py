"""judge-tui export: JSONL, CSV, rating_form.json and the review template, and their round trips."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from judge_tui.store import Store
from judge_tui.transfer.importing import import_items, import_ratings
from tests.formats_helpers import FIXTURES, cis_item, exercise_item, run, trace_item, write_jsonl
from tests.pinned import assert_as_pinned

TRICKY_NOTES = '=HYPERLINK("http://x") , "quoted"\nsecond line'


def _items(tmp_path: Path) -> list[tuple[Path, str]]:
    return [
        (write_jsonl(tmp_path / "c.jsonl", [cis_item(f"C00{i}", i - 1) for i in (1, 2, 3)]), "cis"),
        (write_jsonl(tmp_path / "t.jsonl", [trace_item("T001", 1), trace_item("T002", 2)]), "reasoning-trace"),
    ]


def _database(path: Path, tmp_path: Path) -> Path:
    with Store(path) as store:
        for items, rubric in _items(tmp_path):
            import_items(store, items, rubric)
    return path


@pytest.fixture
def rated(tmp_path: Path) -> Path:
    """Human ratings (with awkward notes) and judge ratings (continuous, with details) of CIS and traces."""
    db = _database(tmp_path / "a.db", tmp_path)
    with Store(db) as store:
        import_ratings(store, FIXTURES / "rating_form.json", "EXP001", "human")
        import_ratings(store, FIXTURES / "reasoning_output.jsonl", "judge:opus:reasoning-trace@1", "judge")
        notes = write_jsonl(tmp_path / "n.jsonl", [
            {"item_id": "C001", "scores": {"r": 1, "a": 0.5, "t": 0.25, "l": 0}, "notes": TRICKY_NOTES, "seconds": 37.25},
            {"item_id": "C002", "scores": {"r": 0.5, "a": 0.5, "t": 0.5, "l": 0.5}, "notes": "-minus first",
             "seconds": 0},
            {"item_id": "C003", "scores": {"r": 0, "a": 0, "t": 0, "l": 0}, "notes": "'@quoted already"},
        ])
        import_ratings(store, notes, "EXP002", "human")
        judge = write_jsonl(tmp_path / "j.jsonl", [{"item_id": "C001", "scores": {"r": 0.61, "a": 0.9}}])
        import_ratings(store, judge, "judge:x:cis@1", "judge")
    return db


def _ratings(db: Path, rater: str) -> list[tuple]:
    with Store(db) as store:
        return [(r.item_id, r.scores, r.overall, r.verdict, r.notes, r.seconds, r.repeat, r.details)
                for r in store.iter_ratings(rater_ids=[rater])]


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
@pytest.mark.parametrize("rater,kind", [("EXP001", "human"), ("EXP002", "human"),
                                        ("judge:opus:reasoning-trace@1", "judge"), ("judge:x:cis@1", "judge")])
def test_export_then_import_gives_back_the_same_ratings(rated: Path, tmp_path: Path, capsys, fmt, rater, kind):
    out = tmp_path / f"all.{fmt}"
    code, _out, err = run(capsys, "export", "--format", fmt, "-o", out, "--db", rated)
    assert code == 0
    assert "wrote 9 ratings" in err
    fresh = _database(tmp_path / "b.db", tmp_path)
    code, _out, err = run(capsys, "import-ratings", out, "--rater", rater, "--kind", kind, "--db", fresh)
    assert code == 0, err
    assert _ratings(fresh, rater) == _ratings(rated, rater)
    # Read back into the database it came from, the export is the same ratings: nothing changes.
    code, out_text, err = run(capsys, "import-ratings", out, "--rater", rater, "--kind", kind, "--db", rated)
    assert code == 0, out_text + err
    assert " 0 added, 0 updated, " in out_text, out_text + err


def test_rating_form_round_trip_and_shape(rated: Path, tmp_path: Path, capsys):
    out = tmp_path / "rating_form.json"
    code, _out, _err = run(capsys, "export", "--format", "rating-form", "--rater", "EXP001", "-o", out, "--db", rated)
    assert code == 0
    form = json.loads(out.read_text())
    assert list(form) == ["expert_name", "expert_id", "study_date", "ratings", "summary_notes",
                          "total_time_minutes", "completion_date"]
    assert list(form["ratings"][0]) == ["submission_id", "task_type", "r_score", "a_score", "t_score", "l_score",
                                        "expert_cis", "notes", "time_spent_minutes", "flagged", "flag_reason"]
    first = form["ratings"][0]
    assert (first["submission_id"], first["task_type"], first["expert_cis"], first["time_spent_minutes"]) == (
        "C001", "LRU Cache", 0.6875, 6)
    assert form["expert_id"] == "EXP001"
    assert form["total_time_minutes"] == 18.5
    assert form["summary_notes"] == "Edge-case tests were the most common gap."
    assert form["completion_date"].endswith("Z")
    assert len(form["study_date"]) == 10
    fresh = _database(tmp_path / "b.db", tmp_path)
    code, _out, err = run(capsys, "import-ratings", out, "--rater", "EXP001", "--kind", "human", "--db", fresh)
    assert code == 0
    assert err == ""
    assert _ratings(fresh, "EXP001") == _ratings(rated, "EXP001")


def test_rating_form_minutes_are_rounded_to_hundredths(rated: Path, tmp_path: Path, capsys):
    out = tmp_path / "f.json"
    assert run(capsys, "export", "--format", "rating-form", "--rater", "EXP002", "-o", out, "--db", rated)[0] == 0
    form = json.loads(out.read_text())
    assert form["ratings"][0]["time_spent_minutes"] == 0.62  # 37.25 s
    assert form["ratings"][0]["notes"] == TRICKY_NOTES


def test_rating_form_needs_a_rater_when_there_are_several(rated: Path, capsys):
    code, _out, err = run(capsys, "export", "--format", "rating-form", "--db", rated)
    assert code == 1
    assert "several human raters (EXP001, EXP002): choose one with --rater" in err


def test_csv_cells_cannot_run_as_formulas(rated: Path, tmp_path: Path, capsys):
    out = tmp_path / "r.csv"
    assert run(capsys, "export", "--format", "csv", "--rater", "EXP002", "-o", out, "--db", rated)[0] == 0
    rows = list(csv.DictReader(out.open(newline="")))
    assert rows[0]["notes"] == "'" + TRICKY_NOTES
    assert rows[1]["notes"] == "'-minus first"
    assert rows[2]["notes"] == "''@quoted already"
    dangerous = [cell for row in rows for cell in row.values() if cell[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert dangerous == []
    assert list(rows[0])[:9] == ["item_id", "rater", "kind", "rubric", "rubric_version", "r", "a", "t", "l"]


def test_jsonl_to_stdout(rated: Path, capsys):
    code, out, _err = run(capsys, "export", "--rubric", "cis", "--rater", "judge:x:cis@1", "--db", rated)
    assert code == 0
    (row,) = [json.loads(line) for line in out.splitlines()]
    assert row["scores"] == {"r": 0.61, "a": 0.9}
    assert row["kind"] == "judge"
    assert row["overall"] is None
    assert row["rubric"] == "cis"
    assert row["rubric_version"] == 1  # the version number within the rubric


def test_review_template(tmp_path: Path, capsys):
    db = tmp_path / "e.db"
    with Store(db) as store:
        items = write_jsonl(tmp_path / "e.jsonl", [exercise_item("E1", "A2", "Common vocabulary"),
                                                   exercise_item("E2", "B1", "Collocations/word pairs"),
                                                   exercise_item("E3", "C1", "Figurative language", broken=True)])
        import_items(store, items, "exercise-quality")
        human = write_jsonl(tmp_path / "h.jsonl", [
            {"item_id": "E1", "scores": {"difficulty_match": 1, "instruction_clarity": 0.5,
                                         "learning_objective_alignment": 1}, "notes": "fine | clear"},
            {"item_id": "E2", "scores": {"difficulty_match": 0.5, "instruction_clarity": 0.5,
                                         "learning_objective_alignment": 1}},
            {"item_id": "E3", "scores": {"difficulty_match": 0, "instruction_clarity": 0,
                                         "learning_objective_alignment": 0}},
        ])
        import_ratings(store, human, "EXP001", "human")
        judge = write_jsonl(tmp_path / "j.jsonl", [
            {"item_id": "E1", "scores": {"difficulty_match": 0.9, "instruction_clarity": 0.6,
                                         "learning_objective_alignment": 1}},
            {"item_id": "E2", "scores": {"difficulty_match": 0.5, "instruction_clarity": 1,
                                         "learning_objective_alignment": 1}},
        ])
        import_ratings(store, judge, "judge:m:exercise-quality@1", "judge")
    out = tmp_path / "review.md"
    code, _out, err = run(capsys, "export", "--format", "review-template", "-o", out, "--db", db)
    assert code == 0, err
    text = out.read_text()
    lines = text.splitlines()
    header = next(line for line in lines if line.startswith("| #"))
    assert header == ("| # | CEFR | Focus | Human: Struct | Judge: Struct | Human: Diff | Judge: Diff | "
                      "Human: Clarity | Judge: Clarity | Human: Align | Judge: Align | Agreement? | Notes |")
    rows = [line for line in lines if line.startswith("| 1 ") or line.startswith("| 2 ") or line.startswith("| 3 ")]
    assert rows[0] == "| 1 | A2 | Common vocabulary | 1 | 1 | 1 | 0.9 | 0.5 | 0.6 | 1 | 1 | yes | fine \\| clear |"
    assert rows[1] == "| 2 | B1 | Collocations/word pairs | 1 | 1 | 0.5 | 0.5 | 0.5 | 1 | 1 | 1 | no (2/3) |  |"
    assert rows[2] == "| 3 | C1 | Figurative language | 0.5 | — | 0 | — | 0 | — | 0 | — | — |  |"
    assert "| Total cases reviewed | 2/3 |" in text
    assert "| Dimension agreements (within ±0.15) | 5/6 |" in text
    assert "| Overall alignment rate | 83.3% |" in text
    assert "| Dimension with lowest alignment | instruction_clarity (50%) |" in text
    assert "| Dimension with highest alignment | difficulty_match (100%), learning_objective_alignment (100%) |" in text


def test_export_errors(rated: Path, tmp_path: Path, capsys):
    code, _out, err = run(capsys, "export", "--format", "review-template", "--db", rated)
    assert code == 1
    assert "no human rater of exercise-quality found" in err
    code, _out, err = run(capsys, "export", "-o", tmp_path / "missing" / "x.jsonl", "--db", rated)
    assert code == 1
    assert "does not exist" in err
    code, _out, err = run(capsys, "export", "--format", "rating-form", "--rater", "nobody", "--db", rated)
    assert code == 1
    assert "no rater 'nobody'" in err


@pytest.mark.parametrize("name,first_line", [
    ("out.csv", "item_id,rater,kind,rubric,rubric_version,r,a,t,l"),
    ("out.jsonl", '{"item_id": "C001", "rater": "EXP001"'),
    ("out.json", "{"),
])
def test_the_output_file_name_chooses_the_format(rated: Path, tmp_path: Path, capsys, name, first_line):
    out = tmp_path / name
    code, _out, err = run(capsys, "export", "--rater", "EXP001", "--rubric", "cis", "-o", out, "--db", rated)
    assert code == 0, err
    assert out.read_text().startswith(first_line)
    if name == "out.json":
        assert json.loads(out.read_text())["expert_id"] == "EXP001"
        assert "(rating-form)" in err


def test_rating_form_round_trip_keeps_the_expert_name_and_the_dates(rated: Path, tmp_path: Path, capsys):
    out = tmp_path / "form.json"
    assert run(capsys, "export", "--format", "rating-form", "--rater", "EXP001", "-o", out, "--db", rated)[0] == 0
    form = json.loads(out.read_text())
    original = json.loads((FIXTURES / "rating_form.json").read_text())
    for key in ("expert_name", "study_date", "completion_date", "summary_notes", "total_time_minutes"):
        assert form[key] == original[key], key
    assert form["expert_name"] == "Dana Reviewer"


def test_unknown_seconds_stay_unknown(rated: Path, tmp_path: Path, capsys):
    with Store(rated) as store:
        stored = {r.item_id: r.seconds for r in store.iter_ratings(rater_ids=["EXP002"])}
    assert stored == {"C001": 37.25, "C002": 0.0, "C003": None}  # C003's row has no seconds: not known
    code, jsonl, _err = run(capsys, "export", "--rater", "EXP002", "--db", rated)
    assert [json.loads(line)["seconds"] for line in jsonl.splitlines()] == [37.25, 0.0, None]
    out = tmp_path / "x.csv"
    assert run(capsys, "export", "--rater", "EXP002", "-o", out, "--db", rated)[0] == 0
    assert [row["seconds"] for row in csv.DictReader(out.open())] == ["37.25", "0.0", ""]
    form = json.loads(run(capsys, "export", "--format", "rating-form", "--rater", "EXP002", "--db", rated)[1])
    assert [r["time_spent_minutes"] for r in form["ratings"]] == [0.62, 0, None]
    assert form["total_time_minutes"] == 0.62  # the known times only
    fresh = _database(tmp_path / "b.db", tmp_path)
    assert run(capsys, "import-ratings", out, "--rater", "EXP002", "--kind", "human", "--db", fresh)[0] == 0
    assert _ratings(fresh, "EXP002") == _ratings(rated, "EXP002")


def test_several_rubrics_rated_by_one_expert_is_a_clear_error(rated: Path, tmp_path: Path, capsys):
    traces = write_jsonl(tmp_path / "tr.jsonl", [
        {"item_id": "T001", "scores": {"completeness": 1, "accuracy": 1, "reasoning_validity": 1,
                                       "answer_correctness": 1, "clarity": 1}}])
    with Store(rated) as store:
        import_ratings(store, traces, "EXP001", "human")
    code, _out, err = run(capsys, "export", "--format", "rating-form", "--rater", "EXP001", "--db", rated)
    assert code == 1
    assert "EXP001 rated several rubrics (cis, reasoning-trace): choose one with --rubric" in err


def test_review_template_agrees_with_the_report_at_the_configured_tolerance(tmp_path: Path, capsys, hermetic_home):
    (hermetic_home / "settings.json").write_text(json.dumps({"agreement": {"tolerance": 0.3}}))
    db = tmp_path / "e.db"
    items = [exercise_item(f"E{i}", "B1", "Modal verbs") for i in range(1, 5)]
    with Store(db) as store:
        import_items(store, write_jsonl(tmp_path / "e.jsonl", items), "exercise-quality")
        dims = ("difficulty_match", "instruction_clarity", "learning_objective_alignment")
        import_ratings(store, write_jsonl(tmp_path / "h.jsonl", [
            {"item_id": f"E{i}", "scores": dict.fromkeys(dims, 1)} for i in range(1, 5)]), "EXP001", "human")
        judged = [0.75, 0.7, 0.5, 1]  # 0.25 and 0.3 off: within ±0.3, not within ±0.15
        import_ratings(store, write_jsonl(tmp_path / "j.jsonl", [
            {"item_id": f"E{i}", "scores": dict.fromkeys(dims, judged[i - 1])} for i in range(1, 5)]),
            "judge:m:exercise-quality@1", "judge")
    code, report, err = run(capsys, "report", "--format", "json", "--db", db, "--rubric", "exercise-quality")
    assert code == 0, err
    summary = json.loads(report)["summary"]
    assert (summary["dimension_agreements"], summary["dimension_pairs"]) == (9, 12)
    code, template, err = run(capsys, "export", "--format", "review-template", "--db", db)
    assert code == 0, err
    assert "within ±0.3 (agreement.tolerance in the settings" in template
    assert "| Dimension agreements (within ±0.3) | 9/12 |" in template
    assert f"| Overall alignment rate | {summary['alignment_rate']:.1%} |" in template  # 75.0%, as the report
    assert "| 2 | B1 | Modal verbs | 1 | 1 | 1 | 0.7 | 1 | 0.7 | 1 | 0.7 | yes |  |" in template
    assert "| 3 | B1 | Modal verbs | 1 | 1 | 1 | 0.5 | 1 | 0.5 | 1 | 0.5 | no (0/3) |  |" in template


PINNED = FIXTURES / "exports"
PINNED_EXPORTS = {  # file name -> export arguments; every format, with awkward notes, marks-free and with details
    "all.jsonl": ("--format", "jsonl"),
    "all.csv": ("--format", "csv"),
    "cis_EXP002.csv": ("--format", "csv", "--rubric", "cis", "--rater", "EXP002"),
    "traces.jsonl": ("--format", "jsonl", "--rubric", "reasoning-trace"),
    "rating_form_EXP001.json": ("--format", "rating-form", "--rater", "EXP001", "--rubric", "cis"),
}


def pinned_exports(db: Path, tmp_path: Path, capsys) -> dict[str, bytes]:
    """Each pinned export of db, as the bytes written to its file."""
    found = {}
    for name, args in PINNED_EXPORTS.items():
        out = tmp_path / f"out-{name}"
        code, _out, err = run(capsys, "export", *args, "-o", out, "--db", db)
        assert code == 0, err
        found[name] = out.read_bytes()
    return found


def test_every_format_is_written_as_pinned(rated: Path, tmp_path: Path, capsys):
    marks = write_jsonl(tmp_path / "marks.jsonl", [{"item_id": "C002", "scores": {}, "skipped": True},
                                                   {"item_id": "C003", "scores": {}, "flagged": True,
                                                    "flag_reason": "=two answers"}])
    with Store(rated) as store:
        import_ratings(store, marks, "EXP003", "human")
    for name, written in pinned_exports(rated, tmp_path, capsys).items():
        assert_as_pinned(written, (PINNED / name).read_bytes(), name)


def test_what_an_export_wrote_is_counted_in_words_that_agree():
    from judge_tui.transfer.exporting import Written

    assert Written(ratings=1, marks=0).describe("review-template") == "1 row"
    assert Written(ratings=2, marks=0).describe("review-template") == "2 rows"
    assert Written(ratings=1, marks=1).describe("jsonl") == "1 rating and 1 item skipped or flagged without a rating"
