"""What commands write: `-o -` is standard output; PASS/FAIL labels item by item; what `split` stratifies on."""

from __future__ import annotations

import csv
import io
import json
import os
import re
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
def study_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
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
def test_dash_writes_to_standard_output_and_leaves_no_file(tmp_path: Path, study_db: Path, command: list[str]):
    done = cli(tmp_path, *command, "--db", study_db)
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "-").exists()
    without = cli(tmp_path, *[c for c in command if c not in ("-o", "-")], "--db", study_db)
    assert done.stdout == without.stdout  # the same output as with no -o at all
    assert done.stdout.strip()


def test_export_to_standard_output_is_the_ratings(tmp_path: Path, study_db: Path):
    done = cli(tmp_path, "export", "-o", "-", "--db", study_db)
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(rows) == 40
    assert {r["rater"] for r in rows} == {"ann", "judge:m:binary@1"}
    assert "wrote" not in done.stderr


def test_report_items_shows_pass_fail_labels_as_labels(tmp_path: Path, study_db: Path):
    done = cli(tmp_path, "report", "--items", "--format", "jsonl", "--db", study_db)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    labels = {row["item_id"]: row["label_human"] for row in rows}
    expected = {json.loads(line)["item_id"]: json.loads(line)["scores"]["label"]
                for line in (ROOT / "data" / "binary.labels.jsonl").read_text().splitlines()}
    assert labels == expected
    assert set(labels.values()) == {"PASS", "FAIL"}
    assert {row["overall_judge"] for row in rows} == {"PASS", "FAIL"}
    assert {row["label_gap"] for row in rows} == {0}  # the judge here agrees with the expert everywhere
    table = list(csv.DictReader(io.StringIO(cli(tmp_path, "report", "--items", "--db", study_db).stdout)))
    assert {(row["label_human"], row["overall_judge"]) for row in table} == {("PASS", "PASS"), ("FAIL", "FAIL")}


def test_split_of_a_graded_rubric_is_stratified_on_the_overall_score(tmp_path: Path):
    db = tmp_path / "cis.db"
    assert cli(tmp_path, "import", ROOT / "data" / "cis.jsonl", "--db", db).returncode == 0
    rated = cli(tmp_path, "import-ratings", ROOT / "data" / "cis.expert-demo.ratings.jsonl", "--rater", "ann",
                "--kind", "human", "--db", db)
    assert rated.returncode == 0, rated.stderr
    done = cli(tmp_path, "split", "--db", db)
    assert done.returncode == 0, done.stderr
    assert "strata: the overall score of each item's latest human rating, below 0.5 or not" in done.stdout
    rows = {m[1]: [int(n) for n in m.groups()[1:]]
            for m in re.finditer(r"^  (\S.*?) +(\d+) +(\d+) +(\d+) +(\d+)$", done.stdout, re.MULTILINE)}
    assert "(no label)" not in rows  # every item is rated
    low, high = rows["overall below 0.5"], rows["overall 0.5 or more"]
    assert low[3] + high[3] == 25
    assert low[3] > 0
    assert high[3] > 0
    assert all(n > 0 for n in high[:3])  # the high scores reach train, dev and test
