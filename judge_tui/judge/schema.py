"""The judge's answer format for a rubric: a pydantic model, its JSON schema, and a strict parser.

The model is generated from the rubric: one score per judged dimension, on the rubric's scale, plus the
rubric's `judge_output_extras` (a reasoning or critique text, lists of issues and suggestions), then the
judge's stated confidence. Parsing is strict on purpose: text that is not JSON, JSON of another shape, or a
score off the scale is a failed judgment that keeps the raw text. Nothing is repaired, rounded or guessed.

The stated confidence is the exception: it is asked for in every answer, but an answer without one (made
before it was asked for, or by a model that left it out) or with one that is not a number from 0 to 1 is
still a judgment. Its scores count; its confidence is missing, and `Judgment.confidence_note` says why.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from judge_tui.model.rubrics import Rubric, ScoreError

# Extras that are lists of short texts; every other extra is one text.
LIST_EXTRAS = frozenset({"issues", "suggestions"})

EXTRA_DESCRIPTIONS = {
    "reasoning": "A short explanation of the scores, naming the evidence.",
    "critique": "The specific element or elements of the response that decided the label.",
    "issues": "Each specific problem found, one per entry (may be empty).",
    "suggestions": "Each concrete improvement, one per entry (may be empty).",
}

Layout = Literal["scores", "flat"]

# The judge's stated probability that the experts would give its scores, the last key of every answer.
CONFIDENCE_KEY = "confidence"
CONFIDENCE_DESCRIPTION = ("Your probability, from 0 to 1, that expert reviewers applying this rubric would give "
                          "exactly the scores you gave.")


class JudgmentError(ValueError):
    """An answer that cannot be used; `kind` says why: invalid_json, schema_mismatch or off_scale."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class Judgment:
    """A parsed, checked answer: scores by dimension id (scale values) and the extras."""

    scores: dict[str, float]
    extras: dict[str, Any]
    confidence: float | None = None  # the judge's stated confidence, 0 to 1; None when missing or unusable
    confidence_note: str = ""  # why there is no confidence ("" when there is one)

    @property
    def notes(self) -> str:
        """The free-text part of the answer, stored as the rating's notes."""
        for key in ("reasoning", "critique"):
            value = self.extras.get(key)
            if isinstance(value, str):
                return value
        return ""


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


MAX_ANSWER_DEPTH = 20  # an answer is an object of scores (a level or two) with a few texts or lists
_TOO_DEEP = object()


