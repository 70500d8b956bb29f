"""The same reviewer in two windows on one database: the second is refused at its start, so it can never replace
the first one's ratings behind its back; a window that was killed does not lock its reviewer out."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tui.screen_text import screen_text

ROOT = Path(__file__).resolve().parents[2]


def _window(db_path: Path, reviewer: str) -> subprocess.Popen[str]:
    """The real app in another process, rating as reviewer (tests/faults/rating_window.py)."""
    window = subprocess.Popen([sys.executable, "-m", "tests.faults.rating_window", str(db_path), "cis", reviewer],
                              cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert window.stdout is not None
    assert window.stdout.readline().strip() == "rating"
    return window


@pytest.mark.slow
async def test_a_second_window_of_the_same_reviewer_is_refused_and_a_killed_one_is_not_in_the_way(
        make_app, filled_store, db_path, capfd):
    first = _window(db_path, "EXP001")
    try:
        second = make_app("cis")
        async with second.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
        assert second.return_code == 1
        said = " ".join(capfd.readouterr().err.split())
        assert "EXP001 is already rating in" in said
        assert "in another judge-tui window" in said
        # Nothing written by the refused window: no score. (The first window saves its time to a draft once it
        # has counted 5 s, which a loaded machine reaches before this line.)
        draft = filled_store.draft("B001", "EXP001")
        assert draft is None or not draft.scores

        other = make_app("cis", reviewer="EXP002")  # another reviewer rates beside it
        async with other.run_test(size=(80, 24)) as pilot:
            await pilot.press("3", "q")
        assert other.return_code in (None, 0)
    finally:
        first.send_signal(signal.SIGKILL)  # the first window dies without closing anything
        first.wait(timeout=30)

    again = make_app("cis")
    async with again.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "B001" in screen_text(again)
        await pilot.press("2", "q")
    assert again.return_code in (None, 0)
    assert filled_store.draft("B001", "EXP001").scores == {"r": 0.5}


@pytest.mark.slow
async def test_a_window_closed_with_q_frees_its_reviewer(make_app, filled_store, db_path):
    first = _window(db_path, "EXP001")
    assert first.stdin is not None
    assert first.stdout is not None
    first.stdin.write("q\n")
    first.stdin.flush()
    assert first.stdout.readline().strip() == "closed 0"
    first.wait(timeout=30)
    app = make_app("cis")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("3", "q")
    assert filled_store.draft("B001", "EXP001").scores == {"r": 0.75}
