"""Keys end to end in a real terminal: judge-tui's rating screen against a bare Textual app, in the same run.

    .venv/bin/python benchmarks/bench_keys.py [--items 40] [--size 120x40] [--keep DIR] [--via capture|pipe]
                                              [--reading]

Both apps run side by side in tmux (a server of their own), each in a window of the given size. For every
measured key the script notes the time and sends the key with `tmux send-keys`; the figure is the time from just
before `send-keys` to the whole change on screen (below the status line, where the timer ticks and `saving…`
comes and goes). How the screen is watched:

* `--via capture` (the default): polls `tmux capture-pane -p` until the screen shows the change and then until
  it has stopped changing; the figure ends at the first capture that shows the screen as it settled. The first
  screen that shows part of the change (for a score key any change below the status line, for Enter the next
  item's id) is reported beside it. Polling starts a tmux client process after another, which competes with
  the app for the machine's cores while the app draws.
* `--via pipe`: tmux copies everything each app writes to its terminal (`tmux pipe-pane -O`) into a pipe the
  script reads as it arrives, so nothing polls; the figure ends when the last output that changes what is shown
  below the status line (a run after a cursor move to a row under the first, unlike the last run drawn at that
  place) has reached tmux, once output has been quiet for 0.15 s: a place drawn again as it was is no change.
  The screen is then captured once, untimed, to check that it shows the change.

Keys alternate between the two apps, so both see the same load.

* judge-tui: a database of 60 CIS items (the 25 demo submissions repeated under new ids), one reviewer, the
  default settings (the judge in the background has no API key and waits). Per item, four score keys
  (3 2 3 3: the screen changed below the status line) and Enter (the next item's id on screen).
* the floor: a bare Textual app with one line of text that shows the number of keys it has received; each key
  is measured until the new number is on screen.

With `--reading`, each item's code starts with a 150-character line and the app reads code unwrapped (`w`
once, at the start); per item, after the score keys: `z` folds the rubric, `l` scrolls the code sideways, `h`
back, `z` unfolds it, each measured until its whole change is on screen, like a score key.

Between two keys the script waits until the screen has stopped changing (the commit after the paint is done),
so each key starts from rest, as a reviewer's would.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

REVIEWER = "BENCHKEYS"
ITEMS_IN_DATABASE = 60
SCORE_KEYS = "3233"
Shows = Callable[[str], bool]  # does this screen show what a key should have changed?

BARE_APP = '''
from textual.app import App
from textual.widgets import Static


class Bare(App):
    def compose(self):
        self.count = 0
        yield Static("keys: 0", id="line")

    def on_key(self, event):
        self.count += 1
        self.query_one("#line").update(f"keys: {self.count}")


Bare().run()
'''


class Tmux:
    """A tmux server of our own (its own socket), so nothing else running in tmux is touched."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.socket = str(folder / "tmux.sock")

    def run(self, *args: str) -> str:
        return subprocess.run(["tmux", "-S", self.socket, *args], capture_output=True, text=True,
                              check=True).stdout

    def start(self, name: str, command: list[str], size: tuple[int, int], env: dict[str, str]) -> None:
        exports = " ".join(f"{key}={_quote(value)}" for key, value in env.items())
        line = f"env {exports} {' '.join(_quote(part) for part in command)}"
        # Started in the work folder: `python -m` puts the current folder first on the path, and a checkout
        # there would be measured instead of the one PYTHONPATH names.
        self.run("new-session", "-d", "-s", name, "-c", str(self.folder), "-x", str(size[0]), "-y", str(size[1]),
                 line)

    def screen(self, name: str) -> str:
        return self.run("capture-pane", "-p", "-t", name)

    def send(self, name: str, key: str) -> None:
        self.run("send-keys", "-t", name, key)

    def stop(self) -> None:
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True)


