"""Peak memory of `judge-tui import` against the size of the file (JSON Lines, CSV and a JSON array).

Each import runs in its own process, which reports its peak resident memory (ru_maxrss) when it ends; the
peak of importing a three-item file is subtracted, so what is left is what the file costs. JSON Lines and CSV
are read a line at a time and written a chunk at a time (about 1x the file); a JSON array is parsed whole.

    .venv/bin/python benchmarks/bench_import_memory.py            # 50 MB and 150 MB files
    .venv/bin/python benchmarks/bench_import_memory.py 400        # one size, in MB
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN = """
import resource, runpy, sys
sys.argv = ["judge-tui", *sys.argv[1:]]
try:
    runpy.run_module("judge_tui", run_name="__main__")
except SystemExit as done:
    code = done.code
print("peak_kb", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
sys.exit(code)
"""
ANSWER = "SELECT id, total FROM orders WHERE created_at >= now() - interval '1 day'; " * 80


def write(path: Path, megabytes: float) -> int:
    rows = [{"id": f"I{n}", "query": f"Orders today ({n})", "criterion": "Read-only SQL.", "response": ANSWER + str(n)}
            for n in range(int(megabytes * 1e6) // (len(ANSWER) + 90))]
    if path.suffix == ".csv":
        with path.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    elif path.suffix == ".json":
        path.write_text(json.dumps(rows))
    else:
        with path.open("w") as handle:
            handle.writelines(json.dumps(row) + "\n" for row in rows)
    return len(rows)


def peak_mb(folder: Path, path: Path) -> float:
    env = {**os.environ, "JUDGE_TUI_HOME": str(folder / "home"), "PYTHONPATH": str(ROOT)}
    db = folder / f"{path.name}.db"
    done = subprocess.run([sys.executable, "-c", RUN, "import", str(path), "--rubric", "binary", "--db", str(db)],
                          capture_output=True, text=True, env=env, check=True)
    return int(done.stderr.rsplit("peak_kb", 1)[1]) / 1000


def main() -> None:
    sizes = [float(a) for a in sys.argv[1:]] or [50.0, 150.0]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write(folder / "tiny.jsonl", 0.02)
        base = peak_mb(folder, folder / "tiny.jsonl")
        print(f"start-up and a 3-item import: {base:.0f} MB")
        print(f"{'file':>14} {'size MB':>8} {'peak MB':>8} {'over start-up':>14} {'x file':>7}")
        for size in sizes:
            for suffix in (".jsonl", ".csv", ".json"):
                path = folder / f"items-{size:g}{suffix}"
                write(path, size)
                actual = path.stat().st_size / 1e6
                peak = peak_mb(folder, path)
                print(f"{path.name:>14} {actual:8.0f} {peak:8.0f} {peak - base:14.0f} {(peak - base) / actual:7.2f}")
                path.unlink()


if __name__ == "__main__":
    main()
