"""`report --compare`: a prompt version prefix made only of digits is a prefix, not a missing rubric version."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow
HUMAN = "ann"


def cli(cwd: Path, *args: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "JUDGE_TUI_HOME": str(cwd / "home"), "PYTHONPATH": str(ROOT)}
    env.pop("JUDGE_TUI_DB", None)
    return subprocess.run([sys.executable, "-m", "judge_tui", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120, stdin=subprocess.DEVNULL)


def _judge(tmp_path: Path, db: Path, prompt: str, flip: int) -> str:
    """A judge rater under this prompt version, agreeing with the labels except on every flip-th item."""
    rows = [json.loads(line) for line in (ROOT / "data" / "binary.labels.jsonl").read_text().splitlines()]
    for n, row in enumerate(rows):
        if n % flip == 0:
            row["scores"]["label"] = "FAIL" if row["scores"]["label"] == "PASS" else "PASS"
    path = tmp_path / f"{prompt}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    rater = f"judge:m:binary@{prompt}"
    done = cli(tmp_path, "import-ratings", path, "--rater", rater, "--kind", "judge", "--db", db)
    assert done.returncode == 0, done.stderr
    return rater


@pytest.fixture(scope="module")
def study_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp_path = tmp_path_factory.mktemp("study")
    db = tmp_path / "study.db"
    assert cli(tmp_path, "import", ROOT / "data" / "binary.jsonl", "--db", db).returncode == 0
    done = cli(tmp_path, "import-ratings", ROOT / "data" / "binary.labels.jsonl", "--rater", HUMAN, "--kind", "human",
               "--db", db)
    assert done.returncode == 0, done.stderr
    _judge(tmp_path, db, "6797a1b2c3d4", 3)
    _judge(tmp_path, db, "0001f00dcafe", 5)
    return db


def test_an_all_digit_prefix_names_its_prompt_version(study_db: Path):
    done = cli(study_db.parent, "report", "--compare", "6797", "0001f", "--format", "json", "--db", study_db)
    assert done.returncode == 0, done.stderr
    comparison = json.loads(done.stdout)["version_comparison"]
    assert (comparison["v1"]["judge"], comparison["v2"]["judge"]) == ("judge:m:binary@6797a1b2c3d4",
                                                                      "judge:m:binary@0001f00dcafe")


def test_a_number_that_is_both_a_rubric_version_and_a_prefix_says_so(study_db: Path):
    done = cli(study_db.parent, "report", "--compare", "0001", "6797", "--db", study_db)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "'0001' is both rubric version 1" in done.stderr
    assert "the start of prompt version 0001f00dcafe: write #1 for the rubric version" in done.stderr
