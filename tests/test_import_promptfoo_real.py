"""A real promptfoo output (tests/fixtures/README.md says how it was made) imports with its author's ids."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge_tui.store import Store
from tests.formats_helpers import FIXTURES, line_of, run, table_counts
from tests.narrowing import present

REAL = FIXTURES / "promptfoo_real_codereview.json"
GRADER = "judge:default-grader:cis@promptfoo"


@pytest.fixture
def new_db(tmp_path: Path) -> Path:
    """Where a new database goes: the file does not exist yet."""
    return tmp_path / "study.db"


def _entries() -> list[dict]:
    return json.loads(REAL.read_text())["results"]["results"]


def test_real_code_review_eval_imports_under_its_submission_ids(new_db: Path, capsys):
    code, out, err = run(capsys, "import", REAL, "--rubric", "cis", "--map", "source_code=code", "--db", new_db)
    assert code == 0, err
    assert "(promptfoo, rubric cis): items: 5 added, 0 unchanged; ratings: 5 added" in out
    assert "warning: the outputs are not stored" in err  # the reviewer's answer is not part of the item
    with Store(new_db) as store:
        items = {item.id: item for item in store.iter_items("cis")}
        assert sorted(items) == ["CR-001", "CR-002", "CR-003", "CR-004", "CR-005"]
        for entry in _entries():
            variables = entry["vars"]
            item = items[variables["submission_id"]]
            assert item.fields == {"task_type": variables["task_type"], "rationale": variables["rationale"],
                                   "source_code": variables["code"]}
            assert item.task_type == variables["task_type"]
            rating = present(store.rating(item.id, GRADER))
            assert rating.scores == entry["namedScores"]
    # The same file again changes nothing.
    before = table_counts(new_db)
    code, out, _err = run(capsys, "import", REAL, "--map", "source_code=code", "--db", new_db)  # cis is evident now
    assert code == 0
    assert "items: 0 added, 5 unchanged" in out
    assert table_counts(new_db) == before


def test_without_the_map_one_error_lists_the_vars_and_the_map_that_fits(new_db: Path, capsys):
    code, out, err = run(capsys, "import", REAL, "--rubric", "cis", "--db", new_db)
    assert code == 1
    assert out == ""
    text = REAL.read_text()
    first = line_of(text, '"results": [\n      {') + 1  # where the first result opens
    assert err == (f"judge-tui: nothing imported from {REAL}: 1 error\n"
                   f"{REAL}:{first}: no test's vars hold \"source_code\", which rubric cis needs to rate an item: "
                   "use --map source_code=code (vars: submission_id, task_type, rationale, code)\n")
    assert not new_db.exists()
    code, _out, err = run(capsys, "import", REAL, "--db", new_db)
    assert code == 1
    assert "pass --rubric NAME" in err
    assert "among the vars submission_id, task_type, rationale, code" in err


def test_ids_come_from_the_metadata_when_the_vars_have_none(new_db: Path, tmp_path: Path, capsys):
    top = json.loads(REAL.read_text())
    for entry in top["results"]["results"]:
        submission = entry["vars"].pop("submission_id")
        entry["testCase"]["metadata"]["item_id"] = submission
    path = tmp_path / "metadata_ids.json"
    path.write_text(json.dumps(top, indent=2))
    code, _out, err = run(capsys, "import", path, "--rubric", "cis", "--map", "source_code=code", "--db", new_db)
    assert code == 0, err
    assert "name no id" not in err
    with Store(new_db) as store:
        assert sorted(item.id for item in store.iter_items("cis"))[0] == "CR-001"


def test_map_takes_the_id_or_a_field_from_any_metadata_key(new_db: Path, tmp_path: Path, capsys):
    top = json.loads(REAL.read_text())
    for number, entry in enumerate(top["results"]["results"], start=1):
        entry["vars"].pop("submission_id")
        entry["testCase"]["metadata"]["case"] = f"case-{number}"
    path = tmp_path / "metadata_case.json"
    path.write_text(json.dumps(top))
    code, _out, err = run(capsys, "import", path, "--rubric", "cis", "--map", "source_code=code",
                          "--map", "id=metadata.case", "--map", "task=metadata.quality", "--db", new_db)
    assert code == 0, err
    with Store(new_db) as store:
        item = present(store.item("case-1"))
        assert item.fields["task"] == "high"
        assert "cohort" not in item.fields  # only what --map names


def test_tests_without_any_id_get_content_ids_with_a_warning(new_db: Path, tmp_path: Path, capsys):
    top = json.loads(REAL.read_text())
    for entry in top["results"]["results"]:
        entry["vars"].pop("submission_id")
    path = tmp_path / "no_ids.json"
    path.write_text(json.dumps(top))
    code, _out, err = run(capsys, "import", path, "--rubric", "cis", "--map", "source_code=code", "--db", new_db)
    assert code == 0, err
    assert (f"{path}: warning: 5 of the tests name no id (vars or metadata item_id, id, submission_id); "
            "their items get ids made from their content (pf-...)") in err
    with Store(new_db) as store:
        assert all(item.id.startswith("pf-") for item in store.iter_items("cis"))


def test_a_csv_without_the_code_column_suggests_the_map(new_db: Path, tmp_path: Path, capsys):
    path = tmp_path / "submissions.csv"
    path.write_text("submission_id,task_type,rationale,code\nS1,Fibonacci,A loop.,def fib(n): ...\n")
    code, _out, err = run(capsys, "import", path, "--rubric", "cis", "--db", new_db)
    assert code == 1
    assert (f"{path}:1: the header has no column for \"source_code\", which rubric cis needs: use "
            "--map source_code=code (columns: submission_id, task_type, rationale, code)") in err
    code, _out, err = run(capsys, "import", path, "--rubric", "cis", "--map", "source_code=code", "--db", new_db)
    assert code == 0, err
    with Store(new_db) as store:
        assert present(store.item("S1")).fields["source_code"] == "def fib(n): ..."
