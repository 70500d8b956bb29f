"""Core speed figures: bulk import, opening a large database, export.

    python benchmarks/bench_core.py [--items 100000] [--export-items 10000]

Targets: 100k items imported from JSONL in under 3 s, beside the floor measured in turn with it (each line parsed
with json.loads and written as it is into the same table, nothing checked); opening a 100k-item database and fetching the next
unrated item in under 50 ms (measured in a fresh process, with nothing and with 90% of the items rated);
exporting 10k items' ratings in under 1 s. Everything runs in a temporary folder and is deleted afterwards.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge_tui.model.records import Rating  # noqa: E402
from judge_tui.model.rubrics import get_rubric  # noqa: E402
from judge_tui.store import Store  # noqa: E402
from judge_tui.transfer.exporting import export  # noqa: E402
from judge_tui.transfer.importing import import_items  # noqa: E402

OPEN_AND_FETCH = """
import sys, time
t0 = time.perf_counter()
from judge_tui.store import Store
t1 = time.perf_counter()
store = Store(sys.argv[1])
item = store.next_unrated_item(sys.argv[2], "binary")
t2 = time.perf_counter()
print(f"{(t1 - t0) * 1000:.1f} {(t2 - t1) * 1000:.1f} {item.id if item else None}")
"""


def write_items(path: Path, count: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        for i in range(count):
            out.write(json.dumps({"id": f"P{i:06d}", "query": f"Write a query for report {i}",
                                  "criterion": "The SQL only reads data.",
                                  "response": f"SELECT region, SUM(amount) FROM sales WHERE year = {2000 + i % 25}"
                                              f" GROUP BY region; -- variant {i}"}) + "\n")


def rate(store: Store, rater: str, kind: str, ids: list[str], version: int) -> float:
    store.ensure_rater(rater, kind)
    ratings = [Rating(item_id=i, rater_id=rater, rubric_version_id=version,
                      scores={"label": 1.0 if n % 3 else 0.0}, overall=1.0 if n % 3 else 0.0,
                      verdict="PASS" if n % 3 else "FAIL", notes=f"note {n}", seconds=12.5)
               for n, i in enumerate(ids)]
    start = time.perf_counter()
    store.save_ratings(ratings)
    return time.perf_counter() - start


def bare_import(source: Path, db: Path) -> tuple[float, float]:
    """The floor of an import, (wall, CPU) seconds: each line parsed with json.loads and written as it is, in one
    transaction, into the items table of an empty database of the same schema (no check, no canonical form)."""
    Store(db).close()  # the schema, nothing else
    conn = sqlite3.connect(db, isolation_level=None)
    start, cpu = time.perf_counter(), time.process_time()
    conn.execute("BEGIN IMMEDIATE")
    with source.open(encoding="utf-8") as lines:
        conn.executemany("INSERT INTO items (id, rubric, fields, content_hash, position, created_at)"
                         " VALUES (?, 'binary', ?, '', ?, '')",
                         ((json.loads(line)["id"], line, n) for n, line in enumerate(lines, start=1)))
    conn.execute("COMMIT")
    elapsed = time.perf_counter() - start, time.process_time() - cpu
    conn.close()
    return elapsed


def fresh_open(db: Path, rater: str, runs: int = 9) -> tuple[float, float, float, str]:
    """Store open + next_unrated_item in a new process, in ms: (module import, best, median, item found)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    measured = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", OPEN_AND_FETCH, str(db), rater], capture_output=True,
                             text=True, check=True, env=env).stdout.split()
        measured.append((float(out[1]), float(out[0]), out[2]))
    measured.sort()
    return measured[0][1], measured[0][0], statistics.median(m[0] for m in measured), measured[0][2]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--export-items", type=int, default=10_000)
    parser.add_argument("--import-runs", type=int, default=3, help="imports, each beside its floor")
    args = parser.parse_args()
    rubric = get_rubric("binary")
    print(f"load average before: {os.getloadavg()[0]:.1f} (2 cores)")
    with tempfile.TemporaryDirectory() as folder:
        os.environ["JUDGE_TUI_HOME"] = folder
        work = Path(folder)
        source = work / "items.jsonl"
        write_items(source, args.items)
        ratios = []
        for run in range(args.import_runs):  # the floor and the import in turn, so both see the same load
            floor, floor_cpu = bare_import(source, work / f"floor-{run}.db")
            db = work / f"big-{run}.db"
            with Store(db) as store:
                start, cpu = time.perf_counter(), time.process_time()
                result = import_items(store, source, rubric, fmt="jsonl")
                elapsed, elapsed_cpu = time.perf_counter() - start, time.process_time() - cpu
                assert result.items["added"] == args.items
            ratios.append(elapsed / floor)
            print(f"import {args.items} items from JSONL: {elapsed:.2f} s, CPU {elapsed_cpu:.2f} s (target < 3 s); "
                  f"floor {floor:.2f} s, CPU {floor_cpu:.2f} s; {elapsed / floor:.2f}x the floor, CPU "
                  f"{elapsed_cpu / floor_cpu:.2f}x (load average {os.getloadavg()[0]:.1f})")
        print(f"import: median {statistics.median(ratios):.2f}x the floor over {args.import_runs} runs")
        with Store(db) as store:
            start = time.perf_counter()
            again = import_items(store, source, rubric, fmt="jsonl")
            print(f"re-import of the same file ({again.items['unchanged']} unchanged): "
                  f"{time.perf_counter() - start:.2f} s")
            version = store.ensure_rubric_version(rubric)
            ids = store.item_ids("binary")
        module_ms, best, median, found = fresh_open(db, "EXP001")
        print(f"fresh process, nothing rated: Store open + next_unrated_item best {best:.1f} ms, median "
              f"{median:.1f} ms of 9 (import of judge_tui.store {module_ms:.0f} ms) -> {found} (target < 50 ms)")
        with Store(db) as store:
            seconds = rate(store, "EXP001", "human", ids[: int(len(ids) * 0.9)], version)
        print(f"saving {int(len(ids) * 0.9)} ratings in one transaction: {seconds:.2f} s")
        module_ms, best, median, found = fresh_open(db, "EXP001")
        print(f"fresh process, 90% rated: Store open + next_unrated_item best {best:.1f} ms, median "
              f"{median:.1f} ms of 9 (import of judge_tui.store {module_ms:.0f} ms) -> {found} (target < 50 ms)")

        small = work / "small.db"
        write_items(source, args.export_items)
        with Store(small) as store:
            import_items(store, source, rubric, fmt="jsonl")
            ids = store.item_ids("binary")
            rate(store, "EXP001", "human", ids, version)
            rate(store, "judge:bench:binary@1", "judge", ids, version)
            for fmt in ("jsonl", "csv"):
                start = time.perf_counter()
                count = export(store, fmt, io.StringIO())
                print(f"export {count} ratings of {args.export_items} items as {fmt}: "
                      f"{time.perf_counter() - start:.2f} s (target < 1 s)")
            start = time.perf_counter()
            out = io.StringIO()
            export(store, "rating-form", out, rater="EXP001", rubric="binary")
            print(f"export {args.export_items} items as a rating form: {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
