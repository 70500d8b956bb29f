"""How long merging two databases of 10,000 ratings each takes (target: under 2 s).

Builds two expert databases over the same 2,500 CIS-shaped items (four raters x 2,500 items = 10,000 ratings
in each, two raters shared so half the ratings are already present), then times `merge_database` and a second,
idempotent merge of the same file.

    .venv/bin/python benchmarks/bench_merge.py
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from judge_tui.model.records import Item, Rating
from judge_tui.model.rubrics import get_rubric
from judge_tui.store import Store
from judge_tui.transfer.merge import merge_database

ITEMS = 2_500
RUNS = 5


def build(path: Path, raters: list[str], seed: int) -> None:
    rubric = get_rubric("cis")
    rng = random.Random(seed)
    with Store(path) as store:
        version = store.ensure_rubric_version(rubric)
        store.add_items(
            Item(id=f"B{n:05d}", rubric="cis", task_type="LRU Cache",
                 fields={"task_type": "LRU Cache", "rationale": "a plain function",
                         "source_code": f"def f{n}():\n    return {n}\n", "test_code": "ok"})
            for n in range(ITEMS)
        )
        for rater in raters:
            store.ensure_rater(rater, "human")
        ratings = []
        for rater in raters:
            # Shared raters rate identically in both files (seeded by rater), so their ratings merge as unchanged.
            local = random.Random(rater) if rater.startswith("shared") else rng
            for n in range(ITEMS):
                scores = {d: local.choice((0.0, 0.25, 0.5, 0.75, 1.0)) for d in rubric.dimension_ids}
                ratings.append(Rating(item_id=f"B{n:05d}", rater_id=rater, rubric_version_id=version,
                                      scores=scores, overall=rubric.overall_score(scores),
                                      notes="a note of ordinary length about the submission", seconds=42.0,
                                      created_at="2026-11-01T10:00:00.000+00:00"))
        store.save_ratings(ratings)


def main() -> int:
    first_times, second_times = [], []
    for run in range(RUNS):
        with tempfile.TemporaryDirectory() as tmp:
            ours, theirs = Path(tmp) / "ours.db", Path(tmp) / "theirs.db"
            build(ours, ["shared1", "shared2", "ann", "ben"], seed=run)
            build(theirs, ["shared1", "shared2", "cat", "dan"], seed=run + 100)
            with Store(ours) as store:
                start = time.perf_counter()
                result = merge_database(store, theirs)
                first_times.append(time.perf_counter() - start)
                assert result.added["ratings"] == 5_000, result.added
                assert result.unchanged_ratings == 5_000, result.added
                start = time.perf_counter()
                again = merge_database(store, theirs)
                second_times.append(time.perf_counter() - start)
                assert not again.changed
                assert store.count_ratings() == 15_000
    print(f"merge two 10,000-rating databases ({RUNS} runs): median {statistics.median(first_times):.3f} s, "
          f"max {max(first_times):.3f} s")
    print(f"merge the same file again (nothing new): median {statistics.median(second_times):.3f} s, "
          f"max {max(second_times):.3f} s")
    return 0 if max(first_times) < 2.0 else 1


if __name__ == "__main__":
    sys.exit(main())
