"""A rater's current rating of an item: one rule, the same answer in every reader.

The scenario every test here builds: the lead's database holds the rubric's newer version (made in February),
under which ann rated six items PASS in 40 s each with a note "after the change", and the judge judged them
PASS. A copy made in January holds the older version, under which ann rated the same items FAIL in 10 s,
flagged P01 and noted "before the change", and the judge judged P01 FAIL. Merging the copy in gives the older
version a newer row id than the newer one; its date says it is older, so ann's and the judge's current
ratings stay the February ones, for the report, the export, status, flags, the queue and the rating screen.
"""

from __future__ import annotations

import ast
import csv
import dataclasses
import io
import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from judge_tui.analysis import scores as sc
from judge_tui.analysis.queue_orders import prepare_queue
from judge_tui.cli import main
from judge_tui.model import queue_orders as qo
from judge_tui.model.records import Rating
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from tests.narrowing import present
from tests.team_fixtures import binary_item

ITEMS = [f"P{n:02d}" for n in range(1, 7)]
JANUARY, FEBRUARY = "2026-01-05T09:00:00.000+00:00", "2026-02-05T09:00:00.000+00:00"


def _rate(store: Store, rubric: Rubric, rater: str, kind: str, label: float, seconds: float, notes: str,
          items: list[str], flagged: tuple[str, ...] = ()) -> None:
    version = store.ensure_rubric_version(rubric)
    store.ensure_rater(rater, kind)
    store.save_ratings([
        Rating(item_id=item, rater_id=rater, rubric_version_id=version, scores={"label": label},
               overall=rubric.overall_score({"label": label}), verdict=rubric.verdict({"label": label}),
               notes=notes, seconds=seconds, flagged=item in flagged, flag_reason="unclear" if item in flagged
               else "")
        for item in items])


def _database(path: Path, rubric: Rubric, made: str, *, label: float, seconds: float, notes: str,
              judged: list[str], judge_label: float, flagged: tuple[str, ...] = ()) -> Path:
    with Store(path) as store:
        store.ensure_rubric_version(rubric)
        store.add_items([binary_item(n) for n in range(1, 7)])
        _rate(store, rubric, "ann", "human", label, seconds, notes, ITEMS, flagged)
        _rate(store, rubric, "judge-x", "judge", judge_label, 1.0, "", judged)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE rubric_versions SET created_at = ?", [made])
    conn.close()
    return path


