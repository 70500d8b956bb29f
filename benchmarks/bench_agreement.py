"""Time the agreement engine on synthetic, seeded ratings.

Main figure: compare() over 100,000 items x 5 dimensions x 2 raters (human and judge) on the 0-1 scale in
0.25 steps. Other lines time the heavier paths: judge scores that are continuous (promptfoo-style 0.83),
Kendall's tau on fully continuous data, the bootstrap interval and Krippendorff's alpha.

Run: .venv/bin/python benchmarks/bench_agreement.py
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np

from judge_tui.analysis.row_figures import ROW_FIGURES
from judge_tui.stats import agreement as ag

ITEMS = 100_000
DIMENSIONS = 5
FIVE_POINTS = (0.0, 0.25, 0.5, 0.75, 1.0)
REPEATS = 7


def timed(work: Callable[[], object], repeats: int = REPEATS) -> tuple[float, float]:
    """Best and median wall time in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def ratings(seed: int, continuous_judge: bool) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    scale = np.asarray(FIVE_POINTS)
    pairs = []
    for _ in range(DIMENSIONS):
        human = scale[rng.integers(0, 5, ITEMS)]
        if continuous_judge:
            judge = np.round(np.clip(human + rng.normal(0.05, 0.2, ITEMS), 0, 1), 2)
        else:
            judge = scale[np.clip(np.searchsorted(scale, human) + rng.choice([-1, 0, 0, 1], ITEMS), 0, 4)]
        pairs.append((human, judge))
    return pairs


def report(label: str, work: Callable[[], object], repeats: int = REPEATS) -> None:
    best, median = timed(work, repeats)
    print(f"{label:<64} best {best * 1000:7.1f} ms   median {median * 1000:7.1f} ms")


def main() -> None:
    on_scale = ratings(1, continuous_judge=False)
    continuous = ratings(2, continuous_judge=True)

    def compare_all(pairs: list[tuple[np.ndarray, np.ndarray]]) -> None:
        for human, judge in pairs:
            ag.compare(human, judge, FIVE_POINTS, ordered=True, tolerance=0.15, figures=ROW_FIGURES)

    print(f"{ITEMS:,} items x {DIMENSIONS} dimensions x 2 raters, {REPEATS} runs each")
    report("compare(), all 5 dimensions, scores on the scale", lambda: compare_all(on_scale))
    report("compare(), all 5 dimensions, judge scores continuous (0.83)", lambda: compare_all(continuous))

    rng = np.random.default_rng(3)
    x = rng.normal(size=ITEMS)
    y = x + rng.normal(size=ITEMS)
    report("kendall_tau(), 100k fully continuous pairs (sorting path)", lambda: ag.kendall_tau(x, y))

    human = (rng.random(ITEMS) < 0.3).astype(float)
    judge = np.where(rng.random(ITEMS) < 0.85, human, 1 - human)
    judge_only = (rng.random(ITEMS) < 0.4).astype(float)
    report(
        "corrected_pass_rate(), 100k labelled + 100k judge-only, B=2000",
        lambda: ag.corrected_pass_rate(judge_only, human, judge, n_boot=2000),
    )

    matrix = np.stack([on_scale[0][0], on_scale[0][1], on_scale[1][1]])
    matrix[rng.random(matrix.shape) < 0.2] = np.nan
    report(
        "krippendorff_alpha(), 3 raters x 100k items, ordinal",
        lambda: ag.krippendorff_alpha(matrix, "ordinal", FIVE_POINTS),
        repeats=3,
    )


if __name__ == "__main__":
    main()
