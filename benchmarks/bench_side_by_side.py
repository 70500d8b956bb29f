"""Judges side by side: three `judge-tui judge` processes on one database never pay twice for one job.

Each process is started a moment after the previous one, while the first has calls in flight, against the fake
Anthropic API in a process of its own (200 ms per call). Every call a judge makes is a row of judge_calls, so the
paid calls are counted from the database itself: the figure is calls made minus jobs judged.

Run from the project root:  python benchmarks/bench_side_by_side.py [--items 300] [--judges 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_judge import KEY, MODEL, FakeServer, make_items  # noqa: E402

from judge_tui.model.rubrics import load_rubrics  # noqa: E402
from judge_tui.store import Store  # noqa: E402


def run(items: int, judges: int, latency: float) -> dict[str, float]:
    rubric = load_rubrics()["cis"][0]
    server = FakeServer(latency)
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "side-by-side.db"
        with Store(db) as store:
            store.ensure_rubric_version(rubric)
            store.add_items(make_items(items))
        env = {**os.environ, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.url,
               "JUDGE_TUI_HOME": folder, "PYTHONPATH": str(ROOT)}
        started = time.monotonic()
        processes = []
        try:
            for _ in range(judges):
                processes.append(subprocess.Popen(
                    [sys.executable, "-m", "judge_tui", "judge", "--db", str(db), "--rubric", "cis", "--model",
                     MODEL, "--concurrency", "8"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE, text=True))
                time.sleep(2.0)  # the next judge starts while the others have calls in flight
            codes = [p.wait(600) for p in processes]
        finally:
            for p in processes:
                if p.poll() is None:
                    p.kill()
            server.stop()
        elapsed = time.monotonic() - started
        with Store(db) as store:
            calls = store.conn.execute("SELECT COUNT(*) FROM judge_calls").fetchone()[0]
            done = store.conn.execute("SELECT COUNT(*) FROM judge_jobs WHERE status = 'done'").fetchone()[0]
            twice = store.conn.execute(
                "SELECT COUNT(*) FROM (SELECT job_id FROM judge_calls GROUP BY job_id HAVING COUNT(*) > 1)"
            ).fetchone()[0]
    return {"items": items, "judges": judges, "exit codes": codes, "jobs done": done, "calls": calls,
            "calls paid twice": calls - done, "jobs called more than once": twice, "seconds": round(elapsed, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=300)
    parser.add_argument("--judges", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.2)
    args = parser.parse_args()
    for key, value in run(args.items, args.judges, args.latency).items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
