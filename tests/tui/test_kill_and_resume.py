"""The real app in a real terminal (a pty), killed with SIGKILL mid-session: nothing shown as saved is lost."""

from __future__ import annotations

import fcntl
import os
import pty
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import pytest

from judge_tui.store import Store
from judge_tui.tui.screens.rating import RatingScreen
from tests.narrowing import present
from tests.tui.screen_text import screen_text
from tests.waiting import wait_until

REPO = Path(__file__).resolve().parents[2]


class TerminalApp:
    """judge-tui running in a pseudo-terminal of 120x40, its output drained in a thread."""

    def __init__(self, args: list[str], home: Path) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        env = {**os.environ, "JUDGE_TUI_HOME": str(home), "TERM": "xterm-256color", "PYTHONPATH": str(REPO)}
        self.process = subprocess.Popen([sys.executable, "-m", "judge_tui", *args], stdin=slave, stdout=slave,
                                        stderr=slave, cwd=REPO, env=env, start_new_session=True)
        os.close(slave)
        self.master = master
        self.output = bytearray()
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.output.extend(chunk)

    def wait_for_output(self, text: bytes) -> None:
        wait_until(lambda: self._shown(text), f"{text!r} on the terminal")

    def _shown(self, text: bytes) -> bool:
        assert self.process.poll() is None, f"app exited early: {bytes(self.output[-2000:])!r}"
        return text in self.output

    def type(self, keys: str) -> None:
        for key in keys:
            os.write(self.master, key.encode())
            time.sleep(0.05)  # a typist's pace, each key read on its own (not a wait for anything)

    def kill(self) -> None:
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        os.close(self.master)


@pytest.mark.slow
async def test_kill_9_mid_session_loses_nothing(filled_store, db_path, make_app, hermetic_home):
    app = TerminalApp(["--db", str(db_path), "--reviewer", "EXP001", "--rubric", "cis"], hermetic_home)
    try:
        app.wait_for_output(b"B001")
        app.type("3233\r")  # B001 rated in five keys
        app.wait_for_output(b"B002")
        time.sleep(1.2)  # a second or so of work on B002 before scoring it
        app.type("12")
        with Store(db_path) as reader:
            draft = wait_until(
                lambda: d if (d := reader.draft("B002", "EXP001")) and len(d.scores) == 2 else None,
                "B002's two scores saved as a draft")
    finally:
        app.kill()
    assert app.process.returncode == -signal.SIGKILL
    assert draft.scores == {"r": 0.25, "a": 0.5}
    assert draft.seconds >= 1.0

    with Store(db_path) as after:
        rating = present(after.rating("B001", "EXP001"))
        assert rating.scores == {"r": 0.75, "a": 0.5, "t": 0.75, "l": 0.75}
        assert present(rating.seconds) > 0
        assert after.draft("B001", "EXP001") is None
        assert after.draft("B002", "EXP001") == draft

    resumed = make_app("cis")  # the next start, on the same database
    async with resumed.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = resumed.screen
        assert isinstance(screen, RatingScreen)
        assert present(screen.session.state).item.id == "B002"
        assert present(screen.session.state).edit.scores == {"r": 0.25, "a": 0.5}
        assert screen.session.timer.elapsed() == draft.seconds
        shown = screen_text(resumed)
        assert "B002" in shown
        assert "1 rated" in shown
        assert f"⏱ 0:{int(draft.seconds):02d}" in shown
