"""The bundled demo: loaded into a new, empty database so a first start lands on a working screen.

Items come from data/<rubric>.jsonl; demo ratings, where present, from data/<rubric>.expert-demo.ratings.jsonl
(rater "demo-expert", a person), data/<rubric>.judge-demo.ratings.jsonl (rater "demo-judge", a judge) and
data/binary.labels.jsonl (the PASS/FAIL labels, also "demo-expert"). Everything goes through the importer,
so the demo files are held to the same checks as a user's files.
"""

from __future__ import annotations

from judge_tui import locations
from judge_tui.importing import import_items, import_ratings
from judge_tui.rubrics import load_rubrics
from judge_tui.store import Store

DEMO_RUBRICS = ("cis", "exercise-quality", "reasoning-trace", "binary")
DEMO_EXPERT = "demo-expert"
DEMO_JUDGE = "demo-judge"


def demo_rating_files(rubric_id: str) -> list[tuple[str, str, str]]:
    """(file name, rater, kind) of the demo ratings of a rubric, whether or not the files exist."""
    files = [(f"{rubric_id}.expert-demo.ratings.jsonl", DEMO_EXPERT, "human"),
             (f"{rubric_id}.judge-demo.ratings.jsonl", DEMO_JUDGE, "judge")]
    if rubric_id == "binary":
        files.append(("binary.labels.jsonl", DEMO_EXPERT, "human"))
    return files


def load_demo(store: Store) -> int:
    """Import the demo items and ratings of every built-in rubric into an empty database.

    Returns how many items were added (0 if the database already holds items: the demo never mixes with
    a user's data).
    """
    if store.count_items():
        return 0
    rubrics = load_rubrics()
    added = 0
    with store.transaction():  # all of the demo or none of it
        for rubric_id in DEMO_RUBRICS:
            path = locations.data_dir() / f"{rubric_id}.jsonl"
            if not path.is_file() or rubric_id not in rubrics:
                continue
            rubric = rubrics[rubric_id][0]
            added += import_items(store, path, rubric, fmt="jsonl").items["added"]
            for name, rater, kind in demo_rating_files(rubric_id):
                ratings_path = locations.data_dir() / name
                if ratings_path.is_file():
                    import_ratings(store, ratings_path, rater, kind, rubric=rubric, fmt="jsonl")
    return added
