"""`-o -` means standard output, on every command that takes -o, never a file named "-"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


def cli(cwd: Path, *args: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "JUDGE_TUI_HOME": str(cwd / "home"), "PYTHONPATH": str(ROOT)}
    env.pop("JUDGE_TUI_DB", None)
    return subprocess.run([sys.executable, "-m", "judge_tui", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120, stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp_path = tmp_path_factory.mktemp("study")
    db = tmp_path / "study.db"
    assert cli(tmp_path, "import", ROOT / "data" / "binary.jsonl", "--db", db).returncode == 0
    done = cli(tmp_path, "import-ratings", ROOT / "data" / "binary.labels.jsonl", "--rater", "ann", "--kind", "human",
               "--db", db)
    assert done.returncode == 0, done.stderr
    done = cli(tmp_path, "import-ratings", ROOT / "data" / "binary.labels.jsonl", "--rater", "judge:m:binary@1",
               "--kind", "judge", "--db", db)
    assert done.returncode == 0, done.stderr
    return db


@pytest.mark.parametrize("command", [
    ["export", "-o", "-"],
    ["export", "--format", "csv", "-o", "-"],
    ["report", "-o", "-"],
    ["report", "--items", "-o", "-"],
    ["flags", "-o", "-"],
])
def test_dash_writes_to_standard_output_and_leaves_no_file(tmp_path: Path, study: Path, command: list[str]):
    done = cli(tmp_path, *command, "--db", study)
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "-").exists()
    without = cli(tmp_path, *[c for c in command if c not in ("-o", "-")], "--db", study)
    assert done.stdout == without.stdout  # the same output as with no -o at all
    assert done.stdout.strip()


def test_export_to_standard_output_is_the_ratings(tmp_path: Path, study: Path):
    done = cli(tmp_path, "export", "-o", "-", "--db", study)
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(rows) == 40 and {r["rater"] for r in rows} == {"ann", "judge:m:binary@1"}
    assert "wrote" not in done.stderr
