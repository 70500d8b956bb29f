"""The rating session against a real SQLite file: drafts, submit, undo, skip, resume and the blind rule."""

from __future__ import annotations

import pytest

from judge_tui.model.records import Rating
from judge_tui.store import Store
from judge_tui.tui.session import RatingSession
from tests.narrowing import present
from tests.tui.conftest import FakeClock


def _session(store: Store, rubrics, clock: FakeClock, rubric: str = "cis", **kw) -> RatingSession:
    return RatingSession(store, rubrics[rubric], "EXP001", clock=clock, **kw)


def test_every_change_is_a_draft_on_disk(filled_store, rubrics, clock, db_path):
    session = _session(filled_store, rubrics, clock)
    assert present(session.resume()).item.id == "B001"
    clock.advance(7)
    session.set_score("r", 0.75)
    with Store(db_path) as other:  # another connection sees it: it is committed
        draft = present(other.draft("B001", "EXP001"))
    assert draft.scores == {"r": 0.75}
    assert draft.seconds == 7.0


def test_submit_saves_rating_with_overall_time_and_clears_draft(filled_store, rubrics, clock):
    session = _session(filled_store, rubrics, clock)
    session.resume()
    for dim, value in zip("ratl", (0.75, 0.5, 0.75, 0.75), strict=True):
        session.set_score(dim, value)
    session.set_notes("a global slipped in")
    clock.advance(42)
    rating = session.submit()
    stored = filled_store.rating("B001", "EXP001")
    assert stored.scores == {"r": 0.75, "a": 0.5, "t": 0.75, "l": 0.75}
    assert stored.overall == pytest.approx(0.6875)
    assert stored.seconds == 42.0
    assert stored.notes == "a global slipped in"
    assert stored.rubric_version_id == rating.rubric_version_id
    assert filled_store.draft("B001", "EXP001") is None
    assert present(session.open_next_unrated()).item.id == "B002"


def test_submit_refuses_an_incomplete_item(filled_store, rubrics, clock):
    session = _session(filled_store, rubrics, clock)
    session.resume()
    session.set_score("r", 1.0)
    with pytest.raises(ValueError, match="a, t, l"):
        session.submit()


def test_code_dimensions_and_verdict_are_added_at_submit(filled_store, rubrics, clock):
    session = _session(filled_store, rubrics, clock, rubric="exercise-quality")
    assert present(session.resume()).item.id == "E001"
    for dim in ("difficulty_match", "instruction_clarity", "learning_objective_alignment"):
        session.set_score(dim, 1.0)
    rating = session.submit()
    assert rating.scores["structural_validity"] == 1.0
    assert rating.overall == 1.0
    assert rating.verdict is not None


def test_undo_reverts_scores_notes_and_flags_and_saves(filled_store, rubrics, clock):
    session = _session(filled_store, rubrics, clock)
    session.resume()
    session.set_score("r", 0.25)
    session.set_score("r", 1.0)
    session.set_flag(True, "ask the lead")
    session.set_notes("first thought")
    assert session.undo()
    assert filled_store.draft("B001", "EXP001").notes == ""
    assert session.undo()
    assert not filled_store.draft("B001", "EXP001").flagged
    assert session.undo()
    assert filled_store.draft("B001", "EXP001").scores == {"r": 0.25}
    assert session.undo()
    assert filled_store.draft("B001", "EXP001").scores == {}
    assert not session.undo()


def test_time_adds_up_across_visits(filled_store, rubrics, clock):
    session = _session(filled_store, rubrics, clock)
    session.resume()
    clock.advance(20)
    session.open_neighbour(+1)  # leaving keeps the 20 s
    clock.advance(5)
    session.open_neighbour(-1)
    assert session.timer.elapsed() == 20.0
    clock.advance(10)
    session.leave()
    assert filled_store.draft("B001", "EXP001").seconds == 30.0
    assert filled_store.draft("B002", "EXP001").seconds == 5.0


