"""The judge-validity page on the lead's summary screen: first, without the pool estimate, and never on a
reviewer's summary (the blind rule)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import Static

from judge_tui.model.settings import AgreementSettings
from judge_tui.store import Store
from judge_tui.tui.screens.summary import SummaryScreen
from tests.test_validity import study_db  # noqa: F401  (a fixture: three experts, 60 shared items, a judge on 300)


class Host(App[None]):
    def __init__(self, store: Store, rubric, reviewer: str, lead: bool) -> None:
        super().__init__()
        self.store, self.rubric, self.reviewer, self.lead = store, rubric, reviewer, lead

    def on_mount(self) -> None:
        self.push_screen(SummaryScreen(self.store, self.rubric, self.reviewer, agreement=AgreementSettings(),
                                       lead=self.lead))


def _texts(app: App) -> list[str]:
    return [str(w.render()) for w in app.screen.query("#summary-body Static").results(Static)]


async def _shown(db: Path, rubrics, reviewer: str, lead: bool) -> list[str]:
    with Store(db) as store:
        app = Host(store, rubrics["exercise-quality"], reviewer, lead)
        async with app.run_test(size=(80, 24)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            return _texts(app)


@pytest.mark.slow
async def test_the_leads_summary_opens_with_the_page_without_the_pool(study_db: Path, rubrics) -> None:  # noqa: F811
    texts = await _shown(study_db, rubrics, "lead", lead=True)
    assert texts[0].startswith("What the judge may be used for: judge judge-v1")
    assert "Replace an expert?" in texts[0]
    assert "(ann, bob, cat)" in texts[0]
    assert "Pool estimate: in `judge-tui report`" in texts[0]
    assert "PPI++" not in "\n".join(texts)
    assert "Decided by rules valid at any time" in " ".join(texts[0].split())  # 240 items left to compare


@pytest.mark.slow
async def test_a_reviewers_summary_has_no_page(study_db: Path, rubrics) -> None:  # noqa: F811
    """ann sees ann against the judge; the page would show the other experts' ratings through the test."""
    texts = await _shown(study_db, rubrics, "ann", lead=False)
    assert texts
    assert not any("What the judge may be used for" in t for t in texts)


@pytest.mark.slow
def test_the_leads_summary_at_80_by_24(study_db: Path, rubrics, snap_compare) -> None:  # noqa: F811
    with Store(study_db) as store:
        async def ready(pilot) -> None:
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()

        assert snap_compare(Host(store, rubrics["exercise-quality"], "lead", True), terminal_size=(80, 24),
                            run_before=ready)
