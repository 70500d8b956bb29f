"""Standard output as the shell may give it: in an encoding other than UTF-8 (a Windows console's cp1252, a
latin-1 or ascii locale) or closed (`cmd >&-`). Every command runs in a real process, and says what it says with
"?" for what the encoding cannot hold; an export to a pipe stays exact (UTF-8, as its format is); nothing
printed to a closed output lands in the database that took its place."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from judge_tui.model.records import Item, Rating
from judge_tui.model.rubrics import load_rubrics
from judge_tui.store import Store
from tests.faults.conftest import REPO, no_traceback

pytestmark = pytest.mark.slow
NOTE = "déjà vu — “quoted” ✓ 日本"
JUDGE = "judge:m:cis@1"
COMMANDS = [("status",), ("report",), ("report", "--format", "json"), ("report", "--items"), ("flags",),
            ("export",), ("export", "--format", "csv"), ("history",), ("check",)]


@pytest.fixture
def study_db(tmp_path: Path) -> Path:
    """Three CIS items, rated by an expert and a judge, with notes, a flag and a reason beyond latin-1."""
    rubric = load_rubrics()["cis"][0]
    path = tmp_path / "study.db"
    with Store(path) as store:
        version = store.ensure_rubric_version(rubric)
        store.add_items([Item(f"C{n}", "cis", {"task_type": "Parser", "rationale": NOTE, "source_code": "x = 1"},
                              task_type="Parser") for n in range(3)])
        store.ensure_rater("EXP001", "human")
        store.ensure_rater(JUDGE, "judge")
        for n in range(3):
            store.save_rating(Rating(f"C{n}", "EXP001", version, {"r": 1.0, "a": 0.5, "t": 0.25, "l": n / 4},
                                     overall=0.5, notes=NOTE, flagged=n == 0, flag_reason=NOTE))
            store.save_rating(Rating(f"C{n}", JUDGE, version, {"r": 1.0, "a": 1.0, "t": 0.25, "l": 0.0},
                                     overall=0.6, notes=NOTE))
    return path


def _run(home: Path, *args: object, encoding: str = "utf-8", **options) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "JUDGE_TUI_HOME": str(home), "PYTHONPATH": str(REPO), "PYTHONIOENCODING": encoding}
    env.pop("JUDGE_TUI_DB", None)
    return subprocess.run([sys.executable, "-m", "judge_tui", *map(str, args)], env=env, timeout=120,
                          stdin=subprocess.DEVNULL, cwd=REPO, **options)


def _text(done: subprocess.CompletedProcess[bytes]) -> subprocess.CompletedProcess[str]:
    return subprocess.CompletedProcess(done.args, done.returncode, (done.stdout or b"").decode("utf-8", "replace"),
                                       done.stderr.decode("utf-8", "replace"))


@pytest.mark.parametrize("encoding", ["cp1252", "latin-1", "ascii"])
def test_every_command_prints_to_an_output_that_is_not_utf8(study_db: Path, tmp_path: Path, encoding: str):
    for command in COMMANDS:
        done = _text(_run(tmp_path, *command, "--db", study_db, encoding=encoding, capture_output=True))
        assert done.returncode == 0, (command, done.stderr)
        no_traceback(done)
    status = _run(tmp_path, "status", "--db", study_db, encoding=encoding, capture_output=True)
    assert b"EXP001" in status.stdout
    report = _run(tmp_path, "report", "--items", "--format", "jsonl", "--db", study_db, encoding=encoding,
                  capture_output=True)
    assert "C0" in report.stdout.decode(encoding)
    assert "?" in report.stdout.decode(encoding)  # replaced, not fatal


@pytest.mark.parametrize("encoding", ["cp1252", "ascii"])
def test_an_export_to_a_pipe_stays_exact_whatever_the_encoding(study_db: Path, tmp_path: Path, encoding: str):
    done = _run(tmp_path, "export", "--format", "jsonl", "--db", study_db, encoding=encoding, capture_output=True)
    assert done.returncode == 0
    notes = [json.loads(line)["notes"] for line in done.stdout.decode("utf-8").splitlines()]
    assert notes == [NOTE] * 6


def test_the_judge_prints_its_progress_to_an_ascii_output(study_db: Path, tmp_path: Path):
    replay = tmp_path / "answers.jsonl"
    replay.write_text("".join(json.dumps({"item_id": f"C{n}", "answer": {"reasoning": "fine ✓", "r": 1, "a": 1,
                                                                          "t": 1, "l": 1}}) + "\n" for n in range(3)))
    done = _text(_run(tmp_path, "judge", "--db", study_db, "--backend", "replay", "--replay", replay, encoding="ascii",
                      capture_output=True))
    no_traceback(done)
    assert done.returncode in (0, 1)
    assert "cis:" in done.stdout


@pytest.mark.parametrize("command", [("export",), ("status",), ("report",), ("flags",)])
def test_a_closed_output_fails_saying_so_and_never_reaches_the_database(study_db: Path, tmp_path: Path,
                                                                         command: tuple[str, ...]):
    before = study_db.read_bytes()
    done = _text(_run(tmp_path, *command, "--db", study_db, stdout=None, stderr=subprocess.PIPE,
                      preexec_fn=lambda: os.close(1)))
    assert done.returncode == 1, done.stderr  # what was asked for went nowhere: not a success
    assert "standard output is closed, so" in done.stderr
    assert "characters of output were lost" in done.stderr
    no_traceback(done)
    after = _text(_run(tmp_path, "check", "--db", study_db, capture_output=True))
    assert after.returncode == 0
    assert "no damage found" in after.stdout
    assert study_db.read_bytes() == before


def test_export_to_a_file_works_with_its_output_closed(study_db: Path, tmp_path: Path):
    out = tmp_path / "ratings.csv"
    done = _text(_run(tmp_path, "export", "-o", out, "--db", study_db, stdout=None, stderr=subprocess.PIPE,
                      preexec_fn=lambda: os.close(1)))
    assert done.returncode == 0, done.stderr
    assert "wrote 6 ratings" in done.stderr
    assert NOTE in out.read_text(encoding="utf-8")
