"""Rating screen speed at 100,000 items: start-up, key and submit work, memory, and a 5,000-line submission.

    .venv/bin/python benchmarks/bench_tui.py [--items 100000] [--keep DIR] [--compare-static-syntax]

1. Builds a database of N CIS items (the demo submissions repeated under new ids) with Store.add_items.
2. Start-up: runs `python -m judge_tui` in a pseudo-terminal (120x40) with JUDGE_TUI_EXIT_AFTER_FIRST_PAINT,
   from process start to the moment the first item has been painted; peak RSS of that process. Beside each
   run, in turn, the floor: a bare Textual app showing one line, from process start to its first paint.
3. Keys: in a fresh process, the real app (headless, 120x40) rates items by calling the screen's action
   methods; the time of each action method is measured (the app's own work for the key; the commit of the
   change follows the paint, so it is not in it), not Pilot's waiting. Peak RSS of that process after rating.
4. A 5,000-line submission: time to open it, then the CPU time per page-down through it (handling the key and
   drawing the new frame), beside the CPU time of a key bound to nothing, and the cost of drawing one
   screenful of its lines.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import fcntl
import json
import os
import pty
import resource
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

if TYPE_CHECKING:  # for the annotations only: the code imports them where it uses them (start-up is measured)
    from textual.app import ComposeResult
    from textual.pilot import Pilot

    from judge_tui.model.records import Item

REVIEWER = "BENCH01"
LONG_ITEM = "LONG5000"


def rss_mib() -> float:
    """This process's resident memory now."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def build_db(path: Path, count: int) -> float:
    from judge_tui.model.records import Item
    from judge_tui.model.rubrics import get_rubric
    from judge_tui.store import Store

    demo = [json.loads(line) for line in (REPO / "data" / "cis.jsonl").read_text().splitlines() if line.strip()]
    rubric = get_rubric("cis")
    def code(lines: int) -> str:
        """`lines` lines of Python, three per function, with text that looks like markup."""
        body = [f"def step_{i}(state):\n    \"\"\"Step {i}: [bold]not markup[/].\"\"\"\n    return state + {i}"
                for i in range(lines // 3 + 1)]
        return "\n".join("\n".join(body).split("\n")[:lines])

    def items() -> Iterator[Item]:
        for n in range(count):
            fields = dict(demo[n % len(demo)])
            fields.pop("id", None)
            fields.pop("split", None)
            yield Item(id=f"X{n:06d}", rubric="cis", fields=fields, task_type=fields.get("task_type"))
        fields = dict(demo[0])
        fields.pop("id", None)
        fields.pop("split", None)
        fields["source_code"] = code(5000)
        yield Item(id=LONG_ITEM, rubric="cis", fields=fields, task_type=fields.get("task_type"))

    started = time.perf_counter()
    with Store(path) as store:
        store.ensure_rubric_version(rubric)
        store.add_items(items(), source="benchmark")
    return time.perf_counter() - started


# ---------------------------------------------------------------------------- start-up in a terminal


BARE_APP = """
import sys, time
from textual.app import App
from textual.widgets import Static


class Bare(App):
    def compose(self):
        yield Static("one line of text")

    def on_mount(self):
        self.call_after_refresh(self.painted)

    def painted(self):
        open(sys.argv[1], "w").write(f"{time.time():.6f} {time.process_time():.6f}\\n")
        self.exit()


Bare().run()
"""


def start_once(db: Path, home: Path) -> tuple[float, float, float]:
    """Seconds from process start to first item painted, the process's CPU seconds by then (Python's start
    not counted), and its peak RSS in MiB."""
    stamp = home / "painted"
    return _first_paint([sys.executable, "-m", "judge_tui", "--db", str(db), "--reviewer", REVIEWER], home,
                        {"JUDGE_TUI_EXIT_AFTER_FIRST_PAINT": str(stamp)}, stamp)


def bare_start_once(home: Path) -> tuple[float, float]:
    """The floor: seconds from process start to the first paint of a bare Textual app showing one line, and its
    CPU seconds by then."""
    script = home / "bare_app.py"
    script.write_text(BARE_APP)
    stamp = home / "bare-painted"
    seconds, cpu, _rss = _first_paint([sys.executable, str(script), str(stamp)], home, {}, stamp)
    return seconds, cpu


def _first_paint(command: list[str], home: Path, extra_env: dict[str, str], stamp: Path
                 ) -> tuple[float, float, float]:
    stamp.unlink(missing_ok=True)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = {**os.environ, "JUDGE_TUI_HOME": str(home), "TERM": "xterm-256color", "PYTHONPATH": str(REPO),
           **extra_env}
    started = time.time()
    process = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, cwd=REPO, env=env)
    os.close(slave)
    while True:  # drain the terminal so the app never blocks on output
        try:
            if not os.read(master, 65536):
                break
        except OSError:
            break
    _pid, status, usage = os.wait4(process.pid, 0)
    os.close(master)
    if status != 0 or not stamp.exists():
        raise SystemExit(f"the app did not report its first paint (status {status})")
    painted, cpu = (float(field) for field in stamp.read_text().split())
    return painted - started, cpu, usage.ru_maxrss / 1024


# ---------------------------------------------------------------------------- keys, in a fresh process


async def keys_benchmark(db: Path, items: int) -> dict[str, object]:
    from judge_tui.model.rubrics import get_rubric
    from judge_tui.store import Store
    from judge_tui.tui.app import JudgeTuiApp
    from judge_tui.tui.screens.rating import RatingScreen
    from judge_tui.tui.widgets.item_pane import ItemPane

    store = Store(db)
    app = JudgeTuiApp(store, get_rubric("cis"), reviewer=REVIEWER)
    score_ms: list[float] = []
    submit_ms: list[float] = []
    memory: dict[str, float] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        memory["rss_first_item_mib"] = rss_mib()
        for _ in range(items):
            for number in (3, 2, 4, 1):
                started = time.perf_counter()
                screen.action_score(number)
                score_ms.append((time.perf_counter() - started) * 1000)
                await pilot.pause()
            started = time.perf_counter()
            screen.action_submit()
            submit_ms.append((time.perf_counter() - started) * 1000)
            await pilot.pause()
        memory[f"rss_after_rating_{items}_items_mib"] = rss_mib()
        long_item = store.item(LONG_ITEM)
        assert long_item is not None
        started = time.perf_counter()
        screen.session.open(long_item)
        screen.show_item()  # what a key that opens an item does
        open_long_ms = (time.perf_counter() - started) * 1000
        await pilot.pause()
        # The code highlighting, not the background judge (which waits for work as long as the app runs);
        # an empty list would mean every worker.
        highlighting = [w for w in app.workers if w.group != "judge"]
        if highlighting:
            await app.workers.wait_for_complete(highlighting)
        await pilot.pause()
        idle_key = await _cpu_per_press(pilot, "f12", 30)  # bound to nothing: the cost of any key press
        scroll_long = await _cpu_per_press(pilot, "pagedown", 60)
        pane = screen.query_one(ItemPane)
        rows, width = pane.field_rows("source_code"), pane.scrollable_content_region.width
        style = pane.get_visual_style("item-pane--code").rich_style
        lines_in_view = 38
        started = time.perf_counter()
        for y in range(4000, 4000 + lines_in_view):
            rows.row(y, width, app.console, style)
        draw_ms = (time.perf_counter() - started) * 1000
        memory["rss_with_5000_line_item_mib"] = rss_mib()
        await pilot.press("q")
    store.close()
    return {
        "score_ms": _summary(score_ms), "submit_ms": _summary(submit_ms),
        "open_5000_line_item_ms": round(open_long_ms, 2),
        "page_down_5000_line_item_cpu_ms": _summary(scroll_long),
        "unbound_key_cpu_ms": _summary(idle_key),
        "draw_38_rows_of_5000_line_item_ms": round(draw_ms, 2),
        **memory,
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


async def _cpu_per_press(pilot: Pilot[Any], key: str, presses: int) -> list[float]:
    """CPU time of the whole process per key press, up to the next idle: the app's work to handle the key and
    draw the new frame, plus Pilot's small overhead, without the time Pilot spends waiting."""
    times = []
    for _ in range(presses):
        started = time.process_time()
        await pilot.press(key)
        times.append((time.process_time() - started) * 1000)
    return times


def _summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"n": len(values), "median": round(statistics.median(ordered), 2),
            "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 2), "max": round(ordered[-1], 2)}


# ---------------------------------------------------------------------------- the road not taken


async def static_syntax_first_paint(lines: int = 5000) -> float:
    """For comparison: a 5,000-line file as one Static(Syntax), the obvious way, to first paint."""
    from rich.syntax import Syntax
    from textual.app import App
    from textual.containers import VerticalScroll
    from textual.widgets import Static

    code = "\n".join(f"value_{i} = {i} * 2  # line {i}" for i in range(lines))

    class OneStatic(App[None]):
        def compose(self) -> ComposeResult:
            with VerticalScroll():
                yield Static(Syntax(code, "python", line_numbers=True, word_wrap=True))

    started = time.perf_counter()
    async with OneStatic().run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--starts", type=int, default=11, help="start-up runs")
    parser.add_argument("--rate", type=int, default=40, help="items to rate in the key benchmark")
    parser.add_argument("--keep", type=Path, help="folder for the database (reused if it exists)")
    parser.add_argument("--compare-static-syntax", action="store_true")
    parser.add_argument("--starts-only", action="store_true", help="measure the start-up alone")
    parser.add_argument("--keys-only", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.keys_only:  # the child process of step 3
        print(json.dumps(asyncio.run(keys_benchmark(args.keys_only, args.rate))))
        return

    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-tui-"))
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / f"items-{args.items}.db"
    if not db.exists():
        print(f"building {args.items:,} items in {db} ...", flush=True)
        print(f"  built in {build_db(db, args.items):.1f} s ({db.stat().st_size / 2**20:.0f} MiB)")
    # Bytecode as an installed judge-tui has it (pip compiles it; PYTHONDONTWRITEBYTECODE would leave the
    # source tree without it, and every start would compile judge-tui's modules again).
    compileall.compile_dir(REPO / "judge_tui", quiet=1)
    home = folder / "home"
    home.mkdir(exist_ok=True)

    runs, floor = [], []
    for _ in range(args.starts):  # in turn, so both see the same load
        floor.append(bare_start_once(home))
        runs.append(start_once(db, home))
    seconds = sorted(r[0] for r in runs)
    floor_seconds = [f[0] for f in floor]
    cpu, floor_cpu = statistics.median(r[1] for r in runs), statistics.median(f[1] for f in floor)
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"bare Textual app, start to first paint ({args.starts} runs): median {statistics.median(floor_seconds):.3f}"
          f" s, max {max(floor_seconds):.3f} s; CPU by then median {floor_cpu:.3f} s")
    print(f"start to first item painted ({args.starts} runs): median {statistics.median(seconds):.3f} s, "
          f"max {seconds[-1]:.3f} s; peak RSS {max(r[2] for r in runs):.1f} MiB; "
          f"{statistics.median(seconds) / statistics.median(floor_seconds):.2f}x the floor")
    # CPU time counts the process's own work only: a busy machine moves it far less than the time on the clock.
    print(f"CPU time to the first item painted: median {cpu:.3f} s, {cpu / floor_cpu:.2f}x the floor's")
    if args.starts_only:
        return

    child = subprocess.run([sys.executable, __file__, "--keys-only", str(db), "--rate", str(args.rate)],
                           capture_output=True, text=True, check=True, cwd=REPO,
                           env={**os.environ, "JUDGE_TUI_HOME": str(home)})
    results = json.loads(child.stdout.strip().splitlines()[-1])
    for name, value in results.items():
        print(f"{name}: {value}")
    if args.compare_static_syntax:
        print(f"static_syntax_5000_lines_first_paint_s: {asyncio.run(static_syntax_first_paint()):.2f}")


if __name__ == "__main__":
    main()
