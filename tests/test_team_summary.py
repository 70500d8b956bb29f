"""The summary screen's team section: blind for a reviewer, complete only for a lead who rated nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import Static

from judge_tui.model.rubrics import load_rubrics
from judge_tui.model.settings import load_settings
from judge_tui.store import Store
from judge_tui.tui.screens.summary import SummaryScreen
from tests.team_fixtures import exercise_item, rate

DIMS = ("difficulty_match", "instruction_clarity", "learning_objective_alignment")


class Host(App[None]):
    def __init__(self, store: Store, reviewer: str, lead: bool) -> None:
        super().__init__()
        self.store, self.reviewer, self.lead = store, reviewer, lead

    def on_mount(self) -> None:
        rubric = load_rubrics()["exercise-quality"][0]
        self.push_screen(SummaryScreen(self.store, rubric, self.reviewer, agreement=load_settings().agreement,
                                       lead=self.lead))


def _db(tmp_path: Path, rubrics) -> Path:
    eq = rubrics["exercise-quality"]
    path = tmp_path / "s.db"
    with Store(path) as store:
        store.add_items([exercise_item(n) for n in range(1, 7)])
        rate(store, eq, "ann", "human", {f"E0{n}": dict.fromkeys(DIMS, 1.0) for n in range(1, 4)})
        rate(store, eq, "ann", "human", {"E01": dict.fromkeys(DIMS, 0.5)}, repeat=1)  # a drift re-check
        rate(store, eq, "bob", "human", {f"E0{n}": dict.fromkeys(DIMS, 1.0) for n in range(1, 7)})
        rate(store, eq, "judge:m", "judge", {f"E0{n}": dict.fromkeys(DIMS, 1.0) for n in range(1, 7)})
    return path


async def _shown(reviewer: str, path: Path, *, lead: bool = False) -> str:
    with Store(path) as store:
        app = Host(store, reviewer, lead)
        async with app.run_test(size=(120, 60)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            return "\n".join(str(w.render()) for w in app.screen.query(Static))


async def test_an_expert_sees_the_team_over_their_own_items_and_their_self_agreement(tmp_path: Path, rubrics):
    text = await _shown("ann", _db(tmp_path, rubrics))
    assert "Team: agreement among experts" in text
    assert "2 experts (ann, bob) on 3 items" in text
    assert "Self-agreement" in text
    assert "ann" in text


async def test_a_lead_who_rated_nothing_sees_the_whole_team(tmp_path: Path, rubrics):
    text = await _shown("lead", _db(tmp_path, rubrics), lead=True)
    assert "You have rated no exercise-quality item, so there is no comparison of yours with the judge" in text
    assert "2 experts (ann, bob) on 6 items" in text
    assert "Self-agreement" not in text


async def test_a_reviewer_who_rated_nothing_sees_no_team_figures(tmp_path: Path, rubrics):
    text = await _shown("carol", _db(tmp_path, rubrics))
    assert "You have not submitted any exercise-quality item yet" in text
    assert "Team" not in text
    assert "experts" not in text
    assert "ann" not in text
    assert "bob" not in text


@pytest.mark.slow
async def test_a_lead_who_rates_is_an_expert_and_sees_the_team_over_their_items(tmp_path: Path, rubrics):
    text = await _shown("ann", _db(tmp_path, rubrics), lead=True)
    assert "2 experts (ann, bob) on 3 items" in text


async def test_the_team_and_self_agreement_use_the_tolerance_from_the_settings(tmp_path: Path, rubrics,
                                                                         hermetic_home: Path):
    path = _db(tmp_path, rubrics)

    def ann_self_agreement(text: str) -> list[str]:
        drift = text[text.index("Self-agreement"):]
        return next(line for line in drift.splitlines() if line.split()[:1] == ["ann"]).split()

    # ann's re-check is 0.5 off on every dimension: beyond ±0.15, within ±0.5.
    assert ann_self_agreement(await _shown("ann", path))[:3] == ["ann", "1", "0.0%"]
    (hermetic_home / "settings.json").write_text('{"agreement": {"tolerance": 0.5}}', encoding="utf-8")
    text = await _shown("ann", path)
    assert "alignment within ±0.5" in text
    assert "±0.15" not in text
    assert ann_self_agreement(text)[:3] == ["ann", "1", "100.0%"]


async def test_a_lead_who_rated_nothing_is_sent_to_the_judge_screen_for_disagreements(tmp_path: Path, rubrics):
    with Store(_db(tmp_path, rubrics)) as store:
        app = Host(store, "lead", True)
        async with app.run_test(size=(80, 24)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.press("d")
            await app.workers.wait_for_complete()
            await pilot.pause()
            text = "\n".join(str(w.render()) for w in app.screen.query(Static))
    assert "have not submitted" not in text
    assert "The experts' disagreements with the judge are on the judge screen: J on the rating screen, then i" in text


async def test_an_expert_on_a_teams_plan_is_not_told_to_run_the_judge(tmp_path: Path, rubrics):
    from judge_tui.transfer.assignment import Options, assign

    eq = rubrics["exercise-quality"]
    path = tmp_path / "share.db"
    with Store(path) as store:
        store.add_items([exercise_item(n) for n in range(1, 7)])
        assign(store, eq, Options("exercise-quality", ("ann", "bob"), overlap=0.5))
        rate(store, eq, "ann", "human", {"E01": dict.fromkeys(DIMS, 1.0)})
    text = await _shown("ann", path)
    assert "judge-tui judge" not in text
    assert "in a team's plan the lead runs the judge once for everyone" in text
