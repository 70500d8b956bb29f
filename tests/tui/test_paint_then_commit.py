"""A key paints first and commits just after: the change shows at once, marked "saving…" until it is on disk.

Every change is still committed on its own, with no further key; a `kill -9` at any moment loses nothing the
screen showed as saved (the real app in tmux, killed right after a key).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from judge_tui.model.records import Rating
from judge_tui.store import Store
from judge_tui.tui.screens.rating import RatingScreen
from judge_tui.tui.widgets.status_line import StatusLine
from tests.narrowing import present
from tests.tui.screen_text import screen_text
from tests.waiting import wait_until

REPO = Path(__file__).resolve().parents[2]
async def test_a_score_shows_before_its_commit_and_is_marked_until_then(filled_store, make_app):
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        status = screen.query_one(StatusLine)
        assert not status.saving

        screen.action_score(3)  # what the key does, before the frame is painted
        assert present(screen.session.state).edit.scores == {"r": 0.75}
        assert filled_store.draft("B001", "EXP001") is None  # not on disk yet ...
        assert status.saving
        assert "saving…" in str(status.render())# ... and the screen says so

        await pilot.pause()  # the frame is painted; the commit follows with no further key
        assert filled_store.draft("B001", "EXP001").scores == {"r": 0.75}
        assert not status.saving
        assert "saving…" not in screen_text(app)


async def test_submit_opens_the_next_item_first_and_commits_the_rating_after(filled_store, make_app):
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        await pilot.press("3", "2", "3", "3")
        await pilot.pause()

        screen.action_submit()
        assert present(screen.session.state).item.id == "B002"
        assert screen.session.progress()["rated"] == 1  # counted as it will be once written
        assert filled_store.rating("B001", "EXP001") is None
        assert screen.query_one(StatusLine).saving

        await pilot.pause()
        assert filled_store.rating("B001", "EXP001").scores["r"] == 0.75
        assert filled_store.draft("B001", "EXP001") is None
        assert not screen.query_one(StatusLine).saving


async def test_several_keys_before_one_paint_are_all_committed(filled_store, make_app):
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        screen.action_score(1)
        screen.action_score(2)
        assert len(screen.session.pending) == 1  # the newer draft of the item replaced the older one
        await pilot.pause()
        assert filled_store.draft("B001", "EXP001").scores == {"r": 0.25, "a": 0.5}
        assert not screen.session.pending


async def test_quitting_right_after_a_key_writes_it_first(filled_store, make_app):
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        screen.action_score(4)
        await app.action_quit()
    assert filled_store.draft("B001", "EXP001").scores == {"r": 1.0}


# ---------------------------------------------------------------------------------------------- kill -9


class Tmux:
    """The app in a tmux window of 120x40 (a server of its own), read back with capture-pane."""

    def __init__(self, folder: Path, args: list[str], home: Path) -> None:
        self.socket = str(folder / "tmux.sock")
        env = {"JUDGE_TUI_HOME": str(home), "TERM": "xterm-256color", "PYTHONPATH": str(REPO)}
        exports = " ".join(f"{key}='{value}'" for key, value in env.items())
        command = f"env {exports} {sys.executable} -m judge_tui " + " ".join(args)
        self._tmux("new-session", "-d", "-s", "app", "-x", "120", "-y", "40", command)
        self.pid = int(self._tmux("display-message", "-p", "-t", "app", "#{pane_pid}").strip())

    def _tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-S", self.socket, *args], capture_output=True, text=True,
                              check=True).stdout

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "app")

    def send(self, key: str) -> None:
        self._tmux("send-keys", "-t", "app", key)

    def wait_for(self, shows, what: str) -> str:  # noqa: ANN001
        """The first screen that shows(), read again at once (no pause between reads: the first counts)."""
        last = ""

        def screen_if_shown() -> str:
            nonlocal last
            last = self.screen()
            return last if shows(last) else ""

        return wait_until(screen_if_shown, lambda: f"{what}; the last screen:\n{last}", every=0)

    def kill_app(self) -> None:
        """SIGKILL to the app (the pane's process: `env` execs Python), then the tmux server goes."""
        os.kill(self.pid, signal.SIGKILL)
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux, the real terminal these kills are read in")
@pytest.mark.parametrize("keys_before_kill", [1, 2, 3])
def test_kill_9_right_after_a_key_loses_nothing_the_screen_showed_as_saved(
        filled_store, db_path, hermetic_home, tmp_path, keys_before_kill):
    filled_store.close()
    app = Tmux(tmp_path, ["--db", str(db_path), "--reviewer", "EXP001", "--rubric", "cis"], hermetic_home)
    try:
        app.wait_for(lambda s: "B001" in s and "0 rated" in s, "B001 open, nothing rated")
        keys = "3213"[:keys_before_kill]
        for n, key in enumerate(keys, start=1):
            app.send(key)
            # The first screen that shows this key's score (the count under the rubric: the dimension's own
            # line may already be scrolled out of a short terminal's view); then, at once, the next key (or
            # the kill).
            shown = app.wait_for(lambda s, count=f"({n} of 4 scored)": count in s, f"{n} of 4 scored")
            if n < len(keys):
                app.wait_for(lambda s: "saving…" not in s, "saved")  # on disk, as the screen now says
    finally:
        app.kill_app()
    expected = {dim: value for dim, value in zip("ratl", [int(k) / 4 for k in keys], strict=False)}
    with Store(db_path) as after:
        draft = after.draft("B001", "EXP001")
    saved = draft.scores if draft else {}
    if "saving…" not in shown:  # the screen showed the change as saved: it must be on disk
        assert saved == expected
    else:  # shown as not yet saved: the earlier keys are on disk, the last one may or may not be
        assert saved in (expected, {d: v for d, v in expected.items() if d != "ratl"[keys_before_kill - 1]})


async def test_the_first_items_code_is_coloured_just_after_the_first_paint(make_app):
    from judge_tui.tui.widgets.item_pane import ItemPane

    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        rows = app.screen.query_one(ItemPane).field_rows("source_code")
        if rows.colour_pending:  # caught before the first paint: shown plain, for now
            assert not any(line.spans for line in rows.lines)
        await pilot.pause()
        assert not rows.colour_pending
        assert any(line.spans for line in rows.lines)  # Pygments' colours, once painted


def test_a_field_shown_with_colour_later_is_plain_until_coloured():
    from judge_tui.tui.widgets.field_rows import FieldRows

    rows = FieldRows("code", "python")
    rows.set_text("def f():\n    return 1\n", colour_later=True)
    assert rows.colour_pending
    assert not any(line.spans for line in rows.lines)
    rows.colour()
    assert not rows.colour_pending
    assert any(line.spans for line in rows.lines)


async def test_an_expanded_card_is_drawn_again_for_a_new_width(make_app):
    from judge_tui.tui.widgets.rubric_panel import RubricPanel

    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("3")
        await pilot.pause()
        panel = app.screen.query_one(RubricPanel)
        wide = panel.scrollable_content_region.width
        await pilot.resize_terminal(100, 40)
        await pilot.pause()
        await pilot.pause()
        assert panel.scrollable_content_region.width < wide
        lines = panel.text.splitlines()
        assert max(len(line.rstrip()) for line in lines) <= panel.scrollable_content_region.width
        assert "Failed: does not work," in screen_text(app)  # the anchors wrapped to the new width, not cut


@pytest.mark.slow
async def test_the_counts_are_the_databases_once_each_change_is_committed(filled_store, make_app):
    """The status line counts a change with the commit after its frame (no query per pending change before
    the frame): after submit, skip, flag, unflag, undo and another process's rating, as the database has them."""
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        status = screen.query_one(StatusLine)

        def stored() -> dict[str, int]:
            return filled_store.progress("EXP001", "cis", total=screen.session.total)

        await pilot.press("3", "2", "3", "3")
        await pilot.pause()
        screen.action_submit()
        assert status.progress["rated"] == 0  # counted with the commit after this frame ...
        await pilot.pause()
        assert status.progress == stored()
        assert stored()["rated"] == 1  # ... as written

        await pilot.press("3")  # a score, then the item set aside
        await pilot.pause()
        await pilot.press("s")
        await pilot.pause()
        assert status.progress == stored()
        assert stored()["skipped"] == 1

        await pilot.press("!")
        await pilot.pause()
        await pilot.press("x", "enter")  # the reason, and the flag raised
        await pilot.pause()
        await pilot.pause()
        assert status.progress == stored()
        assert stored()["flagged"] == 1
        await pilot.press("u")  # the flag undone
        await pilot.pause()
        assert status.progress == stored()
        assert stored()["flagged"] == 0

        with Store(filled_store.path) as other:  # the same reviewer rates in another process (a second terminal)
            item = other.next_unrated_item("EXP001", "cis", None, after_position=0)
            assert item is not None
            other.save_rating(Rating(item_id=item.id, rater_id="EXP001",
                                     rubric_version_id=screen.session.version_id, scores={"r": 1.0}))
        await pilot.press("3")  # the next change's count reads the database again
        await pilot.pause()
        await pilot.press("u")
        await pilot.pause()
        assert status.progress == stored()
        assert stored()["rated"] == 2
