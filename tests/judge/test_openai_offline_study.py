"""A study judged by a local OpenAI-compatible server with no Anthropic key: the expert rates in the app while its
background judge judges every item, `judge-tui report` then compares the two; the judge screen and the command
use the server's own concurrency and say what the server's tokens were."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge_tui.model.records import Item
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.store.rubric_choice import resolve_rubric
from judge_tui.tui.app import JudgeTuiApp
from judge_tui.tui.screens.calibrate import CalibrationApp, CalibrationScreen
from judge_tui.tui.screens.rating import RatingScreen
from tests.calibration.fixtures import build_study
from tests.judge import fake_openai as fo
from tests.judge.conftest import add_cis_items
from tests.judge.fake_anthropic import estimate_tokens
from tests.narrowing import present
from tests.waiting import app_until

ROOT = Path(__file__).resolve().parents[2]
MODEL = "llama3.1:8b"
N = 6


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[fo.FakeOpenAI]:
    with fo.serving(monkeypatch, models=(MODEL,), latency=0.05) as fake:
        yield fake


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "judge_tui", *args], cwd=ROOT, capture_output=True, text=True,
                          env={k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}, timeout=120)


@pytest.mark.slow
async def test_the_expert_rates_while_the_local_judge_judges_every_item_and_report_compares(
        server: fo.FakeOpenAI, tmp_path: Path, rubrics: dict[str, Rubric]) -> None:
    rubric = rubrics["binary"]
    db = tmp_path / "offline.db"
    settings = Settings(judge_backend="openai", openai_base_url=server.url, openai_model=MODEL)
    with Store(db) as store:
        store.ensure_rubric_version(rubric)
        store.add_items([Item(id=f"L{n}", rubric="binary", fields={
            "query": f"lunch {n}", "criterion": "vegan", "response": "rice with honey" if n % 2 else "rice"})
            for n in range(N)])
        app = JudgeTuiApp(store, rubric, reviewer="EXP001", settings=settings)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = app.screen
            assert isinstance(screen, RatingScreen)
            for _ in range(N):  # the expert rates through the keys, the judge working meanwhile
                await pilot.press("f" if "honey" in str(present(screen.session.state).item.fields) else "p")
                await pilot.pause()
            await app_until(pilot, lambda: f"{N} done" in app.judge_status, "every item judged")
            assert store.progress("EXP001", "binary", total=N)["rated"] == N
            await pilot.press("q")
        judged = {r.item_id for r in store.iter_ratings(kind="judge")}
    assert judged == {f"L{n}" for n in range(N)}
    assert len(server.completion_requests()) == N
    done = _cli("report", "--db", str(db), "--rubric", "binary", "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["counts"]["compared"] == N
    assert report["raters"]["judge"]["ids"][0].startswith(f"judge:{MODEL}:binary@")
    assert report["raters"]["human"]["ids"] == ["EXP001"]


@pytest.mark.slow
async def test_the_judge_screen_holds_a_local_server_to_openai_concurrency(
        server: fo.FakeOpenAI, tmp_path: Path, rubrics: dict[str, Rubric]) -> None:
    from judge_tui.judge.backends.openai import OpenAIBackend

    path = build_study(tmp_path / "study.db", rubrics["binary"])
    settings = Settings(judge_concurrency=8, openai_concurrency=1)  # 12 dev items: 8 at once would show
    with Store(path) as store:
        rubric = resolve_rubric("binary", store)
        app = CalibrationApp(store, rubric, "lead", settings=settings,
                             make_backend=lambda: OpenAIBackend(MODEL, base_url=server.url))
        async with app.run_test(size=(120, 40)) as pilot:
            screen = app.screen
            assert isinstance(screen, CalibrationScreen)
            await app_until(pilot, lambda: screen.standing is not None, "the first figures")
            await pilot.press("j")
            await app_until(pilot, lambda: screen.standing.judge is not None
                         and store.judge_job_counts(screen.standing.judge)["done"] == 12, "the dev split judged")
            await pilot.press("q")
    assert len(server.completion_requests()) == 12
    assert server.max_concurrent_seen == 1


@pytest.mark.slow
def test_the_command_says_the_servers_tokens_and_that_its_cost_is_unknown(
        server: fo.FakeOpenAI, tmp_path: Path, rubrics: dict[str, Rubric]) -> None:
    db = tmp_path / "cli.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], 3)
    done = _cli("judge", "--db", str(db), "--backend", "openai", "--base-url", server.url, "--model", MODEL)
    assert done.returncode == 0, done.stderr
    summary = next(line for line in done.stdout.splitlines() if line.startswith("cis: 3 done"))
    bodies = [r.body for r in server.completion_requests()]
    sent = sum(estimate_tokens("".join(str(m.get("content", "")) for m in b["messages"])) for b in bodies)
    # the fake's usage counts are the tokens it reports; the summary adds them up
    assert f" · input {sent:,} tokens · output " in summary
    assert f"cost: no price (a local model or program); judge-tui keeps no price list for {MODEL}" in done.stdout