def test_skip_sets_aside_until_the_rest_are_done(filled_store, rubrics, clock):
    session = _session(filled_store, rubrics, clock)
    session.resume()
    assert present(session.skip()).item.id == "B002"
    assert session.progress()["skipped"] == 1
    for item in ("B002", "B003"):
        assert present(session.state).item.id == item
        for dim in "ratl":
            session.set_score(dim, 0.5)
        session.submit()
        session.open_next_unrated()
    assert present(session.state).item.id == "B001"  # the skipped one comes back last


def test_skipping_a_submitted_item_only_moves_on(filled_store, rubrics, clock):
    session = _session(filled_store, rubrics, clock)
    session.resume()
    for dim in "ratl":
        session.set_score(dim, 0.5)
    session.submit()
    assert present(session.skip()).item.id == "B002"
    assert session.progress() == {"rated": 1, "skipped": 0, "flagged": 0, "total": 3}
    assert filled_store.draft("B001", "EXP001") is None


def test_resume_reopens_the_latest_draft_with_its_time(filled_store, rubrics, clock, db_path):
    session = _session(filled_store, rubrics, clock)
    session.resume()
    session.open_neighbour(+1)
    clock.advance(12)
    session.set_score("r", 0.5)
    with Store(db_path) as again:
        resumed = RatingSession(again, rubrics["cis"], "EXP001", clock=clock)
        state = present(resumed.resume())
        assert state.item.id == "B002"
        assert state.edit.scores == {"r": 0.5}
        assert resumed.timer.elapsed() == 12.0


def test_blind_until_submitted_then_revealed_only_when_asked(filled_store, rubrics, clock):
    version = filled_store.ensure_rubric_version(rubrics["cis"])
    filled_store.ensure_rater("judge:m:cis@1", "judge", model="m", prompt_version="1")
    filled_store.save_rating(Rating("B001", "judge:m:cis@1", version, {"r": 1, "a": 1, "t": 1, "l": 1},
                                    overall=1.0, details={"reasoning": "flawless"}))
    for reveal in (False, True):
        session = _session(filled_store, rubrics, clock, reveal_after_submit=reveal)
        session.open(filled_store.item("B001"))
        assert session.others() == []  # never before your own rating
    for dim in "ratl":
        session.set_score(dim, 0.25)
    session.submit()
    assert [r.rater_id for r in session.others()] == ["judge:m:cis@1"]
    hidden = _session(filled_store, rubrics, clock)
    hidden.open(filled_store.item("B001"))
    assert hidden.others() == []


def test_revisiting_a_submitted_item_changes_nothing_until_edited(filled_store, rubrics, clock):
    session = _session(filled_store, rubrics, clock)
    session.resume()
    for dim in "ratl":
        session.set_score(dim, 0.75)
    clock.advance(30)
    session.submit()
    session.open_next_unrated()
    session.open_neighbour(-1)
    assert present(session.state).submitted is not None
    assert session.timer.elapsed() == 30.0
    clock.advance(100)
    session.leave()
    assert filled_store.draft("B001", "EXP001") is None  # looking again records nothing
    session.open(filled_store.item("B001"))
    session.set_score("l", 0.25)
    assert present(session.state).changed_since_submit
    assert filled_store.draft("B001", "EXP001").scores == {"r": 0.75, "a": 0.75, "t": 0.75, "l": 0.25}
    session.submit()
    assert filled_store.rating("B001", "EXP001").scores["l"] == 0.25


def test_a_submitted_rating_imported_without_a_time_opens_with_its_timer_held_at_zero(filled_store, rubrics, clock):
    version = filled_store.ensure_rubric_version(rubrics["cis"])
    filled_store.ensure_rater("EXP001", "human")
    filled_store.save_rating(Rating("B001", "EXP001", version, {"r": 0.75, "a": 0.5, "t": 0.75, "l": 0.75},
                                    seconds=None))  # as `import-ratings` stores a file without times
    session = _session(filled_store, rubrics, clock)
    state = session.open(filled_store.item("B001"))
    clock.advance(60)
    assert state.submitted is not None
    assert session.timer.elapsed() == 0.0  # looking records no time
    session.leave()
    assert filled_store.rating("B001", "EXP001").seconds is None
