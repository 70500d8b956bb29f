"""Loading the bundled demo into its own database, through the importer like any user's files."""

from __future__ import annotations

from judge_tui.model import locations
from judge_tui.store import Store
from judge_tui.transfer.demo import DEMO_META_KEY, DEMO_RUBRICS, demo_rating_files


def load_demo(store: Store) -> int:
    """Import the demo items and ratings of every built-in rubric into an empty database, and mark it the demo's.

    Returns how many items were added (0 if the database already holds items: the demo never mixes with
    a user's data).
    """
    from judge_tui.model.rubrics import load_rubrics
    from judge_tui.transfer.importing import import_items, import_ratings

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
        store.set_meta(DEMO_META_KEY, "1")
    return added


def open_demo() -> tuple[Store, int]:
    """The demo's own database, with the demo loaded the first time; and how many items were just added."""
    store = Store(locations.demo_db_path())
    try:
        return store, load_demo(store)
    except BaseException:
        store.close()
        raise
