"""How long `import` and `merge` hold the database's write lock, as an open rating app would feel it.

A probe connection tries BEGIN IMMEDIATE without waiting every 20 ms while the command runs in a subprocess;
the longest stretch in which it was refused is the longest time the app's changes wait (they are kept and
saved afterwards: the app never blocks on it). The commands are all-or-nothing, so each is one transaction.

Run: .venv/bin/python benchmarks/bench_lock_hold.py [ITEMS]   (default 100,000 binary items)
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def longest_lock(db: Path, command: list[str], home: Path) -> tuple[float, float]:
    """(seconds the command ran, longest seconds the probe could not write)."""
    env = {**os.environ, "JUDGE_TUI_HOME": str(home), "PYTHONPATH": str(REPO)}
    probe = sqlite3.connect(db, timeout=0, isolation_level=None)
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "judge_tui", *command, "--db", str(db)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    longest, refused_since = 0.0, None
    while proc.poll() is None:
        try:
            probe.execute("BEGIN IMMEDIATE")
            probe.execute("ROLLBACK")
            refused_since = None
        except sqlite3.OperationalError:
            now = time.perf_counter()
            refused_since = refused_since or now
            longest = max(longest, now - refused_since)
        time.sleep(0.02)
    probe.close()
    return time.perf_counter() - start, longest


def rate_everything(db: Path) -> None:
    """One expert's rating of every item, as an expert's database to merge holds."""
    from judge_tui.model.records import Rating
    from judge_tui.model.rubrics import get_rubric
    from judge_tui.store import Store

    with Store(db) as store:
        version = store.ensure_rubric_version(get_rubric("binary"))
        store.ensure_rater("EXP001", "human")
        ids = [row["id"] for row in store.query("SELECT id FROM items")]
        store.save_ratings(Rating(item_id=i, rater_id="EXP001", rubric_version_id=version, scores={"label": 1.0},
                                  overall=1.0, verdict="PASS", notes="fine", seconds=12.0) for i in ids)


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        items = tmp / "items.jsonl"
        with items.open("w") as f:
            for n in range(count):
                f.write(json.dumps({"id": f"P{n}", "query": f"question {n}", "criterion": "c",
                                    "response": "an answer " * 30}) + "\n")
        lead, expert = tmp / "lead.db", tmp / "expert.db"
        # Both databases exist before the probe starts: one small import each.
        small = tmp / "small.jsonl"
        small.write_text(json.dumps({"id": "S0", "query": "q", "criterion": "c", "response": "r"}) + "\n")
        for db in (lead, expert):
            subprocess.run([sys.executable, "-m", "judge_tui", "import", str(small), "--rubric", "binary",
                            "--db", str(db)], check=True, capture_output=True,
                           env={**os.environ, "JUDGE_TUI_HOME": str(tmp), "PYTHONPATH": str(REPO)})
        ran, held = longest_lock(expert, ["import", str(items), "--rubric", "binary"], tmp)
        print(f"import of {count:,} items: ran {ran:.1f} s, held the write lock for at most {held:.1f} s")
        rate_everything(expert)
        ran, held = longest_lock(lead, ["merge", str(expert)], tmp)
        print(f"merge of a database of {count:,} rated items: ran {ran:.1f} s, held the write lock for at most {held:.1f} s")


if __name__ == "__main__":
    main()
