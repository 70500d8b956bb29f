"""Nominal categories are never near one another: stored as positions 0.125 apart (nine categories), two
neighbours fall inside the default tolerance (±0.15), yet maths and physics are simply different. The report's
summary, the alignment interval, the lead's expert disagreements and the disagreement list must count them so;
several judges as one side on a nominal scale are their majority, never their mean."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from statsmodels.stats.proportion import proportion_confint

from judge_tui.analysis.report import judge_disagreements
from judge_tui.model.rubrics import load_rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.store import Store
from judge_tui.tui.screens.adjudication import disagreements_to_settle
from tests.categories.topic_study import ok, rate, write_topic_rubric

pytestmark = pytest.mark.slow

ANN = {"q0": "maths", "q1": "physics", "q2": "art", "q3": "sport", "q4": "music", "q5": "history"}
JUDGE = {"q0": "maths", "q1": "chemistry", "q2": "art", "q3": "art", "q4": "music", "q5": "geography"}  # 3 neighbours


def topic_db(tmp_path: Path, order: str) -> tuple[Path, Path]:
    home = tmp_path / "home"
    write_topic_rubric(home, order)
    db, items = tmp_path / "topic.db", tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps({"id": i, "question": "?"}) + "\n" for i in ANN))
    ok(home, "import", items, "--rubric", "topic", "--db", db)
    return home, db


def report(home: Path, db: Path, *args: str) -> dict:
    out = db.parent / "report.json"
    ok(home, "report", "--db", db, "--format", "json", "-o", out, *args)
    return json.loads(out.read_text())


@pytest.mark.parametrize("order", ["nominal", "ordered"])
def test_the_summary_and_the_alignment_interval_count_as_the_dimension_does(tmp_path: Path, order: str) -> None:
    home, db = topic_db(tmp_path, order)
    rate(home, db, "ann", "human", "topic", ANN)
    rate(home, db, "judge:m", "judge", "topic", JUDGE)
    found = report(home, db)
    dimension, summary = found["dimensions"][0], found["summary"]
    aligned = 3 if order == "nominal" else 6  # on an ordered scale the neighbours are within the tolerance
    assert dimension["alignment_rate"] == summary["alignment_rate"] == aligned / 6
    assert summary["dimension_agreements"] == aligned
    low, high = proportion_confint(aligned, 6, alpha=0.05, method="wilson")
    interval = dimension["intervals"]["alignment_rate"]
    assert (interval["low"], interval["high"]) == pytest.approx((low, high), abs=1e-9)
    assert summary["intervals"]["alignment_rate"]["low"] <= aligned / 6 <= summary["intervals"]["alignment_rate"]["high"]


def test_neighbouring_categories_are_a_disagreement_for_the_lead_and_the_disagreement_list(tmp_path: Path) -> None:
    home, db = topic_db(tmp_path, "nominal")
    rate(home, db, "ann", "human", "topic", ANN)
    rate(home, db, "bob", "human", "topic", JUDGE)
    rate(home, db, "judge:m", "judge", "topic", {"q0": "physics", "q1": "sport", "q2": "art", "q3": "sport",
                                                  "q4": "music", "q5": "history"})
    rubric = load_rubric(home / "rubrics" / "topic.rubric.toml")
    with Store(db) as store:
        _view, items = disagreements_to_settle(store, rubric, "lead", split=None, settings=AgreementSettings())
        assert sorted(d.item_id for d in items) == ["q1", "q3", "q5"]
        listed = judge_disagreements(store, rubric, "ann", "judge:m", AgreementSettings())
    # maths against physics (stored 0.125 apart) is as much a disagreement as physics against sport (0.875)
    assert {row.item_id: (row.gap, row.differing) for row in listed if row.differing} == {
        "q0": (1.0, 1), "q1": (1.0, 1)}


def test_several_judges_as_one_side_are_their_majority(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    db, items = tmp_path / "pairs.db", tmp_path / "pairs.jsonl"
    items.write_text("".join(json.dumps({"id": f"p{n}", "prompt": "q", "response_a": "a", "response_b": "b"}) + "\n"
                             for n in range(3)))
    ok(home, "import", items, "--rubric", "pairwise", "--db", db)
    rate(home, db, "ann", "human", "preference", {"p0": "A", "p1": "B", "p2": "tie"})
    said = [{"p0": "A", "p1": "A", "p2": "tie"}, {"p0": "tie", "p1": "B", "p2": "tie"},
            {"p0": "tie", "p1": "B", "p2": "A"}]
    for n, verdicts in enumerate(said):
        rate(home, db, f"judge:{n}", "judge", "preference", verdicts)
    found = report(home, db, "--raters", "ann,judge:0+judge:1+judge:2")
    # Majorities by hand: tie, B, tie (the mean of A, tie, tie would be B, of A, A, B nearly A)
    counts = found["dimensions"][0]["confusion"]["counts"]
    assert counts == [[0, 0, 1], [0, 1, 0], [0, 0, 1]]
