"""Every road a category takes in and out: exported by name as JSON Lines, CSV and a rating form, imported back
into another database unchanged, merged from another database, and refused when another database holds a number
that is no category's position."""

from __future__ import annotations

import csv
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from judge_tui.store import Store

pytestmark = pytest.mark.slow

VERDICTS = {"p0": "A", "p1": "tie", "p2": "B"}


def run(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "judge_tui", *map(str, args)], capture_output=True, text=True,
                          timeout=120)


def ok(*args: object) -> str:
    done = run(*args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def database(tmp_path: Path, name: str, rated: bool) -> Path:
    db = tmp_path / name
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps({"id": i, "prompt": "q", "response_a": "a", "response_b": "b"}) + "\n"
                             for i in VERDICTS))
    ok("import", items, "--rubric", "pairwise", "--db", db)
    if rated:
        ratings = tmp_path / "ann.jsonl"
        ratings.write_text("".join(json.dumps({"item_id": i, "preference": v}) + "\n" for i, v in VERDICTS.items()))
        ok("import-ratings", ratings, "--rater", "ann", "--kind", "human", "--db", db)
    return db


def verdicts(db: Path, rater: str = "ann") -> dict[str, str | None]:
    with Store(db) as store:
        return {i: (r.verdict if (r := store.rating(i, rater)) else None) for i in VERDICTS}


def written(path: Path, fmt: str) -> dict[str, str]:
    """Each item's score as the exported file writes it."""
    if fmt == "jsonl":
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        return {row["item_id"]: row["scores"]["preference"] for row in rows}
    if fmt == "csv":
        with path.open(newline="") as handle:
            return {row["item_id"]: row["preference"] for row in csv.DictReader(handle)}
    form = json.loads(path.read_text())
    return {entry["submission_id"]: entry["preference_score"] for entry in form["ratings"]}


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "rating-form"])
def test_exported_by_name_and_imported_back_unchanged(tmp_path: Path, fmt: str) -> None:
    source = database(tmp_path, "source.db", rated=True)
    out = tmp_path / {"jsonl": "out.jsonl", "csv": "out.csv", "rating-form": "out.json"}[fmt]
    ok("export", "--db", source, "--format", fmt, "--rater", "ann", "-o", out)
    assert written(out, fmt) == VERDICTS  # by name, never the stored position
    target = database(tmp_path, "target.db", rated=False)
    ok("import-ratings", out, "--rater", "ann", "--kind", "human", "--db", target)
    assert verdicts(target) == VERDICTS


def test_merged_from_another_database_and_a_stray_number_refused(tmp_path: Path) -> None:
    other = database(tmp_path, "other.db", rated=True)
    mine = database(tmp_path, "mine.db", rated=False)
    ok("merge", other, "--db", mine)
    assert verdicts(mine) == VERDICTS
    with sqlite3.connect(other) as conn:  # another database whose row is no category's position
        conn.execute("UPDATE ratings SET scores = '{\"preference\": 0.3}' WHERE item_id = 'p1'")
    fresh = database(tmp_path, "fresh.db", rated=False)
    done = run("merge", other, "--db", fresh)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert "not one of the categories A, B, tie" in done.stderr
    assert verdicts(fresh) == dict.fromkeys(VERDICTS)  # nothing half-merged
