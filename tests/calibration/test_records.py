"""The record of kept and reverted changes to the judge: a table of its own, carried from the meta table of an
earlier database, by `merge` (once, however often merged) and by bundles, and listed by `judge-tui history`."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from judge_tui.judge.history import history_lines, record_outcome
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from judge_tui.transfer.bundle import export_bundle, import_bundle
from judge_tui.transfer.merge import describe, merge_database
from tests.calibration.fixtures import build_study


def _changes(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT rubric, outcome, before_version, after_version, reason, motivating_items"
                            " FROM calibration_changes ORDER BY created_at, id").fetchall()
    conn.close()
    return rows


def _lead_db(path: Path, rubric: Rubric) -> Path:
    build_study(path, rubric)
    with Store(path) as store:
        record_outcome(store, "binary", "kept", "aaa111", "bbb222", "guard: honey is not vegan", ["P06"])
        record_outcome(store, "binary", "reverted", "bbb222", "aaa111", "no better on dev", ["P08"])
    return path


def test_records_from_the_meta_table_of_an_earlier_database_move_into_their_table(tmp_path, rubrics):
    path = tmp_path / "old.db"
    build_study(path, rubrics["binary"])
    entries = [{"outcome": "kept", "before": "aaa111", "after": "bbb222", "reason": "guard added",
                "motivating_items": ["P06"], "created_at": "2026-01-02T10:00:00.000+00:00"},
               {"outcome": "reverted", "before": "ccc333", "after": "bbb222", "reason": "no better",
                "motivating_items": [], "created_at": "2026-01-03T10:00:00.000+00:00"}]
    with sqlite3.connect(path) as conn:  # as an earlier judge-tui left it: the records as JSON in meta
        conn.execute("DROP TABLE calibration_changes")
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm010_calibration_changes'")
        conn.execute("INSERT INTO meta (key, value) VALUES (?, ?)",
                     ["calibration.outcomes:binary", json.dumps(entries)])
    conn.close()
    with Store(path) as store:
        assert store.get_meta("calibration.outcomes:binary") is None
        lines = "\n".join(history_lines(store, "binary"))
    assert _changes(path) == [("binary", "kept", "aaa111", "bbb222", "guard added", '["P06"]'),
                              ("binary", "reverted", "ccc333", "bbb222", "no better", "[]")]
    assert "kept  2026-01-02 10:00  judge prompt bbb222 (over aaa111)" in lines
    assert "reverted  2026-01-03 10:00  judge prompt ccc333 (back to bbb222)" in lines
    assert "reason: guard added" in lines
    assert "items: P06" in lines


def test_merge_carries_the_records_once(tmp_path, rubrics):
    lead = _lead_db(tmp_path / "laptop.db", rubrics["binary"])
    office = tmp_path / "office.db"
    build_study(office, rubrics["binary"])
    with Store(office) as store:
        first = merge_database(store, lead)
        assert first.added["calibration_changes"] == 2
        assert "2 kept or reverted judge changes" in describe(first)[0]
        second = merge_database(store, lead)
        assert second.added["calibration_changes"] == 0
    assert _changes(office) == _changes(lead)
    assert len(_changes(office)) == 2
    done = subprocess.run([sys.executable, "-m", "judge_tui", "history", "--rubric", "binary", "--db", str(office)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "kept  " in done.stdout
    assert "judge prompt bbb222 (over aaa111)" in done.stdout
    assert "reverted  " in done.stdout
    assert "judge prompt bbb222 (back to aaa111)" in done.stdout
    assert "reason: guard: honey is not vegan" in done.stdout
    assert "items: P06" in done.stdout
    assert "reason: no better on dev" in done.stdout
    assert "items: P08" in done.stdout


def test_a_bundle_carries_the_records(tmp_path, rubrics):
    lead = _lead_db(tmp_path / "laptop.db", rubrics["binary"])
    bundle = tmp_path / "alice.bundle"
    with Store(lead) as store:
        export_bundle(store, "alice", bundle)
    assert _changes(bundle) == _changes(lead)
    with Store(tmp_path / "elsewhere.db") as store:
        result = import_bundle(store, bundle)
        assert result.added["calibration_changes"] == 2
        assert import_bundle(store, bundle).added["calibration_changes"] == 0
    assert _changes(tmp_path / "elsewhere.db") == _changes(lead)
