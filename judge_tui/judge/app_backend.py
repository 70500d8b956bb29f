"""The backend of the app's own judge, as settings.json chooses: the Anthropic API or an OpenAI-compatible server.

The backends' modules are imported here but their SDKs are not: those load on the first call.
"""

from __future__ import annotations

from judge_tui.judge.backends import AnthropicBackend, Backend, ConfigError
from judge_tui.judge.openai_backend import MISSING_SDK, OpenAIBackend, sdk_installed
from judge_tui.model.errors import UserError
from judge_tui.model.settings import Settings


def app_backend(settings: Settings) -> Backend:
    """The backend settings.json asks for; UserError (said on screen) when it cannot be set up."""
    if settings.judge_backend != "openai":
        return AnthropicBackend(settings.judge_model)
    if not settings.openai_model.strip():
        raise UserError('judge_backend is "openai" but settings.json names no openai_model: add the name the'
                        ' server knows the model by, e.g. "openai_model": "llama3.1:8b"')
    if not sdk_installed():
        raise UserError(MISSING_SDK)
    try:
        return OpenAIBackend(settings.openai_model, base_url=settings.openai_base_url or None)
    except ConfigError as exc:
        raise UserError(str(exc)) from None


def app_concurrency(settings: Settings) -> int:
    """Calls at once for the app's judge: a local server takes fewer than the API."""
    return settings.openai_concurrency if settings.judge_backend == "openai" else settings.judge_concurrency


def concurrency_for(backend: Backend | None, settings: Settings) -> int:
    """Calls at once for a backend already made (the judge screen's, from --backend): an OpenAI-compatible
    server gets openai_concurrency, whatever settings.json's judge_backend says; None: the one settings.json
    asks for (`app_concurrency`)."""
    if backend is None:
        return app_concurrency(settings)
    return settings.openai_concurrency if isinstance(backend, OpenAIBackend) else settings.judge_concurrency
