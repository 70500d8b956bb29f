from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from judge_tui.analysis.team import load_team, team_agreement
from judge_tui.cli import main
from judge_tui.model.settings import Settings, load_settings
from judge_tui.store import Store
from judge_tui.tui.screens.adjudication import AdjudicationApp, AdjudicationScreen, visible_disagreements
from tests.narrowing import present, screen_of
from tests.team_fixtures import exercise_item, rate

DIMS = ("difficulty_match", "instruction_clarity", "learning_objective_alignment")


def _db(tmp_path: Path, rubrics) -> Path:
    eq = rubrics["exercise-quality"]
    path = tmp_path / "lead.db"
    with Store(path) as store:
        store.add_items([exercise_item(n) for n in range(1, 5)])

        def sheet(rows: list[tuple[float, float, float]]) -> dict[str, dict[str, float]]:
            return {f"E{n:02d}": dict(zip(DIMS, row, strict=True)) for n, row in enumerate(rows, start=1)}

        # E02 differs on clarity, E04 on difficulty and alignment; E01 and E03 agree.
        rate(store, eq, "ann", "human", sheet([(1, 1, 1), (1, 0, 1), (0.5, 0.5, 0.5), (0, 1, 1)]),
             notes="[red]too hard[/red] \x1b]0;pwned\x07")
        rate(store, eq, "bob", "human", sheet([(1, 1, 1), (1, 1, 1), (0.5, 0.5, 0.5), (1, 1, 0)]))
    return path


async def test_lead_settles_each_disagreement_with_the_rating_keys(tmp_path: Path, rubrics):
    path = _db(tmp_path, rubrics)
    eq = rubrics["exercise-quality"]

    with Store(path) as store:
        app = AdjudicationApp(store, eq, "lead")
        async with app.run_test(size=(140, 40)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, AdjudicationScreen)
            assert [d.item_id for d in screen.items] == ["E02", "E04"]
            # Difficulty and alignment are agreed on E02, so only clarity (the cursor) is open.
            assert screen.choice == {"difficulty_match": 1.0, "learning_objective_alignment": 1.0}
            assert screen.judged[screen.cursor] == "instruction_clarity"
            notes = str(screen.query_one("#adj-notes").render())
            assert "[red]too hard[/red]" in notes
            assert "\x1b" not in notes  # shown as text, escapes removed
            await pilot.press("enter")  # not every dimension set: nothing is saved
            assert store.rating("E02", "consensus") is None
            await pilot.press("1", "enter")  # clarity = 0.5, save
            await pilot.pause()
            assert present(screen.current).item_id == "E04"
            assert screen.choice == {"instruction_clarity": 1.0}
            await pilot.press("2", "0", "enter")  # difficulty 1, then alignment 0: clarity is agreed, kept
            await pilot.pause()
            assert all(d.adjudicated for d in screen.items)
            await pilot.press("escape")
    with Store(path) as store:
        first = present(store.rating("E02", "consensus"))
        assert first.scores["instruction_clarity"] == 0.5
        assert first.scores["structural_validity"] == 1.0
        assert first.details == {"adjudicated": True, "from": ["ann", "bob"], "by": "lead"}
        assert present(store.rater("consensus"))["kind"] == "human"
        second = present(store.rating("E04", "consensus"))
        assert {d: second.scores[d] for d in DIMS} == {"difficulty_match": 1.0, "instruction_clarity": 1.0,
                                                       "learning_objective_alignment": 0.0}
        # The consensus rater is never one of the experts.
        view = load_team(store, eq)
        assert view.experts == ("ann", "bob")
        assert team_agreement(view).dimensions[1].adjudicated_items == 2


async def test_an_expert_as_lead_sees_only_items_they_rated(tmp_path: Path, rubrics):
    path = _db(tmp_path, rubrics)
    eq = rubrics["exercise-quality"]
    with Store(path) as store:
        store.add_items([exercise_item(5)])
        rate(store, eq, "bob", "human", {"E05": dict.fromkeys(DIMS, 1.0)})
        rate(store, eq, "cat", "human", {"E05": dict.fromkeys(DIMS, 0.0)})

    with Store(path) as store:
        app = AdjudicationApp(store, eq, "ann")
        async with app.run_test(size=(140, 40)) as pilot:
            await pilot.pause()
            assert [d.item_id for d in screen_of(app, AdjudicationScreen).items] == ["E02", "E04"]  # not E05: ann has not rated it


