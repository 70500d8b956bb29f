"""What the judge-bias figures cost on a large study, in CPU time, with the calls that take it.

Builds bench_report's database of N items (reasoning-trace, one expert and a judge) and gives every item a
response of 640 to 2,560 characters, as real answers have (bench_report's are one letter), then times
`judge_biases` (the report's and the judge screen's bias section) in one process: the median CPU time of 7 runs
after a first, and cProfile's heaviest calls of one more.

    .venv/bin/python benchmarks/bench_biases.py [--items 10000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from bench_report import JUDGE, RUBRIC, build

from judge_tui.analysis.biases import judge_biases
from judge_tui.analysis.scores import load
from judge_tui.model.rubrics import get_rubric
from judge_tui.store import Store

SENTENCE = "Die Antwort ist richtig, weil … "  # 32 characters, one of them beyond ASCII


def build_with_responses(path: Path, n: int) -> None:
    build(path, n)
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT rowid, fields FROM items").fetchall()
        conn.executemany("UPDATE items SET fields = ? WHERE rowid = ?",
                         [(json.dumps({**json.loads(fields), "response": SENTENCE * (20 + rowid % 60)},
                                      ensure_ascii=False), rowid) for rowid, fields in rows])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--keep", type=Path, help="keep (and reuse) the synthetic database in this folder")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-biases-"))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"biases-{args.items}.db"
    if not path.exists():
        build_with_responses(path, args.items)
    rubric = get_rubric(RUBRIC)
    with Store(path) as store:
        ratings = load(store, rubric, None)  # read once, as the report does, and not timed here
        judge_biases(store, rubric, JUDGE, ratings=ratings)
        times = []
        for _ in range(7):
            start = time.process_time()
            judge_biases(store, rubric, JUDGE, ratings=ratings)
            times.append(time.process_time() - start)
        print(f"judge_biases on {args.items:,} items: median {statistics.median(times) * 1000:.0f} ms CPU "
              f"(best {min(times) * 1000:.0f} ms) of 7")
        profile = cProfile.Profile()
        profile.runcall(judge_biases, store, rubric, JUDGE, ratings=ratings)
    pstats.Stats(profile).sort_stats("cumulative").print_stats(12)


if __name__ == "__main__":
    main()
