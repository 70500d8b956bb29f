"""A judge's backend made from the table (`judge.backends.backend_kinds()`): from the command line's options or,
for the app's own judge, from settings.json; and its calls at once.

The backends' SDKs are imported only on the first call.
"""

from __future__ import annotations

from typing import cast

from judge_tui.judge.backends import Backend, ConfigError, backend_kinds
from judge_tui.model.errors import UserError
from judge_tui.model.judge_backends import BackendKind, BackendRequest
from judge_tui.model.locations import settings_path
from judge_tui.model.settings import Settings
from judge_tui.model.textsafe import clean


def make_backend(name: str, request: BackendRequest) -> Backend:
    """The backend `name` as the request asks; UserError when it cannot be set up (a missing option or program)."""
    try:
        return cast(Backend, backend_kinds()[name].factory(request))
    except ConfigError as exc:
        raise UserError(str(exc)) from None


def app_kind(settings: Settings) -> BackendKind:
    """The backend settings.json's judge_backend names; UserError when it names none the app can judge with
    (the model layer, which reads settings.json, cannot see the backends, so the name is checked here)."""
    kind = backend_kinds().get(settings.judge_backend)
    if kind is None or not kind.in_settings:
        allowed = " or ".join(f'"{kind.name}"' for kind in backend_kinds().values() if kind.in_settings)
        raise UserError(f'{settings_path()}: invalid settings (judge_backend: "{clean(settings.judge_backend)}" is'
                        f" not a backend the app can judge with: use {allowed}; see docs/settings.md)")
    return kind


def app_backend(settings: Settings) -> Backend:
    """The backend settings.json asks for; UserError (said on screen) when it cannot be set up."""
    return make_backend(app_kind(settings).name, BackendRequest(settings, from_settings=True))


def kind_of(backend: Backend) -> BackendKind:
    """The table's entry of a backend already made."""
    return backend_kinds()[backend.name]


def option_owner(dest: str) -> BackendKind | None:
    """The backend whose option is stored under `dest`, or None for an option of no backend."""
    return next((kind for kind in backend_kinds().values() for option in kind.options if option.dest == dest), None)


def described(backend: Backend) -> str:
    """Which judge a run calls, and whether it costs money (the judge screen's and `judge --dry-run`'s words)."""
    describe = kind_of(backend).describe
    return describe(backend) if describe is not None else f"{clean(backend.model)} through the {clean(backend.name)} backend"


def missing_key(backend: Backend) -> str | None:
    """What to say when the API key the backend needs is not in the environment; None when nothing is missing."""
    check = kind_of(backend).key_check
    return None if check is None else check(backend)


def app_concurrency(settings: Settings) -> int:
    """Calls at once for the app's judge: a local server takes fewer than the API."""
    return int(getattr(settings, app_kind(settings).concurrency_setting))


def concurrency_for(backend: Backend | None, settings: Settings) -> int:
    """Calls at once for a backend already made (the judge screen's, from --backend): its own setting, whatever
    settings.json's judge_backend says; None: the one settings.json asks for (`app_concurrency`)."""
    if backend is None:
        return app_concurrency(settings)
    return int(getattr(settings, kind_of(backend).concurrency_setting))
