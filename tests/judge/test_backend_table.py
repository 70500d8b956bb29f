"""The table of backends (the `BACKEND` of each module of judge/backends/) is what the command line, the app's
settings and the docs offer, and a new backend is its module alone."""

from __future__ import annotations

import json
import subprocess
import sys
import typing
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge_tui.cli.parser import build_parser, main
from judge_tui.judge import backends
from judge_tui.judge.app_backend import (
    app_concurrency,
    app_kind,
    concurrency_for,
    described,
    kind_of,
    make_backend,
)
from judge_tui.judge.backends import backend_kinds
from judge_tui.model.errors import UserError
from judge_tui.model.judge_backends import DEFAULT_BACKEND, BackendRequest
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from tests.judge.conftest import add_cis_items

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _option(command: str, flag: str) -> typing.Any:
    return next(action for action in build_parser().commands[command].arguments if flag in action.option_strings)


@pytest.mark.parametrize("command", ["judge", "calibrate"])
def test_every_backend_and_its_options_are_on_the_command_line(command: str) -> None:
    backend = _option(command, "--backend")
    assert list(backend.choices) == list(backend_kinds())
    # the judge screen, without --backend, judges with the backend of the judge it shows (cli/calibrate.py)
    assert backend.default == (None if command == "calibrate" else DEFAULT_BACKEND)
    for kind in backend_kinds().values():
        assert f"{kind.name}: {kind.help}" in backend.help
        for option in kind.options:
            assert _option(command, option.flag).help.startswith(f"for --backend {kind.name}: ")


def test_every_backend_is_described_in_the_docs() -> None:
    judging = (DOCS / "judging.md").read_text(encoding="utf-8")
    cli = (DOCS / "cli.md").read_text(encoding="utf-8")
    for kind in backend_kinds().values():
        if kind.name != DEFAULT_BACKEND:
            assert f"--backend {kind.name}" in judging
        for option in kind.options:
            assert option.flag in judging
            assert option.flag in cli


def test_settings_name_the_backends_the_app_can_make_without_options() -> None:
    for kind in backend_kinds().values():
        settings = Settings(judge_backend=kind.name)
        if kind.in_settings:
            assert app_kind(settings) is kind
        else:
            with pytest.raises(UserError, match=f'judge_backend: "{kind.name}" is not a backend the app can judge'):
                app_kind(settings)
    with pytest.raises(UserError, match='use "anthropic" or "openai"'):
        app_concurrency(Settings(judge_backend="ollama"))


def test_each_backend_is_the_module_of_its_name_in_the_order_of_the_help() -> None:
    kinds = list(backend_kinds().values())
    for kind in kinds:
        assert kind.factory.__module__ == f"judge_tui.judge.backends.{kind.name}"
    assert [kind.name for kind in kinds] == ["anthropic", "openai", "command", "replay"]  # docs/cli.md's order