def test_adjudicate_command_without_disagreements_or_experts(tmp_path: Path, rubrics, capsys):
    eq = rubrics["exercise-quality"]
    path = tmp_path / "calm.db"
    with Store(path) as store:
        store.add_items([exercise_item(1)])
        rate(store, eq, "ann", "human", {"E01": dict.fromkeys(DIMS, 1.0)})
    assert main(["adjudicate", "--db", str(path), "--reviewer", "lead", "--rubric", "exercise-quality"]) == 1
    assert "at least two experts; found 1" in capsys.readouterr().err
    with Store(path) as store:
        rate(store, eq, "bob", "human", {"E01": dict.fromkeys(DIMS, 1.0)})
    assert main(["adjudicate", "--db", str(path), "--reviewer", "lead", "--rubric", "exercise-quality"]) == 0
    assert "nothing to settle" in capsys.readouterr().out
    assert main(["adjudicate", "--db", str(path), "--rubric", "exercise-quality"]) == 1
    assert "Pass --reviewer ID" in capsys.readouterr().err


async def test_c_on_a_reviewers_rating_screen_says_where_adjudication_opens(tmp_path: Path, rubrics):
    from judge_tui.tui.app import JudgeTuiApp
    from judge_tui.tui.screens.rating import RatingScreen

    path = _db(tmp_path, rubrics)

    with Store(path) as store:
        app = JudgeTuiApp(store, rubrics["exercise-quality"], reviewer="bob",
                          settings=Settings(judge_in_background=False))
        async with app.run_test(size=(140, 40)) as pilot:
            await pilot.pause()
            await pilot.press("c")
            await pilot.pause()
            assert isinstance(app.screen, RatingScreen)
            assert "it opens with `judge-tui adjudicate`" in list(app.notices)[-1]


async def test_c_with_the_lead_flag_opens_adjudication_and_escape_returns(tmp_path: Path, rubrics):
    from judge_tui.tui.app import JudgeTuiApp
    from judge_tui.tui.screens.rating import RatingScreen

    path = _db(tmp_path, rubrics)

    with Store(path) as store:
        app = JudgeTuiApp(store, rubrics["exercise-quality"], reviewer="bob",
                          settings=Settings(judge_in_background=False), lead=True)
        async with app.run_test(size=(140, 40)) as pilot:
            await pilot.pause()
            await pilot.press("c")
            await pilot.pause()
            assert isinstance(app.screen, AdjudicationScreen)
            assert [d.item_id for d in app.screen.items] == ["E02", "E04"]
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, RatingScreen)


async def test_c_with_nothing_to_settle_says_so_instead_of_an_empty_screen(tmp_path: Path, rubrics):
    from judge_tui.tui.app import JudgeTuiApp
    from judge_tui.tui.screens.rating import RatingScreen

    eq = rubrics["exercise-quality"]
    path = tmp_path / "calm.db"
    with Store(path) as store:
        store.add_items([exercise_item(1), exercise_item(2)])
        rate(store, eq, "ann", "human", {"E01": dict.fromkeys(DIMS, 1.0)})

    async def press_c() -> str:
        with Store(path) as store:
            app = JudgeTuiApp(store, eq, reviewer="lead", settings=Settings(judge_in_background=False), lead=True)
            async with app.run_test(size=(140, 40)) as pilot:
                await pilot.pause()
                await pilot.press("c")
                await pilot.pause()
                assert isinstance(app.screen, RatingScreen)
                return list(app.notices)[-1]

    assert "at least two experts; found 1. Merge their databases first: `judge-tui merge OTHER.db`" in (
        await press_c())
    with Store(path) as store:
        rate(store, eq, "bob", "human", {"E01": dict.fromkeys(DIMS, 1.0)})
    assert await press_c() == ("No exercise-quality items where experts differ by more than ±0.15: "
                               "nothing to settle.")


