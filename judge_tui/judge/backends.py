"""Where judgments come from: the Anthropic API, a local program, or a file of recorded answers.

Every backend takes a JudgeRequest and returns a JudgeAnswer (the raw text, tokens, cost, the sampling
actually used) or raises one of four errors that tell the queue what to do next:

- RetryableError: a passing problem (429, 5xx, 529 overloaded, a dropped connection): try again later;
- OfflineError: no network or no API key: wait, probe now and then, and carry on when it is back;
- FatalError: a refused key, a spend limit or another 4xx: stop the whole queue and say why;
- AnswerError: the call worked but gave nothing usable (a refusal, a program that exited non-zero):
  a failed judgment that keeps the raw output.

The Anthropic SDK takes seconds to import, so it is imported on first use, off the event loop.
The API key is read from the environment when a client is made, and never stored anywhere by us; error text
is scrubbed of it (judge_tui.model.redaction).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import os
import re
import shlex
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, TypeGuard

from judge_tui.formats.numbers import short_text
from judge_tui.judge.batch_limits import json_bytes
from judge_tui.judge.prompts import RenderedPrompt
from judge_tui.model.errors import UserError
from judge_tui.model.judge_backends import BackendRequest
from judge_tui.model.redaction import redact

TOOL_NAME = "record_judgment"
API_KEY_ENV = "ANTHROPIC_API_KEY"
BASE_URL_ENV = "ANTHROPIC_BASE_URL"


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


# --------------------------------------------------------------------------- Anthropic


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


def _error_text(exc: Any) -> str:
    message = getattr(exc, "api_message", None) or getattr(exc, "message", None) or str(exc)
    return str(message)

def map_sdk_error(sdk: Any, exc: BaseException, *, service: str, key_env: str, model: str, timeout: float,
                  overloaded: int, client: str, place: str, auth_refused: str) -> BackendError:
    """An SDK's exception as the queue's kind of failure. The anthropic and openai SDKs share their error
    classes' names and meanings, so one mapping serves both."""
    if isinstance(exc, sdk.AuthenticationError):
        return FatalError(f"{auth_refused} (401): {_error_text(exc)}. Check {key_env}.")
    if isinstance(exc, sdk.PermissionDeniedError):
        return FatalError(f"this key may not use {model} (403): {_error_text(exc)}")
    if isinstance(exc, sdk.RateLimitError):
        return RetryableError(f"rate limited (429): {_error_text(exc)}",
                              retry_after=_retry_after(exc.response.headers), throttle=True)
    if isinstance(exc, sdk.APIStatusError):
        status = exc.status_code
        if status >= 500 or status in (408, 409):
            return RetryableError(f"the {service} failed ({status}): {_error_text(exc)}",
                                  retry_after=_retry_after(exc.response.headers), throttle=status == overloaded,
                                  raw=exc.response.text if exc.response.is_stream_consumed else "")
        if status == 402:
            return FatalError(f"billing problem or spend limit reached (402): {_error_text(exc)}")
        return FatalError(f"the {service} refused the request ({status}): {_error_text(exc)}")
    if isinstance(exc, sdk.APITimeoutError):
        return RetryableError(f"no answer within {short_text(timeout)} s")
    if isinstance(exc, sdk.APIConnectionError):
        if _connect_failed(exc):
            return OfflineError(f"cannot reach the {service} ({place})")
        return RetryableError(f"the connection dropped ({_error_text(exc)})")
    if isinstance(exc, (OSError, asyncio.TimeoutError)):
        return RetryableError(f"network error ({exc})")
    return FatalError(f"unexpected error from {client}: {type(exc).__name__}: {exc}")



