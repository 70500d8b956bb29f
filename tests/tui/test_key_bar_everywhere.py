"""Every screen shows its keys with the app's own KeyBar (never Textual's Footer, which leaks widgets when the
bindings change): the agreement summary, the disagreement browser, the item opened from it and the judge screen,
each at 80 columns with every key it lists whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import Footer, Static

from judge_tui.model.records import Item
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.store.rubric_choice import resolve_rubric
from judge_tui.tui.screens.calibrate import CalibrationApp, CalibrationScreen
from judge_tui.tui.screens.disagreements import DisagreementScreen
from judge_tui.tui.screens.item import ItemScreen
from judge_tui.tui.screens.summary import SummaryScreen
from judge_tui.tui.widgets.item_pane import ItemPane
from judge_tui.tui.widgets.key_bar import KeyBar
from tests import test_agreement_screens
from tests.calibration.fixtures import build_study
from tests.test_agreement_screens import Host, settle
from tests.tui.conftest import make_items
from tests.waiting import app_until

rated_db = test_agreement_screens.rated_db  # the summary's study: 24 items submitted, a colleague and a judge


def bar(app: App) -> str:
    """The key bar of the screen on top, as drawn; the screen has no Footer."""
    assert not app.screen.query(Footer), type(app.screen).__name__
    return str(app.screen.query_one(KeyBar).render()).rstrip()


@pytest.mark.slow
async def test_the_summary_the_disagreements_and_the_item_show_the_key_bar(rated_db: Path):
    with Store(rated_db) as store:
        app = Host(store)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            assert isinstance(app.screen, SummaryScreen)
            assert bar(app) == "d Disagreements  r Refresh  esc Back"
            await pilot.press("d")
            await settle(app, pilot)
            assert isinstance(app.screen, DisagreementScreen)
            # Enter opens the highlighted item: listed although the list, which has the focus, binds Enter too.
            assert bar(app) == "⏎ Open item  m Mark for revision  u Unmark  esc Back"
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, ItemScreen)
            assert bar(app) == "esc Back"
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, DisagreementScreen)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_judge_screen_shows_the_key_bar(tmp_path: Path, rubrics, size):
    path = build_study(tmp_path / "study.db", rubrics["binary"])
    with Store(path) as store:
        app = CalibrationApp(store, resolve_rubric("binary", store), "lead", settings=Settings())
        async with app.run_test(size=size) as pilot:
            screen = app.screen
            assert isinstance(screen, CalibrationScreen)
            await app_until(pilot, lambda: screen.standing is not None and not screen.computing, "the figures")
            await pilot.pause()
            # No judge model in the settings: nothing to judge, so no j.
            assert bar(app) == "e Rubric  t Prompt  x Example  a α δ  i Items  v Validity  esc Back"


class ItemHost(App[None]):
    """The item screen on its own, under a keymap as the app applies the user's."""

    def __init__(self, rubric: Rubric, item: Item, keymap: dict[str, str]) -> None:
        super().__init__()
        self.rubric, self.item, self.keymap = rubric, item, keymap

    def on_mount(self) -> None:
        self.set_keymap(self.keymap)
        self.push_screen(ItemScreen(self.rubric, self.item))


@pytest.mark.parametrize(("keymap", "named", "page_down"), [
    ({}, "↑/↓ pgup/pgdn scroll", "pagedown"),
    ({"scroll-down": "ctrl+d", "scroll-up": "ctrl+u"}, "↑/↓ ^u/^d scroll", "ctrl+d"),
])
async def test_the_item_screen_names_its_page_keys_as_the_keymap_binds_them(rubrics, keymap, named, page_down):
    cis = rubrics["cis"]
    item = make_items(cis)[0]
    app = ItemHost(cis, item, keymap)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert str(app.screen.query_one("#item-title", Static).render()).endswith(f"· {named}")
        assert bar(app) == "esc Back"
        pane = app.screen.query_one(ItemPane)
        await pilot.press(page_down)
        await pilot.pause()
        assert pane.scroll_y > 0
