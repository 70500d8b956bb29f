"""Exports of a rubric of categories write the overall by the category's name, as its scores are written, and
each export imported into a fresh database gives back the very same ratings (through the real CLI)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from judge_tui.store import Store
from tests.categories.topic_study import TOPICS, ok, write_topic_rubric

pytestmark = pytest.mark.slow

# Every category once; notes, a flag and seconds (in half minutes, which a rating form writes exactly).
CHOSEN = {f"q{n}": TOPICS[(4 * n) % 9] for n in range(9)}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    write_topic_rubric(home)
    return home


def with_items(home: Path, db: Path) -> Path:
    items = home.parent / "items.jsonl"
    items.write_text("".join(json.dumps({"id": i, "question": f"Question {i}?"}) + "\n" for i in CHOSEN))
    ok(home, "import", items, "--rubric", "topic", "--db", db)
    return db


def ratings(db: Path, rater: str) -> dict[str, tuple[object, ...]]:
    with Store(db) as store:
        return {i: (r.scores, r.overall, r.verdict, r.notes, r.seconds, r.flagged, r.flag_reason)
                for i in CHOSEN if (r := store.rating(i, rater)) is not None}


@pytest.fixture
def rated(home: Path) -> Path:
    db = with_items(home, home.parent / "source.db")
    rows = home.parent / "ann.jsonl"
    rows.write_text("".join(json.dumps({"item_id": i, "topic": v, "notes": f"why {i}" if n % 2 else "",
                                        "seconds": 30.0 * (n + 1), "flagged": n == 3, "flag_reason": "odd" if n == 3 else ""})
                            + "\n" for n, (i, v) in enumerate(CHOSEN.items())))
    ok(home, "import-ratings", rows, "--rater", "ann", "--kind", "human", "--db", db)
    return db


def overall_written(path: Path, fmt: str) -> dict[str, object]:
    if fmt == "jsonl":
        return {row["item_id"]: row["overall"] for row in map(json.loads, path.read_text().splitlines())}
    if fmt == "csv":
        with path.open(newline="") as handle:
            return {row["item_id"]: row["overall"] for row in csv.DictReader(handle)}
    return {entry["submission_id"]: entry["expert_overall"] for entry in json.loads(path.read_text())["ratings"]}


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "rating-form"])
def test_the_overall_is_exported_by_name_and_the_export_imports_back_exactly(home: Path, rated: Path,
                                                                             fmt: str) -> None:
    out = home.parent / {"jsonl": "out.jsonl", "csv": "out.csv", "rating-form": "out.json"}[fmt]
    ok(home, "export", "--db", rated, "--format", fmt, "--rater", "ann", "-o", out)
    assert overall_written(out, fmt) == CHOSEN  # the name, never the stored position (0.125, ...)
    fresh = with_items(home, home.parent / "fresh.db")
    ok(home, "import-ratings", out, "--rater", "ann", "--kind", "human", "--db", fresh)
    assert ratings(fresh, "ann") == ratings(rated, "ann")
    assert len(ratings(fresh, "ann")) == len(CHOSEN)


def test_the_review_template_writes_categories_by_name(home: Path, rated: Path) -> None:
    judge_rows = home.parent / "judge.jsonl"
    judge_rows.write_text("".join(json.dumps({"item_id": i, "topic": "maths"}) + "\n" for i in CHOSEN))
    ok(home, "import-ratings", judge_rows, "--rater", "judge:m", "--kind", "judge", "--db", rated)
    out = home.parent / "review.md"
    ok(home, "export", "--db", rated, "--format", "review-template", "--rubric", "topic", "--rater", "ann",
       "--judge", "judge:m", "-o", out)
    rows = [line.split(" | ") for line in out.read_text().splitlines() if line.startswith("| ") and " q" in line]
    assert {row[1]: (row[2], row[3]) for row in rows} == {i: (v, "maths") for i, v in CHOSEN.items()}
