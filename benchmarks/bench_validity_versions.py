"""What the judge-validity page costs per rubric version.

    .venv/bin/python benchmarks/bench_validity_versions.py [--items 3000] [--versions 1 2 3]

Builds (not timed) a PASS/FAIL study of N items: three experts rate 300 of them under each rubric version, a
judge rates every item under each version; with V versions the study holds V times the ratings. Then times, in
one process (best of 5), the whole report (`build_full_report`: every section, the page included) and the page
alone (`every_judge_validity`, a block per version), against the floor of one version, in the same run.
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from judge_tui.analysis.full_report import build_full_report
from judge_tui.analysis.report import build_report
from judge_tui.analysis.scores import load
from judge_tui.analysis.validity import every_judge_validity
from judge_tui.model.records import Item, Rating
from judge_tui.model.rubrics import get_rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.store import Store
from judge_tui.store.rubric_choice import resolve_rubric

EXPERTS = ("ann", "bob", "cat")
JUDGE = "judge:bench:binary@1"
RATED = 300


def build(path: Path, items: int, versions: int, seed: int = 11) -> None:
    base = get_rubric("binary")
    rng = np.random.default_rng(seed)
    truth = rng.random(items) < 0.65
    with Store(path) as store:
        store.add_items(Item(id=f"P{i:05d}", rubric="binary", fields={"query": "q", "criterion": "c",
                                                                        "response": f"r{i}"}) for i in range(items))
        for expert in EXPERTS:
            store.ensure_rater(expert, "human")
        store.ensure_rater(JUDGE, "judge", model="bench", prompt_version="1")
        for number in range(1, versions + 1):
            rubric = dataclasses.replace(base, version=str(number), description=f"{base.description} ({number})")
            version = store.ensure_rubric_version(rubric)

            def ratings(version: int = version) -> object:
                for rater, flip, n in (*((e, 0.1, RATED) for e in EXPERTS), (JUDGE, 0.15, items)):
                    labels = np.where(rng.random(n) < flip, ~truth[:n], truth[:n])
                    for i, label in enumerate(labels.tolist()):
                        yield Rating(item_id=f"P{i:05d}", rater_id=rater, rubric_version_id=version,
                                     scores={"label": float(label)}, overall=float(label))

            store.save_ratings(ratings())  # type: ignore[arg-type]


def best(function: Callable[[], object], runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=3000)
    parser.add_argument("--versions", type=int, nargs="+", default=[1, 2, 3])
    args = parser.parse_args()
    settings = AgreementSettings()
    with tempfile.TemporaryDirectory() as folder:
        rows = []
        for versions in args.versions:
            path = Path(folder) / f"v{versions}.db"
            build(path, args.items, versions)
            with Store(path) as store:
                rubric = resolve_rubric("binary", store)
                ratings = load(store, rubric)
                report = build_report(store, rubric, ratings=ratings)
                page = every_judge_validity(store, report, ratings, settings)
                full = best(partial(build_full_report, store, rubric))
                alone = best(partial(every_judge_validity, store, report, ratings, settings))
                rows.append((versions, len(page.judges), len(page.too_few), full, alone))
        floor_full, floor_page = rows[0][3], rows[0][4]
        print(f"{args.items:,} items, {RATED} rated by each of 3 experts per version; best of 5, in one process")
        print("versions  blocks  one-line  full report        page alone")
        for versions, blocks, thin, full, alone in rows:
            print(f"{versions:>8}  {blocks:>6}  {thin:>8}  {full:6.3f} s ({full / floor_full:4.2f}×)  "
                  f"{alone:6.3f} s ({alone / floor_page:4.2f}×)")


if __name__ == "__main__":
    main()
