"""The judge through the Anthropic API (the Messages API, and Message Batches for `judge --batch`).

The SDK is imported on first use, off the event loop.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

from judge_tui.judge.backends import (
    AnswerError,
    Backend,
    BackendError,
    ConfigError,
    FatalError,
    JudgeAnswer,
    JudgeRequest,
    OfflineError,
    RetryableError,
    Usage,
    cost_usd,
    error_text,
    map_sdk_error,
)
from judge_tui.judge.batch_limits import json_bytes
from judge_tui.model.judge_backends import BackendKind, BackendRequest
from judge_tui.model.textsafe import clean

TOOL_NAME = "record_judgment"
API_KEY_ENV = "ANTHROPIC_API_KEY"
BASE_URL_ENV = "ANTHROPIC_BASE_URL"


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
            import asyncio  # here, not at the top: the module is read with the command line (see the package)

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
                if self._extra_body() is not None and "temperature" in error_text(exc).lower():
                    self.temperature_rejected = True  # fall back to the model's default and say so
                    continue
                raise FatalError(f"the API refused the request (400): {error_text(exc)}") from None
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


def from_request(request: BackendRequest) -> AnthropicBackend:
    return AnthropicBackend(request.model or request.settings.judge_model)


def missing_key(backend: Backend) -> str | None:
    """Headless, a missing key will not appear while the process waits: say what to set."""
    if os.environ.get(API_KEY_ENV, "").strip():
        return None
    return (f"no {API_KEY_ENV} in the environment: export {API_KEY_ENV}=sk-ant-... and run again,"
            " or judge without the API: --backend command --cmd \"PROGRAM ARGS\" (a local judge)"
            " or --backend replay --replay FILE (recorded answers)")


def describe(backend: AnthropicBackend) -> str:
    return f"{clean(backend.model)} through the Anthropic API (billed per token, at list prices)"


BACKEND = BackendKind("anthropic", "the Anthropic API", from_request, in_settings=True, key_check=missing_key,
                      batches=True, usage="priced", describe=describe)
