"""The judge through any server that speaks the OpenAI chat completions API: the OpenAI API itself, or a local
model on the expert's laptop (Ollama, llama.cpp's server, LM Studio, vLLM).

The official `openai` SDK is an optional extra (pip install 'judge-tui[openai]'), imported on first use, off
the event loop. The answer is asked for with the rubric's JSON schema (response_format json_schema), but some
servers accept a schema and do not enforce it: every answer goes through the same strict parsing as any other
judge's (judge_tui.judge.schema), and one that breaks the schema is a failed judgment with its raw text.
Each answer's token log-probabilities are asked for (`logprobs`) and kept with it, for the judge's confidence
in its verdict (judge_tui.judge.token_confidence); a server or model that refuses them is asked without.
A server that is not running is "offline", as the Anthropic API is without a network: the queue waits.
The API key is read from the environment when a client is made, and never stored anywhere by us.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from typing import Any

from judge_tui.judge.backends import (
    AnswerError,
    BackendError,
    ConfigError,
    FatalError,
    JudgeAnswer,
    JudgeRequest,
    OfflineError,
    RetryableError,
    Usage,
    error_text,
    map_sdk_error,
)
from judge_tui.model.errors import UserError
from judge_tui.model.judge_backends import BackendKind, BackendOption, BackendRequest
from judge_tui.model.textsafe import clean

API_KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENV = "OPENAI_BASE_URL"
OPENAI_API = "https://api.openai.com/v1"
# A laptop's server judges one or two requests at a time (Ollama's and llama.cpp's default slots); more calls
# at once only wait in its queue and run into the timeout.
DEFAULT_CONCURRENCY = 2
# A local model on a laptop's CPU can take minutes over a long rubric prompt.
DEFAULT_TIMEOUT = 300.0
SCHEMA_NAME = "judgment"
MISSING_SDK = ("the openai backend needs the openai package, which is not installed:"
               " pip install 'judge-tui[openai]'")


def sdk_installed() -> bool:
    """Whether `import openai` would work, without importing it (it is slow)."""
    return importlib.util.find_spec("openai") is not None


def resolve_base_url(base_url: str | None) -> str:
    """The server: the option or setting, else $OPENAI_BASE_URL, else the OpenAI API."""
    return (base_url or "").strip() or os.environ.get(BASE_URL_ENV, "").strip() or OPENAI_API


def needs_key(base_url: str) -> bool:
    """The OpenAI API always wants a key; a local server usually takes none."""
    return base_url.rstrip("/").startswith("https://api.openai.com")


def from_request(request: BackendRequest) -> OpenAIBackend:
    """A server speaking the OpenAI API: the model and base URL from the options, else from settings.json."""
    settings = request.settings
    model = request.model or settings.openai_model
    if not model.strip():
        if request.from_settings:
            raise UserError('judge_backend is "openai" but settings.json names no openai_model: add the name the'
                            ' server knows the model by, e.g. "openai_model": "llama3.1:8b"')
        raise UserError("--backend openai needs --model NAME: the name the server knows the model by (e.g."
                        " --model llama3.1:8b for Ollama), or openai_model in settings.json")
    if not sdk_installed():
        raise UserError(MISSING_SDK)
    return OpenAIBackend(model, base_url=request.options.get("base_url") or settings.openai_base_url or None)


def missing_key(backend: OpenAIBackend) -> str | None:
    """The OpenAI API without a key in the environment: say what to set, or to point at a local server."""
    if not needs_key(backend.base_url) or os.environ.get(API_KEY_ENV, "").strip():
        return None
    return (f"no {API_KEY_ENV} in the environment for {backend.base_url}: export it and run"
            " again, or point --base-url (or $OPENAI_BASE_URL) at a local server")


class OpenAIBackend:
    """Chat completions through the official SDK; the SDK's own retries are off because the queue retries."""

    name = "openai"

    def __init__(self, model: str, *, base_url: str | None = None, temperature: float | None = 0.0,
                 timeout: float = DEFAULT_TIMEOUT) -> None:
        if not model.strip():
            raise ConfigError("the openai backend needs a model: the name the server knows it by"
                              " (e.g. --model llama3.1:8b for Ollama)")
        self.model = model.strip()
        self.base_url = resolve_base_url(base_url)
        self.temperature = temperature
        self.temperature_rejected = False
        self.schema_rejected = False  # the server refused response_format json_schema: the prompt says the shape
        self.logprobs_rejected = False  # the server or model refused logprobs: its answers have no token confidence
        self.max_tokens_param = "max_tokens"  # newer OpenAI models take max_completion_tokens only
        self.timeout = timeout
        self._client: Any = None
        self._sdk: Any = None

    async def _sdk_module(self) -> Any:
        if self._sdk is None:
            import asyncio  # here, not at the top: the module is read with the command line (see the package)

            try:
                self._sdk = await asyncio.to_thread(importlib.import_module, "openai")
            except ImportError:
                raise FatalError(MISSING_SDK) from None
        return self._sdk

    async def client(self) -> Any:
        key = os.environ.get(API_KEY_ENV, "").strip()
        if not key and needs_key(self.base_url):
            self._client = None
            raise OfflineError(f"no {API_KEY_ENV} in the environment")
        if self._client is None:
            sdk = await self._sdk_module()
            # A local server ignores the key, but the SDK wants one.
            self._client = sdk.AsyncOpenAI(api_key=key or "no-key", base_url=self.base_url, max_retries=0,
                                           timeout=self.timeout)
        return self._client

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    # ---- the request

    def params(self, request: JudgeRequest) -> dict[str, Any]:
        """Chat completions parameters for a request."""
        params: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "system", "content": request.prompt.system},
                         {"role": "user", "content": request.prompt.user}],
            self.max_tokens_param: request.max_tokens,
        }
        if not self.schema_rejected:
            params["response_format"] = {"type": "json_schema", "json_schema": {
                "name": SCHEMA_NAME, "schema": request.schema, "strict": True}}
        if self.temperature is not None and not self.temperature_rejected:
            params["temperature"] = self.temperature
        if not self.logprobs_rejected:
            params["logprobs"] = True
        return params

    def sampling(self) -> dict[str, Any]:
        sampling: dict[str, Any]
        if self.temperature is not None and not self.temperature_rejected:
            sampling = {"temperature": self.temperature}
        else:
            why = "the model rejected temperature" if self.temperature_rejected else "not requested"
            sampling = {"temperature": None, "note": f"model default ({why})"}
        if self.schema_rejected:
            sampling["structured"] = "none (the server refused response_format json_schema)"
        return sampling

    def _fallback(self, message: str) -> bool:
        """Learn from a 400 that names a parameter this server or model does not take; True: send again."""
        text = message.lower()
        if "temperature" in text and self.temperature is not None and not self.temperature_rejected:
            self.temperature_rejected = True  # the model's default, and the sampling says so
            return True
        if "max_tokens" in text and "max_completion_tokens" in text and self.max_tokens_param == "max_tokens":
            self.max_tokens_param = "max_completion_tokens"
            return True
        if "logprobs" in text and not self.logprobs_rejected:
            self.logprobs_rejected = True  # reasoning models refuse them: the judgment simply has no token confidence
            return True
        if ("response_format" in text or "json_schema" in text) and not self.schema_rejected:
            self.schema_rejected = True  # the prompt still gives the shape, and every answer is checked
            return True
        return False

    async def judge(self, request: JudgeRequest) -> JudgeAnswer:
        client = await self.client()
        sdk = self._sdk
        while True:
            sampling = self.sampling()
            try:
                response = await client.chat.completions.with_raw_response.create(**self.params(request))
                body = response.text
            except sdk.BadRequestError as exc:
                if self._fallback(error_text(exc)):
                    continue
                if "context" in error_text(exc).lower():  # this item's prompt is too long: the others go on
                    raise AnswerError(f"too long for the model's context (400): {error_text(exc)}") from None
                raise FatalError(f"the server refused the request (400): {error_text(exc)}") from None
            except Exception as exc:  # noqa: BLE001 - mapped to what the queue should do
                raise self._map_error(exc) from None
            try:
                completion = response.parse()
                choice = completion.choices[0]
            except Exception as exc:  # noqa: BLE001 - a garbled body is the server's fault: retry
                raise RetryableError(f"the server sent a response that could not be read ({type(exc).__name__})",
                                     raw=body) from None
            return self._answer(completion, choice, sampling, body)

    def _answer(self, completion: Any, choice: Any, sampling: dict[str, Any], body: str) -> JudgeAnswer:
        usage = getattr(completion, "usage", None)
        prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        details = getattr(usage, "prompt_tokens_details", None)
        cached = int(getattr(details, "cached_tokens", 0) or 0)
        answer = JudgeAnswer(
            raw_text="", model=getattr(completion, "model", None) or self.model,
            usage=Usage(input_tokens=prompt_tokens - cached, cache_read_tokens=cached,
                        output_tokens=int(getattr(usage, "completion_tokens", 0) or 0)),
            cost_usd=None,  # no price list for these models; a local one costs nothing
            sampling={**sampling, "backend": "openai"}, stop_reason=getattr(choice, "finish_reason", None))
        message = choice.message
        answer.raw_text = getattr(message, "content", None) or ""
        answer.token_logprobs = token_logprobs(choice)
        refusal = getattr(message, "refusal", None)
        if refusal:
            raise AnswerError(f"the model declined to answer (refusal: {refusal})", raw=answer.raw_text or body,
                              answer=answer)
        if not answer.raw_text:
            raise AnswerError(f"the answer has no text (finish_reason: {answer.stop_reason})", raw=body,
                              answer=answer)
        return answer

    def _map_error(self, exc: BaseException) -> BackendError:
        if isinstance(exc, self._sdk.NotFoundError):
            return FatalError(f"the server at {self.base_url} has no {self.model} (404): {error_text(exc)}."
                              " Check the model name (ollama list) and the base URL (it usually ends in /v1).")
        return map_sdk_error(self._sdk, exc, service="server", key_env=API_KEY_ENV, model=self.model,
                             timeout=self.timeout, overloaded=503, client="the OpenAI client", place=self.base_url,
                             auth_refused="the server refused the API key")


