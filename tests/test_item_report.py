"""judge-tui report --items: each item's human and judge scores, the gaps, the flags and the notes."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from judge_tui.cli import main
from judge_tui.model.records import Item, Rating
from judge_tui.store import Store

NOTE = "eviction untested \x1b[31mred\x1b[0m"
JUDGE = "judge:m:cis@1"


@pytest.fixture
def rated_cis_db(tmp_path: Path, rubrics) -> Path:
    """C1 and C2 rated by EXP001 and the judge, C3 by the judge only. Hand-worked gaps (judge - human) on C1:
    r -0.25, a 0, t +0.5, l -0.25, overall +0.05; at the default tolerance ±0.15 only a is aligned (1/4)."""
    path = tmp_path / "items.db"
    with Store(path) as store:
        version = store.ensure_rubric_version(rubrics["cis"])
        store.add_items([Item("C1", "cis", {"task": "1"}, task_type="=SUM(A1)"),
                         Item("C2", "cis", {"task": "2"}, task_type="Parser", split="test"),
                         Item("C3", "cis", {"task": "3"}, task_type="Parser")])
        store.ensure_rater("EXP001", "human")
        store.ensure_rater(JUDGE, "judge")
        store.save_rating(Rating("C1", "EXP001", version, {"r": 1.0, "a": 0.75, "t": 0.5, "l": 0.25}, overall=0.6,
                                 notes=NOTE, flagged=True, flag_reason="task text unclear"))
        store.save_rating(Rating("C2", "EXP001", version, dict.fromkeys("ratl", 0.5), overall=0.5))
        store.save_rating(Rating("C1", JUDGE, version, {"r": 0.75, "a": 0.75, "t": 1.0, "l": 0.0}, overall=0.65,
                                 notes="tests cover eviction"))
        store.save_rating(Rating("C2", JUDGE, version, dict.fromkeys("ratl", 0.5), overall=0.5))
        store.save_rating(Rating("C3", JUDGE, version, dict.fromkeys("ratl", 1.0), overall=1.0))
    return path


def _cli(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "judge_tui", "report", "--items", *map(str, args)],
                          capture_output=True, text=True, check=False)


def test_csv_rows_match_the_hand_worked_gaps(rated_cis_db: Path, tmp_path: Path):
    out = tmp_path / "items.csv"
    done = _cli("--db", rated_cis_db, "-o", out)  # CSV from the file's name
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(out.open(newline="")))
    assert [r["item_id"] for r in rows] == ["C1", "C2", "C3"]
    c1 = rows[0]
    assert c1["task_type"] == "'=SUM(A1)"  # a spreadsheet will not run it
    assert [c1[f"{d}_gap"] for d in "ratl"] == ["-0.25", "0.0", "0.5", "-0.25"]
    assert (c1["r_human"], c1["r_judge"], c1["overall_human"], c1["overall_judge"], c1["overall_gap"]) == (
        "1.0", "0.75", "0.6", "0.65", "0.05")
    assert c1["aligned"] == "1/4"
    assert c1["flags"] == "EXP001: task text unclear"
    assert c1["human_notes"] == f"EXP001: {NOTE}"
    assert c1["judge_notes"] == f"{JUDGE}: tests cover eviction"
    assert rows[1]["aligned"] == "4/4"
    assert rows[1]["overall_gap"] == "0.0"
    assert rows[1]["flags"] == ""
    c3 = rows[2]
    assert (c3["r_human"], c3["r_judge"], c3["r_gap"], c3["aligned"]) == ("", "1.0", "", "")


@pytest.mark.slow
def test_jsonl_and_markdown(rated_cis_db: Path, tmp_path: Path):
    out = tmp_path / "items.jsonl"
    assert _cli("--db", rated_cis_db, "-o", out).returncode == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[0]["flags"] == [{"rater": "EXP001", "reason": "task text unclear"}]
    assert rows[0]["human_notes"] == {"EXP001": NOTE}  # a file keeps the note exactly
    assert rows[0]["t_gap"] == 0.5
    assert rows[2]["t_human"] is None
    assert rows[2]["t_gap"] is None
    done = _cli("--db", rated_cis_db, "--format", "markdown", "--split", "test")
    assert done.returncode == 0, done.stderr
    assert "| C2 | 0.5 / 0.5 / 0 | 0.5 / 0.5 / 0 |" in done.stdout
    assert "| C1 |" not in done.stdout
    markdown = _cli("--db", rated_cis_db, "--format", "markdown").stdout
    assert "| C1 | 1 / 0.75 / -0.25 | 0.75 / 0.75 / 0 | 0.5 / 1 / 0.5 |" in markdown
    assert "\x1b" not in markdown
    assert "EXP001: eviction untested red" in markdown


def test_on_a_terminal_notes_cannot_act_on_it(rated_cis_db: Path, capsys, monkeypatch):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["report", "--items", "--format", "csv", "--db", str(rated_cis_db)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "EXP001: eviction untested red" in out


@pytest.mark.slow
def test_wrong_format_is_a_message(rated_cis_db: Path):
    done = _cli("--db", rated_cis_db, "--format", "json")
    assert done.returncode == 1
    assert "--items writes csv, jsonl, markdown" in done.stderr
    plain = subprocess.run([sys.executable, "-m", "judge_tui", "report", "--format", "csv", "--db", str(rated_cis_db)],
                           capture_output=True, text=True, check=False)
    assert plain.returncode == 1
    assert "add --items" in plain.stderr
    assert "Traceback" not in plain.stderr
