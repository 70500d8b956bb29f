"""The API key is never stored or shown, even when a server quotes it back in an error (401, 403, 500) or a local
judge given it on purpose prints it: not in the database file, not in what `judge` and `failures` print, not in
the app's messages."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge_tui.cli import build_parser, main
from judge_tui.cli import judge as headless
from judge_tui.model.redaction import REDACTED, redact
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from judge_tui.tui.app import JudgeTuiApp
from tests.judge import fake_anthropic as fa
from tests.judge import fake_openai as fo
from tests.judge.conftest import add_cis_items, fast
from tests.waiting import app_until

KEY = "sk-ant-api03-QUOTED-BACK-9d8c7b6a5f4e3d2c1b0a"
OPENAI_KEY = "sk-proj-QUOTED-BACK-0a1b2c3d4e5f6a7b8c9d"
ITEMS = 2


def _files_hold(folder: Path, secret: str) -> list[str]:
    """The files under folder (the database, its journal, settings) whose bytes hold the secret."""
    return [str(path) for path in folder.rglob("*") if path.is_file() and secret.encode() in path.read_bytes()]


def _judged(tmp_path: Path, rubrics: dict[str, Rubric], capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """`judge-tui judge` with two tries a job, then `judge-tui failures`: all they printed."""
    db = tmp_path / "keys.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], ITEMS)
    code = headless.run(build_parser().parse_args(["judge", "--db", str(db), "--rubric", "cis", *args]),
                        fast(max_attempts=2, concurrency=1))
    assert code != 0  # refused or failed: the point is what it said about it
    out, err = capsys.readouterr()
    assert main(["failures", "--db", str(db)]) == 0
    listed, listed_err = capsys.readouterr()
    return out + err + listed + listed_err


@pytest.fixture
def anthropic(monkeypatch: pytest.MonkeyPatch) -> Iterator[fa.FakeAnthropic]:
    server = fa.FakeAnthropic(api_key=KEY, echo_key=True).start()
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    yield server
    server.stop()


@pytest.mark.parametrize(("status", "behaviour", "said"), [
    (401, fa.UNAUTHORIZED, "the API key was refused (401)"),
    (403, fa.FORBIDDEN, "this key may not use claude-sonnet-5 (403)"),
    (500, fa.SERVER_ERROR, "the API failed (500)"),
])
def test_an_anthropic_endpoint_quoting_the_key_never_gets_it_stored_or_shown(
        anthropic: fa.FakeAnthropic, tmp_path: Path, rubrics: dict[str, Rubric], capsys: pytest.CaptureFixture[str],
        status: int, behaviour: str, said: str) -> None:
    anthropic.add_rule(behaviour)
    printed = _judged(tmp_path, rubrics, capsys, "--model", "claude-sonnet-5")
    assert said in printed
    assert REDACTED in printed  # the error is told, the key in it hidden
    assert KEY not in printed
    assert _files_hold(tmp_path, KEY) == []
    assert any(r.behaviour == behaviour for r in anthropic.requests)


@pytest.fixture
def openai(monkeypatch: pytest.MonkeyPatch) -> Iterator[fo.FakeOpenAI]:
    server = fo.FakeOpenAI(api_key=OPENAI_KEY, echo_key=True).start()
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    yield server
    server.stop()


@pytest.mark.parametrize(("status", "behaviour", "said"), [
    (401, fo.UNAUTHORIZED, "the server refused the API key (401)"),
    (403, fo.FORBIDDEN, "(403)"),
    (500, fo.SERVER_ERROR, "the server failed (500)"),
])
def test_an_openai_compatible_server_quoting_the_key_never_gets_it_stored_or_shown(
        openai: fo.FakeOpenAI, tmp_path: Path, rubrics: dict[str, Rubric], capsys: pytest.CaptureFixture[str],
        status: int, behaviour: str, said: str) -> None:
    pytest.importorskip("openai")
    openai.add_rule(behaviour)
    printed = _judged(tmp_path, rubrics, capsys, "--backend", "openai", "--model", "llama3",
                      "--base-url", openai.url)
    assert said in printed
    assert REDACTED in printed
    assert OPENAI_KEY not in printed
    assert _files_hold(tmp_path, OPENAI_KEY) == []


LEAKY_JUDGE = '''
import os, sys
print("connecting with " + os.environ["MY_SERVICE_TOKEN"], file=sys.stderr)
print("raw: token=" + os.environ["MY_SERVICE_TOKEN"])
sys.exit(2)
'''


def test_a_local_judge_printing_a_key_passed_to_it_never_gets_it_stored_or_shown(
        tmp_path: Path, rubrics: dict[str, Rubric], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-live-5e4d3c2b1a0f")
    script = tmp_path / "leaky_judge.py"
    script.write_text(LEAKY_JUDGE)
    printed = _judged(tmp_path, rubrics, capsys, "--backend", "command", "--cmd", f"{sys.executable} {script}",
                      "--cmd-env", "MY_SERVICE_TOKEN")
    assert "exited with status 2: connecting with [hidden]" in printed
    assert "raw: token=[hidden]" in printed
    assert "tok-live-5e4d3c2b1a0f" not in printed
    assert _files_hold(tmp_path, "tok-live-5e4d3c2b1a0f") == []


def test_what_is_hidden_and_what_is_kept() -> None:
    environ = {"ANTHROPIC_API_KEY": "sk-ant-abcdefgh12345678", "HF_TOKEN": "hf_zyxwvuts9876", "DEBUG": "1",
               "PATH": "/usr/bin:/bin", "MY_PASSWORD": "short"}
    text = ("401 invalid x-api-key sk-ant-abcdefgh12345678 (hf_zyxwvuts9876) at /usr/bin; 1 try;"
            " Authorization: Bearer abc.def-ghi_jkl; someone's sk-proj-0123456789abcdefghijKLMN")
    assert redact(text, environ) == ("401 invalid x-api-key [hidden] ([hidden]) at /usr/bin; 1 try;"
                                     " Authorization: [hidden]; someone's [hidden]")
    assert redact("", environ) == ""
    assert redact("the key sk-learn is fine, as is short", environ) == "the key sk-learn is fine, as is short"


@pytest.mark.slow
async def test_the_app_never_shows_a_key_a_server_quoted(
        anthropic: fa.FakeAnthropic, tmp_path: Path, rubrics: dict[str, Rubric]) -> None:
    anthropic.add_rule(fa.UNAUTHORIZED)
    shown: list[str] = []
    with Store(tmp_path / "app.db") as store:
        add_cis_items(store, rubrics["cis"], ITEMS)
        app = JudgeTuiApp(store, rubrics["cis"], reviewer="EXP001")
        original = app.notify

        def notify(message: str, **kwargs: object) -> None:
            shown.append(message)
            original(message, **kwargs)  # type: ignore[arg-type]  # passed through as given

        app.notify = notify  # type: ignore[method-assign]  # records what the user is told
        async with app.run_test(size=(120, 40)) as pilot:
            await app_until(pilot, lambda: any("The judge stopped" in m for m in shown), "the judge stopped")
            await pilot.press("q")
    told = "\n".join(shown)
    assert "the API key was refused (401)" in told
    assert REDACTED in told
    assert KEY not in told
    assert KEY not in app.judge_status
    assert _files_hold(tmp_path, KEY) == []
