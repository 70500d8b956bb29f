"""The judge screen shows the rubric's judges as a jury, as the report does, once a second judge has judged."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.store.rubric_choice import resolve_rubric
from judge_tui.tui.screens.calibrate import CalibrationApp, CalibrationScreen
from tests.calibration.fixtures import SPLITS, build_study, has_honey, judge_dev
from tests.team_fixtures import rate
from tests.tui.screen_text import widget_text
from tests.waiting import app_until

SECOND = "judge:other-model:binary@p9"


@pytest.mark.slow  # the first judge is the judge command with a local program
async def test_the_judge_screen_shows_the_jury_of_the_rubrics_judges(tmp_path: Path, rubrics) -> None:
    path = build_study(tmp_path / "study.db", rubrics["binary"])
    judge_dev(path)
    with Store(path) as store:
        rubric = resolve_rubric("binary", store)
        dev = {f"P{n:02d}": {"label": 1.0} for n in SPLITS["dev"]}  # passes everything: wrong on the honey items
        rate(store, rubric, SECOND, "judge", dev)
        app = CalibrationApp(store, rubric, "lead", settings=Settings(), make_backend=None)
        async with app.run_test(size=(160, 60)) as pilot:
            screen = app.screen
            assert isinstance(screen, CalibrationScreen)
            await app_until(pilot, lambda: screen.standing is not None and screen.standing.jury, "the jury")
            shown = widget_text(app)
            assert "Jury: 2 judges against the experts" in shown
            assert SECOND in shown
            assert "jury (majority of 2)" in shown
            honey = sum(has_honey(n) for n in SPLITS["dev"])
            assert f"{len(SPLITS['dev'])} items rated by the experts and judged by every member" in shown
            second = next(line for line in screen.standing.jury if line.strip().startswith(("J1", "J2"))
                          and SECOND in line)
            assert f"{(len(SPLITS['dev']) - honey) / len(SPLITS['dev']):.1%}" in second
            await pilot.press("q")
