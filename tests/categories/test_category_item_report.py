"""`report --items` on scales of categories (through the real CLI): each side is its raters' categories, the most
frequent and the split, never a mean of category positions; a nominal dimension has no gap and aligns only on
the same category."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.categories.topic_study import ok, rate, write_topic_rubric

pytestmark = pytest.mark.slow



@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / "rubrics").mkdir(parents=True)
    return home


@pytest.fixture
def pairs(home: Path) -> Path:
    """Three experts and a judge on the pairwise rubric (A, B or tie)."""
    db = home.parent / "pairs.db"
    items = home.parent / "pairs.jsonl"
    items.write_text("".join(json.dumps({"id": f"p{n}", "prompt": "q", "response_a": "a", "response_b": "b"}) + "\n"
                             for n in range(4)))
    ok(home, "import", items, "--rubric", "pairwise", "--db", db)
    rate(home, db, "ann", "human", "preference", {"p0": "B", "p1": "A", "p2": "A", "p3": "tie"})
    rate(home, db, "bob", "human", "preference", {"p0": "B", "p1": "tie", "p2": "tie", "p3": "tie"})
    rate(home, db, "cat", "human", "preference", {"p0": "A", "p1": "tie"})
    rate(home, db, "judge:m", "judge", "preference", {"p0": "B", "p1": "B", "p2": "B", "p3": "tie"})
    return db


def rows(home: Path, db: Path, *args: str) -> dict[str, dict[str, str]]:
    out = home.parent / "items.csv"
    ok(home, "report", "--items", "--db", db, "-o", out, *args)
    with out.open(newline="") as handle:
        return {row["item_id"]: row for row in csv.DictReader(handle)}


def test_several_experts_show_their_categories_never_their_mean(home: Path, pairs: Path) -> None:
    found = rows(home, pairs, "--raters", "ann+bob+cat,judge:m")
    shown = {i: (r["preference_human"], r["preference_human_split"], r["preference_judge"], r["preference_gap"],
                 r["aligned"]) for i, r in found.items()}
    assert shown == {
        "p0": ("B", "B (2 of 3) · A", "B", "", "1/1"),
        "p1": ("tie", "tie (2 of 3) · A", "B", "", "0/1"),  # the mean of A, tie, tie is no category at all
        "p2": ("", "no majority: A · tie", "B", "", ""),  # the mean of A and tie would read B
        "p3": ("tie", "tie (2 of 2)", "tie", "", "1/1"),
    }
    assert found["p2"]["overall_human_split"] == "no majority: A · tie"  # the overall is the one dimension's label
    markdown = ok(home, "report", "--items", "--db", pairs, "--raters", "ann+bob+cat,judge:m", "--format", "markdown")
    assert "| preference (H / J) | overall (H / J) |" in markdown
    assert "| p0 | B (2 of 3) · A / B | B (2 of 3) · A / B | 1/1 |" in markdown
    assert "aligned = judged dimensions in the same category" in markdown


@pytest.mark.parametrize("order", ["nominal", "ordered"])
def test_neighbouring_categories_align_only_on_an_ordered_scale(home: Path, order: str) -> None:
    """Nine categories lie 0.125 apart as stored, inside the default tolerance (±0.15): on a nominal scale
    maths and physics are simply different."""
    write_topic_rubric(home, order)
    db = home.parent / "topic.db"
    items = home.parent / "topics.jsonl"
    items.write_text("".join(json.dumps({"id": f"q{n}", "question": "?"}) + "\n" for n in range(2)))
    ok(home, "import", items, "--rubric", "topic", "--db", db)
    rate(home, db, "ann", "human", "topic", {"q0": "maths", "q1": "art"})
    rate(home, db, "judge:m", "judge", "topic", {"q0": "physics", "q1": "maths"})
    found = rows(home, db)
    shown = {i: (r["topic_human"], r["topic_judge"], r["topic_gap"], r["aligned"]) for i, r in found.items()}
    if order == "nominal":
        assert shown == {"q0": ("maths", "physics", "", "0/1"), "q1": ("art", "maths", "", "0/1")}
    else:  # categories apart, judge's minus human's
        assert shown == {"q0": ("maths", "physics", "1", "1/1"), "q1": ("art", "maths", "-7", "0/1")}
