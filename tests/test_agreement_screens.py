"""The summary screen and the disagreement browser, driven through their real keys on a real database."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from rich.table import Table
from rich.text import Text
from textual.app import App
from textual.widgets import DataTable, Static

from judge_tui.model import locations
from judge_tui.model.records import Rating
from judge_tui.model.rubrics import load_rubrics
from judge_tui.model.settings import load_settings
from judge_tui.store import Store
from judge_tui.tui.plain_app import PlainNoticeApp
from judge_tui.tui.screens.disagreements import DisagreementScreen, RevisionNoteScreen
from judge_tui.tui.screens.summary import SummaryScreen, scatter_plot
from judge_tui.tui.widgets.item_pane import ItemPane
from tests.agreement_data import exercise_items, load_ratings, ratings_file
from tests.narrowing import present, screen_of

REVIEWER, OTHER, JUDGE = "EXP001", "EXP002", "judge:test-model:exercise-quality@1"
SUBMITTED = 24


class Host(PlainNoticeApp[None]):
    """The smallest app that opens the summary screen, as the rating screen's key does (with the settings read
    at its start)."""

    def __init__(self, store: Store, reviewer: str = REVIEWER) -> None:
        super().__init__()
        self.store = store
        self.reviewer = reviewer
        self.agreement = load_settings().agreement

    def on_mount(self) -> None:
        rubric = load_rubrics()["exercise-quality"][0]
        self.push_screen(SummaryScreen(self.store, rubric, self.reviewer, agreement=self.agreement))


@pytest.fixture
def rated_db(tmp_path: Path, rubrics) -> Path:
    """40 items: the reviewer submitted 24, a colleague all 40, the judge all 40 (10 of them twice)."""
    rubric = rubrics["exercise-quality"]
    items = exercise_items(40, rubric)
    db = tmp_path / "screens.db"
    with Store(db) as store:
        store.add_items(items)
        mine = ratings_file(tmp_path / "me.jsonl", rubric, items[:SUBMITTED], seed=21)
        other = ratings_file(tmp_path / "other.jsonl", rubric, items, seed=22)
        judge = ratings_file(tmp_path / "judge.jsonl", rubric, items, seed=23, kind="judge",
                             base={**other, **mine}, noise=0.35)
        ratings_file(tmp_path / "again.jsonl", rubric, items[:10], seed=24, kind="judge", base=judge, noise=0.2)
        load_ratings(store, rubric, tmp_path / "me.jsonl", REVIEWER, "human")
        load_ratings(store, rubric, tmp_path / "other.jsonl", OTHER, "human")
        load_ratings(store, rubric, tmp_path / "judge.jsonl", JUDGE, "judge")
        load_ratings(store, rubric, tmp_path / "again.jsonl", JUDGE, "judge", repeat=1)
    return db


async def settle(app: App, pilot) -> None:
    await app.workers.wait_for_complete()
    await pilot.pause()


async def disagreements_opened(pilot) -> None:
    """The summary settled, then d: the disagreement browser, once it has settled too."""
    await settle(pilot.app, pilot)
    await pilot.press("d")
    await settle(pilot.app, pilot)


def screen_text(screen) -> str:
    return "\n".join(str(w.render()) for w in screen.query(Static))


async def test_summary_compares_only_submitted_items(rated_db: Path):
    with Store(rated_db) as store:
        app = Host(store)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            screen = app.screen
            assert isinstance(screen, SummaryScreen)
            report = screen.report
            assert report is not None
            # The blind rule: only the reviewer, and only the items they submitted.
            assert report.human.rater_ids == (REVIEWER,)
            assert report.judge.rater_ids == (JUDGE,)
            assert report.counts["compared"] == SUBMITTED
            assert all(row.agreement.n == SUBMITTED for row in report.rows)
            assert {s.value for b in report.breakdowns for s in b.sections if b.by == "split"} == {
                "train", "dev", "test"}
            assert sum(s.summary.cases for s in report.breakdowns[0].sections) == SUBMITTED
            assert [b.by for b in report.breakdowns] == ["cefr_level", "split"]  # no task types in this rubric
            assert report.self_agreement[0].items == 10
            assert report.human_overall.size == SUBMITTED
            assert all(r.corrected is None for r in report.rows)
            text = screen_text(screen)
            assert "Verdict" in text
            assert "you (EXP001) against" in text
            assert "24 items" in text


@pytest.mark.slow
async def test_disagreements_sorted_marked_and_blind(rated_db: Path):
    with Store(rated_db) as store:
        app = Host(store)
        async with app.run_test(size=(120, 40)) as pilot:
            await disagreements_opened(pilot)
            screen = app.screen
            assert isinstance(screen, DisagreementScreen)
            table = screen.query_one("#dis-list", DataTable)
            ids = [present(row.key.value) for row in table.ordered_rows]
            assert sorted(ids) == [f"E{i:03d}" for i in range(SUBMITTED)]  # never an item not yet submitted
            gaps = [float(table.get_row_at(i)[1]) for i in range(len(ids))]
            assert gaps == sorted(gaps, reverse=True)
            assert gaps[0] > 0
            first = ids[0]
            human, judge = present(store.rating(first, REVIEWER)), present(store.rating(first, JUDGE))
            assert abs(gaps[0] - abs(present(human.overall) - present(judge.overall))) < 5e-5  # shown to four decimals
            text = screen_text(screen)
            assert f"human note on {first}" in text
            assert f"judge reasoning on {first}" in text

            await pilot.press("down")
            second = ids[1]
            assert screen.current == second
            await pilot.press("m")
            assert isinstance(app.screen, RevisionNoteScreen)
            await pilot.press(*"too lenient", "enter")
            assert store.revision_marks("exercise-quality") == {second: "too lenient"}
            with Store(rated_db) as other:  # committed: another connection sees it
                assert other.revision_marks("exercise-quality") == {second: "too lenient"}
            assert table.get_row(second)[-1] == "✎"
            assert "too lenient" in screen_text(screen)
            await pilot.press("m", "escape")  # cancelling keeps the mark as it was
            assert store.revision_marks("exercise-quality") == {second: "too lenient"}
            await pilot.press("u")
            assert store.revision_marks("exercise-quality") == {}
            assert table.get_row(second)[-1] == ""
            await pilot.press("escape")
            assert isinstance(app.screen, SummaryScreen)


def marked_dimensions(screen: DisagreementScreen) -> list[str]:
    """The dimensions the detail table marks as differing (its yellow names)."""
    table = screen.query_one("#dis-scores", Static).content
    assert isinstance(table, Table)
    names = [cell for cell in table.columns[0].cells if isinstance(cell, Text)]
    assert len(names) == table.row_count  # every name is styled text
    return [cell.plain for cell in names if "yellow" in str(cell.style)]


@pytest.mark.slow
@pytest.mark.parametrize(("tolerance", "marks_some"), [(0.15, True), (1.0, False)])
async def test_disagreements_mark_dimensions_beyond_the_set_tolerance(rated_db: Path, tolerance, marks_some):
    settings = locations.settings_path()
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"agreement": {"tolerance": tolerance}}))
    with Store(rated_db) as store:
        app = Host(store)
        async with app.run_test(size=(120, 40)) as pilot:
            await disagreements_opened(pilot)
            screen = app.screen
            assert isinstance(screen, DisagreementScreen)
            assert bool(marked_dimensions(screen)) is marks_some


async def test_reviewer_with_nothing_submitted_sees_a_message(rated_db: Path):
    with Store(rated_db) as store:
        store.ensure_rater("NEW01", "human")
        app = Host(store, reviewer="NEW01")
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            assert screen_of(app, SummaryScreen).report is None
            assert "You have not submitted any exercise-quality item yet" in screen_text(app.screen)
            await pilot.press("d")
            await settle(app, pilot)
            assert "You have not submitted any exercise-quality item yet" in screen_text(app.screen)


@pytest.mark.slow
async def test_empty_states_name_the_command_to_run(rated_db: Path, rubrics):
    rubric = rubrics["exercise-quality"]
    with Store(rated_db) as store:
        version = store.ensure_rubric_version(rubric)
        scores = present(store.rating("E030", OTHER)).scores
        store.ensure_rater("NEW01", "human")
        # NEW01 submits E030; the judge's rating of it is taken away, so nothing of theirs is compared yet.
        store.save_rating(Rating(item_id="E030", rater_id="NEW01", rubric_version_id=version, scores=scores,
                                 overall=rubric.overall_score(scores)))
        store.conn.execute("DELETE FROM ratings WHERE item_id = 'E030' AND rater_id = ?", (JUDGE,))
        store.conn.commit()
        app = Host(store, reviewer="NEW01")
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            assert "run `judge-tui judge --rubric exercise-quality`" in screen_text(app.screen)
            await pilot.press("d")
            await settle(app, pilot)
            assert "run `judge-tui judge --rubric exercise-quality`" in screen_text(app.screen)
            await pilot.press("escape")
        store.conn.execute("DELETE FROM ratings WHERE rater_id = ?", (JUDGE,))
        store.conn.commit()
        app = Host(store, reviewer="NEW01")
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            assert "The judge has not rated any item of exercise-quality yet" in screen_text(app.screen)
            assert "Run `judge-tui judge --rubric exercise-quality`" in screen_text(app.screen)


@pytest.mark.slow
async def test_untrusted_notes_are_shown_as_text(rated_db: Path, rubrics):
    rubric = rubrics["exercise-quality"]
    with Store(rated_db) as store:
        version = store.ensure_rubric_version(rubric)
        mine = present(store.rating("E000", REVIEWER))
        scores = {k: (0.0 if k != "structural_validity" else v) for k, v in mine.scores.items()}
        store.save_rating(Rating(item_id="E000", rater_id=REVIEWER, rubric_version_id=version, scores=scores,
                                 overall=rubric.overall_score(scores), notes="[bold]mine[/] \x1b]0;title\x07ok"))
        theirs = present(store.rating("E000", JUDGE))
        judge_scores = {k: (1.0 if k != "structural_validity" else v) for k, v in theirs.scores.items()}
        store.save_rating(Rating(item_id="E000", rater_id=JUDGE, rubric_version_id=version, scores=judge_scores,
                                 overall=rubric.overall_score(judge_scores), notes="[@click=app.quit]x[/]",
                                 details={"issues": ["[red]a", {"k": 1}]}))
        app = Host(store)
        async with app.run_test(size=(120, 40)) as pilot:
            await disagreements_opened(pilot)
            screen = screen_of(app, DisagreementScreen)
            assert screen.current == "E000"  # the largest gap comes first
            text = screen_text(screen)
            assert "[bold]mine[/] ok" in text
            assert "\x1b" not in text
            assert "[@click=app.quit]x[/]" in text
            assert "• [red]a" in text
            assert app.is_running


def test_scatter_plot_counts_land_in_their_cells():
    human = np.array([0.0, 0.0, 1.0, 0.5, 0.52])
    judge = np.array([0.0, 0.0, 0.0, 0.5, 0.48])
    lines = scatter_plot(human, judge).plain.splitlines()
    grid = lines[1:12]  # judge 1.0 at the top down to 0.0
    bottom = grid[-1].split("│")[1]
    assert bottom.split() == ["2", *["·"] * 9, "1"]
    middle = grid[5].split("│")[1]
    assert middle.split()[5] == "2"
    assert "5 items" in lines[0]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_summary_snapshot(rated_db: Path, snap_compare, size):
    with Store(rated_db) as store:
        async def ready(pilot) -> None:
            await settle(pilot.app, pilot)

        assert snap_compare(Host(store), terminal_size=size, run_before=ready)


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_disagreements_snapshot(rated_db: Path, snap_compare, size):
    with Store(rated_db) as store:
        assert snap_compare(Host(store), terminal_size=size, run_before=disagreements_opened)


@pytest.mark.slow
async def test_enter_opens_the_listed_item_and_escape_returns(rated_db: Path):
    from judge_tui.tui.screens.item import ItemScreen

    with Store(rated_db) as store:
        app = Host(store)
        async with app.run_test(size=(120, 40)) as pilot:
            await disagreements_opened(pilot)
            await pilot.press("down")
            listed = screen_of(app, DisagreementScreen).current
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, ItemScreen)
            item = present(store.item(present(listed)))
            text = "\n".join(str(w.render()) for w in app.screen.query(Static))
            assert f"Item {listed}" in text
            shown = app.screen.query_one(ItemPane).text
            assert item.fields["instruction"] in shown
            assert item.fields["source_document"] in shown
            await pilot.press("pagedown", "escape")
            await pilot.pause()
            assert isinstance(app.screen, DisagreementScreen)
            assert app.screen.current == listed


async def test_a_rubric_given_by_path_reaches_the_summary_and_the_disagreements(tmp_path: Path, rubrics):
    """The screens receive the loaded rubric: one that lives only in a file outside the rubric folders works."""
    from judge_tui.model.rubrics import load_rubric

    source = (Path(__file__).parents[1] / "prompts" / "exercise-quality.rubric.toml").read_text(encoding="utf-8")
    assert 'id = "exercise-quality"' in source
    path = tmp_path / "elsewhere.rubric.toml"
    path.write_text(source.replace('id = "exercise-quality"', 'id = "eq-elsewhere"'), encoding="utf-8")
    rubric = load_rubric(path)
    items = exercise_items(6, rubric)  # filed under the rubric id of the file
    db = tmp_path / "elsewhere.db"
    with Store(db) as store:
        store.add_items(items)
        ratings_file(tmp_path / "me.jsonl", rubric, items, seed=1)
        ratings_file(tmp_path / "j.jsonl", rubric, items, seed=2, kind="judge")
        load_ratings(store, rubric, tmp_path / "me.jsonl", REVIEWER, "human")
        load_ratings(store, rubric, tmp_path / "j.jsonl", JUDGE, "judge")

        class PathHost(App[None]):
            def on_mount(self) -> None:
                self.push_screen(SummaryScreen(store, rubric, REVIEWER, agreement=load_settings().agreement))

        app = PathHost()
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            assert screen_of(app, SummaryScreen).report is not None
            assert present(screen_of(app, SummaryScreen).report).counts["compared"] == 6
            await pilot.press("d")
            await settle(app, pilot)
            assert len(app.screen.query_one("#dis-list", DataTable).rows) == 6


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_item_opened_from_the_disagreements_snapshot(rated_db: Path, snap_compare, size):
    with Store(rated_db) as store:
        async def open_item(pilot) -> None:
            await settle(pilot.app, pilot)
            await pilot.press("d")
            await settle(pilot.app, pilot)
            await pilot.press("enter")
            await pilot.pause()

        assert snap_compare(Host(store), terminal_size=size, run_before=open_item)


async def test_summary_shows_intervals_bars_and_the_plan_over_submitted_items_only(tmp_path: Path, rubrics):
    """One submitted item: every figure is undecided, nothing says stop, and the bars and the plan are drawn from
    that one item (the colleague's and the judge's other 39 items stay out of every figure)."""
    rubric = rubrics["exercise-quality"]
    items = exercise_items(40, rubric)
    db = tmp_path / "one.db"
    with Store(db) as store:
        store.add_items(items)
        other = ratings_file(tmp_path / "other.jsonl", rubric, items, seed=22)
        mine = ratings_file(tmp_path / "me.jsonl", rubric, items[:1], seed=21)
        flipped = {k: {d: 1.0 - v for d, v in s.items()} for k, s in mine.items()}
        ratings_file(tmp_path / "judge.jsonl", rubric, items, seed=23, kind="judge", base={**other, **flipped},
                     noise=0.0)
        load_ratings(store, rubric, tmp_path / "me.jsonl", REVIEWER, "human")
        load_ratings(store, rubric, tmp_path / "other.jsonl", OTHER, "human")
        load_ratings(store, rubric, tmp_path / "judge.jsonl", JUDGE, "judge")
        app = Host(store)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            report = screen_of(app, SummaryScreen).report
            assert report is not None
            assert report.counts["compared"] == 1
            assert all(c.n <= 1 for c in report.checks)
            text = screen_text(app.screen)
            assert "[STOP]" not in text
            assert "Stop using the judge" not in text
            assert "undecided: rate more items (only 1 so far)" in text.lower()
            assert "What would settle it" in text
            bars = [w for w in app.screen.query(Static) if type(w.content).__name__ == "IntervalBars"]
            assert len(bars) == 4
            assert app.screen.query_one("#summary-body").virtual_size.width <= 80


def test_the_judges_reasoning_shows_its_answer_not_the_calls_bookkeeping():
    from judge_tui.tui.screens.disagreements import reasoning_text

    judged_here = Rating(item_id="E1", rater_id="judge:m:r@v", rubric_version_id=1, scores={}, notes="Too easy.",
                         details={"model": "m", "prompt_version": "v", "few_shot_ids": [], "sampling": {},
                                  "backend": "anthropic", "tokens": {"input": 10}, "cost_usd": None,
                                  "raw_text": '{"scores": "RAW-ANSWER"}', "batch_id": "msgbatch_1",
                                  "extras": {"issues": ["no answer key"], "suggestions": "add one"}})
    text = reasoning_text(judged_here).plain
    assert "Too easy." in text
    assert "issues:" in text
    assert "• no answer key" in text
    assert "suggestions: add one" in text
    for bookkeeping in ("cost_usd", "raw_text", "RAW-ANSWER", "backend", "tokens", "msgbatch_1", "extras"):
        assert bookkeeping not in text, bookkeeping
    imported = Rating(item_id="E1", rater_id="judge-v1", rubric_version_id=1, scores={},
                      details={"critique": "[bold]vague[/bold]"})
    assert reasoning_text(imported).plain == "critique: [bold]vague[/bold]\n"  # shown as written, not as markup


@pytest.mark.slow
async def test_the_summary_reads_one_moment_of_the_database(rated_db: Path, tmp_path: Path, rubrics, monkeypatch):
    """Another program imports five more items with the reviewer's and the judge's ratings while the summary is
    computed, just after it has read the ratings: every figure describes the moment before (40 items, 24 of them
    yours), none mixes in the items that came after ("you rated 24 of 45"). Refreshed, it shows the new moment."""
    import judge_tui.tui.screens.summary as summary
    from judge_tui.analysis.scores import load as real_load

    rubric = rubrics["exercise-quality"]
    more = exercise_items(45, rubric)[40:]
    mine = ratings_file(tmp_path / "later-me.jsonl", rubric, more, seed=31)
    ratings_file(tmp_path / "later-judge.jsonl", rubric, more, seed=32, kind="judge", base=mine, noise=0.35)
    imported: list[int] = []

    def load_then_another_program_writes(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        found = real_load(*args, **kwargs)
        if not imported:
            with Store(rated_db) as other:
                other.add_items(more)
                imported.append(load_ratings(other, rubric, tmp_path / "later-me.jsonl", REVIEWER, "human"))
                load_ratings(other, rubric, tmp_path / "later-judge.jsonl", JUDGE, "judge")
        return found

    monkeypatch.setattr(summary, "load", load_then_another_program_writes)
    with Store(rated_db) as store:
        app = Host(store)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            assert imported == [5]  # the write did land mid-computation
            report = present(screen_of(app, SummaryScreen).report)
            assert (report.counts["items"], report.counts["rated_by_human"], report.counts["compared"]) == (
                40, SUBMITTED, SUBMITTED)
            await pilot.press("r")
            await settle(app, pilot)
            report = present(screen_of(app, SummaryScreen).report)
            assert (report.counts["items"], report.counts["rated_by_human"], report.counts["compared"]) == (
                45, SUBMITTED + 5, SUBMITTED + 5)


def test_an_imported_judges_own_confidence_is_shown_like_any_other_detail():
    """A judge imported with its own `confidence` field shows it as written; the confidences a judgment made here
    stored (`confidence.stated`, `confidence.logprob`) are named as such, and its notes stay bookkeeping."""
    from judge_tui.tui.screens.disagreements import reasoning_text

    imported = Rating(item_id="E1", rater_id="judge-v1", rubric_version_id=1, scores={},
                      details={"critique": "vague", "confidence": 0.73})
    assert reasoning_text(imported).plain == "critique: vague\nconfidence: 0.73\n"
    worded = Rating(item_id="E1", rater_id="judge-v1", rubric_version_id=1, scores={},
                    details={"confidence": "high", "confidence_notes": "from the grader's log"})
    assert reasoning_text(worded).plain == "confidence: high\nconfidence_notes: from the grader's log\n"
    judged_here = Rating(item_id="E1", rater_id="judge:m:r@v", rubric_version_id=1, scores={}, notes="Too easy.",
                         details={"model": "m", "confidence": {"stated": 0.8, "logprob": 0.9125},
                                  "confidence_notes": ["kept for the record"]})
    text = reasoning_text(judged_here).plain
    assert text == "Too easy.\nconfidence: 0.80 stated · 0.9125 from its scores' tokens\n"
    none_stated = Rating(item_id="E1", rater_id="judge:m:r@v", rubric_version_id=1, scores={}, notes="Fine.",
                         details={"model": "m", "confidence": {}, "confidence_notes": ["the answer stated none"]})
    assert reasoning_text(none_stated).plain == "Fine.\n"


@pytest.mark.slow
async def test_the_disagreements_show_an_imported_judges_confidence(tmp_path: Path, rubrics):
    """Through a real import (a judge's JSON Lines with its own `confidence` in the details) to the browser: the
    imported value is shown beside the judge's reasoning, and a judgment made here shows its stated confidence."""
    from judge_tui.transfer.importing import import_ratings

    rubric = rubrics["exercise-quality"]
    items = exercise_items(2, rubric)
    low, high = rubric.scale.points[0], rubric.scale.points[-1]
    db = tmp_path / "confidence.db"
    with Store(db) as store:
        store.add_items(items)

        def row(item_id: str, value: float, details: dict[str, object] | None = None) -> str:
            scores = {d.id: value for d in rubric.judged_dimensions}
            scores.update(rubric.code_scores(present(store.item(item_id)).fields))
            return json.dumps({"item_id": item_id, "scores": scores, **({"details": details} if details else {})})

        mine = tmp_path / "me.jsonl"
        mine.write_text(row("E000", low) + "\n" + row("E001", low) + "\n", encoding="utf-8")
        import_ratings(store, mine, REVIEWER, "human", rubric)
        judged = tmp_path / "judge.jsonl"
        judged.write_text(row("E000", high, {"reasoning": "far too easy", "confidence": 0.73}) + "\n"
                          + row("E001", rubric.scale.points[1], {"reasoning": "a little easy",
                                                                 "confidence": {"stated": 0.6}}) + "\n",
                          encoding="utf-8")
        import_ratings(store, judged, JUDGE, "judge", rubric)
        app = Host(store)
        async with app.run_test(size=(120, 40)) as pilot:
            await disagreements_opened(pilot)
            screen = screen_of(app, DisagreementScreen)
            assert screen.current == "E000"  # the larger gap first
            text = screen_text(screen)
            assert "far too easy" in text
            assert "confidence: 0.73" in text
            await pilot.press("down")
            assert screen.current == "E001"
            assert "confidence: 0.60 stated" in screen_text(screen)
