"""A fake OpenAI-compatible chat completions server on 127.0.0.1, for tests and benchmarks.

It speaks enough of the API for the official `openai` SDK (pointed at it with base_url) to work unchanged:
POST /v1/chat/completions, answering with JSON for the request's response_format json_schema. Like a local
server (Ollama, llama.cpp) it can be told to accept a schema and not enforce it (SCHEMA_BREAK, OFF_SCALE), to
refuse parameters it does not know (temperature, response_format, logprobs), and to know only some models.
Asked for `logprobs`, it returns each token of the answer with its log-probability in the API's shape
(choices[0].logprobs.content: token, logprob, bytes, top_logprobs): `token_logprob` sets a token's, every
other token has DEFAULT_LOGPROB. The answer's stated confidence is 0.5, or `stated` of its first score.
Behaviour is scriptable per request with the same Rule and script as tests/judge/fake_anthropic.py: answer
well, slowly (past the client's timeout), with 429 + retry-after, 500, a garbled body, prose, a refusal, a 401,
or a dropped connection. Every request is recorded for assertions.

Run standalone (for benchmarks): python tests/judge/fake_openai.py --latency 0.2
It prints "PORT <n>" once it listens; the base URL is http://127.0.0.1:<n>/v1.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import itertools
import json
import re
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pytest

if __package__ in (None, ""):  # run as a script: make `tests` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.judge.fake_anthropic import (  # noqa: E402 - after the path, when run as a script
    BAD_BODY,
    DROP,
    FORBIDDEN,
    NOT_JSON,
    OFF_SCALE,
    OK,
    RATE_LIMIT,
    REFUSAL,
    SCHEMA_BREAK,
    SERVER_ERROR,
    UNAUTHORIZED,
    FakeAnthropic,
    Recorded,
    Rule,
    ScriptedServer,
    estimate_tokens,
)

DEFAULT_LOGPROB = -0.01  # every token's log-probability unless `token_logprob` names it
TOKENS = re.compile(r"[A-Za-z]+|[0-9]+|\s+|.", re.DOTALL)  # words, digit runs, spaces, one character otherwise

SLOW = "slow"  # hold the answer until `release` is set (or 10 s): the client's timeout fires first
TOO_LONG = "too_long"  # 400, the prompt exceeds the context (as llama.cpp's server says it)

__all__ = ["BAD_BODY", "DROP", "FORBIDDEN", "NOT_JSON", "OFF_SCALE", "OK", "RATE_LIMIT", "REFUSAL", "SCHEMA_BREAK",
           "SERVER_ERROR", "SLOW", "TOO_LONG", "UNAUTHORIZED", "FakeOpenAI", "Rule"]


@dataclass
class FakeOpenAI(ScriptedServer):
    latency: float = 0.0
    api_key: str | None = None  # None: any key or none, as a local server; else "Bearer <key>" is required
    models: tuple[str, ...] | None = None  # None: any model name; else others get 404 as from Ollama
    reject_temperature: bool = False  # 400 naming temperature, as reasoning models answer
    reject_schema: bool = False  # 400 naming response_format, as an older server answers
    reject_logprobs: bool = False  # 400 naming logprobs, as OpenAI's reasoning models answer
    token_logprob: dict[str, float] = field(default_factory=dict)  # a token's log-probability, by its text
    stated: dict[Any, float] = field(default_factory=dict)  # the stated confidence, by the answer's first score
    retry_after: str = "0"
    rules: list[Rule] = field(default_factory=list)
    script: deque[str] = field(default_factory=deque)  # consumed in arrival order, before the rules
    requests: list[Recorded] = field(default_factory=list)
    max_concurrent_seen: int = 0
    record_bodies: bool = True
    release: threading.Event = field(default_factory=threading.Event)  # ends SLOW answers
    echo_key: bool = False  # every error message quotes the Authorization header sent, as some servers do

    def __post_init__(self) -> None:
        self.lock = threading.Lock()
        self._ids = itertools.count(1)
        self._in_flight = 0
        self.server: ThreadingHTTPServer | None = None

    def start(self, port: int = 0) -> FakeOpenAI:
        fake = self

        class Handler(_Handler):
            server_state = fake

        self.serve(Handler, port)
        return self

    def stop(self) -> None:
        self.release.set()
        super().stop()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


    def completion_requests(self) -> list[Recorded]:
        return [r for r in self.requests if r.method == "POST" and r.path == "/v1/chat/completions"]

    # ------------------------------------------------------------------ answers

    @staticmethod
    def user_text(body: dict[str, Any]) -> str:
        return "\n".join(str(m.get("content", "")) for m in body.get("messages", []) if m.get("role") == "user")

    @staticmethod
    def schema(body: dict[str, Any]) -> dict[str, Any] | None:
        fmt = body.get("response_format") or {}
        return (fmt.get("json_schema") or {}).get("schema") if fmt.get("type") == "json_schema" else None

    def answer_for(self, body: dict[str, Any], behaviour: str) -> dict[str, Any]:
        """A JSON answer for the request's schema, broken on purpose for the answer-level behaviours."""
        seed = int(hashlib.sha256(self.user_text(body).encode()).hexdigest()[:8], 16)
        schema = self.schema(body) or {"type": "object", "properties": {}}
        answer: dict[str, Any] = FakeAnthropic.value_for(schema, seed, "answer")  # the same answers
        first_score = next(iter(answer.get("scores", answer).values()), None)
        if "confidence" in answer and first_score in self.stated:
            answer["confidence"] = self.stated[first_score]
        if behaviour == SCHEMA_BREAK and answer:
            answer.pop(next(iter(answer)))
        if behaviour == OFF_SCALE:
            target = answer.get("scores", answer)
            key = next(k for k in target if isinstance(target[k], (int, float, str)))
            target[key] = 0.7
        return answer

    def completion(self, body: dict[str, Any], behaviour: str) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": None, "refusal": None}
        if behaviour == NOT_JSON:
            message["content"] = "The submission looks solid overall; I would rate it highly."
        elif behaviour == REFUSAL:
            message["refusal"] = "I can't help with that."
        else:
            message["content"] = json.dumps(self.answer_for(body, behaviour))
        prompt = estimate_tokens("".join(str(m.get("content", "")) for m in body.get("messages", [])))
        completion = estimate_tokens(message["content"] or message["refusal"] or "")
        logprobs = self.logprobs(message["content"]) if body.get("logprobs") and message["content"] else None
        return {
            "id": f"chatcmpl-fake{next(self._ids)}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "unknown"),
            "choices": [{"index": 0, "message": message, "logprobs": logprobs, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "total_tokens": prompt + completion},
        }


    def logprobs(self, content: str) -> dict[str, Any]:
        """The answer's tokens with their log-probabilities, as the API gives them."""
        return {"content": [
            {"token": token, "logprob": self.token_logprob.get(token, DEFAULT_LOGPROB), "bytes": list(token.encode()),
             "top_logprobs": []} for token in TOKENS.findall(content)], "refusal": None}


def _error_body(message: str, kind: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


class _Handler(BaseHTTPRequestHandler):
    server_state: FakeOpenAI
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        return None

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _said(self, message: str) -> str:
        """An error message, quoting the Authorization header sent when the fake echoes it."""
        if not self.server_state.echo_key:
            return message
        return f"{message}: {self.headers.get('Authorization')}"

    def do_POST(self) -> None:  # noqa: N802
        fake = self.server_state
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            return self._send(400, _error_body("body is not JSON", "invalid_request_error"))
        entry = Recorded("POST", self.path, dict(self.headers), body if fake.record_bodies else None,
                         time.monotonic(), size=len(raw))
        # A call to be answered by the script or the rules takes its behaviour as it is recorded.
        answered = (self.path == "/v1/chat/completions"
                    and (fake.api_key is None or self.headers.get("Authorization") == f"Bearer {fake.api_key}")
                    and (fake.models is None or body.get("model") in fake.models)
                    and not (fake.reject_temperature and "temperature" in body)
                    and not (fake.reject_schema and "response_format" in body)
                    and not (fake.reject_logprobs and body.get("logprobs")))
        fake.record(entry, fake.user_text(body) if answered else None)
        if self.path != "/v1/chat/completions":
            return self._send(404, _error_body(f"no route {self.path}", "not_found_error"))
        if fake.api_key is not None and self.headers.get("Authorization") != f"Bearer {fake.api_key}":
            entry.behaviour = UNAUTHORIZED
            return self._send(401, _error_body(self._said("Incorrect API key provided"), "invalid_request_error",
                                               "invalid_api_key"))
        with fake.call_in_flight():
            self._complete(fake, body, entry)

    def _complete(self, fake: FakeOpenAI, body: dict[str, Any], entry: Recorded) -> None:
        if fake.models is not None and body.get("model") not in fake.models:
            entry.behaviour = "model_not_found"
            return self._send(404, _error_body(f"model \"{body.get('model')}\" not found, try pulling it first",
                                               "api_error"))
        if fake.reject_temperature and "temperature" in body:
            entry.behaviour = "temperature_rejected"
            return self._send(400, _error_body("Unsupported value: 'temperature' does not support 0 with this"
                                               " model. Only the default (1) value is supported.",
                                               "invalid_request_error", "unsupported_value"))
        if fake.reject_logprobs and body.get("logprobs"):
            entry.behaviour = "logprobs_rejected"
            return self._send(400, _error_body("Unsupported parameter: 'logprobs' is not supported with this model.",
                                               "invalid_request_error", "unsupported_parameter"))
        if fake.reject_schema and "response_format" in body:
            entry.behaviour = "schema_rejected"
            return self._send(400, _error_body("response_format of type json_schema is not supported",
                                               "invalid_request_error"))
        behaviour = entry.behaviour  # chosen as the call was recorded
        if behaviour == SLOW:
            fake.release.wait(timeout=10)
        elif fake.latency and behaviour not in (RATE_LIMIT, UNAUTHORIZED):
            time.sleep(fake.latency)
        if behaviour == DROP:
            self.close_connection = True
            self.connection.shutdown(2)  # the client sees the connection die with no response
            return None
        if behaviour == RATE_LIMIT:
            return self._send(429, _error_body("Rate limit reached", "requests", "rate_limit_exceeded"),
                              {"retry-after": fake.retry_after})
        if behaviour == SERVER_ERROR:
            return self._send(500, _error_body(self._said("The server had an error while processing your request."),
                                               "server_error"))
        if behaviour == FORBIDDEN:
            return self._send(403, _error_body(self._said("You are not allowed to use this model"),
                                               "invalid_request_error", "model_not_allowed"))
        if behaviour == UNAUTHORIZED:
            return self._send(401, _error_body(self._said("Incorrect API key provided"), "invalid_request_error",
                                               "invalid_api_key"))
        if behaviour == TOO_LONG:
            return self._send(400, _error_body("the request exceeds the available context size, try increasing it",
                                               "exceed_context_size_error"))
        if behaviour == BAD_BODY:
            return self._send(200, '{"id": "chatcmpl-broken", "choices": [')
        self._send(200, fake.completion(body, behaviour))


# Taken out of a test's environment while a fake serves: a local server takes no key, and no call may reach a
# hosted API.
HOSTED_API_SETTINGS = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL")


@contextlib.contextmanager
def serving(monkeypatch: pytest.MonkeyPatch, **options: Any) -> Iterator[FakeOpenAI]:
    """A fake OpenAI-compatible server on 127.0.0.1 for the length of a test (``options``: FakeOpenAI's), every
    hosted API's key and address out of the environment meanwhile."""
    for name in HOSTED_API_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    fake = FakeOpenAI(**options).start()
    try:
        yield fake
    finally:
        fake.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="fake OpenAI-compatible server for tests and benchmarks")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--no-record", action="store_true", help="keep no request bodies (long benchmarks)")
    args = parser.parse_args(argv)
    fake = FakeOpenAI(latency=args.latency, record_bodies=not args.no_record).start(args.port)
    print(f"PORT {fake.port}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        fake.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