async def test_adjudication_and_the_summary_use_the_settings_the_app_started_with(tmp_path: Path, rubrics,
                                                                            hermetic_home: Path):
    from judge_tui.tui.app import JudgeTuiApp
    from judge_tui.tui.screens.summary import SummaryScreen

    path = _db(tmp_path, rubrics)
    eq = rubrics["exercise-quality"]
    with Store(path) as store:
        rate(store, eq, "judge:m", "judge", {f"E0{n}": dict.fromkeys(DIMS, 1.0) for n in range(1, 5)})
    settings_file = hermetic_home / "settings.json"
    settings_file.write_text('{"agreement": {"tolerance": 0.5}, "judge_in_background": false}', encoding="utf-8")

    with Store(path) as store:
        app = JudgeTuiApp(store, eq, reviewer="lead", settings=load_settings(), lead=True)
        async with app.run_test(size=(140, 60)) as pilot:
            await pilot.pause()
            settings_file.write_text('{"agreement": {"tolerance": 1.0}}', encoding="utf-8")  # changed later
            await pilot.press("c")
            await pilot.pause()
            assert "differ by more than ±0.5" in str(app.screen.query_one("#adj-status").render())
            await pilot.press("a")
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert isinstance(app.screen, SummaryScreen)
            text = "\n".join(str(w.render()) for w in app.screen.query(Static))
            assert "alignment within ±0.5" in text
            assert "±1" not in text


def test_the_adjudicate_command_checks_the_keymap_and_the_reviewer_as_rate_does(tmp_path: Path, rubrics, capsys,
                                                                              hermetic_home: Path):
    path = _db(tmp_path, rubrics)
    args = ["--db", str(path), "--rubric", "exercise-quality"]
    for command in ("rate", "adjudicate"):
        assert main([command, *args, "--reviewer", "bad id"]) == 1
        assert "--reviewer 'bad id': a reviewer id is 1 to 40" in capsys.readouterr().err
        assert main([command, *args, "--split", "test", "--reviewer", "lead"]) == 1
        assert "no exercise-quality items are in split 'test'" in capsys.readouterr().err
    (hermetic_home / "settings.json").write_text('{"keymap": {"submit": "ctrl+i"}}', encoding="utf-8")
    for command in ("rate", "adjudicate"):
        assert main([command, *args, "--reviewer", "lead"]) == 1
        assert "keymap: 'submit': 'ctrl+i' reaches the app as 'tab'" in capsys.readouterr().err
    with Store(path) as store:
        assert store.get_meta("reviewer_id") is None  # a lead's id is not remembered as the reviewer's


async def test_the_tolerance_from_the_settings_decides_what_is_a_disagreement(tmp_path: Path, rubrics, capsys,
                                                                         hermetic_home: Path):
    from judge_tui.model.settings import AgreementSettings
    from judge_tui.tui.app import JudgeTuiApp

    path = _db(tmp_path, rubrics)
    eq = rubrics["exercise-quality"]
    with Store(path) as store:
        store.add_items([exercise_item(5)])  # 0.5 apart on difficulty: beyond 0.15, within 0.5
        rate(store, eq, "ann", "human", {"E05": dict.fromkeys(DIMS, 1.0)})
        rate(store, eq, "bob", "human", {"E05": {**dict.fromkeys(DIMS, 1.0), "difficulty_match": 0.5}})

    with Store(path) as store:
        settings = Settings(judge_in_background=False, agreement=AgreementSettings(tolerance=0.5))
        app = JudgeTuiApp(store, eq, reviewer="lead", settings=settings, lead=True)
        async with app.run_test(size=(140, 40)) as pilot:
            await pilot.pause()
            await pilot.press("c")
            await pilot.pause()
            assert isinstance(app.screen, AdjudicationScreen)
            assert [d.item_id for d in app.screen.items] == ["E02", "E04"]
            assert "differ by more than ±0.5" in str(app.screen.query_one("#adj-status").render())
    with Store(path) as store:  # at the default tolerance E05 is a disagreement too
        assert [d.item_id for d in visible_disagreements(store, load_team(store, eq), "lead", AgreementSettings())] == [
            "E02", "E04", "E05"]
    (hermetic_home / "settings.json").write_text('{"agreement": {"tolerance": 1.0}}', encoding="utf-8")
    capsys.readouterr()
    assert main(["adjudicate", "--db", str(path), "--reviewer", "lead", "--rubric", "exercise-quality"]) == 0
    assert "experts differ by more than ±1: nothing to settle" in capsys.readouterr().out