class Output:
    """What one app writes to its terminal, as tmux receives it (`pipe-pane -O` into a named pipe)."""

    CURSOR_MOVE = re.compile(rb"\x1b\[(\d+);(\d+)H")
    STYLE = re.compile(rb"\x1b\[[0-9;]*m")

    def __init__(self, tmux: Tmux, name: str, folder: Path) -> None:
        fifo = folder / f"{name}.out"
        fifo.unlink(missing_ok=True)
        os.mkfifo(fifo)
        self.fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # opened before tmux's writer, so it never blocks
        self.shown: dict[tuple[int, int], bytes] = {}  # the last run drawn at each place (row, column)
        tmux.run("pipe-pane", "-O", "-t", name, f"exec cat > {_quote(str(fifo))}")

    def read(self, quiet: float) -> tuple[bytes, list[tuple[float, int]]]:
        """Everything written until nothing has come for `quiet` seconds, and when each part of it arrived
        (the time and the offset its part ends at)."""
        data = b""
        arrivals: list[tuple[float, int]] = []
        while select.select([self.fd], [], [], quiet)[0]:
            part = os.read(self.fd, 1 << 20)
            if not part:
                raise SystemExit("the terminal's output pipe closed: the app ended")
            data += part
            arrivals.append((time.perf_counter(), len(data)))
        return data, arrivals

    def drawn(self, quiet: float, from_row: int) -> list[float]:
        """When each run of text drawn on a row from `from_row` on arrived, if it changed what that place
        showed: a frame that draws a place again as it was (a widget's own repaint after the screen drew its
        change) changes nothing on screen. A frame ends by moving the cursor to where it rests (the note
        box's, say) with nothing drawn after it: that move is not a change."""
        data, arrivals = self.read(quiet)
        times: list[float] = []
        for place, run, end in self._runs(data):
            if place[0] >= from_row and self.STYLE.sub(b"", run) and self.shown.get(place) != run:
                times.append(next(when for when, upto in arrivals if upto >= end))
            self.shown[place] = run
        return times

    def _runs(self, data: bytes) -> list[tuple[tuple[int, int], bytes, int]]:
        """Each run of output after a cursor move: ((row, column) it starts at, its bytes, where it ends)."""
        moves = list(self.CURSOR_MOVE.finditer(data))
        ends = [following.start() for following in moves[1:]] + [len(data)]
        return [((int(move.group(1)), int(move.group(2))), data[move.end():end], end)
                for move, end in zip(moves, ends, strict=False)]

    def drain(self, quiet: float = 0.15) -> None:
        data, _arrivals = self.read(quiet)
        for place, run, _end in self._runs(data):
            self.shown[place] = run


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def wait_for(tmux: Tmux, name: str, shows: Shows, timeout: float = 10.0) -> str:
    deadline = time.perf_counter() + timeout
    while True:
        screen = tmux.screen(name)
        if shows(screen):
            return screen
        if time.perf_counter() > deadline:
            raise SystemExit(f"{name}: the expected screen never came. Last screen:\n{screen}")


def settle(tmux: Tmux, name: str, quiet: float = 0.15) -> str:
    """The screen once it has not changed for `quiet` seconds."""
    screen = tmux.screen(name)
    still_since = time.perf_counter()
    while time.perf_counter() - still_since < quiet:
        time.sleep(0.02)
        now = tmux.screen(name)
        if now != screen:
            screen, still_since = now, time.perf_counter()
    return screen


def timed_key(tmux: Tmux, name: str, key: str, shows: Shows, quiet: float = 0.15) -> tuple[float, float]:
    """Milliseconds from just before send-keys to the first capture that `shows` accepts, and to the first
    capture that shows the key's whole change: the screen (below its first line) as it is once nothing has
    changed for `quiet` s."""
    started = time.perf_counter()
    tmux.send(name, key)
    seen: list[tuple[float, str]] = []
    first_shown: float | None = None
    deadline = started + 10.0
    while True:
        screen = tmux.screen(name)
        now = time.perf_counter()
        body = screen.split("\n", 1)[-1]
        if not seen or body != seen[-1][1]:
            seen.append((now, body))
        if first_shown is None and shows(screen):
            first_shown = now
        if first_shown is not None and now - seen[-1][0] >= quiet:
            break
        if now > deadline:
            raise SystemExit(f"{name}: the expected screen never came. Last screen:\n{screen}")
    return (first_shown - started) * 1000, (seen[-1][0] - started) * 1000  # the settled screen, since when


