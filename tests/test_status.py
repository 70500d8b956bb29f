"""judge-tui status: each expert's progress and time, and the judge queue, on a hand-made database."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from judge_tui.model.records import Draft, Item, Rating
from judge_tui.store import Store


@pytest.fixture
def study_db(tmp_path: Path, rubrics) -> Path:
    """Six CIS items of two task types. EXP001 rated four (one without a time), skipped one, flagged one;
    EXP002 rated four; a judge has two jobs done, one failed and three queued, at a known cost."""
    path = tmp_path / "study.db"
    cis = rubrics["cis"]
    with Store(path) as store:
        version = store.ensure_rubric_version(cis)
        store.add_items([Item(f"C{n}", "cis", {"task": str(n)}, task_type="LRU Cache" if n <= 3 else "Parser")
                         for n in range(1, 7)])
        store.ensure_rater("EXP001", "human", display_name="Dana")
        store.ensure_rater("EXP002", "human")
        scores = dict.fromkeys("ratl", 0.5)
        for item, seconds, flagged in (("C1", 30, False), ("C2", 90, True), ("C4", 60, False), ("C5", None, False)):
            store.save_rating(Rating(item, "EXP001", version, scores, seconds=seconds, flagged=flagged,
                                     flag_reason="why" if flagged else ""))
        store.save_draft(Draft("C6", "EXP001", skipped=True))
        for item, seconds in (("C1", 10), ("C2", 20), ("C3", 40), ("C4", 50)):
            store.save_rating(Rating(item, "EXP002", version, scores, seconds=seconds))
        judge = "judge:m:cis@1"
        store.ensure_rater(judge, "judge")
        store.enqueue_judge_items(judge, version, [f"C{n}" for n in range(1, 7)])
        jobs = store.claim_judge_jobs(judge, 3)
        for job in jobs[:2]:
            store.complete_judge_job(job["id"], Rating(job["item_id"], judge, version, scores, seconds=2.0),
                                     {"model": "m", "cost_usd": 0.25, "outcome": "done"})
        store.fail_judge_job(jobs[2]["id"], "bad answer", call={"model": "m", "cost_usd": 0.5, "outcome": "failed"})
    return path


def _status(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "judge_tui", "status", "--db", str(path), *args],
                          capture_output=True, text=True, check=False)


def test_status_figures(study_db: Path):
    done = _status(study_db, "--format", "json")
    assert done.returncode == 0, done.stderr
    [cis] = json.loads(done.stdout)["rubrics"]
    assert cis["rubric"] == "cis"
    assert cis["items"] == 6
    exp1, exp2 = cis["experts"]
    assert (exp1["expert"], exp1["name"], exp1["rated"], exp1["skipped"], exp1["flagged"]) == (
        "EXP001", "Dana", 4, 1, 1)
    assert exp1["time"] == {"items": 3, "total_seconds": 180.0, "median_seconds": 60.0, "unknown": 1}
    assert exp1["time_by_task_type"] == {
        "LRU Cache": {"items": 2, "total_seconds": 120.0, "median_seconds": 60.0},
        "Parser": {"items": 1, "total_seconds": 60.0, "median_seconds": 60.0}}
    assert exp2["time"] == {"items": 4, "total_seconds": 120.0, "median_seconds": 30.0, "unknown": 0}
    assert exp2["time_by_task_type"]["LRU Cache"] == {"items": 3, "total_seconds": 70.0, "median_seconds": 20.0}
    assert exp1["last_activity"] >= exp2["last_activity"][:10]
    assert cis["judges"] == [{"judge": "judge:m:cis@1", "queued": 3, "running": 0, "done": 2, "failed": 1,
                              "calls": 3, "cost_usd": 1.0}]


def test_status_table_keeps_ids_whole_when_piped(study_db: Path, rubrics):
    long_id = "expert-" + "x" * 90 + "-end"
    with Store(study_db) as store:
        store.ensure_rater(long_id, "human")
        store.save_rating(Rating("C1", long_id, store.ensure_rubric_version(rubrics["cis"]),
                                 dict.fromkeys("ratl", 0.5), seconds=5))
    done = _status(study_db)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "cis: 6 items" in out
    assert "judge:m:cis@1" in out
    assert long_id in out  # never cut or folded on a pipe
    exp1 = next(line for line in out.splitlines() if "EXP001" in line and "Dana" not in line and "│" in line
                and "LRU" not in line and "Parser" not in line)
    assert [cell.strip() for cell in exp1.strip("│ ").split("│")][:7] == [
        "EXP001", "4", "1", "1", "3:00", "1:00", "1"]
    assert "$1.0000" in out


def test_status_of_an_unknown_rubric_is_a_message(study_db: Path):
    done = _status(study_db, "--rubric", "nope")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "nope" in done.stderr


def test_the_leads_consensus_is_not_listed_as_an_expert(study_db: Path):
    with Store(study_db) as store:  # what the adjudication screen saves
        version = store.rubric_version_ids("cis")[0]
        store.ensure_rater("consensus", "human", display_name="Adjudicated consensus")
        store.save_rating(Rating("C1", "consensus", version, dict.fromkeys("ratl", 0.5), notes="adjudicated by lead",
                                 source="adjudication", details={"adjudicated": True, "from": ["EXP001", "EXP002"]}))
    [cis] = json.loads(_status(study_db, "--format", "json").stdout)["rubrics"]
    assert [e["expert"] for e in cis["experts"]] == ["EXP001", "EXP002"]
    assert cis["adjudicated"] == 1
    shown = _status(study_db)
    assert "│ consensus" not in shown.stdout
    assert "│ EXP001" in shown.stdout
    assert "and 1 item adjudicated by the lead" in shown.stdout


def test_status_json_keeps_its_keys_in_their_order(study_db: Path):
    """The JSON is drawn from typed objects; scripts reading it see the same keys in the same order."""
    [cis] = json.loads(_status(study_db, "--format", "json").stdout)["rubrics"]
    assert list(cis) == ["rubric", "items", "experts", "adjudicated", "judges", "judge_decides", "certificate"]
    expert = cis["experts"][0]
    assert list(expert) == ["expert", "name", "rated", "skipped", "flagged", "time", "time_by_task_type",
                            "last_activity"]
    assert list(expert["time"]) == ["items", "total_seconds", "median_seconds", "unknown"]
    assert list(cis["judges"][0]) == ["judge", "queued", "running", "done", "failed", "calls", "cost_usd"]


def test_a_judge_without_a_price_is_worded_as_everywhere_else(study_db: Path, rubrics):
    from judge_tui.formats.numbers import NO_PRICE, cost_text

    with Store(study_db) as store:
        version = store.ensure_rubric_version(rubrics["cis"])
        local = "judge:llama3.1:cis@1"
        store.ensure_rater(local, "judge")
        store.enqueue_judge_items(local, version, ["C1"])
        [job] = store.claim_judge_jobs(local, 1)
        store.complete_judge_job(job["id"], Rating("C1", local, version, dict.fromkeys("ratl", 0.5), seconds=1.0),
                                 {"model": "llama3.1", "cost_usd": 0.0, "outcome": "done"})
    done = _status(study_db)
    assert done.returncode == 0, done.stderr
    assert "$1.0000" in done.stdout
    assert NO_PRICE in done.stdout
    assert "$0.0000" not in done.stdout
    assert cost_text(0.0, 12) == NO_PRICE
    assert cost_text(0.0, 0) == "—"
    assert cost_text(0.25, 1) == "$0.2500"
