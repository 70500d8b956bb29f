"""A team at scale: 20 experts' bundles of 2,500 items each (20% overlap) merged into the lead's database, then
`judge-tui status` and the full report (with the team's figures) over it, each in a fresh process.

    .venv/bin/python benchmarks/bench_team_scale.py [--experts 20] [--per-expert 2500] [--overlap 0.2]
                                                   [--repeats 5] [--keep DIR]

Set-up (not timed): 500 items every expert rates (20% of 2,500) and 2,000 of each expert's own: 40,500 CIS
items. The lead's database holds them all with a judge's rating of each. Each expert's database holds the
expert's 2,500 items and their ratings (seeded; on the shared items the experts mostly agree), and each
expert's bundle is written from it by the real export path (`export_bundle`, what `judge-tui export --bundle`
runs).

Timed, as the user runs them (a fresh `python -m judge_tui` process each, wall time from start to exit):

* `judge-tui merge --db lead.db BUNDLE x20` on a fresh copy of the lead's database (target < 5 s);
* `judge-tui status --db merged.db` (target < 2 s);
* `judge-tui report --db merged.db` (text; judge comparison, team section, flags) and `--format json` (< 2 s).

The rating screen's start to its first item at 100,000 items is measured by `bench_tui.py --starts-only`, beside
a bare Textual app's start in the same run.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import TYPE_CHECKING

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

if TYPE_CHECKING:  # for the annotations only: the code imports them where it uses them
    from judge_tui.model.records import Item, Rating
    from judge_tui.model.rubrics import Rubric

POINTS = (0.0, 0.25, 0.5, 0.75, 1.0)
CREATED = "2026-11-01T10:00:00.000+00:00"


def items_of(expert: int, per_expert: int, shared: int) -> list[str]:
    own = per_expert - shared
    return [f"S{n:05d}" for n in range(shared)] + [f"E{expert:02d}-{n:05d}" for n in range(own)]


def item(item_id: str) -> Item:
    from judge_tui.model.records import Item

    task_type = ("LRU Cache", "Fibonacci", "Email Validator", "Matrix", "Parser")[zlib.crc32(item_id.encode()) % 5]
    return Item(id=item_id, rubric="cis", task_type=task_type,
                fields={"task_type": task_type, "task": f"Task of {item_id}", "rationale": "As asked.",
                        "source_code": f"def solve_{item_id.replace('-', '_')}():\n    return 42\n",
                        "test_code": "def test():\n    assert solve() == 42\n", "test_results": "1 passed"})


def scores_for(rubric: Rubric, item_id: str, rater: str) -> dict[str, float]:
    """Seeded scores: each item has a true level; each rater is off by a step now and then."""
    truth = random.Random(item_id)
    noise = random.Random(f"{item_id}/{rater}")
    scores = {}
    for dimension in rubric.judged_dimensions:
        level = truth.randrange(5)
        if noise.random() < 0.3:
            level = min(4, max(0, level + noise.choice((-1, 1))))
        scores[dimension.id] = POINTS[level]
    return scores


def rating(rubric: Rubric, version: int, item_id: str, rater: str) -> Rating:
    from judge_tui.model.records import Rating

    scores = {**scores_for(rubric, item_id, rater), **rubric.code_scores(item(item_id).fields)}
    return Rating(item_id=item_id, rater_id=rater, rubric_version_id=version, scores=scores,
                  overall=rubric.overall_score(scores), verdict=rubric.verdict(scores),
                  notes="a note of ordinary length about the submission", seconds=42.0, created_at=CREATED)


def build(folder: Path, experts: int, per_expert: int, shared: int) -> tuple[Path, list[Path]]:
    from judge_tui.model.rubrics import get_rubric
    from judge_tui.store import Store
    from judge_tui.transfer.bundle import export_bundle

    rubric = get_rubric("cis")
    everything = sorted({i for e in range(experts) for i in items_of(e, per_expert, shared)})
    lead = folder / "lead.db"
    with Store(lead) as store:
        version = store.ensure_rubric_version(rubric)
        store.add_items(item(i) for i in everything)
        store.ensure_rater("judge-sonnet", "judge", model="claude-sonnet-5")
        store.save_ratings([rating(rubric, version, i, "judge-sonnet") for i in everything])
    bundles = []
    for expert in range(experts):
        name = f"exp{expert:02d}"
        path = folder / f"{name}.db"
        with Store(path) as store:
            version = store.ensure_rubric_version(rubric)
            mine = items_of(expert, per_expert, shared)
            store.add_items(item(i) for i in mine)
            store.ensure_rater(name, "human")
            store.save_ratings([rating(rubric, version, i, name) for i in mine])
            bundle = folder / f"{name}.bundle"
            export_bundle(store, name, bundle)
        bundles.append(bundle)
    return lead, bundles


def timed(args: list[str], home: Path) -> float:
    env = {**os.environ, "JUDGE_TUI_HOME": str(home), "PYTHONPATH": str(REPO)}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "judge_tui", *args], capture_output=True, text=True, cwd=REPO,
                          env=env)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"judge-tui {' '.join(args[:1])} failed:\n{done.stderr[-2000:]}")
    return seconds


def figure(name: str, seconds: list[float], target: float) -> bool:
    load = os.getloadavg()[0]
    ok = statistics.median(seconds) < target
    print(f"{name}: median {statistics.median(seconds):.2f} s, max {max(seconds):.2f} s of {len(seconds)} "
          f"(target < {target:g} s{'' if ok else ', MISSED'}; load average {load:.2f})", flush=True)
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--experts", type=int, default=20)
    parser.add_argument("--per-expert", type=int, default=2_500)
    parser.add_argument("--overlap", type=float, default=0.2)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="folder to build in (reused if it holds a build)")
    args = parser.parse_args()
    shared = round(args.per_expert * args.overlap)
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-team-"))
    folder.mkdir(parents=True, exist_ok=True)
    home = folder / "home"
    home.mkdir(exist_ok=True)
    lead = folder / "lead.db"
    bundles = [folder / f"exp{e:02d}.bundle" for e in range(args.experts)]
    if not (lead.exists() and all(b.exists() for b in bundles)):
        started = time.perf_counter()
        lead, bundles = build(folder, args.experts, args.per_expert, shared)
        print(f"built {args.experts} bundles of {args.per_expert:,} items ({shared} shared) and the lead's "
              f"database in {time.perf_counter() - started:.0f} s", flush=True)

    merged = folder / "merged.db"
    merge_times = []
    for _ in range(args.repeats):
        for suffix in ("", "-wal", "-shm"):
            Path(f"{merged}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(lead, merged)
        merge_times.append(timed(["merge", "--db", str(merged), *map(str, bundles)], home))
    ok = figure(f"merge {args.experts} bundles ({args.experts * args.per_expert:,} ratings) into the lead's "
                "database, fresh process", merge_times, 5.0)
    ok &= figure("judge-tui status over the merged database, fresh process",
                 [timed(["status", "--db", str(merged)], home) for _ in range(args.repeats)], 2.0)
    ok &= figure("judge-tui report (text, judge and team sections), fresh process",
                 [timed(["report", "--db", str(merged)], home) for _ in range(args.repeats)], 2.0)
    ok &= figure("judge-tui report --format json, fresh process",
                 [timed(["report", "--db", str(merged), "--format", "json"], home) for _ in range(args.repeats)],
                 2.0)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
