from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from textual.widgets import TextArea

from judge_tui.analysis.drift import DriftScheduler, self_agreement
from judge_tui.analysis.full_report import build_full_report
from judge_tui.analysis.report_render.full import render_full
from judge_tui.analysis.team import load_team
from judge_tui.store import Store
from tests.narrowing import present
from tests.team_fixtures import binary_item, rate


def _session(store: Store, rubrics, rated: int, seed: int = 7) -> DriftScheduler:
    binary = rubrics["binary"]
    store.add_items([binary_item(n) for n in range(1, 41)])
    version = store.ensure_rubric_version(binary)
    scheduler = DriftScheduler(store, "ann", binary, version, share=0.10, seed=seed)
    for n in range(1, rated + 1):
        rate(store, binary, "ann", "human", {f"P{n:02d}": {"label": float(n % 2)}})
        scheduler.record_new_rating()
    return scheduler


def test_one_recheck_per_ten_new_ratings_never_among_the_freshest(store: Store, rubrics):
    scheduler = _session(store, rubrics, 9)
    assert scheduler.next_recheck() is None  # 9 new ratings: nothing due yet
    rate(store, rubrics["binary"], "ann", "human", {"P10": {"label": 0.0}})
    scheduler.record_new_rating()
    item = scheduler.next_recheck()
    assert item is not None
    assert item.id in {f"P{n:02d}" for n in range(1, 6)}  # P06-P10 are too fresh
    assert scheduler.next_recheck() == item  # the same re-check until it is submitted
    assert scheduler.is_recheck(item.id)
    store.save_rating(scheduler.rating(item, {"label": 1.0}))
    scheduler.record_recheck(item.id)
    assert scheduler.next_recheck() is None
    first, again = sorted((r for r in store.ratings_for_item(item.id) if r.rater_id == "ann"),
                          key=lambda r: r.repeat)
    assert (first.repeat, again.repeat, again.source) == (0, 1, "drift")
    assert again.details["drift"] == {"seed": 7, "share": 0.1}
    # The first rating is untouched and still the expert's rating in the team view.
    view = load_team(store, rubrics["binary"])
    column = view.item_ids.index(item.id)
    assert view.expert_scores["label"][0, column] == first.scores["label"]


def test_same_seed_same_choice_and_no_item_twice(tmp_path: Path, rubrics):
    picks = []
    for run in range(2):
        with Store(tmp_path / f"{run}.db") as store:
            scheduler = _session(store, rubrics, 30, seed=3)
            chosen = []
            while (item := scheduler.next_recheck()) is not None:
                store.save_rating(scheduler.rating(item, {"label": 0.0}))
                scheduler.record_recheck(item.id)
                chosen.append(item.id)
            picks.append(chosen)
    assert picks[0] == picks[1]
    assert len(picks[0]) == 3 == len(set(picks[0]))


def test_share_is_validated(store: Store, rubrics):
    with pytest.raises(ValueError, match="drift share"):
        DriftScheduler(store, "ann", rubrics["binary"], 1, share=0)


def test_self_agreement_compares_first_and_second_ratings(store: Store, rubrics):
    binary = rubrics["binary"]
    store.add_items([binary_item(n) for n in range(1, 6)])
    rate(store, binary, "ann", "human", {f"P0{n}": {"label": 1.0} for n in range(1, 6)})
    rate(store, binary, "ann", "human", {"P01": {"label": 1.0}, "P02": {"label": 0.0}, "P03": {"label": 1.0},
                                         "P04": {"label": 1.0}}, repeat=1)
    rate(store, binary, "bob", "human", {"P01": {"label": 1.0}})  # never re-rated: no row
    rate(store, binary, "judge:x", "judge", {"P01": {"label": 0.0}}, repeat=1)  # a judge repeat is not drift
    [ann] = self_agreement(store, binary)
    assert ann.rater_id == "ann"
    assert ann.pairs == 4
    assert ann.alignment == pytest.approx(0.75)
    full = build_full_report(store, binary)  # the report's section, as `report` draws it
    [section] = json.loads(render_full(full, "json"))["expert_self_agreement"]
    assert section["rater"] == "ann"
    assert section["pairs"] == 4
    for fmt in ("text", "markdown"):
        text = render_full(full, fmt, width=10_000)
        assert "Self-agreement (items re-rated blind later)" in text, fmt
        assert re.search(r"ann\s*[│|]\s*4\s*[│|]\s*75\.0%", text), fmt


@pytest.mark.slow
async def test_rating_screen_reshows_a_rated_item_blind_and_keeps_the_first_rating(tmp_path: Path, rubrics):
    from judge_tui.model.settings import Settings
    from judge_tui.tui.app import JudgeTuiApp

    binary = rubrics["binary"]
    path = tmp_path / "drift.db"
    with Store(path) as store:
        store.add_items([binary_item(n) for n in range(1, 12)])
        rate(store, binary, "ann", "human", {f"P0{n}": {"label": 1.0} for n in range(1, 9)}, notes="earlier")

    with Store(path) as store:
        app = JudgeTuiApp(store, binary, reviewer="ann", settings=Settings(drift_check=True, drift_share=0.5,
                                                                           judge_in_background=False))
        async with app.run_test(size=(140, 40)) as pilot:
            await pilot.pause()
            session = present(app.session)
            assert present(session.state).item.id == "P09"
            await pilot.press("f", "enter")  # P09: one new rating, nothing due yet at 50%
            await pilot.pause()
            assert present(session.state).item.id == "P10"
            assert not present(session.state).recheck
            await pilot.press("f", "enter")  # two new ratings: one re-check is due
            await pilot.pause()
            state = present(session.state)
            assert state.recheck
            assert state.item.id in {"P01", "P02", "P03", "P04", "P05"}
            # Blind: no earlier score, note or rating shown.
            assert state.edit.scores == {}
            assert state.edit.notes == ""
            assert state.submitted is None
            assert app.screen.query_one("#notes", TextArea).text == ""
            rechecked = state.item.id
            await pilot.press("f", "enter")
            await pilot.pause()
            assert present(session.state).item.id == "P11"
            assert not present(session.state).recheck  # back where the expert was
            seed = present(session.drift).seed
            await pilot.press("q")
    with Store(path) as store:
        ratings = {r.repeat: r for r in store.ratings_for_item(rechecked) if r.rater_id == "ann"}
        assert ratings[0].scores == {"label": 1.0}
        assert ratings[0].notes == "earlier"
        assert ratings[1].scores == {"label": 0.0}
        assert ratings[1].source == "drift"
        assert ratings[1].details["drift"]["seed"] == seed
        assert store.draft(rechecked, "ann") is None
        [ann] = self_agreement(store, binary)
        assert ann.pairs == 1
        assert ann.alignment == 0.0