class AnthropicBackend:
    """The Messages API through the official SDK; the SDK's own retries are off because the queue retries."""

    name = "anthropic"

    def __init__(self, model: str, *, base_url: str | None = None, structured: str = "output_config",
                 temperature: float | None = 0.0, timeout: float = 120.0) -> None:
        if structured not in ("output_config", "tool"):
            raise ConfigError(f"structured output must be 'output_config' or 'tool', not {structured!r}")
        self.model = model
        self.base_url = base_url
        self.structured = structured
        self.temperature = temperature
        self.temperature_rejected = False
        self.timeout = timeout
        self._client: Any = None
        self._sdk: Any = None

    async def _sdk_module(self) -> Any:
        if self._sdk is None:
            self._sdk = await asyncio.to_thread(importlib.import_module, "anthropic")
        return self._sdk

    async def client(self) -> Any:
        key = os.environ.get(API_KEY_ENV, "").strip()
        if not key:
            self._client = None
            raise OfflineError(f"no {API_KEY_ENV} in the environment")
        if self._client is None:
            sdk = await self._sdk_module()
            self._client = sdk.AsyncAnthropic(
                api_key=key, base_url=self.base_url or os.environ.get(BASE_URL_ENV) or None,
                max_retries=0, timeout=self.timeout,
            )
        return self._client

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    # ---- the request

    def params(self, request: JudgeRequest) -> dict[str, Any]:
        """Messages API parameters for a request (also the body of one Message Batches entry)."""
        params: dict[str, Any] = {
            "model": self.model,
            "max_tokens": request.max_tokens,
            "system": request.prompt.system_blocks(),
            "messages": [{"role": "user", "content": request.prompt.user}],
        }
        if self.structured == "output_config":
            params["output_config"] = {"format": {"type": "json_schema", "schema": request.schema}}
        else:
            params["tools"] = [{"name": TOOL_NAME, "description": "Record the judgment of this item.",
                                "input_schema": request.schema}]
            params["tool_choice"] = {"type": "tool", "name": TOOL_NAME}
        return params

    def sampling(self) -> dict[str, Any]:
        if self.temperature is not None and not self.temperature_rejected:
            return {"temperature": self.temperature}
        why = "the model rejected temperature" if self.temperature_rejected else "not requested"
        return {"temperature": None, "note": f"model default ({why})"}

    def _extra_body(self) -> dict[str, Any] | None:
        # anthropic >= 1.0 has no temperature argument; the API still takes it in the body for older models.
        if self.temperature is None or self.temperature_rejected:
            return None
        return {"temperature": self.temperature}

    async def judge(self, request: JudgeRequest) -> JudgeAnswer:
        client = await self.client()
        sdk = self._sdk
        params = self.params(request)
        while True:
            sampling = self.sampling()
            try:
                response = await client.messages.with_raw_response.create(**params, extra_body=self._extra_body())
                body = (await response.read()).decode("utf-8", errors="replace")
            except sdk.BadRequestError as exc:
                if self._extra_body() is not None and "temperature" in _error_text(exc).lower():
                    self.temperature_rejected = True  # fall back to the model's default and say so
                    continue
                raise FatalError(f"the API refused the request (400): {_error_text(exc)}") from None
            except Exception as exc:  # noqa: BLE001 - mapped to what the queue should do
                raise self._map_error(exc) from None
            try:
                message = await response.parse()
            except Exception as exc:  # noqa: BLE001 - a garbled body is the server's fault: retry
                raise RetryableError(f"the API sent a response that could not be read ({type(exc).__name__})",
                                     raw=body) from None
            return self._answer(message, sampling, body)

    def _answer(self, message: Any, sampling: dict[str, Any], body: str, *, batch: bool = False) -> JudgeAnswer:
        usage = Usage(
            input_tokens=int(message.usage.input_tokens or 0),
            output_tokens=int(message.usage.output_tokens or 0),
            cache_read_tokens=int(getattr(message.usage, "cache_read_input_tokens", 0) or 0),
            cache_write_tokens=int(getattr(message.usage, "cache_creation_input_tokens", 0) or 0),
        )
        model = getattr(message, "model", None) or self.model
        if batch:
            sampling = {**sampling, "batch": True}
        answer = JudgeAnswer(raw_text="", model=model, usage=usage, cost_usd=cost_usd(model, usage, batch=batch),
                             sampling=sampling, stop_reason=getattr(message, "stop_reason", None))
        texts, tool_input = [], None
        for block in message.content or []:
            if getattr(block, "type", None) == "text":
                texts.append(block.text)
            elif getattr(block, "type", None) == "tool_use" and getattr(block, "name", None) == TOOL_NAME:
                tool_input = block.input
        if self.structured == "tool" and tool_input is not None:
            answer.raw_text = json.dumps(tool_input, ensure_ascii=False)
        else:
            answer.raw_text = "".join(texts)
        if answer.stop_reason == "refusal":
            raise AnswerError("the model declined to answer (stop_reason: refusal)",
                              raw=answer.raw_text or body, answer=answer)
        if not answer.raw_text:
            raise AnswerError(f"the answer has no {'tool call' if self.structured == 'tool' else 'text'}"
                              f" (stop_reason: {answer.stop_reason})", raw=body, answer=answer)
        return answer

    def _map_error(self, exc: BaseException) -> BackendError:
        return map_sdk_error(self._sdk, exc, service="API", key_env=API_KEY_ENV, model=self.model,
                             timeout=self.timeout, overloaded=529, client="the API client",
                             place=self.base_url or os.environ.get(BASE_URL_ENV) or "api.anthropic.com",
                             auth_refused="the API key was refused")

    # ---- Message Batches

    def batch_params(self, request: JudgeRequest) -> dict[str, Any]:
        params = self.params(request)
        extra = self._extra_body()
        if extra:
            params.update(extra)
        return params

    def batch_entry(self, request: JudgeRequest) -> dict[str, Any]:
        """One request of a Message Batch, as sent."""
        return {"custom_id": request.custom_id, "params": self.batch_params(request)}

    def batch_entry_bytes(self, request: JudgeRequest) -> int:
        return json_bytes(self.batch_entry(request))

    async def create_batch(self, requests: list[JudgeRequest]) -> str:
        client = await self.client()
        try:
            batch = await client.messages.batches.create(requests=[self.batch_entry(r) for r in requests])
        except Exception as exc:  # noqa: BLE001
            raise self._map_error(exc) from None
        return str(batch.id)

    async def batches_since(self, since: datetime) -> list[tuple[str, int]]:
        """(id, number of requests) of the account's batches created at or after `since`, newest first."""
        client = await self.client()
        found: list[tuple[str, int]] = []
        try:
            async for batch in client.messages.batches.list(limit=100):
                if batch.created_at < since:
                    break  # the list is newest first
                found.append((str(batch.id), sum(int(n) for n in batch.request_counts.model_dump().values())))
        except Exception as exc:  # noqa: BLE001
            raise self._map_error(exc) from None
        return found

    async def batch_status(self, batch_id: str) -> tuple[str, dict[str, int]]:
        client = await self.client()
        try:
            batch = await client.messages.batches.retrieve(batch_id)
        except Exception as exc:  # noqa: BLE001
            raise self._map_error(exc) from None
        return str(batch.processing_status), batch.request_counts.model_dump()

    async def batch_results(self, batch_id: str) -> AsyncIterator[tuple[str, JudgeAnswer | BackendError]]:
        """Each result as (custom_id, answer or error), in whatever order the API gives them."""
        client = await self.client()
        try:
            stream = await client.messages.batches.results(batch_id)
        except Exception as exc:  # noqa: BLE001
            raise self._map_error(exc) from None
        sampling = self.sampling()
        sent_temperature = sampling.get("temperature") is not None
        async for entry in stream:
            result = entry.result
            if result.type == "succeeded":
                try:
                    answer = self._answer(result.message, sampling, result.message.model_dump_json(), batch=True)
                except AnswerError as exc:
                    yield entry.custom_id, exc
                    continue
                yield entry.custom_id, answer
            elif result.type == "errored":
                error = result.error.error
                message = f"{getattr(error, 'type', 'error')}: {getattr(error, 'message', '')}"
                kind = getattr(error, "type", "")
                if kind in ("overloaded_error", "api_error", "rate_limit_error", "timeout_error"):
                    yield entry.custom_id, RetryableError(f"batch request failed, will retry ({message})")
                elif "temperature" in message.lower() and sent_temperature:
                    self.temperature_rejected = True
                    yield entry.custom_id, RetryableError(f"retrying without temperature ({message})")
                else:
                    yield entry.custom_id, AnswerError(f"batch request failed ({message})",
                                                       raw=result.model_dump_json())
            else:  # canceled or expired: nothing was judged; queue it again
                yield entry.custom_id, RetryableError(f"batch request {result.type}")


