"""The bundled demo: loaded into a new, empty database so a first start lands on a working screen."""

from __future__ import annotations

import json

from judge_tui import locations
from judge_tui.records import Item
from judge_tui.rubrics import load_rubrics
from judge_tui.store import Store

DEMO_RUBRICS = ("cis", "exercise-quality", "reasoning-trace", "binary")


def load_demo(store: Store) -> int:
    """Import the demo items of every built-in rubric; returns how many items were added."""
    rubrics = load_rubrics()
    added = 0
    for rubric_id in DEMO_RUBRICS:
        path = locations.data_dir() / f"{rubric_id}.jsonl"
        if not path.is_file() or rubric_id not in rubrics:
            continue
        rubric = rubrics[rubric_id][0]
        items = []
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            item_id, split = str(row.pop("id")), row.pop("split", None)
            items.append(Item(id=item_id, rubric=rubric_id, fields=row, task_type=rubric.task_type_of(row),
                              split=split))
        store.ensure_rubric_version(rubric)
        added += store.add_items(items, source=f"demo:{path.name}")["added"]
    return added
