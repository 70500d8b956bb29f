"""Where judgments come from: what the queue needs of a backend, and the backends, one module of this package each.

Every backend takes a JudgeRequest and returns a JudgeAnswer (the raw text, tokens, cost, the sampling
actually used) or raises one of four errors that tell the queue what to do next:

- RetryableError: a passing problem (429, 5xx, 529 overloaded, a dropped connection): try again later;
- OfflineError: no network or no API key: wait, probe now and then, and carry on when it is back;
- FatalError: a refused key, a spend limit or another 4xx: stop the whole queue and say why;
- AnswerError: the call worked but gave nothing usable (a refusal, a program that exited non-zero):
  a failed judgment that keeps the raw output.

Each module of this package is one backend (`anthropic`, `openai`, `command`, `replay`): its class, its factory
and its entry in the table, `BACKEND` (model/judge_backends.py's `BackendKind`), which `backend_kinds()` finds.
The command line is read with the table, so a backend's module imports at its top only what that costs nothing
(no asyncio, no SDK): an SDK takes seconds to import, so it is imported on first use, off the event loop.
The API key is read from the environment when a client is made, and never stored anywhere by us; error text
is scrubbed of it (judge_tui.model.redaction).
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, TypeGuard

from judge_tui.formats.numbers import short_text
from judge_tui.model.judge_backends import DEFAULT_BACKEND, BackendKind
from judge_tui.model.redaction import redact

if TYPE_CHECKING:
    from judge_tui.judge.prompts import RenderedPrompt


# --------------------------------------------------------------------------- requests and answers


@dataclass(frozen=True)
class JudgeRequest:
    job_id: int
    item_id: str
    repeat: int
    rubric_id: str
    prompt: RenderedPrompt
    schema: dict[str, Any]
    max_tokens: int = 1024

    @property
    def custom_id(self) -> str:
        """The id of this request inside a Message Batch."""
        return f"job-{self.job_id}"


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    @property
    def total_input(self) -> int:
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens


@dataclass
class JudgeAnswer:
    raw_text: str
    model: str
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = None
    sampling: dict[str, Any] = field(default_factory=dict)
    stop_reason: str | None = None
    # Each generated token's bytes and log-probability, where the backend returns them (OpenAI-compatible
    # servers asked for logprobs); None from the Anthropic API, which gives none.
    token_logprobs: list[tuple[bytes, float]] | None = None

    def call_record(self, outcome: str) -> dict[str, Any]:
        """What the store keeps about this call (tokens, cost, sampling), whatever became of the answer."""
        return {
            "model": self.model, "input_tokens": self.usage.input_tokens, "output_tokens": self.usage.output_tokens,
            "cache_read_tokens": self.usage.cache_read_tokens, "cache_write_tokens": self.usage.cache_write_tokens,
            "cost_usd": self.cost_usd or 0.0, "sampling": self.sampling, "outcome": outcome,
        }


class BackendError(Exception):
    """Every failure of a backend. Its text and raw output are scrubbed of keys as it is made (a server may
    quote the key it refused), so no message, stored error or raw answer built from it holds one."""

    def __init__(self, message: str, *, raw: str = "", answer: JudgeAnswer | None = None) -> None:
        super().__init__(redact(message))
        self.raw = redact(raw)
        self.answer = answer


class RetryableError(BackendError):
    """Try this job again later. throttle: the API asked everyone to slow down (429 / 529)."""

    def __init__(self, message: str, *, retry_after: float | None = None, throttle: bool = False,
                 raw: str = "") -> None:
        super().__init__(message, raw=raw)
        self.retry_after = retry_after
        self.throttle = throttle


class OfflineError(BackendError):
    """No network or no key: nothing is wrong with the job; wait and probe again."""


class FatalError(BackendError):
    """Stop the queue: going on would only repeat the same refusal."""


class AnswerError(BackendError):
    """The call returned but its answer cannot be used; the job fails with the raw output kept."""


class ConfigError(ValueError):
    """A backend that cannot be set up as asked (missing program, unreadable replay file)."""


class Backend(Protocol):
    """What the queue needs of a judge: a name for messages, the model it records, an answer per request.

    judge() raises a BackendError subclass for every failure the queue handles: RetryableError, OfflineError,
    FatalError, AnswerError."""

    name: str
    model: str

    async def judge(self, request: JudgeRequest) -> JudgeAnswer: ...

    async def close(self) -> None: ...


class BatchBackend(Backend, Protocol):
    """A backend that can also send requests as one batch and fetch the answers later (`judge --batch`)."""

    def batch_entry_bytes(self, request: JudgeRequest) -> int: ...

    async def create_batch(self, requests: list[JudgeRequest]) -> str: ...

    async def batches_since(self, since: datetime) -> list[tuple[str, int]]: ...

    async def batch_status(self, batch_id: str) -> tuple[str, dict[str, int]]: ...

    def batch_results(self, batch_id: str) -> AsyncIterator[tuple[str, JudgeAnswer | BackendError]]: ...


def has_batches(backend: Backend) -> TypeGuard[BatchBackend]:
    return all(hasattr(backend, method) for method in (
        "batch_entry_bytes", "create_batch", "batches_since", "batch_status", "batch_results"))


# --------------------------------------------------------------------------- prices


@dataclass(frozen=True)
class ModelPrice:
    input_per_mtok: float  # USD per million input tokens
    output_per_mtok: float
    min_cache_tokens: int | None  # a shorter prefix is not cached at all; None: not published when checked


# List prices in USD per million tokens, and the shortest prefix each model caches, from Anthropic's model,
# pricing and prompt-caching pages (checked November 2026). Where sources disagreed on the minimum, the
# larger figure is used so the warning errs on the side of saying "may not cache". Cache writes (5 minutes)
# cost 1.25x the input price, cache reads 0.1x, and the Message Batches API halves everything.
# Ids are matched by prefix, so dated ids ("claude-sonnet-4-5-20250929") find their family.
PRICES: dict[str, ModelPrice] = {
    "claude-fable-5-1": ModelPrice(10.0, 50.0, None),
    "claude-opus-5-5": ModelPrice(4.0, 20.0, None),
    "claude-opus-5": ModelPrice(5.0, 25.0, 512),
    "claude-sonnet-5-5": ModelPrice(2.0, 10.0, None),
    "claude-sonnet-5": ModelPrice(2.0, 10.0, 1024),
    "claude-opus-4-6": ModelPrice(5.0, 25.0, 4096),
    "claude-opus-4-5": ModelPrice(5.0, 25.0, 4096),
    "claude-opus-4-1": ModelPrice(15.0, 75.0, 1024),
    "claude-sonnet-4-6": ModelPrice(3.0, 15.0, 2048),
    "claude-sonnet-4-5": ModelPrice(3.0, 15.0, 1024),
    "claude-haiku-4-5": ModelPrice(1.0, 5.0, 4096),
}
CACHE_WRITE_FACTOR = 1.25
CACHE_READ_FACTOR = 0.1
BATCH_FACTOR = 0.5


def model_price(model: str) -> ModelPrice | None:
    matches = [key for key in PRICES if model == key or model.startswith(key + "-")]
    return PRICES[max(matches, key=len)] if matches else None


def cost_usd(model: str, usage: Usage, *, batch: bool = False) -> float | None:
    """What a call cost, or None for a model without a known price."""
    price = model_price(model)
    if price is None:
        return None
    dollars = (
        usage.input_tokens * price.input_per_mtok
        + usage.cache_write_tokens * price.input_per_mtok * CACHE_WRITE_FACTOR
        + usage.cache_read_tokens * price.input_per_mtok * CACHE_READ_FACTOR
        + usage.output_tokens * price.output_per_mtok
    ) / 1_000_000
    return dollars * (BATCH_FACTOR if batch else 1.0)


# --------------------------------------------------------------------------- the SDKs' errors


def _retry_after(headers: Any) -> float | None:
    """Seconds the server asked us to wait (retry-after-ms or retry-after), if it said."""
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            continue
        if seconds >= 0:
            return seconds
    return None


def _connect_failed(exc: BaseException) -> bool:
    """True when the connection never opened (refused, no route, no DNS), as opposed to dropped mid-way."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if type(current).__name__ in ("ConnectError", "ConnectionRefusedError", "gaierror") or isinstance(
            current, ConnectionRefusedError
        ):
            return True
        current = current.__cause__ or current.__context__
    return False


