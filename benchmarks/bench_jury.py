"""How much a jury of three judges adds to `judge-tui report` on a large database.

    .venv/bin/python benchmarks/bench_jury.py [--items 100000] [--runs 3] [--keep DIR]

1. Builds two synthetic databases (not timed) of N items of the reasoning-trace rubric (5 dimensions, 0-1 in
   0.25 steps) rated by one expert: one judged by one judge, the other by three judges (so its report has the
   jury section: each judge, the jury, the three pairs' error correlation, the jury against its best member).
2. Times `judge-tui report --format json` on each in a fresh process, in alternating order (one, three, three,
   one, ...), so both see the same load; the goal is the three-judge report under 2x the one-judge report.
3. Times the jury section alone (build_jury + its JSON) in this process.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judge_tui.model.records import Item, Rating  # noqa: E402
from judge_tui.model.rubrics import get_rubric  # noqa: E402
from judge_tui.store import Store  # noqa: E402

RUBRIC = "reasoning-trace"
HUMAN = "EXP001"
JUDGES = tuple(f"judge:bench-{name}:reasoning-trace@1" for name in ("a", "b", "c"))


def build(path: Path, n: int, judges: tuple[str, ...], seed: int = 7) -> None:
    rubric = get_rubric(RUBRIC)
    rng = np.random.default_rng(seed)
    points = np.asarray(rubric.scale.points)
    with Store(path) as store:
        version = store.ensure_rubric_version(rubric)
        store.add_items(Item(id=f"T{i:06d}", rubric=RUBRIC, fields={"question": f"q{i}", "response": "r",
                                                                     "reference_answer": "a"}) for i in range(n))
        store.ensure_rater(HUMAN, "human")
        for judge in judges:
            store.ensure_rater(judge, "judge", model=judge.split(":")[1], prompt_version="1")
        truth = rng.integers(0, points.size, (n, len(rubric.dimensions)))
        codes_of = {HUMAN: truth}
        for judge in judges:
            codes_of[judge] = np.clip(truth + rng.choice([-1, 0, 0, 1], truth.shape), 0, points.size - 1)

        def ratings() -> Iterator[Rating]:
            for i in range(n):
                for rater, codes in codes_of.items():
                    scores = {d: float(points[c]) for d, c in zip(rubric.dimension_ids, codes[i], strict=True)}
                    yield Rating(item_id=f"T{i:06d}", rater_id=rater, rubric_version_id=version, scores=scores,
                                 overall=rubric.overall_score(scores), notes="n", seconds=2.0)

        store.save_ratings(ratings())


def report_seconds(db: Path) -> float:
    command = [sys.executable, "-m", "judge_tui", "report", "--db", str(db), "--format", "json", "-o", "/dev/null"]
    started = time.perf_counter()
    subprocess.run(command, check=True)
    return time.perf_counter() - started


def jury_alone(db: Path) -> dict[str, float]:
    from judge_tui.analysis.jury import build_jury
    from judge_tui.analysis.report_render.jury import jury_to_dict
    from judge_tui.analysis.scores import load

    rubric = get_rubric(RUBRIC)
    with Store(db) as store:
        ratings = load(store, rubric)
        started = time.perf_counter()
        jury = build_jury(store, rubric, ratings=ratings)
        built = time.perf_counter() - started
        assert jury is not None
        assert len(jury.members) == 3
        started = time.perf_counter()
        json.dumps(jury_to_dict(jury))
        rendered = time.perf_counter() - started
    return {"build_jury_s": round(built, 3), "jury_json_s": round(rendered, 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3, help="report runs of each database")
    parser.add_argument("--keep", type=Path, help="build the databases here (and reuse them if they exist)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        one, three = folder / f"one-judge-{args.items}.db", folder / f"three-judges-{args.items}.db"
        for path, judges in ((one, JUDGES[:1]), (three, JUDGES)):
            if not path.exists():
                started = time.perf_counter()
                build(path, args.items, judges)
                print(f"built {path.name} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        times: dict[str, list[float]] = {"one judge": [], "three judges": []}
        for run in range(args.runs):
            order = [("one judge", one), ("three judges", three)]
            for name, path in order if run % 2 == 0 else order[::-1]:
                times[name].append(report_seconds(path))
        ratios = [t / o for o, t in zip(times["one judge"], times["three judges"], strict=True)]
        result = {
            "items": args.items, "runs": args.runs,
            "report_one_judge_s": [round(t, 2) for t in times["one judge"]],
            "report_three_judges_s": [round(t, 2) for t in times["three judges"]],
            "median_ratio": round(statistics.median(ratios), 3),
            "ratio_by_run": [round(r, 3) for r in ratios],
            **jury_alone(three),
        }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
