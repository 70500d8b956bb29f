"""Time what a balanced rating session does besides showing items, in-process on a 500-item PASS/FAIL pool
(judge: every fifth item FAIL; 60 items rated by the expert, every fourth FAIL):

* the allocation checkpoint: laying the untouched items out again after every 10 ratings (prepare_queue at
  a checkpoint, in RatingSession.submit before the next item opens);
* prepare_queue when nothing is due (every session start);
* the stop check after each rating (study_settledness, in a worker thread): the report of the checks alone,
  beside the full report it used to build.

Run: .venv/bin/python benchmarks/bench_balanced_session.py
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from judge_tui.analysis.queue_orders import prepare_queue
from judge_tui.analysis.report import build_report
from judge_tui.analysis.stopping import study_settledness
from judge_tui.model.records import Item, Rating
from judge_tui.model.rubrics import Rubric, load_rubrics
from judge_tui.model.settings import AgreementSettings
from judge_tui.store import Store

ITEMS = 500
RATED = 60
JUDGE = "judge:bench"


def timed(work: Callable[[], object], repeats: int = 7) -> str:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
    return f"median {statistics.median(times):6.1f} ms, best {min(times):6.1f} ms"


def rate(store: Store, rubric: Rubric, rater: str, item_id: str, fail: bool) -> None:
    dim = rubric.judged_dimensions[0].id
    scores = {dim: rubric.scale.points[0] if fail else rubric.scale.points[-1]}
    store.save_rating(Rating(item_id=item_id, rater_id=rater, rubric_version_id=store.ensure_rubric_version(rubric),
                             scores=scores, overall=rubric.overall_score(scores), verdict=rubric.verdict(scores)))


def main() -> None:
    rubric = load_rubrics()["binary"][0]
    with tempfile.TemporaryDirectory() as folder, Store(Path(folder) / "bench.db") as store:
        store.ensure_rubric_version(rubric)
        ids = [f"P{k:04d}" for k in range(ITEMS)]
        store.add_items([Item(id=i, rubric=rubric.id, fields={"query": i, "criterion": "c", "response": "r"})
                         for i in ids])
        store.ensure_rater(JUDGE, "judge")
        store.ensure_rater("ann", "human")
        for k, item_id in enumerate(ids):
            rate(store, rubric, JUDGE, item_id, k % 5 == 0)
        prepare_queue(store, rubric, "ann", "balanced")
        for k, (item_id, _, _) in enumerate(store.queue_entries("ann", rubric.id)[:RATED]):
            rate(store, rubric, "ann", item_id, k % 4 == 0)
        settings = AgreementSettings()

        def checkpoint() -> None:
            store.conn.execute("UPDATE queue_orders SET allocated_with = 0")  # make the layout due again
            prepare_queue(store, rubric, "ann", "balanced")

        print(f"{ITEMS} items, {RATED} rated in balanced order")
        print(f"allocation checkpoint (lay out {ITEMS - RATED} items again): {timed(checkpoint)}")
        print(f"session start, nothing due:                          {timed(lambda: prepare_queue(store, rubric, 'ann', 'balanced'))}")
        print(f"stop check, full report (before):                    {timed(lambda: build_report(store, rubric, settings=settings))}")
        print(f"stop check, the checks alone (study_settledness):    {timed(lambda: study_settledness(store, rubric, settings))}")


if __name__ == "__main__":
    main()
