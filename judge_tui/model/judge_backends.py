"""What a judge's backend declares of itself: its name, its own options, its factory and what it offers.

Each backend's module (judge_tui/judge/backends/) ends with its `BACKEND = BackendKind(...)`;
`judge.backends.backend_kinds()` finds them all, and the command line's `--backend` and its options
(`cli/parser.py`, and so docs/cli.md), the judge's factory (`judge/app_backend.py`), settings.json's
`judge_backend` and the calls at once all read that table, so a new backend is its module alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

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
    factory: Callable[[BackendRequest], Any]  # makes the backend (`Backend` in judge/backends) from a request
    options: tuple[BackendOption, ...] = ()
    concurrency_setting: str = "judge_concurrency"  # the settings.json field that says its calls at once
    in_settings: bool = False  # settings.json's judge_backend may name it: the app's own judge needs no options
    # Given the backend made, what to say when the API key it needs is missing (None when it has one or needs
    # none); None: it never needs a key
    key_check: Callable[[Any], str | None] | None = None
    batches: bool = False  # offers the Message Batches calls (judge --batch)
    logprobs: bool = False  # may give its scores' token log-probabilities (certify --confidence logprob)
    # What `judge` says of its calls: "priced" (tokens, the cache and the cost at list prices, and an estimate
    # before it runs), "tokens" (as the server counts them; a cost only where the price list knows the model),
    # "none" (a program, recorded answers)
    usage: Literal["none", "tokens", "priced"] = "none"
    # Given the backend made, which judge a run calls and whether it costs money, in the words of the judge
    # screen and `judge --dry-run` (None: "MODEL through the NAME backend")
    describe: Callable[[Any], str] | None = None


@dataclass(frozen=True)
class BackendRequest:
    """What a backend's factory is given: the model asked for, its own options and the settings."""

    settings: Settings
    model: str | None = None  # --model; None: the model settings.json names for this backend
    options: Mapping[str, Any] = field(default_factory=dict)  # its options by dest (--cmd-env: "cmd_env")
    from_settings: bool = False  # the app's own judge, as settings.json names it (so its messages say where)


DEFAULT_BACKEND = "anthropic"
JUDGED_BY = "judge:"  # a judgment's ratings.source: this and the name of the backend that made it

