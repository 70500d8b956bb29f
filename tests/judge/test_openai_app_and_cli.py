"""The openai backend where a user meets it: the app's background judge from settings.json, and
`judge-tui judge --backend openai` as a real process, against a fake OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge_tui.cli import main
from judge_tui.judge.app_backend import app_backend
from judge_tui.model import locations
from judge_tui.model.errors import UserError
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import Settings, load_settings
from judge_tui.store import Store
from judge_tui.tui.app import JudgeTuiApp
from judge_tui.tui.screens.rating import RatingScreen
from tests.judge import fake_openai as fo
from tests.judge.conftest import add_cis_items
from tests.tui.screen_text import widget_text
from tests.waiting import app_until

ROOT = Path(__file__).resolve().parents[2]
MODEL = "qwen2.5:7b"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[fo.FakeOpenAI]:
    with fo.serving(monkeypatch, models=(MODEL,)) as fake:
        yield fake


@pytest.mark.slow
async def test_the_app_judges_with_a_local_server_and_no_anthropic_key(
        server: fo.FakeOpenAI, tmp_path: Path, rubrics: dict[str, Rubric]) -> None:
    rubric = rubrics["cis"]
    settings = Settings(judge_backend="openai", openai_base_url=server.url, openai_model=MODEL)
    with Store(tmp_path / "app.db") as store:
        ids = add_cis_items(store, rubric, 4)
        app = JudgeTuiApp(store, rubric, reviewer="EXP001", settings=settings)
        async with app.run_test(size=(120, 40)) as pilot:
            await app_until(pilot, lambda: f"{len(ids)} done" in app.judge_status, "every item judged")
            judge_ratings = list(store.iter_ratings(kind="judge"))
            assert sorted(r.item_id for r in judge_ratings) == sorted(ids)
            assert {r.rater_id.split(":cis@")[0] for r in judge_ratings} == {f"judge:{MODEL}"}
            assert isinstance(app.screen, RatingScreen)
            shown = widget_text(app)
            for rating in judge_ratings:  # blind, as with any judge
                assert rating.notes
                assert rating.notes not in shown
            await pilot.press("q")
    assert len(server.completion_requests()) == len(ids)
    assert server.max_concurrent_seen <= settings.openai_concurrency


async def test_the_app_says_offline_while_the_local_server_is_not_running(
        tmp_path: Path, rubrics: dict[str, Rubric], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    settings = Settings(judge_backend="openai", openai_base_url="http://127.0.0.1:9/v1", openai_model=MODEL)
    with Store(tmp_path / "offline.db") as store:
        ids = add_cis_items(store, rubrics["cis"], 3)
        app = JudgeTuiApp(store, rubrics["cis"], reviewer="EXP001", settings=settings)
        async with app.run_test(size=(120, 40)) as pilot:
            await app_until(pilot, lambda: "offline" in app.judge_status, "the judge offline")
            assert app.judge_status == f"judge: {len(ids)} queued · offline"
            await pilot.press("q")


async def test_the_app_says_why_its_judge_did_not_start_without_a_model(
        tmp_path: Path, rubrics: dict[str, Rubric]) -> None:
    with Store(tmp_path / "nomodel.db") as store:
        add_cis_items(store, rubrics["cis"], 2)
        app = JudgeTuiApp(store, rubrics["cis"], reviewer="EXP001", settings=Settings(judge_backend="openai"))
        async with app.run_test(size=(120, 40)) as pilot:
            await app_until(pilot, lambda: "stopped" in app.judge_status, "the judge stopped")
            said = " ".join(app.notices)  # what was shown
            assert "names no openai_model" in said
            await pilot.press("q")


def test_settings_name_the_backend_and_refuse_an_unknown_one(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = locations.settings_path()  # this test's own home
    path.write_text(json.dumps({"judge_backend": "openai", "openai_model": MODEL,
                                "openai_base_url": "http://127.0.0.1:11434/v1", "openai_concurrency": 1}))
    settings = load_settings(path)
    assert (settings.judge_backend, settings.openai_model, settings.openai_concurrency) == ("openai", MODEL, 1)
    # A name the app cannot judge with (unknown, or a backend that needs options) stops the app before it opens.
    refusal = (f'{path}: invalid settings (judge_backend: "{{}}" is not a backend the app can judge with: use'
               ' "anthropic" or "openai"; see docs/settings.md)')
    for name in ("ollama", "command"):
        path.write_text(json.dumps({"judge_backend": name}))
        with pytest.raises(UserError) as refused:
            app_backend(load_settings(path))
        assert str(refused.value) == refusal.format(name)
        assert main(["rate", "--db", str(tmp_path / "x.db"), "--reviewer", "EXP001"]) == 1
        err = capsys.readouterr().err
        assert refusal.format(name) in err
        assert "Traceback" not in err
    assert not (tmp_path / "x.db").exists()
    path.write_text(json.dumps({"openai_concurrency": 0}))
    with pytest.raises(Exception, match="openai_concurrency"):
        load_settings(path)


def test_making_the_app_backend_does_not_import_the_sdk() -> None:
    code = ("import sys; from judge_tui.judge.app_backend import app_backend; from judge_tui.model.settings import"
            " Settings; b = app_backend(Settings(judge_backend='openai', openai_model='m')); "
            "print(type(b).__name__, 'openai' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["OpenAIBackend", "False"]


def _cli(*args: str, env: dict[str, str] | None = None, pre: str = "") -> subprocess.CompletedProcess[str]:
    code = f"import sys; {pre}from judge_tui.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=120)


@pytest.mark.slow
def test_the_command_judges_with_a_local_server(server: fo.FakeOpenAI, tmp_path: Path,
                                                rubrics: dict[str, Rubric]) -> None:
    db = tmp_path / "cli.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], 3)
    done = _cli("judge", "--db", str(db), "--backend", "openai", "--base-url", server.url, "--model", MODEL)
    assert done.returncode == 0, done.stderr
    assert "3 new jobs queued; 3 to judge with qwen2.5:7b (openai backend)" in done.stdout
    assert "cis: 3 done, 0 failed" in done.stdout
    assert server.max_concurrent_seen <= 2  # the laptop default
    # the base URL and the model from the environment and settings.json instead of options
    locations.settings_path().write_text(json.dumps({"openai_model": MODEL}))  # this test's own home
    done = _cli("judge", "--db", str(db), "--backend", "openai", "--retry-failed", env={"OPENAI_BASE_URL": server.url})
    assert done.returncode == 0, done.stderr
    assert "nothing to judge (3 done, 0 failed)" in done.stdout


def test_command_mistakes_are_messages(server: fo.FakeOpenAI, tmp_path: Path, rubrics: dict[str, Rubric],
                                       capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "m.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], 1)
    assert main(["judge", "--db", str(db), "--backend", "openai", "--base-url", server.url]) == 1
    assert "--backend openai needs --model NAME" in capsys.readouterr().err
    assert main(["judge", "--db", str(db), "--base-url", server.url]) == 1
    assert "--base-url goes with --backend openai" in capsys.readouterr().err
    assert main(["judge", "--db", str(db), "--backend", "openai", "--model", "gpt-5-mini"]) == 1
    err = capsys.readouterr().err
    assert "no OPENAI_API_KEY in the environment for https://api.openai.com/v1" in err
    assert main(["judge", "--db", str(db), "--backend", "openai", "--model", MODEL, "--base-url", server.url,
                 "--dry-run"]) == 0
    assert f"cis: 1 judgment to make with {MODEL} at {server.url}" in capsys.readouterr().out
    assert server.completion_requests() == []
    assert main(["judge", "--db", str(db), "--backend", "openai", "--model", MODEL, "--base-url", server.url,
                 "--batch"]) == 1
    assert "--batch works with the anthropic backend only" in capsys.readouterr().err


def test_without_the_sdk_the_command_says_what_to_install(server: fo.FakeOpenAI, tmp_path: Path,
                                                          rubrics: dict[str, Rubric]) -> None:
    db = tmp_path / "nosdk.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], 1)
    # sys.modules["openai"] = None: what Python does when the package is not installed
    done = _cli("judge", "--db", str(db), "--backend", "openai", "--model", MODEL, "--base-url", server.url,
                pre="sys.modules['openai'] = None; ")
    assert done.returncode == 1
    assert "pip install 'judge-tui[openai]'" in done.stderr
    assert "Traceback" not in done.stderr
    assert server.completion_requests() == []


def test_the_judge_screen_names_the_server_not_the_anthropic_api() -> None:
    from judge_tui.judge.app_backend import described
    from judge_tui.judge.backends.openai import OpenAIBackend

    label = described(OpenAIBackend(MODEL, base_url="http://127.0.0.1:11434/v1"))
    assert label == f"{MODEL} at http://127.0.0.1:11434/v1 (an OpenAI-compatible server; no price list)"
