"""`judge-tui judge`: the command in process, and as a real process that is killed and run again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from judge_tui.cli import build_parser, main
from judge_tui.cli import judge as headless
from judge_tui.judge.lease import process_running
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from tests.judge import fake_anthropic as fa
from tests.judge.conftest import API_KEY, add_binary_items, add_cis_items, assert_consistent, fast
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]


def judge_args(db: Path, *extra: str):
    return build_parser().parse_args(["judge", "--db", str(db), *extra])


def test_headless_judges_and_reports(fake: fa.FakeAnthropic, tmp_path: Path, rubrics: dict[str, Rubric],
                                     capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "h.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], 4)
        add_binary_items(store, rubrics["binary"])
    code = headless.run(judge_args(db, "--rubric", "all", "--model", "claude-sonnet-5", "--limit", "3", "--repeat",
                                   "2"), fast())
    out, err = capsys.readouterr()
    assert code == 0
    assert "cis: 6 done, 0 failed, 0 waiting" in out
    assert "binary: 6 done" in out
    assert "read from cache" in out
    assert "cost $" in out
    # the binary prefix is too short to cache for this model: said, not pretended
    assert "binary: the stable prompt prefix is about" in err
    assert "prompt caching will not apply" in err
    assert "note: the API reported no cache write or read for the first binary call" in err
    assert "cis: the stable prompt prefix" not in err
    # a second run without --limit queues the one item left over
    code = headless.run(judge_args(db, "--model", "claude-sonnet-5", "--rubric", "cis"), fast())
    out, _ = capsys.readouterr()
    assert "cis: 1 new job queued" in out
    assert "cis: 7 done" in out


def test_user_mistakes_are_messages_not_tracebacks(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   rubrics: dict[str, Rubric]) -> None:
    db = tmp_path / "m.db"
    assert main(["judge", "--db", str(db)]) == 1
    assert f"{db}: no such database" in capsys.readouterr().err
    assert not db.exists()  # a mistyped path
    Store(db).close()
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
    assert "the judge stopped: the API key was refused (401)" in err
    assert "run the same command again" in err


def _as_in_a_terminal() -> None:
    """Ctrl-C as a terminal delivers it: a test run started in the background (CI, `cmd &`) inherits SIGINT
    ignored, and Python then never raises KeyboardInterrupt in the children these tests interrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _spawn(db: Path, fake: fa.FakeAnthropic, home: Path, *extra: str) -> subprocess.Popen[str]:
    env = {**os.environ, "ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": fake.url,
           "JUDGE_TUI_HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "judge_tui", "judge", "--db", str(db), "--rubric", "cis", "--model",
         "claude-sonnet-5", "--concurrency", "2", *extra],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_as_in_a_terminal)


def _wait_for_done(db: Path, at_least: int) -> None:
    def judged() -> bool:
        with Store(db) as store:
            return store.count_ratings() >= at_least

    wait_until(judged, f"{at_least} judgments saved")


@pytest.mark.slow
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
        _wait_for_done(db, 3)
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
        assert first.returncode == 130
        assert "interrupted" in err
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


@pytest.mark.slow
def test_judges_side_by_side_never_pay_twice_for_one_job(fake: fa.FakeAnthropic, tmp_path: Path,
                                                          rubrics: dict[str, Rubric], hermetic_home: Path) -> None:
    items = 16
    fake.latency = 0.3
    db = tmp_path / "two.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], items)
    first = _spawn(db, fake, hermetic_home)
    others: list[subprocess.Popen[str]] = []
    try:
        _wait_for_done(db, 1)  # the first judge is mid-run, with calls in flight
        others = [_spawn(db, fake, hermetic_home) for _ in range(2)]
        outs = []
        for process in (first, *others):
            out, err = process.communicate(timeout=60)
            assert process.returncode == 0, err
            outs.append(out)
    finally:
        for process in (first, *others):
            if process.poll() is None:
                process.kill()
    asked: dict[str, int] = {}
    for request in fake.message_requests():
        text = request.body["messages"][0]["content"]
        asked[text] = asked.get(text, 0) + 1
    assert len(asked) == items
    assert max(asked.values()) == 1  # no job was taken from a live judge and paid for again
    # the judge that finished last counts the work of all three
    assert any(f"cis: {items} done, 0 failed, 0 waiting" in out for out in outs), outs
    with Store(db) as store:
        rater = store.raters("judge")[0]["id"]
        assert_consistent(store, rater, items)
        assert store.judge_job_counts(rater)["done"] == items
        assert store.judge_workers() == []  # each judge removed itself on the way out


