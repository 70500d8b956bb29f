"""The bundled demo, in a database of its own so that it never mixes with a user's study.

`judge-tui demo`, and a first start (no study database yet), open the demo database (locations.demo_db_path),
loading the demo the first time. Items come from data/<rubric>.jsonl; demo ratings, where present, from
data/<rubric>.expert-demo.ratings.jsonl (rater "demo-expert", a person), data/<rubric>.judge-demo.ratings.jsonl
(rater "demo-judge", a judge) and data/binary.labels.jsonl (the PASS/FAIL labels, also "demo-expert").
Loading it is demo_loading.py's job: everything goes through the importer, so the demo files are held to
the same checks as a user's files.

Earlier versions loaded the demo into the user's own database; such a database keeps working, and an import
whose ids clash with those demo items says so (demo_items_among).
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from judge_tui.model import locations
from judge_tui.model.records import content_hash
from judge_tui.store import Store

DEMO_RUBRICS = ("cis", "exercise-quality", "reasoning-trace", "binary")
DEMO_EXPERT = "demo-expert"
DEMO_JUDGE = "demo-judge"
DEMO_META_KEY = "demo_database"  # set in the demo's own database, so every screen can name it


def demo_rating_files(rubric_id: str) -> list[tuple[str, str, str]]:
    """(file name, rater, kind) of the demo ratings of a rubric, whether or not the files exist."""
    files = [(f"{rubric_id}.expert-demo.ratings.jsonl", DEMO_EXPERT, "human"),
             (f"{rubric_id}.judge-demo.ratings.jsonl", DEMO_JUDGE, "judge")]
    if rubric_id == "binary":
        files.append(("binary.labels.jsonl", DEMO_EXPERT, "human"))
    return files


def is_demo_database(store: Store) -> bool:
    return store.get_meta(DEMO_META_KEY) == "1"


def demo_items_among(existing: Mapping[str, tuple[str, str]]) -> list[str]:
    """The ids among `existing` ({id: (rubric, content hash)} in a database) that are the bundled demo's items."""
    found = []
    for rubric_id in DEMO_RUBRICS:
        path = locations.data_dir() / f"{rubric_id}.jsonl"
        if not path.is_file():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            fields = json.loads(line)
            item_id = str(fields.pop("id"))
            fields.pop("split", None)
            if existing.get(item_id) == (rubric_id, content_hash(fields)):
                found.append(item_id)
    return found
