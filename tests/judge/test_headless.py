"""`judge-tui judge`: the command in process, and as a real process that is killed and run again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from judge_tui.cli import build_parser, main
from judge_tui.judge import headless
from judge_tui.rubrics import Rubric
from judge_tui.store import Store
from tests.judge import fake_anthropic as fa
from tests.judge.conftest import API_KEY, add_binary_items, add_cis_items, assert_consistent, fast

ROOT = Path(__file__).resolve().parents[2]


def judge_args(db: Path, *extra: str):
    return build_parser().parse_args(["judge", "--db", str(db), *extra])


def test_headless_judges_and_reports(fake: fa.FakeAnthropic, tmp_path: Path, rubrics: dict[str, Rubric],
                                     capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "h.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], 4)
        add_binary_items(store, rubrics["binary"])
    code = headless.run(judge_args(db, "--model", "claude-sonnet-5", "--limit", "3", "--repeat", "2"), fast())
    out, err = capsys.readouterr()
    assert code == 0
    assert "cis: 6 done, 0 failed, 0 waiting" in out and "binary: 6 done" in out
    assert "read from cache" in out and "cost $" in out
    # the binary prefix is too short to cache for this model: said, not pretended
    assert "binary: the stable prompt prefix is about" in err and "prompt caching will not apply" in err
    assert "note: the API reported no cache write or read for the first binary call" in err
    assert "cis: the stable prompt prefix" not in err
    # a second run without --limit queues the one item left over
    code = headless.run(judge_args(db, "--model", "claude-sonnet-5", "--rubric", "cis"), fast())
    out, _ = capsys.readouterr()
    assert "cis: 1 new job(s) queued" in out and "cis: 7 done" in out


def test_user_mistakes_are_messages_not_tracebacks(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   rubrics: dict[str, Rubric]) -> None:
    db = tmp_path / "m.db"
    assert main(["judge", "--db", str(db)]) == 1
    assert "no items to judge" in capsys.readouterr().err
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], 1)
    assert main(["judge", "--db", str(db), "--backend", "command"]) == 1
    assert "--backend command needs --cmd" in capsys.readouterr().err
    assert main(["judge", "--db", str(db), "--backend", "replay", "--replay", str(tmp_path / "none.jsonl")]) == 1
    assert "cannot read the replay file" in capsys.readouterr().err
    assert main(["judge", "--db", str(db), "--repeat", "0"]) == 1
    assert "--repeat must be 1 or more" in capsys.readouterr().err
    assert main(["judge", "--db", str(db), "--batch", "--backend", "command", "--cmd", sys.executable]) == 1
    assert "--batch works with the anthropic backend only" in capsys.readouterr().err
    assert main(["judge", "--db", str(db), "--rubric", "nope"]) == 1
    assert "unknown rubric 'nope'" in capsys.readouterr().err


def test_an_auth_error_stops_with_a_clear_message(fake: fa.FakeAnthropic, tmp_path: Path, rubrics: dict[str, Rubric],
                                                  capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-wrong")
    db = tmp_path / "a.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], 2)
    assert headless.run(judge_args(db, "--rubric", "cis"), fast()) == 2
    err = capsys.readouterr().err
    assert "the judge stopped: the API key was refused (401)" in err and "run the same command again" in err


def _spawn(db: Path, fake: fa.FakeAnthropic, home: Path, *extra: str) -> subprocess.Popen[str]:
    env = {**os.environ, "ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": fake.url,
           "JUDGE_TUI_HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "judge_tui", "judge", "--db", str(db), "--rubric", "cis", "--model",
         "claude-sonnet-5", "--concurrency", "2", *extra],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for_done(db: Path, rater_prefix: str, at_least: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with Store(db) as store:
            if store.count_ratings() >= at_least:
                return
        time.sleep(0.05)
    raise AssertionError(f"fewer than {at_least} ratings after {timeout} s")


@pytest.mark.parametrize("how", ["kill", "ctrl-c"])
def test_killed_mid_run_then_rerun_judges_nothing_twice(fake: fa.FakeAnthropic, tmp_path: Path,
                                                        rubrics: dict[str, Rubric], how: str,
                                                        hermetic_home: Path) -> None:
    items = 10
    fake.latency = 0.25
    db = tmp_path / "k.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], items)
    first = _spawn(db, fake, hermetic_home)
    try:
        _wait_for_done(db, "judge:", 3)
        first.send_signal(signal.SIGKILL if how == "kill" else signal.SIGINT)
        _out, err = first.communicate(timeout=20)
    finally:
        if first.poll() is None:
            first.kill()
    with Store(db) as store:
        rater = store.raters("judge")[0]["id"]
        counts = store.judge_job_counts(rater)
        in_flight_at_stop = counts["running"]
        done_first = counts["done"]
    assert 3 <= done_first < items
    if how == "ctrl-c":
        assert first.returncode == 130 and "interrupted" in err
        assert in_flight_at_stop == 0  # released on the way out
    second = _spawn(db, fake, hermetic_home)
    out, err = second.communicate(timeout=60)
    assert second.returncode == 0, err
    assert f"cis: {items} done, 0 failed" in out
    with Store(db) as store:
        assert_consistent(store, rater, items)
        assert store.judge_job_counts(rater)["done"] == items
    # every item was asked about once, except the calls cut off by the stop, asked again once
    asked: dict[str, int] = {}
    for request in fake.message_requests():
        asked[request.body["messages"][0]["content"]] = asked.get(request.body["messages"][0]["content"], 0) + 1
    assert len(asked) == items
    assert sum(asked.values()) <= items + 2  # concurrency 2: at most two calls were in flight
    assert sum(asked.values()) - items == sum(1 for n in asked.values() if n == 2)


def test_piped_summary_lines_are_never_wrapped(fake: fa.FakeAnthropic, tmp_path: Path, rubrics: dict[str, Rubric],
                                               hermetic_home: Path) -> None:
    db = tmp_path / "p.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], 2)
    run = _spawn(db, fake, hermetic_home)
    out, err = run.communicate(timeout=60)
    assert run.returncode == 0, err
    summary = [line for line in out.splitlines() if line.startswith("cis: 2 done")]
    assert summary and "cost $" in summary[0] and len(summary[0]) > 80  # one line, as long as it needs
