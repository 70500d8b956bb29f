"""Two `judge-tui judge` processes started together on a database no judge has touched: both go on, and no
judgment is paid for twice."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from tests.faults.locker import Locker
from tests.judge import fake_anthropic as fa
from tests.judge.conftest import API_KEY, add_cis_items, assert_consistent
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
ITEMS = 3
TRIALS = 3


def _asleep(pid: int) -> bool:
    """Whether the process sleeps in the kernel's timer: before its first write a judge sleeps only in SQLite's
    wait for the lock (sqlite3_sleep between tries)."""
    return Path(f"/proc/{pid}/wchan").read_text() == "hrtimer_nanosleep"


def _wait_for_the_lock(judges: list[subprocess.Popen[str]]) -> None:
    """Until every judge has been seen asleep at its first write: between tries SQLite sleeps only a few
    milliseconds, so each is looked at often and remembered once seen."""
    waiting: set[int] = set()

    def all_wait() -> bool:
        waiting.update(judge.pid for judge in judges if _asleep(judge.pid))
        return len(waiting) == len(judges)

    wait_until(all_wait, lambda: f"both judges waiting for the write lock (exit codes: "
                                 f"{[judge.poll() for judge in judges]})", every=0.002)


def _spawn(db: Path, fake: fa.FakeAnthropic, home: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": fake.url,
           "JUDGE_TUI_HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "judge_tui", "judge", "--db", str(db), "--rubric", "cis", "--model",
         "claude-sonnet-5"], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
def test_two_judges_started_together_on_a_fresh_database_both_proceed(
        fake: fa.FakeAnthropic, tmp_path: Path, rubrics: dict[str, Rubric], hermetic_home: Path) -> None:
    for trial in range(TRIALS):
        db = tmp_path / f"fresh{trial}.db"
        with Store(db) as store:
            add_cis_items(store, rubrics["cis"], ITEMS)
        asked_before = len(fake.message_requests())
        # Another process holds the write lock while both judges start, so both read the database as new
        # (its first prompt version not yet recorded) before either can write: the race, every trial.
        judges: list[subprocess.Popen[str]] = []
        try:
            with Locker(db):
                judges = [_spawn(db, fake, hermetic_home) for _ in range(2)]
                for judge in judges:
                    assert judge.stdout is not None
                    assert judge.stderr is not None
                    assert judge.stdout.readline().startswith("cis: about"), judge.stderr.read()
                _wait_for_the_lock(judges)  # released only then: they wait for it up to 10 s
            results = [judge.communicate(timeout=120) for judge in judges]
        finally:
            for judge in judges:
                if judge.poll() is None:
                    judge.kill()
        for judge, (_out, err) in zip(judges, results, strict=True):
            assert judge.returncode == 0, f"trial {trial}: {err}"
            assert "database error" not in err
        assert len(fake.message_requests()) - asked_before == ITEMS  # each item paid for once, by one of them
        with Store(db) as store:
            [rater] = [r["id"] for r in store.raters("judge")]
            assert_consistent(store, rater, ITEMS)
            assert store.judge_job_counts(rater)["done"] == ITEMS
            assert len(store.prompt_versions("cis")) == 1
