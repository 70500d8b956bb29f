"""The CPU each key costs the rating screen, in a real terminal: what a loaded machine does not blur.

    .venv/bin/python benchmarks/bench_keys_cpu.py [--items 10] [--size 120x40] [--profile DIR] [--repo PATH]

bench_keys.py times keys on the wall clock against a bare Textual app; on a machine shared with other work the
floor moves with the load. This script runs judge-tui alone in tmux (as bench_keys.py does, `--reading`: code
unwrapped, per item four score keys, `z l h z`, Enter) and reads, for every key, the CPU time the app's process
used from just before the key was sent to the screen having settled (0.15 s unchanged), from the kernel's
per-thread run time (/proc/PID/task/*/schedstat, nanoseconds): every thread's (the terminal writer's, SQLite's,
the judge's in the background), and the event loop's thread alone. The app's CPU while idle (its timer ticking
once a second) is measured first and taken off in proportion to each key's window. Linux only.

With `--profile DIR` the app runs under cProfile, switched on just before each key and off once its screen has
settled, one profile per kind of key (DIR/score.prof, enter.prof, z.prof, lh.prof; read them with pstats).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_keys import REVIEWER, SCORE_KEYS, Shows, Tmux, below_status_line, build_db, settle, wait_for  # noqa: E402

# Run as the app: cProfile switched on by SIGUSR1 (for the kind of key named in the file PROFILE_KIND) and off
# by SIGUSR2, which adds what it saw to that kind's profile on disk.
PROFILED_APP = '''
import cProfile, os, pstats, runpy, signal, sys
folder = os.environ["PROFILE_DIR"]
profiles = {}
current = []

def start(*_):
    kind = open(os.path.join(folder, "kind")).read().strip()
    profile = profiles.setdefault(kind, cProfile.Profile())
    current[:] = [kind]
    profile.enable()

def stop(*_):
    if current:
        kind = current.pop()
        profiles[kind].disable()
        profiles[kind].dump_stats(os.path.join(folder, kind + ".prof"))

signal.signal(signal.SIGUSR1, start)
signal.signal(signal.SIGUSR2, stop)
sys.argv = ["judge_tui", *sys.argv[1:]]
runpy.run_module("judge_tui", run_name="__main__")
'''

KINDS = {"score": "score key", "enter": "Enter", "z": "z (fold / unfold)", "lh": "l / h (sideways)"}


def shows_item(item: str, screen: str) -> bool:
    """Does the screen show this item's id below its first line?"""
    return item in screen.split("\n", 1)[-1]


def cpu_ns(pid: int, *, main_thread: bool = False) -> int:
    """The process's CPU time so far, every thread (or its main thread, the event loop's), in nanoseconds."""
    total = 0
    for task in [str(pid)] if main_thread else os.listdir(f"/proc/{pid}/task"):
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):  # a thread that has just ended
            total += int(Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()[0])
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=10)
    parser.add_argument("--size", default="120x40")
    parser.add_argument("--profile", type=Path, help="folder for one cProfile profile per kind of key")
    parser.add_argument("--repo", type=Path, default=REPO,
                        help="the judge-tui checkout to run (another branch's, to compare in one sitting)")
    args = parser.parse_args()
    columns, rows = (int(n) for n in args.size.split("x"))
    folder = Path(tempfile.mkdtemp(prefix="bench-keys-cpu-"))
    db = folder / "keys.db"
    ids = build_db(db, long_line=True)
    home = folder / "home"
    home.mkdir()
    env = {"JUDGE_TUI_HOME": str(home), "TERM": "xterm-256color", "PYTHONPATH": str(args.repo.resolve())}
    command = [sys.executable, "-m", "judge_tui"]
    if args.profile:
        args.profile.mkdir(parents=True, exist_ok=True)
        for old in args.profile.glob("*.prof"):
            old.unlink()
        (folder / "profiled.py").write_text(PROFILED_APP)
        env["PROFILE_DIR"] = str(args.profile)
        command = [sys.executable, str(folder / "profiled.py")]
    tmux = Tmux(folder)
    spent: dict[str, list[float]] = {kind: [] for kind in KINDS}
    spent_main: dict[str, list[float]] = {kind: [] for kind in KINDS}
    try:
        tmux.start("app", [*command, "--db", str(db), "--reviewer", REVIEWER, "--rubric", "cis"],
                   (columns, rows), env)
        wait_for(tmux, "app", lambda s: ids[0] in s)
        pid = int(tmux.run("display-message", "-p", "-t", "app", "#{pane_pid}").strip())
        time.sleep(1.5)  # the judge in the background starts 0.5 s after the first paint
        tmux.send("app", "w")
        settle(tmux, "app")
        idle_from, idle_cpu, idle_main = time.perf_counter(), cpu_ns(pid), cpu_ns(pid, main_thread=True)
        time.sleep(3.0)
        idle_for = time.perf_counter() - idle_from
        idle_rate = (cpu_ns(pid) - idle_cpu) / idle_for  # ns per second
        idle_main_rate = (cpu_ns(pid, main_thread=True) - idle_main) / idle_for

        def key(kind: str, name: str, shows: Shows) -> None:
            if args.profile:
                (args.profile / "kind").write_text(kind)
                os.kill(pid, 10)  # SIGUSR1
            started, before, before_main = time.perf_counter(), cpu_ns(pid), cpu_ns(pid, main_thread=True)
            tmux.send("app", name)
            wait_for(tmux, "app", shows)
            settle(tmux, "app")
            took = time.perf_counter() - started
            used = cpu_ns(pid) - before - idle_rate * took
            spent_main[kind].append((cpu_ns(pid, main_thread=True) - before_main - idle_main_rate * took) / 1e6)
            if args.profile:
                os.kill(pid, 12)  # SIGUSR2
            spent[kind].append(used / 1e6)

        for n in range(min(args.items, len(ids) - 1)):
            for name in SCORE_KEYS:
                key("score", name, below_status_line(tmux.screen("app")))
            for name in "zlhz":
                key("z" if name == "z" else "lh", name, below_status_line(tmux.screen("app")))
            following = ids[n + 1]
            key("enter", "Enter", partial(shows_item, following))
        load = os.getloadavg()
        time.sleep(1.0)  # the last profile written
    finally:
        tmux.stop()
    print(f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"idle {idle_rate / 1e6:.2f} ms of CPU a second (taken off)")
    for kind, label in KINDS.items():
        values, main_values = sorted(spent[kind]), spent_main[kind]
        print(f"{label}: CPU per key median {statistics.median(values):.1f} ms, "
              f"mean {statistics.fmean(values):.1f}, p90 {values[int(0.9 * (len(values) - 1))]:.1f}, n={len(values)}; "
              f"the event loop's thread alone: median {statistics.median(main_values):.1f} ms, "
              f"mean {statistics.fmean(main_values):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
