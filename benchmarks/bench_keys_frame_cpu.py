"""CPU time of each key up to its first frame, in-process: the rating screen keyed through Pilot.

    .venv/bin/python benchmarks/bench_keys_frame_cpu.py [--items 10] [--code DIR] [--profile KIND]

A wall-clock figure in a terminal moves with the machine's load; the CPU time the app spends from a key to the
frame that answers it does much less, so two versions of the code can be compared on a shared machine (run one
after the other, or with `--code` pointing at another checkout). The database and keys are bench_keys.py's with
`--reading`: 60 CIS items whose code starts with a wide line, the code read unwrapped (`w`), and per item the
score keys 3 2 3 3, then `z l h z`, then Enter.

The figure for a key: process CPU time from just before Pilot sends it to the first callback Textual runs after
the screen has been drawn for it (registered before the key's own action runs, so the work the action leaves for
after the frame is not counted). 120×40, headless (the frame is composed and written to no terminal).

`--profile score|enter|z|lh` prints cProfile's heaviest functions over those keys, from key to first frame
(PROFILE_FILTER=judge_tui in the environment: only ours, by cumulative time).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import os
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

KINDS = {"3": "score", "2": "score", "z": "z", "l": "lh", "h": "lh", "enter": "enter"}
ACTIONS = ("action_score", "action_submit", "action_toggle_rubric", "action_scroll_sideways")


async def run(db: Path, items: int, profile_kind: str | None) -> tuple[dict[str, list[float]], str]:
    from judge_tui.model.rubrics import get_rubric
    from judge_tui.store import Store
    from judge_tui.tui.app import JudgeTuiApp
    from judge_tui.tui.screens.rating import RatingScreen

    store = Store(db)
    app = JudgeTuiApp(store, get_rubric("cis"), reviewer="BENCHKEYS")
    times: dict[str, list[float]] = {kind: [] for kind in set(KINDS.values())}
    profiler = cProfile.Profile()
    frame: dict[str, float] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.5)
        screen = app.screen
        assert isinstance(screen, RatingScreen)

        def framed(action: Callable[..., None]) -> Callable[..., None]:
            def first(*args: object) -> None:
                def drawn() -> None:
                    if "at" not in frame:
                        frame["at"] = time.process_time()
                        if frame.get("profiling"):
                            profiler.disable()
                screen.call_after_refresh(drawn)
                action(*args)
            return first

        for name in ACTIONS:
            setattr(screen, name, framed(getattr(screen, name)))
        await pilot.press("w")
        await pilot.pause(0.3)
        for _ in range(items):
            for key in "3233zlhz" + "\n":
                key = "enter" if key == "\n" else key
                kind = KINDS[key]
                await pilot.pause(0.05)  # from rest: the work left for after the last frame is done
                frame.clear()
                frame["profiling"] = kind == profile_kind
                started = time.process_time()
                if frame["profiling"]:
                    profiler.enable()
                await pilot.press(key)
                if "at" not in frame:
                    raise SystemExit(f"no frame seen after {key!r}")
                times[kind].append((frame["at"] - started) * 1000)
        await pilot.press("q")
    store.close()
    report = ""
    if profile_kind:
        out = io.StringIO()
        stats = pstats.Stats(profiler, stream=out)
        stats.sort_stats("cumulative").print_stats(os.environ.get("PROFILE_FILTER", ""), 45)
        stats.sort_stats("tottime").print_stats(25)
        report = out.getvalue()
    return times, report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=10)
    parser.add_argument("--code", type=Path, help="the checkout whose judge_tui is measured (default: this one)")
    parser.add_argument("--profile", choices=("score", "enter", "z", "lh"))
    args = parser.parse_args()
    code = (args.code or REPO).resolve()
    sys.path.insert(0, str(REPO / "benchmarks"))
    from bench_keys import build_db  # (puts this checkout first on the path)

    sys.path.insert(0, str(code))

    import judge_tui
    with tempfile.TemporaryDirectory(prefix="bench-keys-cpu-") as folder:
        os.environ["JUDGE_TUI_HOME"] = str(Path(folder) / "home")  # default settings, nobody's own
        db = Path(folder) / "keys.db"
        build_db(db, long_line=True)
        times, report = asyncio.run(run(db, args.items, args.profile))
    print(f"code: {Path(judge_tui.__file__).parent.parent}")
    for kind in ("score", "enter", "z", "lh"):
        values = sorted(times[kind])
        print(f"{kind:>6}: CPU to first frame median {statistics.median(values):.2f} ms, "
              f"p90 {values[int(0.9 * (len(values) - 1))]:.2f}, n={len(values)}")
    if report:
        print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
