"""A nine-category topic rubric and the real CLI, shared by the tests of category exports, `report --items` and
nominal agreement."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

TOPICS = ["maths", "physics", "chemistry", "biology", "history", "geography", "music", "art", "sport"]
_RUBRIC = f"""
id = "topic"
name = "Topic"
version = "1"
description = "Which topic a question is about."
overall = "label"

[scale]
kind = "categories"
order = "{{order}}"
categories = {json.dumps(TOPICS)}

[[fields]]
name = "question"
label = "Question"

[[dimensions]]
id = "topic"
name = "Topic"
measures = "The question's topic."
"""


def topic_rubric(order: str = "nominal") -> str:
    """The topic rubric's file, its categories nominal or ordered."""
    return _RUBRIC.format(order=order)


def write_topic_rubric(home: Path, order: str = "nominal") -> None:
    (home / "rubrics").mkdir(parents=True, exist_ok=True)
    (home / "rubrics" / "topic.rubric.toml").write_text(topic_rubric(order), encoding="utf-8")


def ok(home: Path, *args: object) -> str:
    """Run judge-tui with this home (no database from the environment); it must succeed."""
    env = {k: v for k, v in os.environ.items() if k != "JUDGE_TUI_DB"}
    done = subprocess.run([sys.executable, "-m", "judge_tui", *map(str, args)], capture_output=True, text=True,
                          timeout=120, env={**env, "JUDGE_TUI_HOME": str(home)})
    assert done.returncode == 0, done.stderr
    return done.stdout


def rate(home: Path, db: Path, rater: str, kind: str, dimension: str, said: dict[str, str]) -> None:
    """Import one rater's categories for one dimension, item by item."""
    rows = home.parent / f"{rater.replace(':', '_')}.jsonl"
    rows.write_text("".join(json.dumps({"item_id": i, dimension: v}) + "\n" for i, v in said.items()))
    ok(home, "import-ratings", rows, "--rater", rater, "--kind", kind, "--db", db)
