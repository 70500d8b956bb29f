"""How fast the agreement report and the summary screen are on large databases.

    .venv/bin/python benchmarks/bench_report.py [--items 100000] [--keep DIR] [--runs 5] [--code DIR ...]
                                                [--reports-only | --sections]

1. Builds synthetic databases (not timed): N items of the reasoning-trace rubric (5 dimensions, 0-1 in
   0.25 steps), rated by one human and one judge: N x 5 x 2 scores (1M for N = 100,000); and a team
   database of N/2 items rated by three experts and the judge (1M scores again), one expert re-rating
   every tenth item blind (the team and self-agreement sections then appear in the report).
2. Times `judge-tui report --format json` in a fresh process (open, load, compute, render), 5 runs each: the wall
   clock and the process's CPU time (user + system), which a machine shared with other work moves far less. With
   `--code DIR` (once or more) the processes run the judge_tui of those checkouts (say a worktree of an earlier
   commit beside this one), in turn, run by run; `--reports-only` stops after this step.
   `--sections` instead: the CPU time of each part of the report (reading the scores, the judge comparison, each
   section after it) in this process, the least of three runs, for both databases (PYTHONPATH=DIR in the
   environment measures another checkout's).
3. Times the phases in one process, and the two ways of reading the scores (json_extract in SQL against
   json.loads in Python).
4. Times the summary screen and the disagreement browser opening on 10,000 rated items.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import TypeVar

from judge_tui.model.records import Item, Rating
from judge_tui.model.rubrics import get_rubric
from judge_tui.store import Store

RUBRIC = "reasoning-trace"
T = TypeVar("T")
HUMAN, JUDGE = "EXP001", "judge:bench:reasoning-trace@1"


def build(path: Path, n: int, seed: int = 7, experts: tuple[str, ...] = (HUMAN,)) -> None:
    import numpy as np  # here, not at the top: main sets numpy's threads first, as judge-tui does

    rubric = get_rubric(RUBRIC)
    rng = np.random.default_rng(seed)
    points = np.asarray(rubric.scale.points)
    splits = ("train", "dev", "test")
    with Store(path) as store:
        version = store.ensure_rubric_version(rubric)
        store.add_items(Item(id=f"T{i:06d}", rubric=RUBRIC, split=splits[i % 3],
                             fields={"question": f"q{i}", "response": "r", "reference_answer": "a"}) for i in range(n))
        for expert in experts:
            store.ensure_rater(expert, "human")
        store.ensure_rater(JUDGE, "judge", model="bench", prompt_version="1")
        truth = rng.integers(0, points.size, (n, len(rubric.dimensions)))

        def near(codes: np.ndarray) -> np.ndarray:
            stepped: np.ndarray = np.clip(codes + rng.choice([-1, 0, 0, 1], codes.shape), 0, points.size - 1)
            return stepped

        codes_of = {rater: near(truth) for rater in (*experts, JUDGE)}
        if len(experts) == 1:  # the one human's scores are the truth, as before
            codes_of[experts[0]] = truth

        def ratings() -> Iterator[Rating]:
            for i in range(n):
                for rater, codes in codes_of.items():
                    repeats = (0, 1) if len(experts) > 1 and rater == experts[0] and i % 10 == 0 else (0,)
                    for repeat in repeats:
                        scores = {d: float(points[c]) for d, c in zip(rubric.dimension_ids, codes[i], strict=True)}
                        yield Rating(item_id=f"T{i:06d}", rater_id=rater, rubric_version_id=version, scores=scores,
                                     overall=rubric.overall_score(scores), notes="n", details={"reasoning": "why"},
                                     repeat=repeat, source="drift" if repeat else "")

        store.save_ratings(ratings())


def fresh_process(db: Path, runs: int, codes: list[Path]) -> dict[Path, tuple[list[float], list[float]]]:
    """Wall and CPU seconds (user + system) of each run of the report in a fresh process, per checkout, the
    checkouts in turn run by run."""
    command = [sys.executable, "-m", "judge_tui", "report", "--db", str(db), "--format", "json", "-o", "/dev/null"]
    out: dict[Path, tuple[list[float], list[float]]] = {code: ([], []) for code in codes}
    for _ in range(runs):
        for code in codes:
            env = {**os.environ, "PYTHONPATH": str(code)}
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(command, check=True, env=env, cwd=code)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            out[code][0].append(wall)
            out[code][1].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return out


def said(times: list[float]) -> str:
    return f"best {min(times):.2f} s, median {statistics.median(times):.2f} s"


def phases(db: Path) -> dict[str, float]:
    import numpy as np

    from judge_tui.analysis.report import build_report
    from judge_tui.analysis.report_render import as_json, as_text
    from judge_tui.analysis.scores import load

    rubric = get_rubric(RUBRIC)
    out = {}
    with Store(db) as store:
        start = time.perf_counter()
        load(store, rubric)
        out["load scores (scores.load: 2 raters, one pass, json_extract)"] = time.perf_counter() - start
        start = time.perf_counter()
        for rater in (HUMAN, JUDGE):
            rows = store.conn.execute(
                "SELECT i.rowid, r.repeat, r.rubric_version_id, r.overall, r.scores FROM ratings r"
                " JOIN items i ON i.id = r.item_id WHERE r.rater_id = ? AND i.rubric = ?", [rater, RUBRIC]).fetchall()
            parsed = [json.loads(row[4]) for row in rows]
            np.array([[p.get(d, np.nan) for d in rubric.dimension_ids] for p in parsed], dtype=float)
        out["load scores (2 raters, json.loads per row)"] = time.perf_counter() - start
        start = time.perf_counter()
        report = build_report(store, rubric)
        out["build_report (load + all figures)"] = time.perf_counter() - start
        start = time.perf_counter()
        build_report(store, rubric, by=["split"])
        out["build_report --by split"] = time.perf_counter() - start
    start = time.perf_counter()
    as_json.render_json(report)
    out["render json"] = time.perf_counter() - start
    start = time.perf_counter()
    as_text.render_text(report)
    out["render text"] = time.perf_counter() - start
    return out


def sections(db: Path, runs: int = 3) -> dict[str, float]:
    """CPU seconds of each part of `judge-tui report` (as analysis/full_report.py builds it), the least of
    ``runs`` runs in this process."""
    from judge_tui.analysis import full_report
    from judge_tui.analysis.judges import the_judge
    from judge_tui.analysis.report import Group, build_report
    from judge_tui.analysis.scores import load
    from judge_tui.model.settings import AgreementSettings

    rubric, settings = get_rubric(RUBRIC), AgreementSettings()
    out: dict[str, float] = {}

    def timed(name: str, run: Callable[[], T]) -> T:
        start = time.process_time()
        found = run()
        out[name] = min(out.get(name, float("inf")), time.process_time() - start)
        return found

    for _ in range(runs):
        with Store(db) as store, store.snapshot():
            chosen = the_judge(store, rubric.id)
            assert chosen is not None  # the benchmark's databases have a judge
            ratings = timed("read the scores (scores.load)", partial(load, store, rubric))
            report = timed("the judge comparison (build_report)", partial(
                build_report, store, rubric, judge=Group("judge", (chosen.rater,)), settings=settings, ratings=ratings))
            context = full_report.ReportContext(store, rubric, None, settings, ratings, report, chosen, None)
            for build in full_report.SECTIONS:
                timed(build.__name__, partial(build, context))
    return out


async def screens(db: Path) -> dict[str, float]:
    from textual.app import App

    from judge_tui.model.settings import AgreementSettings
    from judge_tui.tui.screens.disagreements import DisagreementScreen
    from judge_tui.tui.screens.summary import SummaryScreen

    rubric, agreement = get_rubric(RUBRIC), AgreementSettings()
    out = {}
    with Store(db) as store:
        app: App[None] = App()
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            start = time.perf_counter()
            await app.push_screen(SummaryScreen(store, rubric, HUMAN, agreement=agreement))
            out["summary screen: first frame (loading indicator)"] = time.perf_counter() - start
            await app.workers.wait_for_complete()
            await pilot.pause()
            out["summary screen: figures shown"] = time.perf_counter() - start
            start = time.perf_counter()
            await app.push_screen(DisagreementScreen(store, rubric, HUMAN, agreement=agreement))
            await app.workers.wait_for_complete()
            await pilot.pause()
            out["disagreement browser: list and first item shown"] = time.perf_counter() - start
    return out


def main() -> None:
    # One OpenBLAS thread, as judge-tui's commands set it (cli/parser.py) before numpy loads: the in-process
    # figures are then the command's.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--screen-items", type=int, default=10_000)
    parser.add_argument("--keep", type=Path, help="keep (and reuse) the synthetic databases in this folder")
    parser.add_argument("--runs", type=int, default=5, help="fresh processes per database (and per checkout)")
    parser.add_argument("--code", type=Path, action="append",
                        help="a checkout whose judge_tui the fresh processes run (default: this one); give it again "
                             "for another, run in turn with it")
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--reports-only", action="store_true", help="only the fresh processes' figures")
    only.add_argument("--sections", action="store_true", help="only the CPU of each part of the report, in-process")
    args = parser.parse_args()
    codes = [code.resolve() for code in args.code or [Path(__file__).resolve().parents[1]]]
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-report-"))
    folder.mkdir(parents=True, exist_ok=True)
    big = folder / f"report-{args.items}.db"
    team = folder / f"team-{args.items // 2}.db"
    small = folder / f"screen-{args.screen_items}.db"
    experts = ("EXP001", "EXP002", "EXP003")
    for path, n, raters in ((big, args.items, (HUMAN,)), (team, args.items // 2, experts),
                            (small, args.screen_items, (HUMAN,))):
        if not path.exists() and not (path == small and (args.reports_only or args.sections)):
            start = time.perf_counter()
            build(path, n, experts=raters)
            print(f"built {path.name}: {n} items x 5 dimensions x {len(raters) + 1} raters in "
                  f"{time.perf_counter() - start:.1f} s")

    for path, what in ((big, f"{args.items * 10:,} scores, one expert and a judge"),
                       (team, f"{args.items // 2 * 20:,} scores, three experts and a judge (their team and "
                              "self-agreement sections)")):
        if args.sections:
            import judge_tui

            print(f"\nCPU of each part of the report in this process, least of 3, {what} "
                  f"({Path(judge_tui.__file__).parents[1]}, load average {os.getloadavg()[0]:.1f} before):")
            for name, seconds in sections(path).items():
                print(f"  {name}: {seconds:.3f} s")
            continue
        print(f"\njudge-tui report --format json in a fresh process, {what} (load average "
              f"{os.getloadavg()[0]:.1f} before):")
        for code, (wall, cpu) in fresh_process(path, args.runs, codes).items():
            print(f"  {code}: wall {said(wall)}; CPU {said(cpu)} ({', '.join(f'{c:.2f}' for c in cpu)})")
        print(f"  load average after: {os.getloadavg()[0]:.1f}")
    if args.sections:
        print(f"load average after: {os.getloadavg()[0]:.1f}")
    if not (args.reports_only or args.sections):
        print("\nphases, one process:")
        for name, seconds in phases(big).items():
            print(f"  {name}: {seconds * 1000:.0f} ms")
        print(f"\nscreens on {args.screen_items:,} rated items:")
        for name, seconds in asyncio.run(screens(small)).items():
            print(f"  {name}: {seconds * 1000:.0f} ms")
    if not args.keep:
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()


if __name__ == "__main__":
    main()
