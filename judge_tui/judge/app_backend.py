"""A judge's backend made from the table (model/judge_backends.py): from the command line's options or, for the
app's own judge, from settings.json; and its calls at once.

The backends' modules are imported when a judge is made, and their SDKs only on the first call.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import cast

from judge_tui.judge.backends import Backend, ConfigError
from judge_tui.model.errors import UserError
from judge_tui.model.judge_backends import BACKENDS, BackendKind, BackendRequest
from judge_tui.model.settings import Settings


def _function(path: str) -> Callable[..., object]:
    module_name, function_name = path.split(":")
    return cast(Callable[..., object], getattr(importlib.import_module(module_name), function_name))


def make_backend(name: str, request: BackendRequest) -> Backend:
    """The backend `name` as the request asks; UserError when it cannot be set up (a missing option or program)."""
    try:
        return cast(Backend, _function(BACKENDS[name].factory)(request))
    except ConfigError as exc:
        raise UserError(str(exc)) from None


def app_backend(settings: Settings) -> Backend:
    """The backend settings.json asks for; UserError (said on screen) when it cannot be set up."""
    return make_backend(settings.judge_backend, BackendRequest(settings, from_settings=True))


def kind_of(backend: Backend) -> BackendKind:
    """The table's entry of a backend already made."""
    return BACKENDS[backend.name]


def missing_key(backend: Backend) -> str | None:
    """What to say when the API key the backend needs is not in the environment; None when nothing is missing."""
    check = kind_of(backend).key_check
    return None if check is None else cast(str | None, _function(check)(backend))


def app_concurrency(settings: Settings) -> int:
    """Calls at once for the app's judge: a local server takes fewer than the API."""
    return int(getattr(settings, BACKENDS[settings.judge_backend].concurrency_setting))


def concurrency_for(backend: Backend | None, settings: Settings) -> int:
    """Calls at once for a backend already made (the judge screen's, from --backend): its own setting, whatever
    settings.json's judge_backend says; None: the one settings.json asks for (`app_concurrency`)."""
    if backend is None:
        return app_concurrency(settings)
    return int(getattr(settings, kind_of(backend).concurrency_setting))
