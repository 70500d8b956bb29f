"""The judge's backends in one table: each one's name, its own options, its factory and what it offers.

The command line's `--backend` and its options (`cli/parser.py`, and so docs/cli.md), the judge's factory
(`judge/app_backend.py`), settings.json's `judge_backend` and the calls at once all read this table, so a new
backend is its module (the class and its `from_request` factory) and its entry here. Plain data: the factory is
named as "module:function" and imported only when a judge is made, so the parser and the app start without it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from judge_tui.model.settings import Settings


@dataclass(frozen=True)
class BackendOption:
    """A command-line option of one backend (`--cmd` for `command`); `judge` and `calibrate` both take it."""

    flag: str
    help: str
    metavar: str | None = None
    path: bool = False  # a file name (argparse type=Path)
    repeat: bool = False  # given once per value (argparse action="append")
    # Where its value comes from when it is not given: a settings.json field, then an environment variable.
    setting: str | None = None
    env: str | None = None

    @property
    def dest(self) -> str:
        """The name argparse stores it under, and the key a factory reads it by."""
        return self.flag.removeprefix("--").replace("-", "_")


@dataclass(frozen=True)
class BackendKind:
    name: str  # --backend NAME, settings.json's judge_backend, and the backend class's `name`
    help: str  # what it is, in the words of --backend's help
    factory: str  # "module:function" taking a BackendRequest, returning the backend
    options: tuple[BackendOption, ...] = ()
    concurrency_setting: str = "judge_concurrency"  # the settings.json field that says its calls at once
    in_settings: bool = False  # settings.json's judge_backend may name it: the app's own judge needs no options
    # "module:function" taking the backend made, returning what to say when the API key it needs is missing
    # (None when it has one or needs none); None: it never needs a key
    key_check: str | None = None
    batches: bool = False  # offers the Message Batches calls (judge --batch)
    logprobs: bool = False  # may give its scores' token log-probabilities (certify --confidence logprob)


@dataclass(frozen=True)
class BackendRequest:
    """What a backend's factory is given: the model asked for, its own options and the settings."""

    settings: Settings
    model: str | None = None  # --model; None: the model settings.json names for this backend
    options: Mapping[str, Any] = field(default_factory=dict)  # its options by dest (--cmd-env: "cmd_env")
    from_settings: bool = False  # the app's own judge, as settings.json names it (so its messages say where)


BACKENDS: dict[str, BackendKind] = {kind.name: kind for kind in (
    BackendKind("anthropic", "the Anthropic API", "judge_tui.judge.backends:anthropic_from_request",
                in_settings=True, key_check="judge_tui.judge.backends:missing_anthropic_key", batches=True),
    BackendKind("openai", "a server speaking the OpenAI API (a local model)",
                "judge_tui.judge.openai_backend:from_request",
                options=(BackendOption("--base-url", "the server, e.g. http://127.0.0.1:11434/v1 for Ollama (default:"
                                       " settings openai_base_url, $OPENAI_BASE_URL, else the OpenAI API)",
                                       metavar="URL", setting="openai_base_url", env="OPENAI_BASE_URL"),),
                concurrency_setting="openai_concurrency", in_settings=True, key_check="judge_tui.judge.openai_backend:missing_key", logprobs=True),
    BackendKind("command", "a program of yours", "judge_tui.judge.backends:command_from_request",
                options=(BackendOption("--cmd", "program reading a request on stdin, answering on stdout"),
                         BackendOption("--cmd-env", "pass this environment variable to the program too (it gets"
                                       " only PATH, HOME, the locale and a few more); repeat for several",
                                       metavar="NAME", repeat=True))),
    BackendKind("replay", "recorded answers", "judge_tui.judge.backends:replay_from_request",
                options=(BackendOption("--replay", "recorded answers", metavar="FILE", path=True),)),
)}
DEFAULT_BACKEND = "anthropic"
JUDGED_BY = "judge:"  # a judgment's ratings.source: this and the name of the backend that made it


def option_owner(dest: str) -> BackendKind | None:
    """The backend whose option is stored under `dest`, or None for an option of no backend."""
    return next((kind for kind in BACKENDS.values() for option in kind.options if option.dest == dest), None)
