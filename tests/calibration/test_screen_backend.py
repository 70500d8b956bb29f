"""`judge-tui calibrate` without --backend judges with the backend and model that made the judge it shows (here a
local model behind a fake OpenAI-compatible server), so `j` never pays another model than the one whose figures
are on screen; where that backend needs an option its judgments do not record, the command refuses before the
app opens and names the flags to give; with --backend, the screen judges with the one named."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge_tui.cli.calibrate import backend_args
from judge_tui.cli.judge import make_backend
from judge_tui.cli.parser import build_parser, main
from judge_tui.judge.backends import Backend
from judge_tui.judge.backends.anthropic import AnthropicBackend
from judge_tui.judge.backends.openai import OpenAIBackend
from judge_tui.model.records import Item
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.store.rubric_choice import resolve_rubric
from judge_tui.tui.screens.calibrate import CalibrationApp, CalibrationScreen
from judge_tui.tui.screens.calibrate_figures import judge_in_view
from tests.calibration.fixtures import MODEL as COMMAND_MODEL
from tests.calibration.fixtures import build_study, judge_dev
from tests.judge import fake_openai as fo
from tests.narrowing import screen_of
from tests.tui.screen_text import widget_text
from tests.waiting import app_until

LOCAL_MODEL = "qwen2.5:7b"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[fo.FakeOpenAI]:
    with fo.serving(monkeypatch, models=(LOCAL_MODEL,)) as fake:
        yield fake


def judged_by_the_local_model(path: Path, rubric: Rubric, server: fo.FakeOpenAI) -> Path:
    """The study's judge: the dev split judged by the local model, as the lead runs it."""
    build_study(path, rubric)
    assert main(["judge", "--db", str(path), "--rubric", "binary", "--split", "dev", "--backend", "openai",
                 "--base-url", server.url, "--model", LOCAL_MODEL]) == 0
    return path


def screen_backend(store: Store, settings: Settings, *flags: str) -> Backend:
    """The backend `judge-tui calibrate FLAGS` makes for the screen."""
    args = build_parser().parse_args(["calibrate", *flags])
    return make_backend(backend_args(args, store, "binary", settings), settings)