async def test_a_in_adjudication_shows_the_lead_the_team_over_every_item(tmp_path: Path, rubrics):
    from judge_tui.tui.screens.summary import SummaryScreen

    path = _db(tmp_path, rubrics)
    eq = rubrics["exercise-quality"]
    with Store(path) as store:
        rate(store, eq, "judge:m", "judge", {f"E0{n}": dict.fromkeys(DIMS, 1.0) for n in range(1, 5)})

    with Store(path) as store:
        app = AdjudicationApp(store, eq, "lead")
        async with app.run_test(size=(140, 60)) as pilot:
            await pilot.pause()
            await pilot.press("a")
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert isinstance(app.screen, SummaryScreen)
            assert app.screen.lead
            text = "\n".join(str(w.render()) for w in app.screen.query(Static))
            assert "lead lead against the judge" in text
            assert "2 experts (ann, bob) on 4 items" in text
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, AdjudicationScreen)


def test_the_lead_flag_reaches_the_rating_app(tmp_path: Path, rubrics, monkeypatch):
    from judge_tui.tui.app import JudgeTuiApp

    path = _db(tmp_path, rubrics)
    started: list[bool] = []
    monkeypatch.setattr(JudgeTuiApp, "run", lambda self: started.append(self.lead))
    args = ["--db", str(path), "--rubric", "exercise-quality", "--reviewer", "lead"]
    assert main(["rate", *args]) == 0
    assert main(["rate", *args, "--lead"]) == 0
    assert main([*args, "--lead"]) == 0
    assert started == [False, True, True]


async def test_at_80x24_the_score_table_shows_every_id_whole(tmp_path: Path, rubrics):
    from tests.tui.screen_text import screen_text

    eq = rubrics["exercise-quality"]
    path = tmp_path / "narrow.db"
    with Store(path) as store:
        store.add_items([exercise_item(1)])
        rate(store, eq, "demo-expert", "human", {"E01": dict.fromkeys(DIMS, 1.0)})
        rate(store, eq, "EXP001", "human", {"E01": dict.fromkeys(DIMS, 0.0)})
        app = AdjudicationApp(store, eq, "lead")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            shown = screen_text(app)
    header = next(line for line in shown.splitlines() if "consensus" in line)
    assert "demo-expert" in header
    assert "EXP001" in header  # whole, on one line with the consensus column
    assert "…" not in shown


def _cis_db(tmp_path: Path, rubrics) -> Path:
    """B001: the experts differ on architecture (a) and language use (l); they agree on r (0.75) and t (0.25)."""
    from tests.tui.conftest import make_items

    cis = rubrics["cis"]
    path = tmp_path / "cis-lead.db"
    with Store(path) as store:
        store.add_items(make_items(cis)[:2])
        rate(store, cis, "ann", "human", {"B001": {"r": 0.75, "a": 0.0, "t": 0.25, "l": 1.0},
                                          "B002": {"r": 0.0, "a": 0.5, "t": 0.5, "l": 0.5}})
        rate(store, cis, "bob", "human", {"B001": {"r": 0.75, "a": 1.0, "t": 0.25, "l": 0.0},
                                          "B002": {"r": 1.0, "a": 0.5, "t": 0.5, "l": 0.5}})
    return path


