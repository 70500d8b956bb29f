""""The judge" is one rater everywhere: after a tried prompt is reverted and another kept, the report (text,
Markdown, JSON), its jury and validity page, the judge screen (heading, figures and the previous version beside
it) and the app's summary name and use the same judge, the newest kept version; `--judge` names another on
each; and the app's status line counts the items judged through other backends as judged."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import Static

from judge_tui.analysis.judges import NAMED, NEWEST_KEPT, the_judge
from judge_tui.judge.calibration import apply_change, check_change, judge_texts, promote_example, revert
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.store.rubric_choice import resolve_rubric
from judge_tui.tui.app import JudgeTuiApp
from judge_tui.tui.screens.calibrate import CalibrationApp, CalibrationScreen
from judge_tui.tui.screens.summary import SummaryScreen
from tests.calibration.fixtures import JUDGE_CMD, MODEL, SPLITS, build_study
from tests.calibration.test_examples_keep_expert_labels import cli, keep_an_example
from tests.narrowing import present
from tests.waiting import app_until

OTHER = "cmd-other"  # a second model: the jury's other juror
EVERY_ITEM = sum(len(numbers) for numbers in SPLITS.values())


def judge(db: Path, *args: str, model: str = MODEL) -> None:
    cli(db, "judge", "--rubric", "binary", "--backend", "command", "--cmd", JUDGE_CMD, "--model", model, *args)


def try_and_revert(db: Path) -> str:
    """A prompt tried on the judge screen (another example), judged on the dev split, and reverted."""
    with Store(db) as store:
        rubric = resolve_rubric("binary", store)
        files = judge_texts(store, rubric)
        rubric_text, template_text = files.texts()
        new = promote_example(store, rubric, rubric_text, "P02", "FAIL: HONEY IS NOT VEGAN", "bob")
        trial = apply_change(store, rubric, files, check_change(store, rubric, files, new, template_text),
                             "try P02", ["P02"])
    judge(db, "--split", "dev")
    with Store(db) as store:
        revert(store, trial, "no better than before")
    return trial.after


def rater_of(db: Path, version: str, model: str = MODEL) -> str:
    with Store(db) as store:
        return next(r["id"] for r in store.judge_raters_with_prompt("binary")
                    if r["prompt_version"] == version and r["model"] == model)


@pytest.fixture
def kept_study(tmp_path: Path, rubrics: dict[str, Rubric]) -> tuple[Path, str, str, str]:
    """The first judge over every item; a reverted trial; a kept example judged on the dev split, by this model
    and, on five items, by another. Returns the database and the first, reverted and kept judges."""
    db = build_study(tmp_path / "study.db", rubrics["binary"])
    judge(db)
    with Store(db) as store:
        first = present(the_judge(store, "binary")).rater
    tried = try_and_revert(db)
    kept = keep_an_example(db)
    judge(db, "--split", "dev")
    judge(db, "--split", "dev", "--limit", "5", model=OTHER)
    return db, first, rater_of(db, tried), rater_of(db, kept)


async def judge_screen(db: Path, judge: str | None = None) -> tuple[CalibrationScreen, str]:
    with Store(db) as store:
        app = CalibrationApp(store, resolve_rubric("binary", store), "lead", settings=Settings(), judge=judge)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = app.screen
            assert isinstance(screen, CalibrationScreen)
            await app_until(pilot, lambda: screen.standing is not None and not screen.computing, "the figures")
            return screen, str(screen.query_one("#cal-title", Static).render())


@pytest.mark.slow  # the judge program several times, then two Pilot sessions
async def test_after_a_kept_prompt_every_screen_and_the_report_use_the_same_judge(kept_study) -> None:
    db, first, tried, kept = kept_study
    assert len({first, tried, kept}) == 3
    data = json.loads(cli(db, "report", "--rubric", "binary", "--format", "json"))
    assert data["judge"]["rater"] == kept
    assert data["judge"]["chosen"] == NEWEST_KEPT
    assert data["raters"]["judge"]["ids"] == [kept]  # the body compares the kept judge
    assert data["judge_validity"]["judges"][0]["judge"] == kept  # and the validity page leads with it
    jury = set(data["jury"]["members"])
    assert kept in jury
    assert first not in jury
    assert tried not in jury  # the kept judge is its model's juror
    text = cli(db, "report", "--rubric", "binary")
    assert text.startswith(f"What the judge may be used for: judge {kept}")
    said = " ".join(text.split("\nThe judge is ")[1].split("\n\n")[0].split())
    assert said.startswith(f"{kept} (the newest kept judge version); it rated 12 items. Other judges")
    assert f"{tried} (12, reverted)" in said  # the trial, marked
    markdown = cli(db, "report", "--rubric", "binary", "--format", "markdown")
    assert markdown.startswith(f"# What the judge may be used for: judge {kept}")
    assert f"\nThe judge is {kept} (the newest kept judge version); it rated 12 items." in markdown

    screen, title = await judge_screen(db)
    standing = screen.standing
    assert standing.judge == kept
    assert f"The judge: {kept}" in title
    # The previous version beside it is the kept one before it, never the reverted trial.
    assert standing.previous == first
    assert standing.comparison is not None
    assert (standing.comparison.v1.rater_id, standing.comparison.v2.rater_id) == (first, kept)
    assert standing.validity is not None
    assert standing.validity.judges[0].judge == kept
    assert tried not in " ".join(standing.comparison_lines)

    assert f"The judge: {kept}" in await summary_heading(db, kept, with_page=True)


async def summary_heading(db: Path, judge_id: str, *, with_page: bool = False) -> str:
    """The lead's summary screen, opened from the rating screen (a): its heading once it names the judge
    (``with_page``: once its validity page is that judge's too)."""
    with Store(db) as store:
        app = JudgeTuiApp(store, resolve_rubric("binary", store), reviewer="lead", lead=True,
                          settings=Settings(judge_in_background=False))
        async with app.run_test(size=(120, 40)) as pilot:
            await app_until(pilot, lambda: app.session is not None, "the rating screen")
            await pilot.press("a")
            await app_until(pilot, lambda: isinstance(app.screen, SummaryScreen), "the summary")
            summary = app.screen
            await app_until(pilot, lambda: judge_id in str(summary.query_one("#summary-title", Static).render()),
                            "the summary's heading naming the judge")
            if with_page:
                await app_until(pilot, lambda: any(f"judge {judge_id}" in str(s.render())
                                                   for s in summary.query("#summary-body Static")),
                                "the summary's validity page of the judge")
            return str(summary.query_one("#summary-title", Static).render())


@pytest.mark.slow  # the judge program several times, then a Pilot session
async def test_judge_names_another_judge_on_the_report_and_the_judge_screen(kept_study) -> None:
    db, first, tried, kept = kept_study
    version = first.rpartition("@")[2]
    data = json.loads(cli(db, "report", "--rubric", "binary", "--format", "json", "--judge", version[:6]))
    assert data["judge"]["rater"] == first
    assert data["judge"]["chosen"] == NAMED
    assert data["raters"]["judge"]["ids"] == [first]
    assert data["judge_validity"]["judges"][0]["judge"] == first
    assert first in data["jury"]["members"]
    assert kept not in data["jury"]["members"]
    items = cli(db, "report", "--rubric", "binary", "--items", "--format", "markdown", "--judge", tried)
    assert f"Judge: {tried}" in items  # a reverted trial, named on purpose
    refused = subprocess.run([sys.executable, "-m", "judge_tui", "report", "--rubric", "binary", "--judge", "nope",
                              "--db", str(db)], capture_output=True, text=True, check=False)
    assert refused.returncode != 0
    assert "'nope' is not a judge of rubric 'binary'" in refused.stderr
    assert kept in refused.stderr
    screen, title = await judge_screen(db, judge=first)
    assert screen.standing.judge == first
    assert f"The judge: {first} (named with --judge" in title


@pytest.mark.slow  # the judge program twice, then a Pilot session
async def test_the_status_line_counts_items_judged_through_other_backends(tmp_path: Path,
                                                                           rubrics: dict[str, Rubric]) -> None:
    db = build_study(tmp_path / "study.db", rubrics["binary"])
    judge(db)
    judge(db, model=OTHER)
    with Store(db) as store:  # the app's own judge is the Anthropic API's, with no key here
        app = JudgeTuiApp(store, resolve_rubric("binary", store), reviewer="lead", lead=True,
                          settings=Settings(judge_model="claude-sonnet-5"))
        async with app.run_test(size=(80, 24)) as pilot:
            await app_until(pilot, lambda: app.background_judge is not None and app.judge_status,
                            "the background judge's status")
            await app_until(pilot, lambda: app.judge_status == f"judge: {EVERY_ITEM} judged · no API key",
                            "every item counted as judged, nothing queued")
            assert "queued" not in app.judge_status
            assert "offline" not in app.judge_status
            assert present(app.background_judge).judge.queue.counts()["queued"] == 0
            await pilot.press("q")
