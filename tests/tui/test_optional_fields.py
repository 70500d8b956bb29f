"""An item without a rubric's optional fields is rated with the fields it has; the others are not shown."""

from __future__ import annotations

from pathlib import Path

from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.transfer.importing import import_items
from judge_tui.tui.app import JudgeTuiApp
from judge_tui.tui.screens.rating import RatingScreen
from judge_tui.tui.widgets.item_pane import ItemPane
from tests.narrowing import present, screen_of
from tests.tui.screen_text import screen_text

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "promptfoo_real_codereview.json"


async def test_a_submission_without_task_text_or_tests_shows_only_what_it_has(tmp_path: Path, rubrics, clock):
    with Store(tmp_path / "study.db") as store:
        import_items(store, REAL, "cis", mapping={"source_code": "code"})
        app = JudgeTuiApp(store, rubrics["cis"], reviewer="EXP001",
                          settings=Settings(judge_in_background=False), clock=clock)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            assert present(screen_of(app, RatingScreen).session.state).item.id == "CR-001"
            pane = app.screen.query_one(ItemPane)
            for name in ("task", "test_code", "test_results"):
                assert not pane.shows_field(name)
            for name in ("rationale", "source_code"):
                assert pane.shows_field(name)
            assert pane.field_text("source_code").startswith("from collections import OrderedDict")
            shown = screen_text(app)
            assert "Source code" in shown
            assert "Tests" not in shown
            assert "(empty)" not in shown