def piped_key(tmux: Tmux, name: str, output: Output, key: str, shows: Shows, body_from_row: int,
              quiet: float = 0.15) -> tuple[float, float]:
    """Milliseconds from just before send-keys to the first and to the last text drawn on rows from
    `body_from_row` on, as it reached tmux; then (untimed) the screen must show the change."""
    output.drain()  # from rest: the timer's tick (status line) is not counted against the key
    started = time.perf_counter()
    tmux.send(name, key)
    drawn = output.drawn(quiet, body_from_row)
    while not drawn and time.perf_counter() < started + 10.0:  # a loaded machine: nothing written yet
        drawn = output.drawn(quiet, body_from_row)
    screen = tmux.screen(name)
    if not drawn or not shows(screen):
        raise SystemExit(f"{name}: the key's change never reached the screen. Last screen:\n{screen}")
    return (drawn[0] - started) * 1000, (drawn[-1] - started) * 1000


def below_status_line(before: str) -> Shows:
    """The screen changed somewhere other than its first line (the status line, where the timer ticks)."""
    old = before.splitlines()[1:]
    return lambda screen: screen.splitlines()[1:] != old


def build_db(path: Path, *, long_line: bool = False) -> list[str]:
    from judge_tui.model.records import Item
    from judge_tui.model.rubrics import get_rubric
    from judge_tui.store import Store

    demo = [json.loads(line) for line in (REPO / "data" / "cis.jsonl").read_text().splitlines() if line.strip()]
    ids = [f"K{n:03d}" for n in range(ITEMS_IN_DATABASE)]
    items = []
    for n, item_id in enumerate(ids):
        fields = dict(demo[n % len(demo)])
        fields.pop("id", None)
        fields.pop("split", None)
        if long_line:  # something to scroll sideways to, whatever the width
            fields["source_code"] = "# " + "wide " * 30 + "\n" + str(fields.get("source_code") or "")
        items.append(Item(id=item_id, rubric="cis", fields=fields, task_type=fields.get("task_type")))
    with Store(path) as store:
        store.ensure_rubric_version(get_rubric("cis"))
        store.add_items(items)
    return ids


