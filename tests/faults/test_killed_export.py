"""An export killed midway (SIGKILL: no clean-up of its own) leaves its hidden temporary beside the target; the
next export to that file removes it, and never one an export still running is writing."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from judge_tui.model.records import Rating
from judge_tui.store import Store
from tests.faults.conftest import REPO, run
from tests.faults.test_machine_faults import _database
from tests.waiting import wait_until

pytestmark = pytest.mark.slow


def _leftovers(folder: Path, name: str) -> list[Path]:
    return sorted(folder.glob(f".{name}.*.tmp"))


def test_a_killed_exports_leftover_is_removed_by_the_next_export(tmp_path: Path, hermetic_home: Path):
    db = _database(tmp_path / "big.db", 4000)
    with Store(db) as store:
        version = store.rubric_versions("binary")[0]["id"]
        for r in range(8):
            store.ensure_rater(f"R{r}", "human")
        store.save_ratings([Rating(item_id=f"P{n}", rater_id=f"R{r}", rubric_version_id=version, scores={"label": 1.0},
                                   overall=1.0, verdict="PASS", notes="a note " * 20) for n in range(4000)
                            for r in range(8)])
    out = tmp_path / "ratings.jsonl"
    env = {**os.environ, "JUDGE_TUI_HOME": str(hermetic_home), "PYTHONPATH": str(REPO)}
    env.pop("JUDGE_TUI_DB", None)
    export = subprocess.Popen([sys.executable, "-m", "judge_tui", "export", "-o", str(out), "--db", str(db)],
                              env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_until(lambda: any(p.stat().st_size for p in _leftovers(tmp_path, out.name)),
                   "the export writing its temporary file")
    finally:
        export.send_signal(signal.SIGKILL)
        export.wait()
    assert _leftovers(tmp_path, out.name)
    assert not out.exists()  # killed midway: its half-written file stays

    done = run("export", "-o", out, "--db", db, home=hermetic_home)
    assert done.returncode == 0, done.stderr
    assert _leftovers(tmp_path, out.name) == []
    assert len(out.read_text().splitlines()) == 32000


def test_an_export_still_writing_keeps_its_temporary(tmp_path: Path, hermetic_home: Path):
    db = _database(tmp_path / "small.db", 2, ratings=2)
    out = tmp_path / "ratings.csv"
    writing = tmp_path / ".ratings.csv.abc123.tmp"
    abandoned = tmp_path / ".ratings.csv.def456.tmp"
    other = tmp_path / ".other.csv.ghi789.tmp"
    for path in (writing, abandoned, other):
        path.write_text("half a file")
    fd = os.open(writing, os.O_RDWR)
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX)  # as the export writing it holds it
        done = run("export", "-o", out, "--db", db, home=hermetic_home)
        assert done.returncode == 0, done.stderr
        assert writing.exists()
        assert not abandoned.exists()
        assert other.exists()  # another target's is not ours
    finally:
        os.close(fd)