@pytest.fixture
def merged(tmp_path: Path, rubrics: dict[str, Rubric]) -> Path:
    """The lead's database with the January copy merged in by `judge-tui merge` (a real process)."""
    newer = rubrics["binary"]
    older = dataclasses.replace(newer, description=newer.description + " (the January wording)")
    copy = _database(tmp_path / "january.db", older, JANUARY, label=0.0, seconds=10.0, notes="before the change",
                     judged=["P01"], judge_label=0.0, flagged=("P01",))
    lead = _database(tmp_path / "lead.db", newer, FEBRUARY, label=1.0, seconds=40.0, notes="after the change",
                     judged=ITEMS, judge_label=1.0)
    done = subprocess.run([sys.executable, "-m", "judge_tui", "merge", str(copy), "--db", str(lead)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with Store(lead) as store:
        ids = {v["created_at"]: v["id"] for v in store.rubric_versions("binary")}
        # What makes the rule matter: the older version now has the higher row id.
        assert ids[JANUARY] > ids[FEBRUARY]
        assert store.count_ratings("ann") == 12
    return lead


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    assert main(list(args)) == 0
    return capsys.readouterr().out


def test_the_report_counts_the_newer_versions_ratings(merged: Path, capsys):
    report = json.loads(_run(capsys, "report", "--db", str(merged), "--rubric", "binary", "--raters", "ann,judge-x",
                             "--format", "json"))
    [label] = report["dimensions"]
    # Every current pair is PASS against PASS: ann's February ratings against the judge's February judgments.
    assert label["n"] == 6
    assert label["confusion"] == {"labels": ["FAIL", "PASS"], "counts": [[0, 0], [0, 6]]}


def test_the_item_report_shows_the_newer_versions_scores_and_notes(merged: Path, capsys):
    rows = list(csv.DictReader(io.StringIO(_run(capsys, "report", "--items", "--db", str(merged), "--rubric",
                                                "binary", "--raters", "ann,judge-x"))))
    assert [r["item_id"] for r in rows] == ITEMS
    assert {(r["label_human"], r["label_judge"], r["flags"], r["human_notes"]) for r in rows} == {
        ("PASS", "PASS", "", "ann: after the change")}


def test_the_rating_form_export_holds_the_newer_versions_ratings(merged: Path, tmp_path: Path):
    out = tmp_path / "ann.json"
    assert main(["export", "--db", str(merged), "--rater", "ann", "--rubric", "binary", "--format", "rating-form",
                 "-o", str(out)]) == 0
    form = json.loads(out.read_text())
    assert [e["submission_id"] for e in form["ratings"]] == ITEMS
    assert {(e["label_score"], e["notes"], e["flagged"]) for e in form["ratings"]} == {
        ("PASS", "after the change", False)}
    assert {e["time_spent_minutes"] for e in form["ratings"]} == {0.67}  # 40 s, not the copy's 10 s


def test_status_times_the_newer_versions_ratings(merged: Path, capsys):
    status = json.loads(_run(capsys, "status", "--db", str(merged), "--rubric", "binary", "--format", "json"))
    [rubric] = status["rubrics"]
    [ann] = rubric["experts"]
    assert (ann["rated"], ann["flagged"]) == (6, 0)
    assert ann["time"] == {"items": 6, "total_seconds": 240.0, "median_seconds": 40.0, "unknown": 0}


def test_the_validity_page_orders_other_judges_by_their_newer_version(merged: Path, rubrics, capsys):
    """Other judges come newest rubric version first, then most ratings: judge-x, whose newest ratings are
    February's, ties with judge-w's February ratings and has more, though its January one has the higher row id."""
    with Store(merged) as store:
        _rate(store, rubrics["binary"], "judge-w", "judge", 1.0, 1.0, "", ITEMS)
        _rate(store, rubrics["binary"], "judge-z", "judge", 1.0, 1.0, "", ITEMS)
    report = json.loads(_run(capsys, "report", "--db", str(merged), "--rubric", "binary", "--raters", "ann,judge-z",
                             "--format", "json"))
    assert [j["judge"] for j in report["judge_validity"]["judges"]] == ["judge-z", "judge-x", "judge-w"]


def test_flags_follow_the_newer_versions_ratings(merged: Path, capsys):
    flags = json.loads(_run(capsys, "flags", "--db", str(merged), "--rubric", "binary", "--format", "json"))
    assert flags == []  # only the January rating of P01 was flagged


def test_a_balanced_queue_stratifies_by_the_judges_newer_judgments(merged: Path, rubrics):
    with Store(merged) as store:
        prepare_queue(store, rubrics["binary"], "cat", qo.BALANCED, seed=1)
        strata = {item: stratum for item, _position, stratum in store.queue_entries("cat", "binary")}
    assert set(strata) == set(ITEMS)
    assert len(set(strata.values())) == 1  # every item judged PASS: one stratum, P01 included


def test_the_rating_screen_and_the_figures_read_the_same_current_rating(merged: Path, rubrics):
    with Store(merged) as store:
        assert present(store.rating("P01", "ann")).scores == {"label": 1.0}
        notes = store.first_run_notes("binary")
        assert {notes[("ann", item)] for item in ITEMS} == {"after the change"}
        ratings = sc.load(store, rubrics["binary"])
        assert ratings.first_runs("ann").overall.tolist() == [1.0] * 6
        assert ratings.first_runs("judge-x").overall.tolist() == [1.0] * 6
        assert ratings.by_repeat("judge-x")[0].overall.tolist() == [1.0] * 6


def test_versions_made_in_the_same_millisecond_go_by_row_id_everywhere(tmp_path: Path, rubrics):
    newer = rubrics["binary"]
    older = dataclasses.replace(newer, description=newer.description + " (another wording)")
    path = _database(tmp_path / "one.db", older, JANUARY, label=0.0, seconds=10.0, notes="first", judged=[],
                     judge_label=0.0)
    with Store(path) as store:
        _rate(store, newer, "ann", "human", 1.0, 20.0, "second", ITEMS)
        store.conn.execute("UPDATE rubric_versions SET created_at = ?", [JANUARY])
        store.conn.commit()
        assert [v["number"] for v in store.rubric_versions("binary")] == [1, 2]
        assert present(store.rating("P01", "ann")).notes == "second"
        assert sc.load(store, newer).first_runs("ann").overall.tolist() == [1.0] * 6


# Ways of choosing the newest rubric version outside the view: by its row id (MAX, ORDER BY, a comparison).
_SECOND_COPIES = re.compile(r"MAX\(\s*\w*\.?rubric_version_id|ORDER BY[^\"']*rubric_version_id|"
                            r"rubric_version_id\s*[<>]|ROW_NUMBER\(\)|created_at DESC, id DESC")


def test_no_reader_chooses_the_newest_version_itself():
    root = Path(__file__).resolve().parent.parent / "judge_tui"
    found = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text()
        if path.name == "schema.py":  # the migrations: m014 writes the rule, m005 ran before it existed
            kept = [ast.get_source_segment(text, node) or "" for node in ast.parse(text).body
                    if isinstance(node, ast.FunctionDef) and node.name in ("m005_rating_flags", "m014_current_ratings")]
            for segment in kept:
                text = text.replace(segment, "")
        found += [f"{path.relative_to(root)}: {m.group(0)}" for m in _SECOND_COPIES.finditer(text)]
    assert found == []