def summary(values: list[float]) -> str:
    ordered = sorted(values)
    return (f"median {statistics.median(ordered):.1f} ms, p90 {ordered[int(0.9 * (len(ordered) - 1))]:.1f}, "
            f"n={len(ordered)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=40, help="items to rate (at most 59)")
    parser.add_argument("--size", default="120x40", help="terminal size, COLUMNSxROWS")
    parser.add_argument("--keep", type=Path, help="folder to work in (kept afterwards)")
    parser.add_argument("--via", choices=("capture", "pipe"), default="capture",
                        help="watch the screen by polling capture-pane, or by reading the apps' output as it "
                             "reaches tmux (see above)")
    parser.add_argument("--reading", action="store_true",
                        help="also time z (fold the rubric, and back) and l / h (unwrapped code sideways)")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        raise SystemExit("tmux is needed: it is the real terminal the keys are measured in")
    columns, rows = (int(n) for n in args.size.split("x"))
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-keys-"))
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "keys.db"
    db.unlink(missing_ok=True)
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    ids = build_db(db, long_line=args.reading)
    home = folder / "home"
    home.mkdir(exist_ok=True)
    (folder / "bare.py").write_text(BARE_APP)
    env = {"JUDGE_TUI_HOME": str(home), "TERM": "xterm-256color", "PYTHONPATH": str(REPO)}

    # Bytecode as an installed judge-tui has it (pip compiles it; PYTHONDONTWRITEBYTECODE would leave the
    # source tree without it, and every start would compile judge-tui's modules again).
    compileall.compile_dir(REPO / "judge_tui", quiet=1)
    tmux = Tmux(folder)
    try:
        tmux.start("bare", [sys.executable, str(folder / "bare.py")], (columns, rows), env)
        tmux.start("app", [sys.executable, "-m", "judge_tui", "--db", str(db), "--reviewer", REVIEWER,
                           "--rubric", "cis"], (columns, rows), env)
        wait_for(tmux, "bare", lambda s: "keys: 0" in s)
        wait_for(tmux, "app", lambda s: ids[0] in s)
        outputs = {name: Output(tmux, name, folder) for name in ("bare", "app")} if args.via == "pipe" else {}
        time.sleep(1.0)  # the judge in the background starts 0.5 s after the first paint
        floor: list[float] = []
        score: list[float] = []
        submit: list[float] = []
        score_first: list[float] = []  # the first screen that shows part of the change
        submit_first: list[float] = []  # the first screen that shows the next item's id
        reading: dict[str, list[float]] = {"z (fold or unfold the rubric)": [], "l / h (code sideways)": []}
        pressed = 0

        def measure(name: str, key: str, shows: Shows, body_from_row: int) -> tuple[float, float]:
            """(first part, whole change) in ms; the app's body starts under its status line, the bare app's
            one line is the first row."""
            if args.via == "pipe":
                return piped_key(tmux, name, outputs[name], key, shows, body_from_row)
            return timed_key(tmux, name, key, shows)

        def at_rest(name: str) -> str:
            if args.via == "pipe":
                outputs[name].drain()
                return tmux.screen(name)
            return settle(tmux, name)

        def bare_key() -> None:
            nonlocal pressed
            at_rest("bare")
            pressed += 1
            expected = f"keys: {pressed}"
            floor.append(measure("bare", "x", lambda s: expected in s, 1)[1])

        if args.reading:
            tmux.send("app", "w")
        for n in range(min(args.items, ITEMS_IN_DATABASE - 1)):
            for key in SCORE_KEYS:
                bare_key()
                before = at_rest("app")
                first, whole = measure("app", key, below_status_line(before), 2)
                score_first.append(first)
                score.append(whole)
            for key in "zlhz" if args.reading else "":
                bare_key()
                before = at_rest("app")
                what = "z (fold or unfold the rubric)" if key == "z" else "l / h (code sideways)"
                reading[what].append(measure("app", key, below_status_line(before), 2)[1])
            bare_key()
            at_rest("app")
            following = ids[n + 1]
            def shows_next(screen: str, item: str = following) -> bool:
                return item in screen.split("\n", 1)[-1]

            first, whole = measure("app", "Enter", shows_next, 2)
            submit_first.append(first)
            submit.append(whole)
        load = os.getloadavg()
    finally:
        tmux.stop()

    floor_median = statistics.median(floor)
    print(f"watched via {args.via}; load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"bare Textual app, one line per key (the floor): {summary(floor)}")
    for what, wholes, firsts in (("score key", score, score_first), ("Enter to the next item", submit, submit_first)):
        print(f"judge-tui {what}, whole change: {summary(wholes)}  ->  "
              f"{statistics.median(wholes) / floor_median:.2f}x the floor")
        print(f"    first part of it on screen: {summary(firsts)}  ->  "
              f"{statistics.median(firsts) / floor_median:.2f}x the floor")
    for what, wholes in reading.items() if args.reading else ():
        print(f"judge-tui {what}, whole change: {summary(wholes)}  ->  "
              f"{statistics.median(wholes) / floor_median:.2f}x the floor")
    return 0


if __name__ == "__main__":
    sys.exit(main())