def calibrate(db: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    """The real command, as the lead types it."""
    return subprocess.run([sys.executable, "-m", "judge_tui", "calibrate", "--db", str(db), "--rubric", "binary",
                           "--reviewer", "lead", *flags], capture_output=True, text=True, check=False,
                          stdin=subprocess.DEVNULL, timeout=120)


@pytest.mark.slow  # the judge command and a Pilot session against the fake server
async def test_j_judges_with_the_local_model_that_made_the_judge_shown(tmp_path: Path, rubrics,
                                                                        server: fo.FakeOpenAI):
    # in a thread of its own: the command runs its own event loop
    path = await asyncio.to_thread(judged_by_the_local_model, tmp_path / "study.db", rubrics["binary"], server)
    settings = Settings(openai_base_url=server.url)  # the lead's settings.json names the server
    with Store(path) as store:
        store.add_items([Item(id=f"N{n}", rubric="binary", split="dev",
                              fields={"query": "q", "criterion": "vegan", "response": f"tofu {n}"}) for n in (1, 2)])
        rubric = resolve_rubric("binary", store)
        app = CalibrationApp(store, rubric, "lead", settings=settings,
                             make_backend=lambda: screen_backend(store, settings))
        async with app.run_test(size=(120, 40)) as pilot:
            screen = screen_of(app, CalibrationScreen)
            await app_until(pilot, lambda: screen.standing is not None and not screen.computing, "the figures")
            shown_judge = screen.standing.judge
            assert shown_judge is not None
            assert shown_judge.startswith(f"judge:{LOCAL_MODEL}:binary@")
            assert screen.unjudged == 2  # the two dev items imported since: the judge shown judged the rest
            shown = " ".join(widget_text(app).split())
            assert f"2 calls to {LOCAL_MODEL} at {server.url} (an OpenAI-compatible server" in shown
            assert "another model or backend" not in shown
            await pilot.press("j")
            await app_until(pilot, lambda: screen.unjudged == 0 and not screen.computing, "the new items judged")
            await pilot.press("q")
        judged = {r.item_id for r in store.iter_ratings(rubric="binary", kind="judge")}
        assert {"N1", "N2"} <= judged
        assert {r.rater_id for r in store.iter_ratings(rubric="binary", kind="judge")} == {shown_judge}
    assert len(server.completion_requests()) == 12 + 2  # the dev split, then the two new items


@pytest.mark.slow  # the judge command against the fake server
def test_the_server_comes_from_the_environment_and_a_named_backend_wins(tmp_path: Path, rubrics,
                                                                        server: fo.FakeOpenAI,
                                                                        monkeypatch: pytest.MonkeyPatch):
    path = judged_by_the_local_model(tmp_path / "study.db", rubrics["binary"], server)
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    with Store(path) as store:
        backend = screen_backend(store, Settings())
        assert isinstance(backend, OpenAIBackend)
        assert (backend.model, backend.base_url) == (LOCAL_MODEL, server.url)
        # Named on the command line, as before: the Anthropic API with the settings' model.
        named = screen_backend(store, Settings(judge_model="claude-test"), "--backend", "anthropic")
        assert isinstance(named, AnthropicBackend)
        assert named.model == "claude-test"
        alone = screen_backend(store, Settings(), "--model", "claude-other")  # a model alone: the default backend
        assert isinstance(alone, AnthropicBackend)
        assert alone.model == "claude-other"


def test_without_a_judge_the_screen_judges_with_the_settings_model(tmp_path: Path, rubrics):
    path = build_study(tmp_path / "study.db", rubrics["binary"])
    with Store(path) as store:
        backend = screen_backend(store, Settings(judge_model="claude-test"))
        assert isinstance(backend, AnthropicBackend)
        assert backend.model == "claude-test"


def test_an_imported_judge_leaves_the_screen_the_settings_model(tmp_path: Path, rubrics):
    path = build_study(tmp_path / "study.db", rubrics["binary"])
    rows = tmp_path / "judge.jsonl"
    rows.write_text("".join(json.dumps({"item_id": f"P{n:02d}", "scores": {"label": "PASS"}}) + "\n"
                            for n in range(5, 17)), encoding="utf-8")
    assert main(["import-ratings", str(rows), "--rubric", "binary", "--rater", "judge:gpt-x:binary@elsewhere",
                 "--kind", "judge", "--model", "gpt-x", "--db", str(path)]) == 0
    with Store(path) as store:
        shown = judge_in_view(store, "binary", trial=False)
        assert shown is not None
        assert shown.rater == "judge:gpt-x:binary@elsewhere"
        assert store.judge_backend(shown.rater) is None  # judged elsewhere: no backend of ours
        backend = screen_backend(store, Settings(judge_model="claude-test"))
        assert isinstance(backend, AnthropicBackend)
        assert backend.model == "claude-test"


@pytest.mark.slow  # the judge command, then the calibrate command, as real processes
def test_a_judge_of_a_local_program_is_refused_without_its_cmd(tmp_path: Path, rubrics):
    path = build_study(tmp_path / "study.db", rubrics["binary"])
    judge_dev(path)  # judge-tui judge --backend command --cmd ... --model cmd-fake
    done = calibrate(path)
    assert done.returncode == 1
    said = " ".join(done.stderr.split())
    assert "the judge shown, judge:cmd-fake:binary@" in said
    assert "was made by --backend command, and judge-tui does not record its --cmd" in said
    assert (f"give --backend command --cmd '...' --model {COMMAND_MODEL} to judge with it, or --backend anthropic"
            " to judge with another") in said
    assert "Traceback" not in done.stderr


@pytest.mark.slow  # the judge command, then the calibrate command as a real process
def test_a_judge_of_a_server_judge_tui_cannot_find_is_refused_without_its_base_url(tmp_path: Path, rubrics,
                                                                                  server: fo.FakeOpenAI):
    path = judged_by_the_local_model(tmp_path / "study.db", rubrics["binary"], server)
    requests = len(server.completion_requests())
    done = calibrate(path)  # no openai_base_url in settings.json, no $OPENAI_BASE_URL
    assert done.returncode == 1
    said = " ".join(done.stderr.split())
    assert ("was made by --backend openai, and judge-tui does not record its --base-url; neither settings.json's"
            " openai_base_url nor $OPENAI_BASE_URL names one: give --backend openai --base-url URL --model"
            f" {LOCAL_MODEL} to judge with it, or --backend anthropic to judge with another") in said
    assert "Traceback" not in done.stderr
    assert len(server.completion_requests()) == requests  # nothing judged