# A local judge that fails two ways: a crash (exit 3, with a terminal escape sequence in its stderr) on one
# item, a score off the scale on another.
LOCAL_JUDGE = r'''
import json, sys
request = json.load(sys.stdin)
if request["item_id"] == "B001":
    print("\x1b[2Jmodel crashed on this one", file=sys.stderr)
    sys.exit(3)
props = request["schema"]["properties"]
answer = {k: (v["enum"][0] if "enum" in v else "local reasoning") for k, v in props.items()}
if request["item_id"] == "B002":
    answer[next(k for k, v in props.items() if "enum" in v)] = 0.7
print(json.dumps(answer))
'''


def test_a_run_says_why_judgments_failed_and_failures_lists_them(tmp_path: Path, rubrics: dict[str, Rubric],
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "f.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], 4)
    script = tmp_path / "my_judge.py"
    script.write_text(LOCAL_JUDGE)
    assert main(["judge", "--db", str(db), "--backend", "command", "--cmd", f"{sys.executable} {script}"]) == 1
    out = capsys.readouterr().out
    assert "cis: 2 done, 2 failed" in out
    assert "rater: judge:cmd-my_judge:cis@" in out  # named after the script, not the interpreter
    assert "tokens" not in out
    assert "cost" not in out
    assert "$" not in out  # a local program has neither
    assert "cis: 2 failed judgments, by cause:" in out
    assert "1 × B001: " in out
    assert "exited with status 3: model crashed on this one" in out
    assert "1 × B002: off_scale: " in out
    assert "0.7" in out
    assert (f"See each with its raw answer: judge-tui failures --db {db} --rubric cis; judge them again with "
            "--retry-failed.") in out
    assert main(["failures", "--db", str(db), "--rubric", "cis"]) == 0
    listed = capsys.readouterr().out
    assert "2 failed judgments of rubric cis, by cause:" in listed
    assert "B002 · cis · judge:cmd-my_judge:cis@" in listed
    assert "raw answer:" in listed
    assert '"local reasoning"}' in listed  # B002's answer as it came
    assert "model crashed on this one" in listed
    assert "\x1b" not in listed + out  # shown, never interpreted
    assert main(["failures", "--db", str(db), "--rater", "judge:someone-else"]) == 0
    assert "No failed judgments by judge:someone-else." in capsys.readouterr().out


def test_one_failed_judgment_is_spoken_of_as_one(tmp_path: Path, rubrics: dict[str, Rubric],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "one.db"
    with Store(db) as store:
        assert add_cis_items(store, rubrics["cis"], 1) == ["B001"]  # the item LOCAL_JUDGE crashes on
    script = tmp_path / "my_judge.py"
    script.write_text(LOCAL_JUDGE)
    assert main(["judge", "--db", str(db), "--backend", "command", "--cmd", f"{sys.executable} {script}"]) == 1
    out = capsys.readouterr().out
    assert "cis: 1 failed judgment, by cause:" in out
    assert (f"See it with its raw answer: judge-tui failures --db {db} --rubric cis; judge it again with "
            "--retry-failed.") in out


def test_headless_without_a_key_exits_at_once_saying_what_to_set(tmp_path: Path, rubrics: dict[str, Rubric],
                                                                  hermetic_home: Path) -> None:
    db = tmp_path / "nokey.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], 2)
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    env.update(JUDGE_TUI_HOME=str(hermetic_home), PYTHONPATH=str(ROOT))
    process = subprocess.run([sys.executable, "-m", "judge_tui", "judge", "--db", str(db), "--rubric", "cis"],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert process.returncode == 1
    assert "no ANTHROPIC_API_KEY in the environment: export ANTHROPIC_API_KEY=" in process.stderr
    assert "--backend command" in process.stderr
    assert "--backend replay" in process.stderr
    assert "Traceback" not in process.stderr
    assert "waiting and trying again" not in process.stdout
    assert "at list prices" not in process.stdout  # no estimate for a run that cannot start
    with Store(db) as store:
        assert store.judge_jobs() == []  # nothing queued for a run that cannot start


def test_several_rubrics_need_rubric_or_all(tmp_path: Path, rubrics: dict[str, Rubric],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "two-rubrics.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], 2)
        add_binary_items(store, rubrics["binary"])
    assert main(["judge", "--db", str(db)]) == 1
    err = capsys.readouterr().err
    assert "this database holds items of 2 rubrics: binary (8 items), cis (2 items)" in err
    assert "--rubric binary, or --rubric all" in err
    with Store(db) as store:
        assert store.judge_jobs() == []


def test_dry_run_says_calls_and_cost_and_writes_nothing(fake: fa.FakeAnthropic, tmp_path: Path,
                                                        rubrics: dict[str, Rubric],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "dry.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], 5)
        before = store.conn.execute("SELECT COUNT(*) FROM raters").fetchone()[0]
    assert main(["judge", "--db", str(db), "--rubric", "cis", "--model", "claude-sonnet-5", "--limit", "3",
                 "--repeat", "2", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "cis: about 6 calls to claude-sonnet-5, about $" in out
    assert "at list prices" in out
    assert "Dry run: nothing was queued or judged." in out
    with Store(db) as store:
        assert store.judge_jobs() == []
        assert store.prompt_versions("cis") == []
        assert store.conn.execute("SELECT COUNT(*) FROM raters").fetchone()[0] == before
    assert fake.message_requests() == []
    # a paid run says the same before it starts
    assert headless.run(judge_args(db, "--rubric", "cis", "--model", "claude-sonnet-5", "--limit", "1"), fast()) == 0
    out = capsys.readouterr().out
    assert out.index("cis: about 1 call to claude-sonnet-5, about $") < out.index("1 new job queued")


def test_limit_counts_and_bars_only_what_this_run_judges(fake: fa.FakeAnthropic, tmp_path: Path,
                                                        rubrics: dict[str, Rubric],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "limit.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], 6)
    # an earlier run queued every item, then stopped before judging any
    assert headless.run(judge_args(db, "--rubric", "cis", "--model", "claude-sonnet-5", "--dry-run"), fast()) == 0
    with Store(db) as store:
        from tests.judge.conftest import make_judge

        make_judge(store, rubrics["cis"]).queue.enqueue()
    capsys.readouterr()
    assert headless.run(judge_args(db, "--rubric", "cis", "--model", "claude-sonnet-5", "--limit", "2"), fast()) == 0
    out = capsys.readouterr().out
    assert "0 new jobs queued; 2 to judge" in out
    assert "2/2" in out
    assert "/6" not in out
    assert "cis: 2 done, 0 failed, 4 waiting" in out


@pytest.mark.parametrize("program", ["stops on ctrl-c", "ignores ctrl-c"])
def test_ctrl_c_with_a_local_judge_running_ends_it_without_tracebacks(tmp_path: Path, rubrics: dict[str, Rubric],
                                                                      hermetic_home: Path, program: str) -> None:
    db = tmp_path / "ctrl-c.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], 4)
    script = tmp_path / "slow_judge.py"
    pid_file = tmp_path / "judge.pid"
    script.write_text(
        "import os, signal, sys, time\n"
        + ("signal.signal(signal.SIGINT, signal.SIG_IGN)\n" if program == "ignores ctrl-c" else "")
        + f"open({str(pid_file)!r}, 'w').write(str(os.getpid()))\nsys.stdin.read()\ntime.sleep(30)\n")
    env = {**os.environ, "JUDGE_TUI_HOME": str(hermetic_home), "PYTHONPATH": str(ROOT)}
    # Ctrl-C in a terminal interrupts the whole process group: judge-tui and the programs it runs
    process = subprocess.Popen(
        [sys.executable, "-m", "judge_tui", "judge", "--db", str(db), "--backend", "command", "--cmd",
         f"{sys.executable} {script}"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=_as_in_a_terminal)
    try:
        wait_until(lambda: pid_file.exists() and pid_file.read_text(), "the local judge started")
        os.killpg(process.pid, signal.SIGINT)
        _out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130
    assert "interrupted; everything saved so far is kept." in err
    assert "Traceback" not in err, err
    assert "Event loop is closed" not in err, err
    assert not process_running(int(pid_file.read_text()))  # the program was ended, not left behind
    with Store(db) as store:
        assert store.judge_job_counts()["running"] == 0  # released on the way out


@pytest.mark.slow
def test_piped_summary_lines_are_never_wrapped(fake: fa.FakeAnthropic, tmp_path: Path, rubrics: dict[str, Rubric],
                                               hermetic_home: Path) -> None:
    db = tmp_path / "p.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], 2)
    run = _spawn(db, fake, hermetic_home)
    out, err = run.communicate(timeout=60)
    assert run.returncode == 0, err
    summary = [line for line in out.splitlines() if line.startswith("cis: 2 done")]
    assert summary
    assert "cost $" in summary[0]
    assert len(summary[0]) > 80  # one line, as long as it needs