# --------------------------------------------------------------------------- a local program

# Programs that run a script: a judge run as `python3 my_judge.py` is named after the script, not the interpreter.
_RUNNERS = re.compile(r"(python|pypy|node|deno|bun|ruby|perl|php|bash|sh|zsh|rscript|julia|uv|uvx|npx|pipx)[\d.]*"
                      r"(\.exe)?|run|exec", re.IGNORECASE)


def program_name(argv: list[str]) -> str:
    """What a local judge is called: my_judge for `python3 my_judge.py` or `python -m tools.my_judge`."""
    words = iter(argv)
    for word in words:
        if word == "-m":
            return next(words, "module").rsplit(".", 1)[-1]
        if word.startswith("-") or _RUNNERS.fullmatch(Path(word).name):
            continue
        return Path(word).stem
    return Path(argv[0]).stem


# What a local judge gets of judge-tui's environment: enough to find programs and files, and to read and write
# text (paths, user, locale, time zone, temporary folder; on Windows the system folders it cannot start
# without). Nothing else, so no key or token (ANTHROPIC_API_KEY above all) reaches a program that has no need
# of it; --cmd-env NAME passes another variable on purpose.
COMMAND_ENV = ("PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TEMP", "TMP",
               "SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT", "USERPROFILE", "APPDATA", "LOCALAPPDATA")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def command_env(extra: tuple[str, ...] | list[str] = (), environ: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a local judge runs in: COMMAND_ENV and the locale (LC_*), plus the variables named."""
    environ = dict(os.environ) if environ is None else environ
    for name in extra:
        if not _ENV_NAME.fullmatch(name):
            raise ConfigError(f"--cmd-env {name!r}: give a variable's name (letters, digits, _), e.g. --cmd-env"
                              " OLLAMA_HOST; its value is taken from judge-tui's environment")
    wanted = {*COMMAND_ENV, *extra}
    return {name: value for name, value in environ.items() if name in wanted or name.startswith("LC_")}


# An answer is one JSON object of a few KB; a program that prints more is misbehaving, and what it printed would be
# kept (as the failed answer) in the database. Past this the program is stopped and nothing it printed is kept.
MAX_COMMAND_OUTPUT = 1_000_000
_STDERR_KEPT = 8_000  # the end of what it wrote to stderr, for the failure's message
_CHUNK = 65_536


class OutputTooLarge(Exception):
    """A local program printed more than MAX_COMMAND_OUTPUT bytes."""


class CommandBackend:
    """Runs a local program per judgment: the request as JSON on stdin, the answer JSON on stdout.

    The program gets a small environment (command_env), not judge-tui's whole one. Its answer is read up to
    MAX_COMMAND_OUTPUT bytes and the end of its stderr is kept, so a runaway program costs neither memory nor
    database.
    """

    name = "command"

    def __init__(self, command: str, *, model: str | None = None, timeout: float = 300.0,
                 pass_env: tuple[str, ...] | list[str] = ()) -> None:
        self.env = command_env(pass_env)
        try:
            self.argv = shlex.split(command)
        except ValueError as exc:
            raise ConfigError(f"cannot split --cmd {command!r}: {exc}") from None
        if not self.argv:
            raise ConfigError("--cmd is empty: give the program to run, e.g. --cmd 'python my_judge.py'")
        if shutil.which(self.argv[0]) is None and not Path(self.argv[0]).is_file():
            raise ConfigError(f"--cmd: program {self.argv[0]!r} not found")
        self.model = model or f"cmd-{program_name(self.argv)}"
        self.timeout = timeout

    async def close(self) -> None:
        return None

    @staticmethod
    async def _end(process: asyncio.subprocess.Process) -> None:
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        await process.communicate()  # reads the pipes to their end, so their transports close now

    @staticmethod
    async def _exchange(process: asyncio.subprocess.Process, payload: bytes) -> tuple[bytes, bytes]:
        """Send the request and read the answer (raising OutputTooLarge past the cap) and the end of stderr."""
        assert process.stdin and process.stdout and process.stderr  # created with PIPE for all three

        async def feed(stdin: asyncio.StreamWriter) -> None:
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # a program that reads nothing
                stdin.write(payload)
                await stdin.drain()
                stdin.close()

        async def tail(stream: asyncio.StreamReader) -> bytes:
            kept = b""
            while chunk := await stream.read(_CHUNK):
                kept = (kept + chunk)[-_STDERR_KEPT:]
            return kept

        feeding = asyncio.ensure_future(feed(process.stdin))
        draining = asyncio.ensure_future(tail(process.stderr))
        try:
            out = bytearray()
            while chunk := await process.stdout.read(_CHUNK):
                out += chunk
                if len(out) > MAX_COMMAND_OUTPUT:
                    raise OutputTooLarge
            err = await draining
            await feeding
            await process.wait()
            return bytes(out), err
        finally:
            for task in (feeding, draining):
                task.cancel()

    async def judge(self, request: JudgeRequest) -> JudgeAnswer:
        payload = json.dumps({
            "model": self.model, "rubric": request.rubric_id, "item_id": request.item_id, "repeat": request.repeat,
            "system": request.prompt.system, "prompt": request.prompt.user, "schema": request.schema,
            "max_tokens": request.max_tokens,
        }, ensure_ascii=False).encode()
        try:
            process = await asyncio.create_subprocess_exec(
                *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, env=self.env)
        except OSError as exc:
            raise FatalError(f"cannot start {self.argv[0]!r}: {exc.strerror}") from None
        try:
            out, err = await asyncio.wait_for(self._exchange(process, payload), self.timeout)
        except OutputTooLarge:
            await self._end(process)
            raise AnswerError(f"{self.argv[0]} printed more than {MAX_COMMAND_OUTPUT // 1_000_000} MB, so it was"
                              " stopped and its output dropped: an answer is one JSON object (a few KB); have it"
                              " print anything else to standard error") from None
        except TimeoutError:
            await self._end(process)
            raise AnswerError(f"{self.argv[0]} gave no answer within {short_text(self.timeout)} s") from None
        except asyncio.CancelledError:
            # Stopped (Ctrl-C, the app quitting): end the program while the event loop still runs, or its pipes
            # are closed after the loop and Python prints "Event loop is closed" tracebacks on the way out.
            await self._end(process)
            raise
        stdout = out.decode("utf-8", errors="replace")
        if process.returncode != 0:
            stderr = err.decode("utf-8", errors="replace").strip()
            raise AnswerError(f"{self.argv[0]} exited with status {process.returncode}: {stderr[-2000:]}",
                              raw=stdout)
        return JudgeAnswer(raw_text=stdout, model=self.model, sampling={"backend": "command"})


# --------------------------------------------------------------------------- recorded answers


class ReplayBackend:
    """Answers recorded in a JSONL file: {"item_id": ..., "repeat": 0, "answer": {...} or "raw text"}."""

    name = "replay"

    def __init__(self, path: Path, *, model: str | None = None) -> None:
        self.path = Path(path)
        self.answers: dict[tuple[str, int], str] = {}
        recorded_model = None
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise ConfigError(f"{self.path}: cannot read the replay file ({exc.strerror})") from None
        except UnicodeDecodeError:
            raise ConfigError(f"{self.path}: not a UTF-8 text file") from None
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ConfigError(f"{self.path}:{number}: not valid JSON ({exc.msg})") from None
            except RecursionError:
                raise ConfigError(f"{self.path}:{number}: nested too deeply to read; a line holds one recorded"
                                  " answer, an object of scores and a few texts") from None
            if not isinstance(row, dict) or "item_id" not in row or "answer" not in row:
                raise ConfigError(f"{self.path}:{number}: each line needs \"item_id\" and \"answer\"")
            repeat = row.get("repeat", 0)
            if not isinstance(repeat, int) or repeat < 0:
                raise ConfigError(f"{self.path}:{number}: \"repeat\" must be a whole number >= 0")
            answer = row["answer"]
            self.answers[(str(row["item_id"]), repeat)] = (
                answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False))
            recorded_model = recorded_model or row.get("model")
        # Filed apart from live judgments of the same model: a later live run must not take them for its own.
        recorded = model or recorded_model or "unknown-model"
        self.model = recorded if recorded.startswith("replay:") else f"replay:{recorded}"

    async def close(self) -> None:
        return None

    async def judge(self, request: JudgeRequest) -> JudgeAnswer:
        raw = self.answers.get((request.item_id, request.repeat))
        if raw is None:
            raise AnswerError(f"{self.path.name} has no recorded answer for item {request.item_id!r}"
                              f" (repeat {request.repeat})")
        return JudgeAnswer(raw_text=raw, model=self.model, sampling={"backend": "replay"})


# ----------------------------------------------------------------------- factories named in model/judge_backends.py


def anthropic_from_request(request: BackendRequest) -> AnthropicBackend:
    return AnthropicBackend(request.model or request.settings.judge_model)


def missing_anthropic_key(backend: Backend) -> str | None:
    """Headless, a missing key will not appear while the process waits: say what to set."""
    if os.environ.get(API_KEY_ENV, "").strip():
        return None
    return (f"no {API_KEY_ENV} in the environment: export {API_KEY_ENV}=sk-ant-... and run again,"
            " or judge without the API: --backend command --cmd \"PROGRAM ARGS\" (a local judge)"
            " or --backend replay --replay FILE (recorded answers)")


def command_from_request(request: BackendRequest) -> CommandBackend:
    if not request.options.get("cmd"):
        raise UserError("--backend command needs --cmd \"PROGRAM ARGS\": a program that reads the request"
                        " as JSON on stdin and writes the answer JSON on stdout")
    return CommandBackend(request.options["cmd"], model=request.model,
                          pass_env=request.options.get("cmd_env") or ())


def replay_from_request(request: BackendRequest) -> ReplayBackend:
    if not request.options.get("replay"):
        raise UserError("--backend replay needs --replay FILE: a JSONL file of recorded answers")
    return ReplayBackend(request.options["replay"], model=request.model)
