"""The judge's confidence in its verdict from the token log-probabilities a server returned with the answer.

An OpenAI-compatible server asked for `logprobs` returns, with the answer's text, each generated token and the
natural log of the probability the model gave it. The confidence is the probability of the scores the judge
gave: the product of the probabilities of the tokens that spell the judged scores' values (a label's letters,
a number's digits), each given what came before it. It is the chance that the model, sampling at its own
temperature, would write these scores again after the same text; the rest of the answer (keys, punctuation,
reasoning) does not count. The Anthropic API returns no log-probabilities, so its judgments have none.

The tokens must spell the answer's text exactly (byte for byte); otherwise, or when a score cannot be found
in the text, there is no confidence and a note says why.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

TokenLogprob = tuple[bytes, float]  # a token as the bytes it adds to the text, and its log-probability


def value_spans(text: str, paths: Sequence[tuple[str, ...]]) -> list[tuple[int, int]] | None:
    """The character span of each path's value in the JSON text (a string's letters without its quotes), or
    None when the text is not a JSON object holding every path."""
    spans = []
    for path in paths:
        span = _span_of(text, path)
        if span is None:
            return None
        spans.append(span)
    return spans


def _span_of(text: str, path: tuple[str, ...]) -> tuple[int, int] | None:
    decoder = json.JSONDecoder()
    start = _skip_space(text, 0)
    for depth, key in enumerate(path):
        found = _member(decoder, text, start, key)
        if found is None:
            return None
        start, end = found
        if depth == len(path) - 1:
            if text[start] == '"':  # the letters of a label, not its quotes
                return start + 1, end - 1
            return start, end
    return None


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


def _member(decoder: json.JSONDecoder, text: str, at: int, key: str) -> tuple[int, int] | None:
    """Where the value of ``key`` starts and ends in the object that starts at ``at`` (its last occurrence, as
    json.loads keeps the last of a repeated key)."""
    if at >= len(text) or text[at] != "{":
        return None
    at = _skip_space(text, at + 1)
    found = None
    try:
        while at < len(text) and text[at] != "}":
            name, at = decoder.raw_decode(text, at)
            at = _skip_space(text, at)
            if text[at] != ":":
                return None
            start = _skip_space(text, at + 1)
            _value, end = decoder.raw_decode(text, start)
            if name == key:
                found = (start, end)
            at = _skip_space(text, end)
            if at < len(text) and text[at] == ",":
                at = _skip_space(text, at + 1)
    except (ValueError, IndexError):
        return None
    return found


def verdict_confidence(text: str, tokens: Sequence[TokenLogprob],
                       paths: Sequence[tuple[str, ...]]) -> tuple[float | None, str]:
    """The probability of the scores at ``paths`` in the answer ``text`` from its tokens' log-probabilities, or
    None and why not."""
    if not tokens:
        return None, "the server returned no token log-probabilities"
    encoded = text.encode()
    if b"".join(token for token, _ in tokens) != encoded:
        return None, "the token log-probabilities do not spell the answer's text: left out"
    spans = value_spans(text, paths)
    if spans is None:
        return None, "a score could not be found in the answer's text: no token confidence"
    # Byte offsets of the scores, since the tokens are bytes (a character may be split between two tokens).
    byte_spans = [(len(text[:a].encode()), len(text[:b].encode())) for a, b in spans]
    total, start = 0.0, 0
    for token, logprob in tokens:
        end = start + len(token)
        if any(start < b and end > a for a, b in byte_spans):
            if not math.isfinite(logprob) or logprob > 0.0:
                return None, f"a token's log-probability {logprob!r} is not a log of a probability: left out"
            total += logprob
        start = end
    return math.exp(total), ""
