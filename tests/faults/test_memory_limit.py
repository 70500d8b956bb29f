"""Importing under a memory limit (ulimit -v): JSON Lines and CSV are read a line at a time and written a
chunk at a time, so a file needs about its own size in memory; a JSON document above a stated size is refused
with the reason; and memory that runs out anyway is a message, with nothing written, never a traceback.

Each import runs in a real process whose address space is capped with RLIMIT_AS before judge-tui starts.
"""

from __future__ import annotations

import csv
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from judge_tui.transfer.importing import MAX_DOCUMENT_BYTES

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow
MB = 1_000_000
# Here start-up and a small import fit in 80 MB of address space, a 60 MB file of rows in 120 MB and a 100 MB
# one does not. A file read whole (bytes, text, parsed values, then the rows sent to SQLite) took 3.2 (JSON
# Lines) to 6 (CSV) times its size of memory, read and written as it goes about 1.3 times.
CAP = """
import resource, runpy, sys
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
sys.argv = ["judge-tui", *sys.argv[2:]]
runpy.run_module("judge_tui", run_name="__main__")
"""


def capped(cwd: Path, limit: int, *args: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "JUDGE_TUI_HOME": str(cwd / "home"), "PYTHONPATH": str(ROOT)}
    env.pop("JUDGE_TUI_DB", None)
    return subprocess.run([sys.executable, "-c", CAP, str(limit), *map(str, args)], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=300, stdin=subprocess.DEVNULL)


def items(size: int) -> list[dict[str, str]]:
    """Binary items of about 6 kB each (a long SQL answer), adding up to about size bytes as JSON Lines."""
    answer = "SELECT id, total FROM orders WHERE created_at >= now() - interval '1 day'; " * 80
    return [{"id": f"I{n}", "query": f"Orders today ({n})", "criterion": "Read-only SQL.", "response": answer + str(n)}
            for n in range(size // (len(answer) + 90))]


def write(path: Path, rows: list[dict[str, str]]) -> Path:
    if path.suffix == ".csv":
        with path.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    else:
        with path.open("w") as handle:
            handle.writelines(json.dumps(row) + "\n" for row in rows)
    return path


def count(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT COUNT(*) FROM items").fetchone()[0]


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_a_file_of_rows_imports_in_little_more_than_its_own_size(tmp_path: Path, suffix: str):
    rows = items(30 * MB)
    path = write(tmp_path / f"items{suffix}", rows)
    done = capped(tmp_path, 150 * MB, "import", path, "--rubric", "binary", "--db", tmp_path / "s.db")
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"items: {len(rows)} added" in done.stdout
    assert count(tmp_path / "s.db") == len(rows)


def test_memory_that_runs_out_is_a_message_and_nothing_is_written(tmp_path: Path):
    db = tmp_path / "s.db"
    small = write(tmp_path / "small.jsonl", [{"id": "S1", "query": "q", "criterion": "c", "response": "r"}])
    assert capped(tmp_path, 200 * MB, "import", small, "--rubric", "binary", "--db", db).returncode == 0
    path = write(tmp_path / "big.jsonl", items(100 * MB))
    done = capped(tmp_path, 120 * MB, "import", path, "--rubric", "binary", "--db", db)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith(f"judge-tui: {path}: ran out of memory while importing it; nothing was imported. "
                                  f"judge-tui holds a file's rows in memory to check them all before writing any")
    assert count(db) == 1  # the database is as it was
    fresh = tmp_path / "fresh.db"
    done = capped(tmp_path, 120 * MB, "import", path, "--rubric", "binary", "--db", fresh)
    assert done.returncode == 1
    assert "ran out of memory" in done.stderr
    assert not fresh.exists()  # a database the import would have created is not left behind


@pytest.mark.parametrize("name", ["results.json", "items.json"])
def test_a_json_document_above_the_stated_size_is_refused_with_the_reason(tmp_path: Path, name: str):
    huge = tmp_path / name
    with huge.open("wb") as handle:
        handle.truncate(MAX_DOCUMENT_BYTES + 1)  # sparse: takes no room on disk
    done = capped(tmp_path, 200 * MB, "import", huge, "--db", tmp_path / "s.db")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr == (
        f"judge-tui: {huge}: larger than 500 MB, the most judge-tui reads as one JSON document (it is parsed whole, "
        f"which takes about three times its size in memory). JSON Lines and CSV are read line by line up to 2 GB: "
        f"write a JSON array as JSON Lines (jq -c '.[]' FILE.json > FILE.jsonl), or pass --format jsonl if the "
        f"file already holds one object per line\n")


@pytest.mark.parametrize("command", [("report",), ("report", "--items"), ("report", "--format", "json")])
def test_a_report_that_runs_out_of_memory_is_one_line(tmp_path: Path, command: tuple[str, ...]):
    """One 50 MB item (a long source file) under a 250 MB limit: a report holds its text several times over."""
    from judge_tui.model.records import Item, Rating
    from judge_tui.model.rubrics import load_rubrics
    from judge_tui.store import Store

    db = tmp_path / "big.db"
    with Store(db) as store:
        version = store.ensure_rubric_version(load_rubrics()["cis"][0])
        store.add_items([Item(f"C{n}", "cis", {"task_type": "Parser", "rationale": "r",
                                               "source_code": "x = 1\n" * (50 * MB // 6) if n == 0 else "y"},
                              task_type="Parser") for n in range(3)])
        store.ensure_rater("EXP001", "human")
        store.ensure_rater("judge:m:cis@1", "judge")
        for n in range(3):
            store.save_rating(Rating(f"C{n}", "EXP001", version, dict.fromkeys("ratl", 0.5), overall=0.5))
            store.save_rating(Rating(f"C{n}", "judge:m:cis@1", version, dict.fromkeys("ratl", 1.0), overall=1.0))
    done = capped(tmp_path, 250 * MB, *command, "--db", db)
    assert done.returncode == 1
    assert done.stderr == ("judge-tui: ran out of memory running `report`; every write is a transaction, so nothing"
                           " was half-written. Run it again where more memory is free (close other programs, or"
                           " raise the process's memory limit)\n")