def error_text(exc: Any) -> str:
    """What an SDK's error says, without its class name: the API's own message when it gives one."""
    message = getattr(exc, "api_message", None) or getattr(exc, "message", None) or str(exc)
    return str(message)

def map_sdk_error(sdk: Any, exc: BaseException, *, service: str, key_env: str, model: str, timeout: float,
                  overloaded: int, client: str, place: str, auth_refused: str) -> BackendError:
    """An SDK's exception as the queue's kind of failure. The anthropic and openai SDKs share their error
    classes' names and meanings, so one mapping serves both."""
    if isinstance(exc, sdk.AuthenticationError):
        return FatalError(f"{auth_refused} (401): {error_text(exc)}. Check {key_env}.")
    if isinstance(exc, sdk.PermissionDeniedError):
        return FatalError(f"this key may not use {model} (403): {error_text(exc)}")
    if isinstance(exc, sdk.RateLimitError):
        return RetryableError(f"rate limited (429): {error_text(exc)}",
                              retry_after=_retry_after(exc.response.headers), throttle=True)
    if isinstance(exc, sdk.APIStatusError):
        status = exc.status_code
        if status >= 500 or status in (408, 409):
            return RetryableError(f"the {service} failed ({status}): {error_text(exc)}",
                                  retry_after=_retry_after(exc.response.headers), throttle=status == overloaded,
                                  raw=exc.response.text if exc.response.is_stream_consumed else "")
        if status == 402:
            return FatalError(f"billing problem or spend limit reached (402): {error_text(exc)}")
        return FatalError(f"the {service} refused the request ({status}): {error_text(exc)}")
    if isinstance(exc, sdk.APITimeoutError):
        return RetryableError(f"no answer within {short_text(timeout)} s")
    if isinstance(exc, sdk.APIConnectionError):
        if _connect_failed(exc):
            return OfflineError(f"cannot reach the {service} ({place})")
        return RetryableError(f"the connection dropped ({error_text(exc)})")
    if isinstance(exc, (OSError, TimeoutError)):
        return RetryableError(f"network error ({exc})")
    return FatalError(f"unexpected error from {client}: {type(exc).__name__}: {exc}")


# --------------------------------------------------------------------------- the table


@functools.cache
def backend_kinds() -> dict[str, BackendKind]:
    """Every backend by name: the `BACKEND` of each module of this package (a module named with a leading _ is
    a helper, not a backend). The default comes first, then those settings.json may name, then the rest, each
    by name: the order of `--backend`'s choices and help."""
    kinds = [importlib.import_module(f"{__name__}.{module.name}").BACKEND
             for module in pkgutil.iter_modules(__path__) if not module.name.startswith("_")]
    kinds.sort(key=lambda kind: (kind.name != DEFAULT_BACKEND, not kind.in_settings, kind.name))
    return {kind.name: kind for kind in kinds}
