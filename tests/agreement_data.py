"""Seeded rating files and databases for the report and agreement-screen tests.

Ratings are written as JSONL files (one rating per line: item, scores, notes, details) and loaded into a
real SQLite database through the store, the same path an import takes.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from judge_tui.model.records import Item, Rating
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store

CEFR = ("A2", "B1", "B2", "C1")
SPLITS = ("train", "dev", "test")
GOOD_EXERCISE = '<exercise><p>She <blank answer="went" student-answer=""/> home.</p></exercise>'
BROKEN_EXERCISE = "<exercise><p>No blanks here.</p></exercise>"


def exercise_items(n: int, rubric: Rubric) -> list[Item]:
    items = []
    for i in range(n):
        fields = {
            "source_document": f"<doc>text {i}</doc>",
            "instruction": f"Practise item {i}",
            "cefr_level": CEFR[i % len(CEFR)],
            "focus": f"focus {i % 3}",
            "exercise": BROKEN_EXERCISE if i % 7 == 3 else GOOD_EXERCISE,
        }
        items.append(Item(id=f"E{i:03d}", rubric=rubric.id, fields=fields, task_type=rubric.task_type_of(fields),
                          split=SPLITS[i % 3]))
    return items


def binary_items(n: int) -> list[Item]:
    return [Item(id=f"P{i:03d}", rubric="binary", fields={"query": f"q{i}", "criterion": "c", "response": f"r{i}"},
                 split=SPLITS[i % 3]) for i in range(n)]


def ratings_file(path: Path, rubric: Rubric, items: list[Item], seed: int, *, base: dict[str, dict[str, float]] | None = None,
                 noise: float = 0.3, continuous: bool = False, kind: str = "human") -> dict[str, dict[str, float]]:
    """Write one rater's ratings; with ``base`` the scores follow it, a step off with probability ``noise``."""
    rng = np.random.default_rng(seed)
    points = np.asarray(rubric.scale.points)
    written: dict[str, dict[str, float]] = {}
    with path.open("w", encoding="utf-8") as out:
        for item in items:
            scores = {}
            for dim in rubric.judged_dimensions:
                if base is None:
                    value = float(points[rng.integers(0, points.size)])
                else:
                    index = int(np.searchsorted(points, base[item.id][dim.id]))
                    if rng.random() < noise:
                        index = int(np.clip(index + rng.choice([-1, 1]), 0, points.size - 1))
                    value = float(points[index])
                    if continuous and rng.random() < 0.3:
                        value = float(np.clip(value + rng.uniform(-0.2, 0.2), 0, 1))
                scores[dim.id] = value
            scores.update(rubric.code_scores(item.fields))
            written[item.id] = scores
            note = {"notes": f"human note on {item.id}"} if kind == "human" else {
                "details": {"reasoning": f"judge reasoning on {item.id}"}}
            out.write(json.dumps({"item": item.id, "scores": scores, **note}) + "\n")
    return written


def load_ratings(store: Store, rubric: Rubric, path: Path, rater_id: str, kind: str, repeat: int = 0) -> int:
    """Bring a ratings file into the database (as an import does: one transaction)."""
    version = store.ensure_rubric_version(rubric)
    store.ensure_rater(rater_id, kind, model="test-model" if kind == "judge" else None,
                       prompt_version="1" if kind == "judge" else None)
    ratings = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        scores = row["scores"]
        ratings.append(Rating(item_id=row["item"], rater_id=rater_id, rubric_version_id=version, scores=scores,
                              overall=rubric.overall_score(scores), verdict=rubric.verdict(scores),
                              notes=row.get("notes", ""), details=row.get("details", {}), repeat=repeat))
    return store.save_ratings(ratings)