def _deeper_than(data: Any, limit: int) -> bool:
    """Whether parsed JSON nests objects and arrays more than ``limit`` levels (walked without recursion)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in (value.values() if isinstance(value, dict) else value))
    return False


class OutputFormat:
    """How one rubric's judge answers, and how that answer is checked.

    layout "scores": {"scores": {"<dimension id>": value, ...}, <extras>} (the reasoning-trace format);
    layout "flat": {"<score key>": value, ..., <extras>} with score_key such as "{id}_score" (r_score, a_score:
    the CIS rating format) or "{id}" (a single "label" for PASS/FAIL).
    """

    def __init__(self, rubric: Rubric, layout: Layout = "scores", score_key: str = "{id}") -> None:
        if layout not in ("scores", "flat"):
            raise ValueError(f"unknown output layout {layout!r}: use 'scores' or 'flat'")
        if "{id}" not in score_key:
            raise ValueError(f"score_key {score_key!r} must contain {{id}}")
        self.rubric = rubric
        self.layout = layout
        self.score_key = score_key
        self.dimensions = rubric.judged_dimensions
        self.keys = {d.id: score_key.format(id=d.id) for d in self.dimensions}
        clash = set(self.keys.values()) & {*rubric.judge_output_extras, CONFIDENCE_KEY}
        if clash or len(set(self.keys.values())) != len(self.keys) or CONFIDENCE_KEY in rubric.judge_output_extras:
            raise ValueError(f"score keys {sorted(self.keys.values())} clash with each other, with the extras or "
                             f"with {CONFIDENCE_KEY!r}, the judge's stated confidence")
        self.model = self._build_model()

    # ------------------------------------------------------------------ the model and its schema

    def _score_type(self) -> Any:
        scale = self.rubric.scale  # exactly the scale's names or whole numbers; a number in 0-1 checked on parsing
        return float if scale.answer_type == "number" else Literal[scale.answers]

    def _build_model(self) -> type[BaseModel]:
        strict = ConfigDict(extra="forbid", strict=True)
        score_fields: dict[str, Any] = {self.keys[d.id]: (self._score_type(), ...) for d in self.dimensions}
        extra_fields: dict[str, Any] = {
            name: ((list[str], ...) if name in LIST_EXTRAS else (str, ...))
            for name in self.rubric.judge_output_extras
        }
        name = "".join(part.title() for part in self.rubric.id.split("-")) + "Judgment"
        if self.layout == "flat":
            return create_model(name, __config__=strict, **score_fields, **extra_fields)
        scores = create_model(name + "Scores", __config__=strict, **score_fields)
        return create_model(name, __config__=strict, scores=(scores, ...), **extra_fields)

    def _score_schema(self) -> dict[str, Any]:
        scale = self.rubric.scale
        return {"type": scale.answer_type, "enum": list(scale.answers)}

    def json_schema(self) -> dict[str, Any]:
        """The schema sent to the API (output_config or a tool's input_schema): closed objects, all keys required."""
        scores: dict[str, Any] = {
            "type": "object",
            "properties": {self.keys[d.id]: self._score_schema() for d in self.dimensions},
            "required": [self.keys[d.id] for d in self.dimensions],
            "additionalProperties": False,
        }
        extras = {
            name: (
                {"type": "array", "items": {"type": "string"}, "description": EXTRA_DESCRIPTIONS.get(name, name)}
                if name in LIST_EXTRAS
                else {"type": "string", "description": EXTRA_DESCRIPTIONS.get(name, name)}
            )
            for name in self.rubric.judge_output_extras
        }
        # No minimum or maximum: not every API takes number bounds in a schema; the parser checks the range.
        confidence = {"type": "number", "description": CONFIDENCE_DESCRIPTION}
        if self.layout == "flat":
            properties = {**scores["properties"], **extras, CONFIDENCE_KEY: confidence}
        else:
            properties = {"scores": scores, **extras, CONFIDENCE_KEY: confidence}
        return {
            "type": "object",
            "properties": properties,
            "required": list(properties),
            "additionalProperties": False,
        }

    def example(self) -> dict[str, Any]:
        """The shape of an answer with placeholder values, for the prompt's output section."""
        scores = {self.keys[d.id]: self.rubric.scale.example_answer for d in self.dimensions}
        extras = {
            name: ([] if name in LIST_EXTRAS else "...") for name in self.rubric.judge_output_extras
        }
        if self.layout == "flat":
            return {**scores, **extras, CONFIDENCE_KEY: 0.0}
        return {"scores": scores, **extras, CONFIDENCE_KEY: 0.0}

    def score_paths(self) -> list[tuple[str, ...]]:
        """Where each judged score sits in an answer: the keys from the top level down."""
        return [(self.keys[d.id],) if self.layout == "flat" else ("scores", self.keys[d.id])
                for d in self.dimensions]

    def render(self, scores: dict[str, float], extras: dict[str, Any]) -> str:
        """An answer in this format from known scores (used for few-shot examples, which are the experts' answers
        and so carry no stated confidence)."""
        values = {self.keys[d.id]: self.rubric.scale.answer_of(scores[d.id]) for d in self.dimensions}
        answer = {**values, **extras} if self.layout == "flat" else {"scores": values, **extras}
        return json.dumps(answer, ensure_ascii=False, indent=2)

    # ------------------------------------------------------------------ strict parsing

    def parse(self, raw: str) -> Judgment:
        """Check an answer; raises JudgmentError(kind, message). Never coerces."""
        try:
            data = json.loads(raw, parse_constant=_reject_constant)
        except (json.JSONDecodeError, ValueError) as exc:
            preview = raw.strip()[:80].replace("\n", " ")
            raise JudgmentError("invalid_json", f"the answer is not JSON ({exc}); it starts {preview!r}") from None
        except RecursionError:  # nested deeper than Python reads: refused as any answer too deep is
            data = _TOO_DEEP
        if data is _TOO_DEEP or _deeper_than(data, MAX_ANSWER_DEPTH):
            raise JudgmentError("invalid_json", f"the answer is nested more than {MAX_ANSWER_DEPTH} levels deep;"
                                " an answer is one object of scores and a few texts or lists")
        confidence, confidence_note = None, "the answer gives no confidence"
        if isinstance(data, dict) and CONFIDENCE_KEY in data:
            data = dict(data)
            confidence, confidence_note = stated_confidence(data.pop(CONFIDENCE_KEY))
        try:
            parsed = self.model.model_validate(data)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or '(top level)'}: {e['msg']}" for e in exc.errors()[:5]
            )
            raise JudgmentError("schema_mismatch", f"the answer does not match the schema: {problems}") from None
        dumped = parsed.model_dump()
        raw_scores = dumped["scores"] if self.layout == "scores" else dumped
        scores: dict[str, float] = {}
        for d in self.dimensions:
            key = self.keys[d.id]
            value = raw_scores[key]
            if isinstance(value, float) and not math.isfinite(value):
                raise JudgmentError("off_scale", f"{key}: {value!r} is not a finite number")
            try:
                scores[d.id] = self.rubric.scale.parse(value)
            except ScoreError as exc:
                raise JudgmentError("off_scale", f"{key}: {exc}") from None
        extras = {name: dumped[name] for name in self.rubric.judge_output_extras}
        return Judgment(scores=scores, extras=extras, confidence=confidence, confidence_note=confidence_note)


def stated_confidence(value: Any) -> tuple[float | None, str]:
    """The stated confidence as given, checked (a JSON number from 0 to 1, never coerced), or None and why not."""
    shown = json.dumps(value, ensure_ascii=False)
    shown = shown if len(shown) <= 40 else shown[:39] + "…"
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None, f"the confidence {shown} is not a number: left out"
    if not 0.0 <= value <= 1.0:
        return None, f"the confidence {shown} is not between 0 and 1: left out"
    return float(value), ""
