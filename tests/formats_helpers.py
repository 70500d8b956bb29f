"""Shared helpers for the import, export and split tests."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from judge_tui.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
TASK_TYPES = ("LRU Cache", "Rate Limiter", "Email Validator", "Fibonacci")


def cis_item(item_id: str, n: int = 0) -> dict[str, Any]:
    return {"id": item_id, "task_type": TASK_TYPES[n % 4], "task": f"Task text {n}",
            "rationale": f"My approach number {n}.", "source_code": f"def f():\n    return {n}\n",
            "test_code": "assert f() is not None\n", "test_results": "1 passed"}


def exercise_item(item_id: str, cefr: str = "B1", focus: str = "Modal verbs", broken: bool = False) -> dict[str, Any]:
    blank = '<blank answer="must" student-answer=""/>' if not broken else "<blank/>"
    return {"id": item_id, "source_document": "<document>Visitors must sign in.</document>",
            "instruction": "Fill each blank with a modal verb.", "cefr_level": cefr, "focus": focus,
            "exercise": f"<exercise>Visitors {blank} sign in.</exercise>"}


def binary_item(item_id: str, n: int = 0) -> dict[str, Any]:
    return {"id": item_id, "query": f"Recipe {n}", "criterion": "The recipe is vegan.", "response": f"Beans {n}"}


def trace_item(item_id: str, n: int = 0) -> dict[str, Any]:
    return {"id": item_id, "question": f"What is {n} + {n}?", "response": f"{n} + {n} = {2 * n}"}


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def table_counts(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        return {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                for t in ("items", "ratings", "raters", "rubric_versions", "meta")}


def line_of(text: str, needle: str) -> int:
    """The 1-based line on which needle first appears."""
    return text[: text.index(needle)].count("\n") + 1