def test_reading_the_command_line_imports_no_sdk_and_no_asyncio() -> None:
    """Every backend's module is imported to build the parser, on every start of the app and of every command."""
    heavy = ("anthropic", "openai", "httpx", "pydantic", "asyncio")
    code = ("import sys, json; from judge_tui.cli.parser import build_parser; build_parser(); "
            f"print(json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == []


def test_each_factory_makes_a_backend_of_its_own_name(tmp_path: Path) -> None:
    replay = tmp_path / "answers.jsonl"
    replay.write_text('{"item_id": "a", "answer": "{}", "model": "m"}\n')
    options: dict[str, dict[str, object]] = {"openai": {"base_url": "http://127.0.0.1:9/v1"}, "command": {"cmd": "true"},
               "replay": {"replay": replay}}
    settings = Settings(openai_model="local-model", judge_concurrency=5, openai_concurrency=3)
    for kind in backend_kinds().values():
        backend = make_backend(kind.name, BackendRequest(settings, options=options.get(kind.name, {})))
        assert backend.name == kind.name
        assert kind_of(backend) is kind
        assert concurrency_for(backend, settings) == getattr(settings, kind.concurrency_setting)
    assert app_concurrency(settings) == 5
    assert app_concurrency(Settings(judge_backend="openai", openai_concurrency=3)) == 3


def test_an_option_of_another_backend_is_refused(tmp_path: Path, rubrics: dict[str, Rubric],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "m.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], 1)
    assert main(["judge", "--db", str(db), "--backend", "command", "--cmd", "true", "--replay", "x.jsonl"]) == 1
    assert "--replay goes with --backend replay" in capsys.readouterr().err
    assert main(["judge", "--db", str(db), "--backend", "replay", "--replay", "x.jsonl", "--cmd", "true"]) == 1
    assert "--cmd goes with --backend command" in capsys.readouterr().err


def test_batches_are_offered_only_where_the_table_says(tmp_path: Path, rubrics: dict[str, Rubric],
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "m.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], 1)
    assert main(["judge", "--db", str(db), "--backend", "command", "--cmd", "true", "--batch"]) == 1
    assert "--batch works with the anthropic backend only" in capsys.readouterr().err


# A new backend, written as a contributor would: one module that declares its own entry, and nothing else.
TRIAL_MODULE = '''
"""A trial judge: the lowest point on every scale, with a note of the user's."""

from __future__ import annotations

import json

from judge_tui.judge.backends import JudgeAnswer, JudgeRequest
from judge_tui.model.errors import UserError
from judge_tui.model.judge_backends import BackendKind, BackendOption, BackendRequest


class TrialBackend:
    name = "trial"

    def __init__(self, note: str, model: str) -> None:
        self.note = note
        self.model = model

    async def judge(self, request: JudgeRequest) -> JudgeAnswer:
        props = request.schema["properties"]
        answer = {key: (value["enum"][0] if "enum" in value else self.note) for key, value in props.items()}
        return JudgeAnswer(raw_text=json.dumps(answer), model=self.model, sampling={"backend": "trial"})

    async def close(self) -> None:
        return None


def from_request(request: BackendRequest) -> TrialBackend:
    if not request.options.get("trial_note"):
        raise UserError("--backend trial needs --trial-note TEXT")
    return TrialBackend(request.options["trial_note"], request.model or "trial-model")


BACKEND = BackendKind("trial", "a trial judge of the tests", from_request,
                      options=(BackendOption("--trial-note", "what it writes as its reasoning", metavar="TEXT"),))
'''


# The same judge, telling the tokens it used and saying in its own words what it is.
COUNTING_TRIAL_MODULE = TRIAL_MODULE.replace("import json", "import dataclasses\nimport json").replace(
    "import JudgeAnswer, JudgeRequest", "import JudgeAnswer, JudgeRequest, Usage").replace(
    'sampling={"backend": "trial"})', 'sampling={"backend": "trial"}, usage=Usage(input_tokens=100, output_tokens=7))',
) + '''

def describe(backend: TrialBackend) -> str:
    return f"the trial judge, writing {backend.note!r} (no price list)"


BACKEND = dataclasses.replace(BACKEND, usage="tokens", describe=describe)
'''


@pytest.fixture
def trial_backend(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[None]:
    """The trial module in a folder of its own, made part of the package judge_tui/judge/backends/ (as a file
    added there would be), so that no file of the project changes."""
    folder = tmp_path / "more_backends"
    folder.mkdir()
    (folder / "trial.py").write_text(getattr(request, "param", TRIAL_MODULE))
    package_path = list(backends.__path__)
    backends.__path__.append(str(folder))
    backend_kinds.cache_clear()
    try:
        yield
    finally:
        backends.__path__[:] = package_path
        sys.modules.pop("judge_tui.judge.backends.trial", None)
        backend_kinds.cache_clear()


@pytest.mark.usefixtures("trial_backend")
@pytest.mark.parametrize("command", ["judge", "calibrate"])
def test_a_new_backend_module_is_on_the_command_line(command: str) -> None:
    backend = _option(command, "--backend")
    assert "trial" in backend.choices
    assert "trial: a trial judge of the tests" in backend.help
    assert _option(command, "--trial-note").help == "for --backend trial: what it writes as its reasoning"
    assert list(backend.choices)[-1] == "trial"  # neither the default nor one settings.json may name: last


@pytest.mark.usefixtures("trial_backend")
def test_a_new_backend_module_is_made_and_judges(tmp_path: Path, rubrics: dict[str, Rubric],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    settings = Settings(judge_concurrency=3)
    made = make_backend("trial", BackendRequest(settings, options={"trial_note": "tried"}))
    assert made.name == "trial"
    assert kind_of(made) is backend_kinds()["trial"]
    assert concurrency_for(made, settings) == 3
    assert described(made) == "trial-model through the trial backend"  # the judge screen's words for it
    with pytest.raises(UserError, match="judge_backend: \"trial\" is not a backend the app can judge with"):
        app_kind(Settings(judge_backend="trial"))  # it needs an option, so settings.json may not name it
    db = tmp_path / "trial.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], 2)
    assert main(["judge", "--db", str(db), "--backend", "trial"]) == 1
    assert "--backend trial needs --trial-note TEXT" in capsys.readouterr().err
    assert main(["judge", "--db", str(db), "--backend", "command", "--cmd", "true", "--trial-note", "x"]) == 1
    assert "--trial-note goes with --backend trial" in capsys.readouterr().err
    assert main(["judge", "--db", str(db), "--backend", "trial", "--trial-note", "tried"]) == 0
    assert "cis: 2 done, 0 failed" in capsys.readouterr().out
    with Store(db) as store:
        (rater,) = [row["id"] for row in store.query("SELECT id FROM raters WHERE kind = 'judge'")]
        assert store.judge_backend(rater) == "trial"  # its judgments say which backend made them
        assert rater.startswith("judge:trial-model:cis@")
        rating = store.rating("B001", rater)
        assert rating is not None
        assert rating.notes == "tried"


@pytest.mark.parametrize("trial_backend", [COUNTING_TRIAL_MODULE], indirect=True, ids=["counting"])
def test_a_new_backend_says_what_it_is_and_the_tokens_it_used(trial_backend: None, tmp_path: Path,
                                                             rubrics: dict[str, Rubric],
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Its entry's description and usage are what `judge` prints of it: nothing else names the backend."""
    db = tmp_path / "trial.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], 2)
    assert main(["judge", "--db", str(db), "--backend", "trial", "--trial-note", "tried", "--dry-run"]) == 0
    assert "cis: 2 judgments to make with the trial judge, writing 'tried' (no price list)" in capsys.readouterr().out
    assert main(["judge", "--db", str(db), "--backend", "trial", "--trial-note", "tried"]) == 0
    out = capsys.readouterr().out
    assert "cis: 2 done, 0 failed" in out
    assert "input 200 tokens · output 14 · cost: no price (a local model or program)" in out
