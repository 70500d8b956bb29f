"""Which items the judge's certificate in force leaves to the judge, as the lead's commands list them: a count in
`judge-tui status` (text and JSON) and a column of `report --items` (CSV, JSON Lines, Markdown), through the real
commands on a real database."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from tests.formats_helpers import run
from tests.test_certify import JUDGE, study

ASSIGN = ("assign", "--rubric", "binary", "--experts", "ann,bob", "--overlap", "0")
DECIDED = [f"A{k:03d}" for k in range(6)]  # test_certify's study: λ 1 leaves these 6 of 12 unrated items to the judge


def _study(tmp_path: Path, rubric: Rubric) -> Path:
    db = tmp_path / "c.db"
    with Store(db) as store:
        study(store, rubric, wrong_among_sure=1)
    return db


def test_status_counts_the_items_the_judge_decides(tmp_path: Path, rubrics: dict[str, Rubric],
                                                   capsys: pytest.CaptureFixture[str]):
    db = _study(tmp_path, rubrics["binary"])
    code, out, err = run(capsys, "status", "--db", db, "--format", "json")
    assert code == 0, err
    (part,) = json.loads(out)["rubrics"]
    assert (part["judge_decides"], part["certificate"]) == (0, None)
    code, out, _ = run(capsys, "status", "--db", db)
    assert "certificate" not in out
    assert run(capsys, *ASSIGN, "--db", db, "--escalate")[0] == 0
    code, out, err = run(capsys, "status", "--db", db, "--format", "json")
    assert code == 0, err
    (part,) = json.loads(out)["rubrics"]
    assert part["judge_decides"] == 6
    assert part["certificate"] == {"judge": JUDGE, "members": [], "alpha": 0.1, "delta": 0.1, "lambda": 1.0,
                                   "judge_decides": 6}
    code, out, err = run(capsys, "status", "--db", db)
    assert code == 0, err
    assert "the judge's certificate in force" in out
    row = next(line for line in out.splitlines() if JUDGE in line and "items" in line)
    assert [cell for cell in row.split() if cell != "│"] == [JUDGE, "0.1", "0.1", "1", "6", "items"]
    assert run(capsys, *ASSIGN, "--db", db)[0] == 0  # a plan without --escalate removes the certificate
    code, out, _ = run(capsys, "status", "--db", db, "--format", "json")
    assert json.loads(out)["rubrics"][0]["judge_decides"] == 0


def test_the_item_listing_marks_the_items_the_judge_decides(tmp_path: Path, rubrics: dict[str, Rubric],
                                                            capsys: pytest.CaptureFixture[str]):
    db = _study(tmp_path, rubrics["binary"])
    items = ("report", "--db", db, "--rubric", "binary", "--items")
    code, out, err = run(capsys, *items, "--format", "jsonl")
    assert code == 0, err
    assert all("judge_decides" not in json.loads(line) for line in out.splitlines())  # no certificate: no column
    assert run(capsys, *ASSIGN, "--db", db, "--escalate")[0] == 0
    code, out, err = run(capsys, *items, "--format", "jsonl")
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) > len(DECIDED)
    assert [r["item_id"] for r in rows if r["judge_decides"] is True] == DECIDED
    assert all(r["judge_decides"] is False for r in rows if r["item_id"] not in DECIDED)
    code, out, err = run(capsys, *items)
    assert code == 0, err
    table = list(csv.DictReader(io.StringIO(out)))
    assert [r["item_id"] for r in table if r["judge_decides"] == "True"] == DECIDED
    assert {r["judge_decides"] for r in table} == {"True", "False"}
    code, out, err = run(capsys, *items, "--format", "markdown")
    assert code == 0, err
    assert "| Judge decides |" in out
    marked = [line.split("|")[1].strip() for line in out.splitlines() if line.rstrip().endswith("| yes |")]
    assert marked == DECIDED
