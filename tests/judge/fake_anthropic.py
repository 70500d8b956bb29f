"""A fake Anthropic Messages + Message Batches API on 127.0.0.1, for tests and benchmarks.

It speaks enough of the real API for the official SDK (pointed at it with base_url) to work unchanged:
POST /v1/messages, POST /v1/messages/batches, GET /v1/messages/batches (the list, newest first),
GET /v1/messages/batches/{id} and GET .../results (JSONL).
A batch over 100,000 requests (400) or 256 MB (413 request_too_large) is refused whole, as by the API;
both limits can be lowered to prove the split without sending 256 MB.
Behaviour is scriptable per request: answer well, slowly, with 429 + retry-after, 529, 500, a garbled body,
text that is not JSON, JSON that breaks the schema, scores off the scale, a 401, a 403, or a dropped connection
(error messages may quote the key sent, as some servers do).
Usage is reported the way the real API reports it, with tokens estimated as characters / 4: a system
prefix marked with cache_control and at least `min_cache_tokens` long is written to the cache by the first
request (cache_creation_input_tokens) and read by later ones (cache_read_input_tokens); a shorter prefix is
not cached at all. Every request is recorded for assertions.

Run standalone (for benchmarks and subprocess tests): python tests/judge/fake_anthropic.py --latency 0.2
It prints "PORT <n>" once it listens.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import itertools
import json
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

# What a request can be made to do.
OK = "ok"
NOT_JSON = "not_json"  # 200, the model's text is prose
SCHEMA_BREAK = "schema_break"  # 200, JSON without a required key
OFF_SCALE = "off_scale"  # 200, a score between scale points
BAD_BODY = "bad_body"  # 200 with a body that is not JSON at all
RATE_LIMIT = "rate_limit"  # 429 with retry-after
OVERLOADED = "overloaded"  # 529
SERVER_ERROR = "server_error"  # 500
UNAUTHORIZED = "unauthorized"  # 401
FORBIDDEN = "forbidden"  # 403
PAYMENT = "payment"  # 402
DROP = "drop"  # close the connection without answering
REFUSAL = "refusal"  # 200, stop_reason refusal


@dataclass
class Rule:
    """Apply `behaviour` to requests whose user text contains `contains` (all when empty), `times` times."""

    behaviour: str
    contains: str = ""
    times: int | None = None  # None: always

    def matches(self, text: str) -> bool:
        return (self.times is None or self.times > 0) and self.contains in text


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    at: float
    behaviour: str = ""
    size: int = 0  # bytes of the request body


def estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4) if text else 0


class ScriptedServer:
    """What the fake APIs share: a threaded HTTP server on 127.0.0.1, the behaviour of each call (the script in
    arrival order, then the first matching rule, else OK) and the count of calls in flight."""

    lock: threading.Lock
    rules: list[Rule]
    script: deque[str]
    requests: list[Recorded]
    max_concurrent_seen: int
    _in_flight: int
    server: ThreadingHTTPServer | None

    def serve(self, handler: type[BaseHTTPRequestHandler], port: int) -> threading.Thread:
        class Server(ThreadingHTTPServer):
            request_queue_size = 256  # the default backlog of 5 drops connections when 16 open at once
            daemon_threads = True

        self.server = Server(("127.0.0.1", port), handler)
        thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    @property
    def port(self) -> int:
        assert self.server is not None
        return self.server.server_address[1]

    def in_flight(self) -> int:
        with self.lock:
            return self._in_flight

    @contextlib.contextmanager
    def call_in_flight(self) -> Iterator[None]:
        """Counts a call while the handler answers it, keeping the most seen at once."""
        with self.lock:
            self._in_flight += 1
            self.max_concurrent_seen = max(self.max_concurrent_seen, self._in_flight)
        try:
            yield
        finally:
            with self.lock:
                self._in_flight -= 1

    def add_rule(self, behaviour: str, contains: str = "", times: int | None = None) -> None:
        with self.lock:
            self.rules.append(Rule(behaviour, contains, times))

    def choose(self, user_text: str) -> str:
        with self.lock:
            return self._choose(user_text)

    def _choose(self, user_text: str) -> str:
        """The behaviour of the next call (the lock held)."""
        if self.script:
            return self.script.popleft()
        for rule in self.rules:
            if rule.matches(user_text):
                if rule.times is not None:
                    rule.times -= 1
                return rule.behaviour
        return OK

    def record(self, entry: Recorded, user_text: str | None = None) -> None:
        """Keep a call among the requests; given its user text, also choose its behaviour, in the same step: the
        script then goes to the calls in the order they are kept, whichever handler thread runs first after."""
        with self.lock:
            if user_text is not None:
                entry.behaviour = self._choose(user_text)
            self.requests.append(entry)


@dataclass
class FakeAnthropic(ScriptedServer):
    latency: float = 0.0
    min_cache_tokens: int = 1024
    api_key: str | None = "test-key"  # None accepts any key
    reject_temperature: bool = False
    batch_polls: int = 1  # retrieve calls that still answer in_progress... until this many
    retry_after: str = "0"
    rules: list[Rule] = field(default_factory=list)
    script: deque[str] = field(default_factory=deque)  # consumed in arrival order, before the rules
    requests: list[Recorded] = field(default_factory=list)
    max_concurrent_seen: int = 0
    record_bodies: bool = True
    # The Message Batches API refuses a batch over either limit, whole (smaller in tests that prove the split).
    max_batch_requests: int = 100_000
    max_batch_bytes: int = 256_000_000
    results_failures: int = 0  # the first reads of batch results answer 500
    # When set, every message request but a refusal to serve (429, 529, 401, 402) waits here before answering:
    # a test holds calls in flight, does its checks, then sets the event. (A safety timeout keeps a failed test from hanging the server.)
    hold: threading.Event | None = None
    # When set, a batch the fake accepted is answered only once this is set: the client may be killed meanwhile,
    # as a process can be while a large batch uploads and the API has already taken it.
    batch_hold: threading.Event | None = None
    # When set, a batch's upload never completes: the API holds the request until this is set, then drops the
    # connection and never has the batch (as when the client is killed before its upload finished).
    batch_upload_cut: threading.Event | None = None
    # When set, every error message quotes the key and the headers the request carried, as some servers do.
    echo_key: bool = False
    # When set, a batch the fake accepted is not in the list of batches until this is set: the API registers
    # it only after a rerun first looked for it.
    batch_listed: threading.Event | None = None

    def __post_init__(self) -> None:
        self.lock = threading.Lock()
        self._cache: dict[str, float] = {}  # prefix hash -> time from which reads hit
        self.batches: dict[str, dict[str, Any]] = {}
        self._ids = itertools.count(1)
        self._in_flight = 0
        self.server: ThreadingHTTPServer | None = None
        self.thread: threading.Thread | None = None

    # ------------------------------------------------------------------ life

    def start(self, port: int = 0) -> FakeAnthropic:
        fake = self

        class Handler(_Handler):
            server_state = fake

        self.thread = self.serve(Handler, port)
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # ------------------------------------------------------------------ scripting

    def message_requests(self) -> list[Recorded]:
        """Complete POST /v1/messages requests (not those cut off by a client that died while sending)."""
        return [r for r in self.requests if r.method == "POST" and r.path == "/v1/messages"
                and r.behaviour != "aborted"]

    # ------------------------------------------------------------------ answers

    @staticmethod
    def user_text(body: dict[str, Any]) -> str:
        parts = []
        for message in body.get("messages", []):
            content = message.get("content")
            if isinstance(content, str):
                parts.append(content)
            else:
                parts.extend(block.get("text", "") for block in content or [])
        return "\n".join(parts)

    @staticmethod
    def _schema(body: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
        fmt = (body.get("output_config") or {}).get("format")
        if fmt:
            return fmt.get("schema"), None
        for tool in body.get("tools") or []:
            if (body.get("tool_choice") or {}).get("name") == tool.get("name"):
                return tool.get("input_schema"), tool["name"]
        return None, None

    @staticmethod
    def value_for(schema: dict[str, Any], seed: int, name: str) -> Any:
        if "enum" in schema:
            options = schema["enum"]
            return options[(seed + sum(map(ord, name))) % len(options)]
        kind = schema.get("type")
        if kind == "object":
            properties = schema.get("properties", {})
            return {key: FakeAnthropic.value_for(sub, seed, key) for key, sub in properties.items()}
        if kind == "array":
            return [f"{name} from the fake API"]
        if kind == "number":
            return 0.5
        return f"{name} written by the fake API"

    def answer_for(self, body: dict[str, Any], behaviour: str) -> dict[str, Any]:
        """A JSON answer for the request's schema, broken on purpose for the answer-level behaviours."""
        schema, _tool = self._schema(body)
        seed = int(hashlib.sha256(self.user_text(body).encode()).hexdigest()[:8], 16)
        answer: dict[str, Any] = self.value_for(schema or {"type": "object", "properties": {}}, seed, "answer")
        if behaviour == SCHEMA_BREAK and answer:
            answer.pop(next(iter(answer)))
        if behaviour == OFF_SCALE:
            target = answer.get("scores", answer)
            key = next(k for k in target if isinstance(target[k], (int, float, str)))
            target[key] = 0.7
        return answer

    def _usage(self, body: dict[str, Any]) -> tuple[dict[str, int], str | None]:
        """Token counts like the real API: input_tokens excludes what was read from or written to the cache."""
        system = body.get("system") or []
        if isinstance(system, str):
            system = [{"type": "text", "text": system}]
        cut = max((i for i, b in enumerate(system) if b.get("cache_control")), default=-1)
        prefix = "".join(b.get("text", "") for b in system[: cut + 1])
        rest = "".join(b.get("text", "") for b in system[cut + 1 :]) + self.user_text(body)
        rest += json.dumps(body.get("tools") or body.get("output_config") or {})
        usage = {"input_tokens": estimate_tokens(rest), "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": 0, "output_tokens": 0}
        prefix_tokens = estimate_tokens(prefix)
        if cut < 0 or prefix_tokens < self.min_cache_tokens:
            usage["input_tokens"] += prefix_tokens
            return usage, None
        key = hashlib.sha256((body.get("model", "") + prefix).encode()).hexdigest()
        with self.lock:
            ready = self._cache.get(key)
        if ready is not None and ready <= time.monotonic():
            usage["cache_read_input_tokens"] = prefix_tokens
            return usage, None
        usage["cache_creation_input_tokens"] = prefix_tokens
        return usage, key

    def message(self, body: dict[str, Any], behaviour: str) -> tuple[dict[str, Any], str | None]:
        usage, cache_key = self._usage(body)
        _schema, tool = self._schema(body)
        stop = "end_turn"
        content: list[dict[str, Any]]
        if behaviour == NOT_JSON:
            content = [{"type": "text", "text": "The submission looks solid overall; I would rate it highly."}]
        elif behaviour == REFUSAL:
            content, stop = [], "refusal"
        else:
            answer = self.answer_for(body, behaviour)
            if tool:
                content, stop = [{"type": "tool_use", "id": f"toolu_{next(self._ids)}", "name": tool,
                                  "input": answer}], "tool_use"
            else:
                content = [{"type": "text", "text": json.dumps(answer)}]
        usage["output_tokens"] = estimate_tokens(json.dumps(content))
        return {
            "id": f"msg_fake_{next(self._ids)}", "type": "message", "role": "assistant",
            "model": body.get("model", "unknown"), "content": content, "stop_reason": stop,
            "stop_sequence": None, "usage": usage,
        }, cache_key

    def mark_cached(self, key: str | None) -> None:
        if key:
            with self.lock:
                self._cache.setdefault(key, time.monotonic())

    # ------------------------------------------------------------------ batches

    def create_batch(self, body: dict[str, Any]) -> dict[str, Any]:
        batch_id = f"msgbatch_fake_{next(self._ids)}"
        with self.lock:
            self.batches[batch_id] = {"requests": body.get("requests", []), "polls": 0, "results": None,
                                       "created": time.time()}
        return self.batch_json(batch_id)

    def batch_json(self, batch_id: str, poll: bool = False) -> dict[str, Any]:
        with self.lock:
            batch = self.batches[batch_id]
            if poll:
                batch["polls"] += 1
            ended = batch["polls"] >= self.batch_polls
        count = len(batch["requests"])
        if ended and batch["results"] is None:
            batch["results"] = self._batch_results(batch["requests"])
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(batch["created"]))
        counts = {"processing": 0 if ended else count, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        if ended:
            for line in batch["results"]:
                kind = line["result"]["type"]
                counts[kind] = counts.get(kind, 0) + 1
        return {
            "id": batch_id, "type": "message_batch", "processing_status": "ended" if ended else "in_progress",
            "request_counts": counts, "created_at": stamp, "expires_at": stamp, "ended_at": stamp if ended else None,
            "archived_at": None, "cancel_initiated_at": None,
            "results_url": f"{self.url}/v1/messages/batches/{batch_id}/results" if ended else None,
        }

    def batch_list(self, query: dict[str, list[str]]) -> dict[str, Any]:
        """GET /v1/messages/batches: newest first, a page of `limit` after `after_id`, as the API pages."""
        limit = int(query.get("limit", ["20"])[0])
        if self.batch_listed is not None and not self.batch_listed.is_set():
            return {"data": [], "has_more": False, "first_id": None, "last_id": None}
        with self.lock:
            ids = sorted(self.batches, key=lambda b: self.batches[b]["created"], reverse=True)
        after = query.get("after_id", [None])[0]
        if after in ids:
            ids = ids[ids.index(after) + 1:]
        page = [self.batch_json(batch_id) for batch_id in ids[:limit]]
        return {"data": page, "has_more": len(ids) > limit, "first_id": page[0]["id"] if page else None,
                "last_id": page[-1]["id"] if page else None}

    def _batch_results(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        lines = []
        for request in requests:
            params = request["params"]
            behaviour = self.choose(self.user_text(params))
            if self.reject_temperature and "temperature" in params:
                result = {"type": "errored", "error": {"type": "error", "error": {
                    "type": "invalid_request_error", "message": "`temperature` is deprecated for this model."}}}
            elif behaviour in (OVERLOADED, SERVER_ERROR, RATE_LIMIT, DROP, BAD_BODY):
                kind = "overloaded_error" if behaviour == OVERLOADED else "api_error"
                result = {"type": "errored", "error": {"type": "error", "error": {"type": kind, "message": behaviour}}}
            elif behaviour == "expired":
                result = {"type": "expired"}
            else:
                message, key = self.message(params, behaviour)
                self.mark_cached(key)
                result = {"type": "succeeded", "message": message}
            lines.append({"custom_id": request["custom_id"], "result": result})
        lines.reverse()  # results come back in any order: make sure nobody relies on it
        return lines

    def batch_results_jsonl(self, batch_id: str) -> str:
        with self.lock:
            results = self.batches[batch_id]["results"] or []
        return "".join(json.dumps(line) + "\n" for line in results)


def _error_body(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out as separate writes: no 40 ms Nagle stall
    server_state: FakeAnthropic

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
        return

    def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None,
              content_type: str = "application/json") -> None:
        data = payload if isinstance(payload, bytes) else (
            payload.encode() if isinstance(payload, str) else json.dumps(payload).encode())
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", f"req_fake_{time.monotonic_ns()}")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _said(self, message: str) -> str:
        """An error message, quoting the key and auth headers sent when the fake echoes them."""
        if not self.server_state.echo_key:
            return message
        return (f"{message} (x-api-key: {self.headers.get('x-api-key')}; authorization:"
                f" {self.headers.get('Authorization')})")

    def _authorised(self) -> bool:
        fake = self.server_state
        if fake.api_key is None:
            return True
        given = self.headers.get("x-api-key") or (self.headers.get("Authorization") or "").removeprefix("Bearer ")
        return given == fake.api_key

    def _record(self, body: Any, user_text: str | None = None) -> Recorded:
        fake = self.server_state
        entry = Recorded(self.command, self.path, dict(self.headers), body if fake.record_bodies else None,
                         time.monotonic())
        fake.record(entry, user_text)
        return entry

    def do_GET(self) -> None:  # noqa: N802
        fake = self.server_state
        self._record(None)
        if not self._authorised():
            return self._send(401, _error_body("authentication_error", self._said("invalid x-api-key")))
        parts = self.path.split("?")[0].strip("/").split("/")
        if parts == ["v1", "messages", "batches"]:
            return self._send(200, fake.batch_list(parse_qs(urlsplit(self.path).query)))
        if parts[:3] == ["v1", "messages", "batches"] and len(parts) >= 4:
            batch_id = parts[3]
            if batch_id not in fake.batches:
                return self._send(404, _error_body("not_found_error", f"no batch {batch_id}"))
            if len(parts) == 5 and parts[4] == "results":
                with fake.lock:
                    failing, fake.results_failures = fake.results_failures > 0, max(0, fake.results_failures - 1)
                if failing:
                    return self._send(500, _error_body("api_error", "Internal server error"))
                return self._send(200, fake.batch_results_jsonl(batch_id), content_type="application/binary")
            return self._send(200, fake.batch_json(batch_id, poll=True))
        self._send(404, _error_body("not_found_error", self.path))

    def do_POST(self) -> None:  # noqa: N802
        fake = self.server_state
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if len(raw) < length:  # the client went away mid-request (killed): nothing to answer
            self.close_connection = True
            self._record(None).behaviour = "aborted"
            return None
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._record(None)
            return self._send(400, _error_body("invalid_request_error", "body is not JSON"))
        # A call to be answered by the script or the rules takes its behaviour as it is recorded.
        answered = (self._authorised() and self.path.startswith("/v1/messages")
                    and not self.path.startswith("/v1/messages/batches")
                    and not (fake.reject_temperature and "temperature" in body))
        entry = self._record(body, fake.user_text(body) if answered else None)
        entry.size = len(raw)
        if not self._authorised():
            entry.behaviour = UNAUTHORIZED
            return self._send(401, _error_body("authentication_error", self._said("invalid x-api-key")))
        if self.path.startswith("/v1/messages/batches"):
            return self._create_batch(fake, body, entry)
        if not self.path.startswith("/v1/messages"):
            return self._send(404, _error_body("not_found_error", self.path))
        with fake.call_in_flight():
            self._message(fake, body, entry)

    def _create_batch(self, fake: FakeAnthropic, body: dict[str, Any], entry: Recorded) -> None:
        """Refused whole, as by the API, when over 256 MB or 100,000 requests."""
        if entry.size > fake.max_batch_bytes:
            entry.behaviour = "request_too_large"
            return self._send(413, _error_body("request_too_large",
                                               f"Request exceeds the maximum allowed number of bytes"
                                               f" ({fake.max_batch_bytes})."))
        count = len(body.get("requests") or [])
        if count > fake.max_batch_requests:
            entry.behaviour = "too_many_requests"
            return self._send(400, _error_body("invalid_request_error",
                                               f"requests: a batch holds at most {fake.max_batch_requests} requests,"
                                               f" got {count}"))
        if fake.batch_upload_cut is not None:
            fake.batch_upload_cut.wait(timeout=60)
            entry.behaviour = "aborted"
            self.close_connection = True
            self.connection.shutdown(2)
            return None
        created = fake.create_batch(body)
        if fake.batch_hold is not None:
            fake.batch_hold.wait(timeout=60)
        return self._send(200, created)

    def _message(self, fake: FakeAnthropic, body: dict[str, Any], entry: Recorded) -> None:
        if fake.reject_temperature and "temperature" in body:
            entry.behaviour = "temperature_rejected"
            return self._send(400, _error_body("invalid_request_error", "`temperature` is deprecated for this model."))
        behaviour = entry.behaviour  # chosen as the call was recorded
        refusal = behaviour in (RATE_LIMIT, OVERLOADED, UNAUTHORIZED, PAYMENT)  # back at once, as from the real API
        if fake.hold is not None and not refusal:
            fake.hold.wait(timeout=60)
        if fake.latency and not refusal:
            time.sleep(fake.latency)
        if behaviour == DROP:
            self.close_connection = True
            self.connection.shutdown(2)  # the client sees the connection die with no response
            return None
        if behaviour == RATE_LIMIT:
            return self._send(429, _error_body("rate_limit_error", "slow down"), {"retry-after": fake.retry_after})
        if behaviour == OVERLOADED:
            return self._send(529, _error_body("overloaded_error", "Overloaded"), {"retry-after": fake.retry_after})
        if behaviour == SERVER_ERROR:
            return self._send(500, _error_body("api_error", self._said("Internal server error")))
        if behaviour == FORBIDDEN:
            return self._send(403, _error_body("permission_error", self._said("this key may not use the model")))
        if behaviour == UNAUTHORIZED:
            return self._send(401, _error_body("authentication_error", self._said("invalid x-api-key")))
        if behaviour == PAYMENT:
            return self._send(402, _error_body("billing_error", "spend limit reached"))
        if behaviour == BAD_BODY:
            return self._send(200, '{"id": "msg_broken", "type": "message", "content": [')
        message, cache_key = fake.message(body, behaviour)
        self._send(200, message)
        fake.mark_cached(cache_key)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="fake Anthropic API for tests and benchmarks")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--min-cache-tokens", type=int, default=1024)
    parser.add_argument("--api-key", default="test-key")
    parser.add_argument("--batch-polls", type=int, default=1)
    parser.add_argument("--no-record", action="store_true", help="keep no request bodies (long benchmarks)")
    parser.add_argument("--max-batch-requests", type=int, default=100_000)
    parser.add_argument("--max-batch-bytes", type=int, default=256_000_000)
    args = parser.parse_args(argv)
    fake = FakeAnthropic(latency=args.latency, min_cache_tokens=args.min_cache_tokens, api_key=args.api_key,
                         batch_polls=args.batch_polls, record_bodies=not args.no_record,
                         max_batch_requests=args.max_batch_requests, max_batch_bytes=args.max_batch_bytes)
    fake.start(args.port)
    print(f"PORT {fake.port}", flush=True)
    stop: Callable[[], None] = fake.stop
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