async def test_score_keys_move_through_the_disagreeing_dimensions_only(tmp_path: Path, rubrics):
    path = _cis_db(tmp_path, rubrics)
    with Store(path) as store:
        app = AdjudicationApp(store, rubrics["cis"], "lead")
        async with app.run_test(size=(120, 30), notifications=True) as pilot:
            await pilot.pause()
            screen = screen_of(app, AdjudicationScreen)
            assert present(screen.current).item_id == "B001"
            assert screen.judged[screen.cursor] == "a"
            await pilot.press("3", "3")  # a, then l: t is agreed and left as it is
            assert screen.choice == {"r": 0.75, "a": 0.75, "t": 0.25, "l": 0.75}
            await pilot.press("1")  # a third key stays on the last dimension to settle
            assert screen.choice["l"] == 0.25
            assert screen.choice["t"] == 0.25
            await pilot.press("up", "0")  # an agreed score changes when the lead goes to it
            assert screen.choice["t"] == 0.0
            assert screen.judged[screen.cursor] == "l"
            await pilot.press("enter")
            await pilot.pause()
            assert present(screen.current).item_id == "B002"
    with Store(path) as store:
        saved = present(store.rating("B001", "consensus"))
        assert {d: saved.scores[d] for d in "ratl"} == {"r": 0.75, "a": 0.75, "t": 0.0, "l": 0.25}


@pytest.mark.slow
async def test_enter_with_a_dimension_unset_says_which_and_goes_there(tmp_path: Path, rubrics):
    path = _cis_db(tmp_path, rubrics)
    with Store(path) as store:
        app = AdjudicationApp(store, rubrics["cis"], "lead")
        async with app.run_test(size=(120, 30), notifications=True) as pilot:
            await pilot.pause()
            screen = screen_of(app, AdjudicationScreen)
            await pilot.press("3", "up", "up", "enter")  # a set, l not; the cursor moved away from l
            await pilot.pause()
            assert store.rating("B001", "consensus") is None
            names = rubrics["cis"].dimension("l").name
            assert list(app.notices)[-1] == (
                f"Not saved: set the consensus of {names} first.")
            assert screen.judged[screen.cursor] == "l"
            await pilot.press("2", "enter")
            await pilot.pause()
            assert present(store.rating("B001", "consensus")).scores["l"] == 0.5


async def test_categories_are_settled_with_the_keys_the_rating_screen_gives_them(tmp_path: Path):
    """On a scale of categories the keys are 1 to k, as on the rating screen: 1 is the first category (A), 3 the
    third (tie); 0 does nothing."""
    import json

    items = tmp_path / "pairs.jsonl"
    items.write_text("".join(json.dumps({"id": f"p{n}", "prompt": "Answer.", "response_a": "one",
                                         "response_b": "two"}) + "\n" for n in (1, 2)))
    db = tmp_path / "pairs.db"
    assert main(["import", str(items), "--rubric", "pairwise", "--db", str(db)]) in (0, None)
    for rater, labels in (("ann", ["A", "B"]), ("bob", ["B", "tie"])):
        ratings = tmp_path / f"{rater}.jsonl"
        ratings.write_text("".join(json.dumps({"item_id": f"p{n}", "preference": label}) + "\n"
                                   for n, label in zip((1, 2), labels, strict=True)))
        assert main(["import-ratings", str(ratings), "--rater", rater, "--kind", "human", "--db", str(db)]) in (0, None)
    with Store(db) as store:
        from judge_tui.store.rubric_choice import resolve_rubric

        pairwise = resolve_rubric("pairwise", store)
        app = AdjudicationApp(store, pairwise, "lead")
        async with app.run_test(size=(140, 40)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, AdjudicationScreen)
            assert [d.item_id for d in screen.items] == ["p1", "p2"]
            await pilot.press("0")  # not a category's key: nothing set
            assert screen.choice == {}
            await pilot.press("1", "enter")  # p1: A
            await pilot.pause()
            await pilot.press("3", "enter")  # p2: tie
            await pilot.pause()
        names = [pairwise.scale.label(present(store.rating(item, "consensus")).scores["preference"]) for item in ("p1", "p2")]
    assert names == ["A", "tie"]
