"""The table of backends (model/judge_backends.py) is what the command line, the app's settings and the docs offer."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

from judge_tui.cli.parser import build_parser, main
from judge_tui.judge.app_backend import app_concurrency, concurrency_for, kind_of, make_backend
from judge_tui.model.judge_backends import BACKENDS, DEFAULT_BACKEND, BackendRequest
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from tests.judge.conftest import add_cis_items

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _option(command: str, flag: str) -> typing.Any:
    return next(action for action in build_parser().commands[command].arguments if flag in action.option_strings)


@pytest.mark.parametrize("command", ["judge", "calibrate"])
def test_every_backend_and_its_options_are_on_the_command_line(command: str) -> None:
    backend = _option(command, "--backend")
    assert list(backend.choices) == list(BACKENDS)
    # the judge screen, without --backend, judges with the backend of the judge it shows (cli/calibrate.py)
    assert backend.default == (None if command == "calibrate" else DEFAULT_BACKEND)
    for kind in BACKENDS.values():
        assert f"{kind.name}: {kind.help}" in backend.help
        for option in kind.options:
            assert _option(command, option.flag).help.startswith(f"for --backend {kind.name}: ")


def test_every_backend_is_described_in_the_docs() -> None:
    judging = (DOCS / "judging.md").read_text(encoding="utf-8")
    cli = (DOCS / "cli.md").read_text(encoding="utf-8")
    for kind in BACKENDS.values():
        if kind.name != DEFAULT_BACKEND:
            assert f"--backend {kind.name}" in judging
        for option in kind.options:
            assert option.flag in judging
            assert option.flag in cli


def test_settings_name_the_backends_the_app_can_make_without_options() -> None:
    allowed = typing.get_args(typing.get_type_hints(Settings)["judge_backend"])
    assert set(allowed) == {kind.name for kind in BACKENDS.values() if kind.in_settings}


def test_each_factory_makes_a_backend_of_its_own_name(tmp_path: Path) -> None:
    replay = tmp_path / "answers.jsonl"
    replay.write_text('{"item_id": "a", "answer": "{}", "model": "m"}\n')
    options: dict[str, dict[str, object]] = {"openai": {"base_url": "http://127.0.0.1:9/v1"}, "command": {"cmd": "true"},
               "replay": {"replay": replay}}
    settings = Settings(openai_model="local-model", judge_concurrency=5, openai_concurrency=3)
    for kind in BACKENDS.values():
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
