"""Building real database files of several experts and a judge, for the team tests."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from judge_tui.model.records import Item, Rating
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from tests.narrowing import present


def exercise_item(n: int, level: str = "B1") -> Item:
    fields = {
        "source_document": f"<doc>Text number {n}</doc>",
        "instruction": f"Practise item {n}",
        "cefr_level": level,
        "focus": "verbs",
        "exercise": f'<exercise><blank answer="w{n}" student-answer=""/></exercise>',
    }
    return Item(id=f"E{n:02d}", rubric="exercise-quality", fields=fields)


def binary_item(n: int, split: str | None = None) -> Item:
    return Item(id=f"P{n:02d}", rubric="binary", split=split,
                fields={"query": f"question {n}", "criterion": "vegan", "response": f"answer {n}"})


def rate(store: Store, rubric: Rubric, rater: str, kind: str, scores_by_item: Mapping[str, Mapping[str, float]],
         *, repeat: int = 0, notes: str = "", prompt_version: str | None = None) -> int:
    """Save one rater's ratings (code dimensions filled in as the app does); returns the rubric version id."""
    version = store.ensure_rubric_version(rubric)
    store.ensure_rater(rater, kind, prompt_version=prompt_version)
    ratings = []
    for item_id, raw in scores_by_item.items():
        item = present(store.item(item_id))
        scores = {**rubric.code_scores(item.fields), **raw}
        ratings.append(Rating(item_id=item_id, rater_id=rater, rubric_version_id=version, scores=scores,
                              overall=rubric.overall_score(scores), verdict=rubric.verdict(scores), notes=notes,
                              repeat=repeat, seconds=30.0))
    store.save_ratings(ratings)
    return version


def expert_db(path: Path, rubric: Rubric, items: list[Item], rater: str,
              scores_by_item: Mapping[str, Mapping[str, float]], notes: str = "") -> Path:
    with Store(path) as s:
        s.ensure_rubric_version(rubric)
        s.add_items(items)
        rate(s, rubric, rater, "human", scores_by_item, notes=notes)
    return path
