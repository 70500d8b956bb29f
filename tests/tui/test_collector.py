"""The collector and start-up: off while `judge-tui` starts (its passes over what start-up made found next to nothing
and cost 30-45 ms before the first frame), on again once the first item is on screen; what start-up made stays
out of the collector's full passes while the app runs (they walked all of it and held a key up to 20-45 ms), and
is handed back when the app ends."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from judge_tui.cli import main
from judge_tui.model.settings import Settings
from judge_tui.tui.app import JudgeTuiApp
from judge_tui.tui.screens.reviewer import ReviewerScreen


@pytest.fixture
def collector_off_as_judge_tui_starts() -> Iterator[None]:
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


async def test_start_up_objects_are_frozen_after_the_first_paint_and_released_at_exit(make_app):
    gc.unfreeze()
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert gc.get_freeze_count() > 0
        await pilot.press("3")
        await pilot.pause()
    assert gc.get_freeze_count() == 0


def test_judge_tui_starts_the_rating_app_with_the_collector_off_and_turns_it_on_when_done(filled_store, monkeypatch):
    collecting: list[bool] = []
    monkeypatch.setattr(JudgeTuiApp, "run", lambda self: collecting.append(gc.isenabled()))
    assert main(["rate", "--db", str(filled_store.path), "--rubric", "cis", "--reviewer", "EXP001"]) == 0
    assert collecting == [False]
    assert gc.isenabled()  # the app ended before its first paint (here at once): on again all the same


def test_other_commands_run_with_the_collector_on(filled_store, monkeypatch, capsys):
    from judge_tui.cli import status

    collecting: list[bool] = []
    monkeypatch.setattr(status, "run", lambda args: collecting.append(gc.isenabled()))
    assert main(["status", "--db", str(filled_store.path)]) == 0
    with pytest.raises(SystemExit):
        main(["no-such-command"])
    capsys.readouterr()
    assert collecting == [True]
    assert gc.isenabled()


async def test_the_collector_runs_again_once_the_first_item_is_on_screen(make_app, collector_off_as_judge_tui_starts):
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert gc.isenabled()


async def test_the_collector_runs_again_while_a_new_reviewer_types_their_id(make_app,
                                                                           collector_off_as_judge_tui_starts):
    app = make_app("cis", reviewer=None)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ReviewerScreen)
        assert gc.isenabled()


async def test_the_collector_runs_again_when_there_is_no_item_to_show(filled_store, rubrics,
                                                                    collector_off_as_judge_tui_starts):
    app = JudgeTuiApp(filled_store, rubrics["cis"], reviewer="EXP001", split="test",  # no item is in a split
                      settings=Settings(judge_in_background=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.session is not None
        assert app.session.state is None
        assert gc.isenabled()
