"""The judge's certificate in force through merges and bundles: it stays in the lead's database, with the plan it
was made with. No bundle carries it, no merge copies or overwrites it, and a merge that brings a newer plan (which
the certificate was not made with) withdraws it. Through the real commands on real database files."""

from __future__ import annotations

import shutil
import sqlite3
from dataclasses import asdict
from pathlib import Path

import pytest

from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from tests.formats_helpers import run
from tests.test_certify import study

ASSIGN = ("assign", "--rubric", "binary", "--experts", "ann,bob", "--overlap", "0")


def _marks(db: Path) -> tuple[dict[str, object] | None, list[str]]:
    with Store(db) as store:
        terms = store.certificate_in_force("binary")
        return (asdict(terms) if terms else None), store.judge_decided("binary")


def _rows(db: Path, table: str) -> int:
    with sqlite3.connect(db) as conn:
        count = int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    conn.close()
    return count


@pytest.fixture
def lead(tmp_path: Path, rubrics: dict[str, Rubric], capsys: pytest.CaptureFixture[str]) -> Path:
    """The lead's database with a plan made with --escalate: its certificate leaves 6 items to the judge."""
    db = tmp_path / "lead.db"
    with Store(db) as store:
        study(store, rubrics["binary"], wrong_among_sure=1)
    code, _, err = run(capsys, *ASSIGN, "--db", db, "--escalate")
    assert code == 0, err
    terms, decided = _marks(db)
    assert terms is not None
    assert len(decided) == 6
    return db


def test_no_bundle_carries_the_certificate_and_importing_one_leaves_it(lead: Path, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]):
    before = _marks(lead)
    handed = tmp_path / "for-ann.db"
    code, _, err = run(capsys, "export", "--bundle", "--for", "ann", "-o", handed, "--db", lead)
    assert code == 0, err
    assert _rows(handed, "assignment_plans") == 1  # her plan travels
    assert _rows(handed, "judge_certificates") == 0  # the certificate and its marks do not
    assert _rows(handed, "judge_decisions") == 0
    laptop = tmp_path / "ann.db"
    code, _, err = run(capsys, "import", "--bundle", handed, "--db", laptop)
    assert code == 0, err
    assert _marks(laptop) == (None, [])
    returned = tmp_path / "from-ann.db"
    code, _, err = run(capsys, "export", "--bundle", "--rater", "ann", "-o", returned, "--db", lead)
    assert code == 0, err
    assert _rows(returned, "judge_certificates") == 0
    code, _, err = run(capsys, "import", "--bundle", returned, "--db", lead)
    assert code == 0, err
    assert _marks(lead) == before


def test_a_merge_never_copies_or_overwrites_a_certificate(lead: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]):
    other = tmp_path / "other.db"
    shutil.copy(lead, other)
    with Store(other) as store:  # another certificate, on the same plan, marking other items
        terms = store.certificate_in_force("binary")
        assert terms is not None
        store.record_certificate("binary", terms, ["B000", "B001"])
    before = _marks(lead)
    code, out, err = run(capsys, "merge", other, "--db", lead)
    assert code == 0, err
    assert "withdrawn" not in out
    assert _marks(lead) == before
    fresh = tmp_path / "fresh.db"
    code, _, err = run(capsys, "merge", other, "--db", fresh)
    assert code == 0, err
    assert _rows(fresh, "assignment_plans") == 1  # the plan is copied, its certificate is not
    assert _marks(fresh) == (None, [])


def test_a_merge_that_brings_the_plan_in_force_withdraws_the_certificate(lead: Path, tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]):
    older, newer = tmp_path / "older.db", tmp_path / "newer.db"
    shutil.copy(lead, older)
    assert run(capsys, *ASSIGN, "--db", older, "--seed", "7")[0] == 0  # a plan there, older than the lead's next
    assert run(capsys, *ASSIGN, "--db", lead, "--escalate")[0] == 0  # the lead plans again, with a certificate
    in_force = _marks(lead)
    assert in_force[0] is not None
    code, out, err = run(capsys, "merge", older, "--db", lead)
    assert code == 0, err
    assert "withdrawn" not in out  # the lead's plan stays the newest: its certificate stays in force
    assert _marks(lead) == in_force
    shutil.copy(lead, newer)
    assert run(capsys, *ASSIGN, "--db", newer, "--seed", "8")[0] == 0  # a newer plan, made without --escalate
    code, out, err = run(capsys, "merge", newer, "--db", lead)
    assert code == 0, err
    assert _marks(lead) == (None, [])
    assert "note: the plan in force for rubric binary is now theirs, so the judge's certificate made with ours is " \
           "withdrawn: every item is the experts' to rate until `judge-tui assign --rubric binary --escalate` plans " \
           "again." in " ".join(out.split())
