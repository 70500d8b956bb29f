"""The judge-validity page on the judge screen: v shows it for the judge in force, with the pool estimate for a
lead who has rated nothing, and over their own items without it for a lead who rated (the blind rule)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import ContentSwitcher

from judge_tui.model.records import Item
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.store.rubric_choice import resolve_rubric
from judge_tui.tui.screens.calibrate import CalibrationApp, CalibrationScreen
from tests.calibration.fixtures import build_study, judge_dev
from tests.waiting import app_until


@pytest.fixture
def judged(tmp_path: Path, rubrics) -> Path:
    """The binary study, its dev split judged, and four dev items the judge alone rated (the pool's rest)."""
    path = build_study(tmp_path / "study.db", rubrics["binary"])
    with Store(path) as store:
        store.add_items([Item(id=f"N{n}", rubric="binary", split="dev",
                              fields={"query": "q", "criterion": "vegan", "response": f"tofu {n}"})
                         for n in range(1, 5)])
    judge_dev(path)
    with Store(path) as store, store.transaction() as conn:  # the page names the version's date: a fixed one
        conn.execute("UPDATE rubric_versions SET created_at = '2026-01-01T00:00:00.000+00:00'")
    return path


async def _page(db: Path, lead: str) -> tuple[str, str]:
    """The page's text after v, and the pane shown after v again."""
    with Store(db) as store:
        app = CalibrationApp(store, resolve_rubric("binary", store), lead, settings=Settings())
        async with app.run_test(size=(80, 24)) as pilot:
            screen = app.screen
            assert isinstance(screen, CalibrationScreen)
            await app_until(pilot, lambda: screen.standing is not None and not screen.computing,
                            "the figures")
            await pilot.press("v")
            await pilot.pause()
            page = app.screen.query_one("#cal-validity-page")
            assert page.display
            assert app.screen.query_one("#cal-validity").display
            text = str(page.render())
            await pilot.press("v")
            await pilot.pause()
            return text, str(app.screen.query_one(ContentSwitcher).current)


@pytest.mark.slow  # the judge program over the dev split
async def test_v_shows_the_page_of_the_judge_in_force_with_the_pool(judged: Path) -> None:
    text, back = await _page(judged, "lead")
    assert text.startswith("What the judge may be used for: judge judge:cmd-fake:binary@")
    assert "Replace an expert? not tested" in text  # 2 experts on 12 dev items: below the test's minimum
    assert "Pool (by verdict, 12 rated + 4 judge only)" in text  # PASS/FAIL: split by the judge's verdict
    # Four items are left to compare: read now, the targets are decided by the rules valid at any time.
    assert "Decided by rules valid at any time: ratings are still coming in." in text
    assert back == "cal-overview"


@pytest.mark.slow
async def test_a_lead_who_rated_sees_the_page_without_the_pool(judged: Path) -> None:
    """alice rated every study item but not the four new ones: the pool would use the judge's ratings of them."""
    text, _ = await _page(judged, "alice")
    assert text.startswith("What the judge may be used for: judge judge:cmd-fake:binary@")
    assert "Pool (" not in text
    assert "Pool estimate: in `judge-tui report`" in text


@pytest.mark.slow
def test_the_page_on_the_judge_screen_at_80_by_24(judged: Path, snap_compare) -> None:
    with Store(judged) as store:
        async def ready(pilot) -> None:
            screen = pilot.app.screen
            await app_until(pilot, lambda: screen.standing is not None and not screen.computing,
                            "the figures")
            await pilot.press("v")
            await pilot.pause()

        assert snap_compare(CalibrationApp(store, resolve_rubric("binary", store), "lead", settings=Settings()),
                            terminal_size=(80, 24), run_before=ready)
