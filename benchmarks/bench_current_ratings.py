"""What reading current ratings through the view current_ratings costs, against the row-id rule it replaced.

Builds 50,000 items rated by four experts (200,000 first runs; a tenth of them also under an older rubric
version merged in later, so the view has a choice to make), then times, in the same run, each reader's query
through the view and the same query written with the old rule (MAX(rubric_version_id)): an expert's flags
(counted after every change on the rating screen), status's current ratings of one expert, and the rating
screen's read of one item. Reports medians and the ratio new/old.

    .venv/bin/python benchmarks/bench_current_ratings.py [--items N]
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from judge_tui.model.records import Item, Rating
from judge_tui.model.rubrics import get_rubric
from judge_tui.store import Store
from judge_tui.store.flags import _FLAGS

EXPERTS = ("ann", "bob", "cat", "dan")
OLD_FLAGS = _FLAGS.replace(
    "FROM current_ratings r\n     WHERE r.flagged = 1",
    "FROM ratings r\n     WHERE r.flagged = 1 AND r.repeat = 0 AND r.rubric_version_id = (SELECT MAX(o.rubric_version_id)"
    " FROM ratings o WHERE o.item_id = r.item_id AND o.rater_id = r.rater_id AND o.repeat = 0)")
OLD_STATUS = ("SELECT r.item_id, i.task_type, r.seconds FROM ratings r JOIN items i ON i.id = r.item_id"
              " WHERE r.rater_id = ? AND i.rubric = ? AND r.repeat = 0 AND r.rubric_version_id = ("
              " SELECT MAX(o.rubric_version_id) FROM ratings o WHERE o.item_id = r.item_id"
              " AND o.rater_id = r.rater_id AND o.repeat = 0) ORDER BY i.position")
NEW_STATUS = ("SELECT r.item_id, i.task_type, r.seconds FROM current_ratings r JOIN items i ON i.id = r.item_id"
              " WHERE r.rater_id = ? AND i.rubric = ? ORDER BY i.position")
OLD_ONE = ("SELECT * FROM ratings WHERE item_id = ? AND rater_id = ? AND repeat = 0"
           " ORDER BY rubric_version_id DESC LIMIT 1")
NEW_ONE = "SELECT * FROM current_ratings WHERE item_id = ? AND rater_id = ?"


def build(path: Path, items: int) -> None:
    rubric = get_rubric("binary")
    older = dataclasses.replace(rubric, description=rubric.description + " (older wording)")
    rng = random.Random(7)
    with Store(path) as store:
        newer_id = store.ensure_rubric_version(rubric)
        older_id = store.ensure_rubric_version(older)
        store.conn.execute("UPDATE rubric_versions SET created_at = '2026-01-01T00:00:00.000+00:00' WHERE id = ?",
                           [older_id])
        store.conn.commit()
        store.add_items(Item(id=f"I{n:06d}", rubric="binary", fields={"query": "q", "criterion": "c",
                                                                      "response": f"r{n}"}) for n in range(items))
        for expert in EXPERTS:
            store.ensure_rater(expert, "human")
            ratings = []
            for n in range(items):
                label = float(rng.random() < 0.7)
                for version in (newer_id, older_id) if n % 10 == 0 else (newer_id,):
                    ratings.append(Rating(item_id=f"I{n:06d}", rater_id=expert, rubric_version_id=version,
                                          scores={"label": label}, overall=label, seconds=30.0,
                                          verdict="PASS" if label else "FAIL", flagged=rng.random() < 0.02,
                                          flag_reason="why"))
            store.save_ratings(ratings)


def median_ms(run: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.db"
        build(path, args.items)
        with Store(path) as store:
            conn = store.conn
            flags = "SELECT COUNT(*) FROM ({}) f JOIN items i ON i.id = f.item_id WHERE i.rubric = ? AND f.rater_id = ?"
            cases = {
                "flags of one expert": (lambda: conn.execute(flags.format(OLD_FLAGS), ["binary", "ann"]).fetchall(),
                                        lambda: conn.execute(flags.format(_FLAGS), ["binary", "ann"]).fetchall()),
                "status: one expert's current ratings": (
                    lambda: conn.execute(OLD_STATUS, ["ann", "binary"]).fetchall(),
                    lambda: conn.execute(NEW_STATUS, ["ann", "binary"]).fetchall()),
                "one item's current rating (x1000)": (
                    lambda: [conn.execute(OLD_ONE, [f"I{n:06d}", "ann"]).fetchall() for n in range(1000)],
                    lambda: [conn.execute(NEW_ONE, [f"I{n:06d}", "ann"]).fetchall() for n in range(1000)]),
            }
            ratings = int(store.scalar("SELECT COUNT(*) FROM ratings"))
            print(f"{args.items} items, {ratings} ratings, median of {args.repeats} runs")
            for name, (old, new) in cases.items():
                before, after = median_ms(old, args.repeats), median_ms(new, args.repeats)
                print(f"  {name}: row-id rule {before:.1f} ms, view {after:.1f} ms, ratio {after / before:.2f}")


if __name__ == "__main__":
    main()