def token_logprobs(choice: Any) -> list[tuple[bytes, float]] | None:
    """The answer's tokens and their log-probabilities from a chat completion's choice (`logprobs.content`:
    token, bytes, logprob), or None when the server sent none. A token's `bytes` are its exact bytes (a
    character may be split between tokens); a server that leaves them out is read from the token's text."""
    content = getattr(getattr(choice, "logprobs", None), "content", None)
    if not content:
        return None
    tokens = []
    for entry in content:
        raw = getattr(entry, "bytes", None)
        text = getattr(entry, "token", None)
        logprob = getattr(entry, "logprob", None)
        if not isinstance(logprob, int | float) or (raw is None and not isinstance(text, str)):
            return None  # a shape we do not know: no confidence rather than a wrong one
        tokens.append((bytes(raw) if raw is not None else str(text).encode(), float(logprob)))
    return tokens


def describe(backend: OpenAIBackend) -> str:
    return f"{clean(backend.model)} at {clean(str(backend.base_url))} (an OpenAI-compatible server; no price list)"


BACKEND = BackendKind("openai", "a server speaking the OpenAI API (a local model)", from_request,
                      options=(BackendOption("--base-url", "the server, e.g. http://127.0.0.1:11434/v1 for Ollama"
                                             " (default: settings openai_base_url, $OPENAI_BASE_URL, else the OpenAI"
                                             " API)", metavar="URL", setting="openai_base_url", env="OPENAI_BASE_URL"),),
                      concurrency_setting="openai_concurrency", in_settings=True, key_check=missing_key, logprobs=True,
                      usage="tokens", describe=describe)
