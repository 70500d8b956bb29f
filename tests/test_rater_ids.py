"""One rule for a rater's id on every road in: `rate --reviewer`, `import-ratings` (--rater and the file's own
rater), `assign --experts` and merges (tests/faults/test_hand_edited_databases.py). `consensus` is the lead's
adjudicated consensus, never an expert."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.faults.conftest import REPO, no_traceback, run

pytestmark = pytest.mark.slow

BAD_IDS = [
    ("consensus", "'consensus' is reserved: it is the id of the lead's adjudicated consensus"),
    ("Consensus", "'Consensus' is 'consensus' in other capitals, which is reserved"),
    ("CONSENSUS", "'CONSENSUS' is 'consensus' in other capitals, which is reserved"),
    ("ann\nbob", "a reviewer id is 1 to 40 letters"),
    ("ann\x1b[2J", "a reviewer id is 1 to 40 letters"),
    ("team/ann", "a reviewer id is 1 to 40 letters"),
    ("a" * 500, "a reviewer id is 1 to 40 letters"),
]


@pytest.fixture
def study_db(tmp_path: Path, hermetic_home: Path) -> Path:
    db = tmp_path / "study.db"
    proc = run("import", REPO / "data" / "binary.jsonl", "--rubric", "binary", "--db", db, home=hermetic_home)
    assert proc.returncode == 0, proc.stderr
    return db


def _raters(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        rows = [r[0] for r in conn.execute("SELECT id FROM raters")]
    conn.close()
    return rows


def _ratings_file(tmp_path: Path, rater: str | None = None) -> Path:
    first = json.loads((REPO / "data" / "binary.jsonl").read_text().splitlines()[0])
    row = {"item_id": first["id"], "scores": {"label": "PASS"}, **({"rater": rater} if rater else {})}
    path = tmp_path / "ratings.jsonl"
    path.write_text(json.dumps(row) + "\n")
    return path


@pytest.mark.parametrize(("rater", "rule"), BAD_IDS, ids=["consensus", "Consensus", "CONSENSUS", "newline", "escape", "slash", "500 chars"])
def test_import_ratings_refuses_a_rater_id_the_app_would_refuse(study_db: Path, tmp_path: Path, hermetic_home: Path,
                                                               rater: str, rule: str):
    proc = run("import-ratings", _ratings_file(tmp_path), "--rater", rater, "--kind", "human", "--db", study_db,
               home=hermetic_home)
    assert proc.returncode == 1
    no_traceback(proc)
    assert rule in proc.stderr
    assert "pass another id with --rater" in proc.stderr
    assert _raters(study_db) == []


def test_import_ratings_refuses_consensus_named_by_the_file(study_db: Path, tmp_path: Path, hermetic_home: Path):
    proc = run("import-ratings", _ratings_file(tmp_path, rater="consensus"), "--kind", "human", "--db", study_db,
               home=hermetic_home)
    assert proc.returncode == 1
    assert "'consensus' is reserved" in proc.stderr
    assert _raters(study_db) == []


def test_a_judges_id_may_hold_its_models_name_but_no_escape(study_db: Path, tmp_path: Path, hermetic_home: Path):
    ok = run("import-ratings", _ratings_file(tmp_path), "--rater", "judge:meta-llama/Llama-3.1-8B:binary@p1",
             "--kind", "judge", "--db", study_db, home=hermetic_home)
    assert ok.returncode == 0, ok.stderr
    bad = run("import-ratings", _ratings_file(tmp_path), "--rater", "judge:m\x1b[31m:binary@p1", "--kind", "judge",
              "--db", study_db, home=hermetic_home)
    assert bad.returncode == 1
    assert "cannot hold line breaks, tabs or terminal escapes" in bad.stderr
    assert _raters(study_db) == ["judge:meta-llama/Llama-3.1-8B:binary@p1"]


@pytest.mark.parametrize("command", ["rate", "adjudicate"])
@pytest.mark.parametrize("reviewer", ["consensus", "Consensus"])
def test_rate_refuses_the_reviewer_id_consensus(study_db: Path, hermetic_home: Path, command: str, reviewer: str):
    proc = run(command, "--reviewer", reviewer, "--db", study_db, home=hermetic_home)
    assert proc.returncode == 1
    no_traceback(proc)
    assert f"--reviewer {reviewer!r}: {reviewer!r} is" in proc.stderr
    assert "reserved" in proc.stderr
    assert reviewer not in _raters(study_db)


def test_assign_refuses_consensus_by_the_same_rule(study_db: Path, hermetic_home: Path):
    proc = run("assign", "--rubric", "binary", "--experts", "ann,consensus", "--db", study_db, home=hermetic_home)
    assert proc.returncode == 1
    assert "'consensus' is reserved: it is the id of the lead's adjudicated consensus" in proc.stderr
