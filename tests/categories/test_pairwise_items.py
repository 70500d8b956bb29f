"""Pairwise items from JSON, JSON Lines and CSV, with `--map` for other column names; a half-written file or a
pair missing a response is refused whole, with the line."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from judge_tui.store import Store

pytestmark = pytest.mark.slow


def run(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "judge_tui", *map(str, args)], capture_output=True, text=True,
                          timeout=120)


def fields(db: Path, item_id: str) -> dict:
    with Store(db) as store:
        item = store.item(item_id)
        assert item is not None
        assert item.rubric == "pairwise"
        return item.fields


def test_json_jsonl_and_csv_with_a_map(tmp_path: Path) -> None:
    db = tmp_path / "pairs.db"
    (tmp_path / "pairs.json").write_text(json.dumps(
        [{"id": "j1", "prompt": "p", "response_a": "first", "response_b": "second"}]))
    (tmp_path / "pairs.jsonl").write_text(json.dumps(
        {"id": "l1", "prompt": "p", "response_a": "[bold]a[/]", "response_b": "b"}) + "\n")
    with (tmp_path / "arena.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "question", "model_a_answer", "model_b_answer"])
        writer.writerow(["c1", "Which is larger, 9.11 or 9.9?", "9.11", "9.9, since .9 > .11"])
    for name in ("pairs.json", "pairs.jsonl"):
        done = run("import", tmp_path / name, "--db", db)  # the fields alone say it is the pairwise rubric
        assert done.returncode == 0, done.stderr
        assert "rubric pairwise" in done.stdout, done.stderr
    done = run("import", tmp_path / "arena.csv", "--rubric", "pairwise", "--db", db, "--map", "prompt=question",
               "--map", "response_a=model_a_answer", "--map", "response_b=model_b_answer")
    assert done.returncode == 0, done.stderr
    assert fields(db, "j1")["response_b"] == "second"
    assert fields(db, "l1")["response_a"] == "[bold]a[/]"
    assert fields(db, "c1") == {"prompt": "Which is larger, 9.11 or 9.9?", "response_a": "9.11",
                                "response_b": "9.9, since .9 > .11"}


def test_a_pair_without_its_second_response_is_refused_whole(tmp_path: Path) -> None:
    db = tmp_path / "pairs.db"
    rows = [{"id": "ok", "prompt": "p", "response_a": "a", "response_b": "b"},
            {"id": "half", "prompt": "p", "response_a": "a"}]
    (tmp_path / "pairs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    done = run("import", tmp_path / "pairs.jsonl", "--rubric", "pairwise", "--db", db)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert ":2:" in done.stderr
    assert "response_b" in done.stderr
    with Store(db) as store:
        assert store.item("ok") is None  # nothing half-written
