"""The judge's certificate in force and the items it marks as decided by the judge: recorded by `judge-tui assign
--escalate`, replaced whole by the next plan, on a real database through the command."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict
from pathlib import Path

import pytest

from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from tests.formats_helpers import run
from tests.test_certify import JUDGE, study

ASSIGN = ("assign", "--rubric", "binary", "--experts", "ann,bob", "--overlap", "0")


def _marks(db: Path) -> tuple[dict[str, object] | None, list[str]]:
    with Store(db) as store:
        terms = store.certificate_in_force("binary")
        return (asdict(terms) if terms else None), store.judge_decided("binary")


def test_assign_escalate_records_the_certificate_and_marks_the_items_the_judge_decides(
        tmp_path: Path, rubrics: dict[str, Rubric], capsys: pytest.CaptureFixture[str]):
    db = tmp_path / "c.db"
    with Store(db) as store:
        study(store, rubrics["binary"], wrong_among_sure=1)
    code, out, err = run(capsys, *ASSIGN, "--db", db, "--escalate", "--format", "json")
    assert code == 0, err
    plan = json.loads(out)["plan"]
    terms, decided = _marks(db)
    assert decided == [f"A{k:03d}" for k in range(6)]
    assert terms is not None
    assert {k: terms[k] for k in ("judge", "members", "confidence", "split", "alpha", "delta", "lambda_", "n", "kept",
                                  "disagreements", "plan_id")} == {
        "judge": JUDGE, "members": (), "confidence": "repeats", "split": "dev", "alpha": 0.1, "delta": 0.1,
        "lambda_": 1.0, "n": 60, "kept": 40, "disagreements": 1, "plan_id": plan}
    with Store(db) as store:
        made = store.current_plan("binary")
    assert made is not None
    assert terms["created_at"] == made["created_at"]  # recorded with its plan
    # Certified again at a level nothing passes: the old marks go, the new terms say no threshold passed.
    code, _, err = run(capsys, *ASSIGN, "--db", db, "--escalate", "--alpha", "0.02")
    assert code == 0, err
    terms, decided = _marks(db)
    assert decided == []
    assert terms is not None
    assert (terms["alpha"], terms["lambda_"], terms["kept"], terms["disagreements"]) == (0.02, None, 0, None)
    # A plan without --escalate puts every item in the experts' queues: no certificate is in force.
    assert run(capsys, *ASSIGN, "--db", db, "--escalate", "--format", "json")[0] == 0
    assert len(_marks(db)[1]) == 6
    code, _, err = run(capsys, *ASSIGN, "--db", db)
    assert code == 0, err
    assert _marks(db) == (None, [])


def test_a_certificate_that_fails_leaves_the_marks_it_would_replace(tmp_path: Path, rubrics: dict[str, Rubric],
                                                                   capsys: pytest.CaptureFixture[str]):
    db = tmp_path / "c.db"
    with Store(db) as store:
        study(store, rubrics["binary"], wrong_among_sure=1)
    assert run(capsys, *ASSIGN, "--db", db, "--escalate")[0] == 0
    before = _marks(db)
    code, _, err = run(capsys, *ASSIGN, "--db", db, "--escalate", "--judge", "judge:nobody:binary@p1")
    assert code == 1
    assert "is not a judge" in err
    assert "Traceback" not in err
    assert _marks(db) == before


def test_the_migration_adds_the_tables_to_a_database_an_earlier_version_left(tmp_path: Path,
                                                                            rubrics: dict[str, Rubric],
                                                                            capsys: pytest.CaptureFixture[str]):
    db = tmp_path / "old.db"
    with Store(db) as store:
        study(store, rubrics["binary"], wrong_among_sure=1)
    with sqlite3.connect(db) as conn:  # as the previous release left it
        conn.execute("DROP TABLE judge_decisions")
        conn.execute("DROP TABLE judge_certificates")
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm016_judge_decisions'")
    conn.close()
    code, _, err = run(capsys, *ASSIGN, "--db", db, "--escalate")
    assert code == 0, err
    terms, decided = _marks(db)
    assert terms is not None
    assert terms["lambda_"] == 1.0
    assert len(decided) == 6
