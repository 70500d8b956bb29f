"""Rubrics as data: frozen dataclasses, scoring rules and loading from TOML files.

A rubric file describes what an item looks like (its fields), the scale, the dimensions with what each
scale point means, weights, thresholds, the overall formula and the verdict rules. Nothing here knows
about SQL, the screen or the judge. Files and recorded definitions are checked by `plain_data.from_data`;
the rules beyond types are each class's `__post_init__`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from judge_tui.model import checkers, locations
from judge_tui.model.number_parsing import parse_number
from judge_tui.model.plain_data import DataError, Strict, check_range, from_data

RUBRIC_SUFFIX = ".rubric.toml"
RUBRIC_ID = re.compile(r"[a-z][a-z0-9-]*")
DIMENSION_ID = re.compile(r"[a-z][a-z0-9_]*")
MAX_CATEGORIES = 99  # keyed 1 to 9 on the rating screen, or by two digits 01 to 99 from ten categories on
MAX_WHOLE_NUMBER = 99  # a scale of whole numbers is keyed by its numbers, at most two digits


class RubricError(Exception):
    """A rubric file that cannot be used; the message names the file and the field."""


class ScoreError(ValueError):
    """A score that is not on the rubric's scale."""


def _check_id(what: str, value: str, pattern: re.Pattern[str], allowed: str) -> None:
    if not pattern.fullmatch(value):
        raise ValueError(f"{what} {value!r} must start with a lower-case letter and hold only {allowed}")


# --------------------------------------------------------------------------- scale


@dataclass(frozen=True)
class Scale(Strict):
    """The values a judged dimension may take.

    quarter: 0.00 to 1.00 in 0.25 steps; three_point: 0 / 0.5 / 1 as categories;
    pass_fail: PASS (stored as 1.0) or FAIL (stored as 0.0);
    categories: named categories (2 to 99), declared `order = "ordered"` or `"nominal"`;
    integers: the whole numbers from `lowest` to `highest` (0 to 6, 1 to 10: a numeric scale of its own).
    A category or a whole number is stored as its position spread over 0 to 1 (the first 0, the last 1), so
    every score of every rubric stays a number in [0, 1]; only its name or number is shown, written and read.
    """

    kind: Literal["quarter", "three_point", "pass_fail", "categories", "integers"]
    anchors: dict[str, str] = field(default_factory=dict)  # what each point means, by label
    categories: list[str] = field(default_factory=list)  # kind = "categories": the names, in order
    order: Literal["ordered", "nominal"] | None = None  # kind = "categories": whether the order means anything
    lowest: int | None = None  # kind = "integers": the first number of the scale
    highest: int | None = None  # kind = "integers": the last

    def __post_init__(self) -> None:
        if self.kind != "integers" and (self.lowest is not None or self.highest is not None):
            raise ValueError(f"lowest and highest belong to kind = \"integers\", not {self.kind!r}")
        if self.kind == "integers":
            self._check_whole_numbers()
        if self.kind != "categories":
            if self.categories or self.order is not None:
                raise ValueError(f"categories and order belong to kind = \"categories\", not {self.kind!r}")
            return
        if self.order is None:
            raise ValueError('a scale of categories declares order = "ordered" or order = "nominal"')
        if not 2 <= len(self.categories) <= MAX_CATEGORIES:
            raise ValueError(f"a scale of categories has 2 to {MAX_CATEGORIES} categories (keys 1 to 9, or two "
                             f"digits 01 to {MAX_CATEGORIES} from ten on), not {len(self.categories)}")
        for name in self.categories:
            if not name.strip() or name != name.strip() or not name.isprintable():
                raise ValueError(f"category {name!r} must be printable text without spaces around it")
        if len(set(self.categories)) != len(self.categories):
            raise ValueError(f"category names must be unique, got {self.categories}")

    def _check_whole_numbers(self) -> None:
        if self.lowest is None or self.highest is None:
            raise ValueError('a scale of whole numbers declares lowest and highest, e.g. lowest = 1, highest = 5')
        if not 0 <= self.lowest < self.highest <= MAX_WHOLE_NUMBER:
            raise ValueError(f"a scale of whole numbers runs from lowest to a larger highest, both 0 to "
                             f"{MAX_WHOLE_NUMBER} (they are typed as keys), not {self.lowest} to {self.highest}")

    @property
    def _span(self) -> int:
        """How many steps a scale of whole numbers has from its lowest to its highest."""
        assert self.lowest is not None and self.highest is not None  # checked on kind = "integers"
        return self.highest - self.lowest

    @property
    def points(self) -> tuple[float, ...]:
        if self.kind in ("categories", "integers"):
            last = len(self.categories) - 1 if self.kind == "categories" else self._span
            return tuple(n / last for n in range(last + 1))
        return {
            "quarter": (0.0, 0.25, 0.5, 0.75, 1.0),
            "three_point": (0.0, 0.5, 1.0),
            "pass_fail": (0.0, 1.0),
        }[self.kind]

    @property
    def ordered(self) -> bool:
        """PASS/FAIL is nominal; the numeric scales are ordered; categories are as declared."""
        if self.kind == "categories":
            return self.order == "ordered"
        return self.kind != "pass_fail"

    @property
    def binary(self) -> bool:
        """A verdict per item, PASS or FAIL: a classifier's figures apply (true positive and negative rates, the
        share of each verdict), and a key per verdict (p, f) rather than a number."""
        return self.kind == "pass_fail"

    @property
    def nominal(self) -> bool:
        """Categories declared nominal: a category's stored position is a name, not a number, so no distance,
        tolerance, mean, Pearson r or weighted kappa means anything on it; two scores agree only when they are
        the same category. (PASS/FAIL, though unordered, has two points a whole scale apart: its 0/1 are a
        share, and its distances are already 0 or 1.)"""
        return self.kind == "categories" and self.order == "nominal"

    @property
    def jury_rule(self) -> Literal["majority", "median"]:
        """How a jury's members' scores make its score (`analysis/jury.py`): the median on an ordered scale, the
        majority on a nominal one (PASS/FAIL, nominal categories)."""
        return "median" if self.ordered else "majority"

    def alignment_tolerance(self, tolerance: float) -> float:
        """How far apart two scores may be and still align: the agreement tolerance, except on nominal
        categories, whose stored positions say nothing of nearness (from eight on, neighbours lie within the
        default ±0.15): there only the same category aligns."""
        return 0.0 if self.nominal else tolerance

    @property
    def named(self) -> bool:
        """Whether scores are written by name (PASS/FAIL, categories) rather than as numbers."""
        return self.kind in ("pass_fail", "categories")

    def value(self, stored: float) -> float:
        """The number a stored score stands for on this scale: a whole number's own (3 on 0 to 6 is stored as
        0.5), any other score its stored number. Distances between scores are measured on these numbers."""
        if self.kind == "integers":
            assert self.lowest is not None  # checked on kind = "integers"
            number = self.lowest + stored * self._span
            return float(round(number)) if math.isclose(number, round(number), abs_tol=1e-9) else number
        return stored

    def label(self, value: float) -> str:
        if self.kind == "pass_fail":
            return "PASS" if value >= 0.5 else "FAIL"
        if self.kind == "categories":
            return self.categories[round(value * (len(self.categories) - 1))]
        if self.kind == "integers":
            value = self.value(value)  # a whole number as itself; between two (a judge's 2.5) as a quarter's
            if value.is_integer():
                return str(int(value))
        if self.kind in ("quarter", "integers"):
            return f"{value:.2f}"
        return f"{value:g}"

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(self.label(p) for p in self.points)

    def parse(self, raw: object) -> float:
        """A value from a file or a key press, checked against the scale points exactly."""
        if self.kind == "categories":
            return self._parse_category(raw)
        value = self.parse_continuous(raw)
        for point in self.points:
            if math.isclose(value, point, abs_tol=1e-9):
                return point
        raise ScoreError(f"{raw!r} is off the scale: allowed values are {', '.join(self.labels)}")

    def stored_point(self, stored: float) -> float:
        """A stored score checked to be one of the scale's points (a key's point, another expert's score): on a
        scale of whole numbers, 0.5 is a place on the scale here, where parse reads it as the number 0.5."""
        for point in self.points:
            if math.isclose(stored, point, abs_tol=1e-9):
                return point
        raise ScoreError(f"{stored!r} is not a point of the scale: allowed values are {', '.join(self.labels)}")

    def _parse_category(self, raw: object) -> float:
        """A category by its exact name; a number only as the stored position of one (another database's
        rows), never as a key number: 1 is the last category, not the first."""
        if isinstance(raw, str) and raw.strip() in self.categories:
            return self.points[self.categories.index(raw.strip())]
        if isinstance(raw, int | float) and not isinstance(raw, bool):
            for point in self.points:
                if math.isclose(float(raw), point, abs_tol=1e-9):
                    return point
        raise ScoreError(f"{raw!r} is not one of the categories {', '.join(self.categories)}")

    def parse_continuous(self, raw: object) -> float:
        """A value in [0, 1] that may lie between scale points (a judge's continuous score).

        Categories have nothing between them: a judge names one, as an expert does."""
        if self.kind == "categories":
            return self._parse_category(raw)
        if isinstance(raw, str) and raw.strip().upper() in ("PASS", "FAIL"):
            if self.kind != "pass_fail":
                raise ScoreError(f"{raw!r} is a PASS/FAIL label but this scale is numeric")
            return 1.0 if raw.strip().upper() == "PASS" else 0.0
        if isinstance(raw, bool) or raw is None:
            raise ScoreError(f"{raw!r} is not a score")
        try:
            value = parse_number(raw)
        except ValueError:
            expected = "PASS or FAIL" if self.kind == "pass_fail" else f"a number from {self._range}"
            raise ScoreError(f"{raw!r} is not a score: expected {expected}") from None
        if self.kind == "integers":
            assert self.lowest is not None  # checked on kind = "integers"
            value = (value - self.lowest) / self._span
        if not math.isfinite(value) or value < 0.0 or value > 1.0:
            raise ScoreError(f"{raw!r} is outside the scale {self._range}")
        return value

    def written(self, stored: float) -> float | str:
        """A score as files write it (exports): PASS/FAIL or a category's name on a scale of names, a whole
        number as itself (not its stored place between 0 and 1), otherwise the number exactly."""
        if self.named and stored in self.points:
            return self.label(stored)
        if self.kind == "integers":
            number = self.value(stored)
            return int(number) if number.is_integer() else number
        return stored

    # ------------------------------------------------------------------ how a reviewer types a score

    @property
    def declared(self) -> bool:
        """Whether the rubric declares the scale's points (categories, whole numbers), each typed with its own
        key, rather than one of the built-in grids (quarter, three points, PASS/FAIL) sharing the keys 0 to 4."""
        return self.kind in ("categories", "integers")

    @property
    def key_numbers(self) -> tuple[int, ...]:
        """The number typed for each point (`tui/keys.py` makes the keys): categories 1 to k as numbered on
        screen, whole numbers as themselves, the 0-1 grids 0 up; none on PASS/FAIL, typed by its letters."""
        if self.kind == "pass_fail":
            return ()
        if self.kind == "integers":
            return tuple(int(label) for label in self.labels)
        first = 1 if self.kind == "categories" else 0
        return tuple(range(first, first + len(self.points)))

    @property
    def numbered(self) -> bool:
        """Whether each point is a number typed as itself (whole numbers): the screens name the scale's range and
        say "type the number", rather than list a key per point."""
        return self.kind == "integers"

    @property
    def point_name(self) -> str:
        """What one point is called where the screens explain the score keys (after "a"): category, number, point."""
        return {"categories": "category", "integers": "number", "pass_fail": "verdict"}.get(self.kind, "point")

    @property
    def called(self) -> str:
        """What the scale is called in a sentence: "0–2 give 0 / 0.5 / 1 on a three-point scale"."""
        return {"quarter": "quarter scale", "three_point": "three-point scale", "pass_fail": "PASS/FAIL scale",
                "categories": "scale of categories", "integers": "scale of whole numbers"}[self.kind]

    @property
    def points_name(self) -> str:
        """What the points are called together: "This scale has 3 categories", "Whole numbers 1 to 5"."""
        return {"categories": "categories", "integers": "whole numbers",
                "pass_fail": "verdicts"}.get(self.kind, "points")

    # ------------------------------------------------------------------ how the judge writes a score

    @property
    def answer_type(self) -> Literal["string", "integer", "number"]:
        """The JSON type of a score in the judge's answer: a name, a whole number or a number in 0-1."""
        return "string" if self.named else "integer" if self.kind == "integers" else "number"

    @property
    def answers(self) -> tuple[str | int | float, ...]:
        """Every score the judge may write, as it writes it (the answer schema's enum)."""
        return tuple(self.answer_of(point) for point in self.points)

    def answer_of(self, stored: float) -> str | int | float:
        """A stored score as the judge writes it (a few-shot example's answer)."""
        if self.named:
            return self.label(stored)
        return int(self.value(stored)) if self.answer_type == "integer" else stored

    @property
    def example_answer(self) -> str | int | float:
        """The placeholder score of the prompt's example answer: PASS, else the scale's first answer."""
        return "PASS" if self.kind == "pass_fail" else self.answers[0]

    @property
    def answer_wording(self) -> str:
        """How the judge's prompt says a score is written, after the list of allowed scores."""
        return {"categories": "a string, written exactly so", "pass_fail": "a string",
                "integers": "a whole number"}.get(self.kind, "a number")

    @property
    def _range(self) -> str:
        return f"{self.lowest} to {self.highest}" if self.kind == "integers" else "0 to 1"


# The scales a rubric names without declaring their points (not PASS/FAIL, typed by its letters): their points share
# the keys 0 up, and the rating screen's help and keys say what each key gives on each of them.
GRIDS = (Scale(kind="quarter"), Scale(kind="three_point"))


# --------------------------------------------------------------------------- parts of a rubric


@dataclass(frozen=True)
class ItemField(Strict):
    """One field of an item, and how the rating screen shows it."""

    name: str
    label: str
    kind: Literal["text", "code", "output", "xml"] = "text"
    language: str | None = None  # for code fields: syntax highlighting
    required: bool = True


@dataclass(frozen=True)
class TaskType(Strict):
    name: str
    summary: str
    constraints: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class FewShotPin(Strict):
    """A train-split item chosen as a worked example for the judge, shown with one expert's rating of it."""

    item: str
    rater: str  # the expert whose rating of the item is the example's answer
    explanation: str = ""  # one line: why this rating is right

    def __post_init__(self) -> None:
        if not self.item or not self.rater:
            raise ValueError("an example names its item and its rater")


@dataclass(frozen=True)
class Definition(Strict):
    term: str
    meaning: str


@dataclass(frozen=True)
class Dimension(Strict):
    id: str
    name: str
    measures: str
    questions: list[str] = field(default_factory=list)  # what to ask yourself when rating
    anchors: dict[str, str] = field(default_factory=dict)  # overrides the scale's anchors
    guidance: dict[str, str] = field(default_factory=dict)  # task type name -> guidance
    weight: float = 1.0
    threshold: float | None = None
    method: Literal["judged", "code"] = "judged"
    checker: str | None = None  # for method = code: the checker's name
    checker_field: str | None = None  # for method = code: the item field it reads

    def __post_init__(self) -> None:
        _check_id("dimension id", self.id, DIMENSION_ID, "a-z, 0-9 and _")
        check_range(f"dimension {self.id!r}: weight", self.weight, 0, above=True)
        if self.threshold is not None:
            check_range(f"dimension {self.id!r}: threshold", self.threshold, 0, 1)


@dataclass(frozen=True)
class VerdictRule(Strict):
    """A verdict given when every condition holds; a rule with no conditions is the fallback."""

    verdict: str
    overall_at_least: float | None = None
    every_dimension_at_least: float | None = None
    dimension_at_least: dict[str, float] = field(default_factory=dict)
    every_threshold_met: bool = False

    def holds(self, scores: Mapping[str, float], overall: float, thresholds: Mapping[str, float]) -> bool:
        eps = 1e-9  # thresholds are inclusive: 0.85 must meet "at least 0.85" despite float error
        if self.overall_at_least is not None and overall < self.overall_at_least - eps:
            return False
        if self.every_dimension_at_least is not None and any(
            v < self.every_dimension_at_least - eps for v in scores.values()
        ):
            return False
        if any(scores[d] < floor - eps for d, floor in self.dimension_at_least.items()):
            return False
        return not (self.every_threshold_met and any(scores[d] < t - eps for d, t in thresholds.items()))


# What only the judge's prompt reads and a rubric version leaves out: the chosen few-shot examples, how many
# examples it is shown, and what it returns besides its scores. A change to them is a change to the judge (its
# prompt version), never to what the experts are asked (the rubric version).
JUDGE_ONLY_SETTINGS = ("examples", "few_shot_examples", "judge_output_extras")


def definition_hash(definition: Mapping[str, Any], *, judge_settings: bool = False) -> str:
    """The content hash of a recorded definition (`Rubric.definition()`): without the judge's own settings (a
    rubric version), or with them (``judge_settings``: the hash every release gave a rubric without chosen
    examples, and the one a judge's prompt version is made from)."""
    copied: dict[str, Any] = json.loads(json.dumps(definition))  # a deep copy, as it is stored
    for key in () if judge_settings else JUDGE_ONLY_SETTINGS:
        copied.pop(key, None)
    if not copied.get("examples"):
        copied.pop("examples", None)  # rubrics without chosen examples keep the hash they always had
    if not copied.get("side_by_side"):
        copied.pop("side_by_side", None)
    scale = copied.get("scale")
    for key in ("categories", "order", "lowest", "highest"):  # nor do scales without categories or numbers
        if isinstance(scale, dict) and key in scale and scale[key] in (None, []):
            del scale[key]
    canonical = json.dumps(copied, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


# --------------------------------------------------------------------------- the rubric


@dataclass(frozen=True)
class Rubric(Strict):
    id: str
    name: str
    version: str
    description: str
    scale: Scale
    fields: list[ItemField]
    dimensions: list[Dimension]
    instructions: str = ""
    task_type_field: str | None = None
    task_types: list[TaskType] = field(default_factory=list)
    definitions: list[Definition] = field(default_factory=list)
    overall: Literal["weighted_mean", "label"] = "weighted_mean"
    overall_name: str = "overall"
    verdicts: list[VerdictRule] = field(default_factory=list)
    judge_output_extras: list[str] = field(default_factory=list)  # what a judge returns besides scores (critique)
    few_shot_examples: int = 0  # train-split examples in the judge prompt
    examples: list[FewShotPin] = field(default_factory=list)  # chosen train-split examples, shown first
    side_by_side: list[str] = field(default_factory=list)  # two fields shown in two columns (a pair's responses)

    def __post_init__(self) -> None:
        _check_id("rubric id", self.id, RUBRIC_ID, "a-z, 0-9 and -")
        if not self.dimensions:
            raise ValueError("a rubric has at least one dimension")
        check_range("few_shot_examples", self.few_shot_examples, 0, 10)
        ids = [d.id for d in self.dimensions]
        if len(set(ids)) != len(ids):
            raise ValueError(f"dimension ids must be unique, got {ids}")
        field_names = {f.name for f in self.fields}
        if self.task_type_field and self.task_type_field not in field_names:
            raise ValueError(f"task_type_field {self.task_type_field!r} is not one of the fields")
        labels = set(self.scale.labels)
        task_names = {t.name for t in self.task_types}
        for d in self.dimensions:
            bad = set(d.anchors) - labels
            if bad:
                raise ValueError(f"dimension {d.id!r}: anchors {sorted(bad)} are not scale points {sorted(labels)}")
            unknown = set(d.guidance) - task_names
            if unknown:
                raise ValueError(f"dimension {d.id!r}: guidance for unknown task types {sorted(unknown)}")
            if d.method == "code":
                if d.checker not in checkers.CHECKERS:
                    raise ValueError(
                        f"dimension {d.id!r}: unknown checker {d.checker!r}; known: {sorted(checkers.CHECKERS)}"
                    )
                if d.checker_field not in field_names:
                    raise ValueError(f"dimension {d.id!r}: checker_field {d.checker_field!r} is not a field")
        for rule in self.verdicts:
            unknown = set(rule.dimension_at_least) - set(ids)
            if unknown:
                raise ValueError(f"verdict {rule.verdict!r} names unknown dimensions {sorted(unknown)}")
        if self.side_by_side and (len(self.side_by_side) != 2 or len(set(self.side_by_side)) != 2
                                  or not set(self.side_by_side) <= field_names):
            raise ValueError(f"side_by_side names two different fields, not {self.side_by_side}")
        if self.overall == "label" and len(self.dimensions) != 1:
            raise ValueError("overall = 'label' needs exactly one dimension")
        if self.overall == "weighted_mean" and self.scale.nominal:
            raise ValueError(
                "overall = \"weighted_mean\" (the default when the file has no overall) averages the dimensions' scores, but this scale's "
                "categories are nominal (scale.order = \"nominal\"): a mean of category names means nothing. "
                + ("Write overall = \"label\" (the overall is the one dimension's category)"
                   if len(self.dimensions) == 1 else
                   "Give each nominal dimension a rubric of its own with overall = \"label\"")
                + ", or declare scale.order = \"ordered\" if the categories run from worst to best")

    def definition(self) -> dict[str, Any]:
        """The rubric as plain data (what a database records); `from_data(Rubric, ...)` reads it back."""
        return dataclasses.asdict(self)

    # ---- derived views

    @cached_property
    def dimension_ids(self) -> tuple[str, ...]:
        return tuple(d.id for d in self.dimensions)

    @cached_property
    def judged_dimensions(self) -> tuple[Dimension, ...]:
        return tuple(d for d in self.dimensions if d.method == "judged")

    @cached_property
    def code_dimensions(self) -> tuple[Dimension, ...]:
        return tuple(d for d in self.dimensions if d.method == "code")

    @cached_property
    def thresholds(self) -> dict[str, float]:
        return {d.id: d.threshold for d in self.dimensions if d.threshold is not None}

    def dimension(self, dimension_id: str) -> Dimension:
        for d in self.dimensions:
            if d.id == dimension_id:
                return d
        raise KeyError(dimension_id)

    def anchors(self, dimension: Dimension) -> dict[str, str]:
        """What each scale point means for this dimension, in scale order."""
        merged = {**self.scale.anchors, **dimension.anchors}
        return {label: merged[label] for label in self.scale.labels if label in merged}

    @property
    def asks_in_both_orders(self) -> bool:
        """Whether a judge can be asked with the two paired fields swapped: they are shown side by side and the
        scale's first two categories say which of them wins (A, B, ...)."""
        return len(self.side_by_side) == 2 and bool(self.scale.categories)

    def swapped_fields(self, fields: Mapping[str, Any]) -> dict[str, Any]:
        """The item with its two paired fields exchanged (what the judge reads when asked the other way round)."""
        first, second = self.side_by_side
        return {**fields, first: fields.get(second), second: fields.get(first)}

    def swapped_scores(self, scores: Mapping[str, float]) -> dict[str, float]:
        """Scores given to the swapped item, read back onto the item as stored: the first two categories trade
        places on every judged dimension."""
        a, b = self.scale.points[0], self.scale.points[1]
        judged = {d.id for d in self.judged_dimensions}
        return {d: (b if v == a else a if v == b else v) if d in judged else v for d, v in scores.items()}

    def required_fields(self) -> list[str]:
        return list(self._required_fields)

    @cached_property
    def _required_fields(self) -> tuple[str, ...]:  # asked once per item of an import
        return tuple(f.name for f in self.fields if f.required)

    @cached_property
    def content_hash(self) -> str:
        """Identifies what the experts are asked (a rubric version): the judge's own settings are left out, so a
        change to them makes a new judge prompt version and never a new rubric version."""
        return definition_hash(self.definition())

    @cached_property
    def earlier_hashes(self) -> frozenset[str]:
        """Every hash a release of judge-tui recorded for this definition as a rubric version: the whole
        definition's, and (when only the chosen examples were left out) that without its examples."""
        without_examples = {key: value for key, value in self.definition().items() if key != "examples"}
        return frozenset({self.judge_hash, definition_hash(without_examples, judge_settings=True)})

    @cached_property
    def judge_hash(self) -> str:
        """Identifies the whole definition, the judge's own settings included (part of the judge's prompt
        version)."""
        return definition_hash(self.definition(), judge_settings=True)

    # ---- scoring

    def code_scores(self, fields: Mapping[str, object]) -> dict[str, float]:
        """Scores of the dimensions computed by code, from the item's fields."""
        scores = {}
        for d in self.code_dimensions:
            assert d.checker is not None and d.checker_field is not None  # validated: a code dimension names both
            scores[d.id] = checkers.CHECKERS[d.checker](str(fields.get(d.checker_field) or ""))
        return scores

    def parse_scores(self, raw: Mapping[str, object], *, continuous: bool = False) -> dict[str, float]:
        """Check a mapping of dimension id -> raw value; raises ScoreError naming the dimension."""
        unknown = set(raw) - set(self.dimension_ids)
        if unknown:
            raise ScoreError(
                f"unknown dimension {sorted(unknown)[0]!r}; {self.id} has {', '.join(self.dimension_ids)}"
            )
        parsed: dict[str, float] = {}
        for dim_id, value in raw.items():
            try:
                parse = self.scale.parse_continuous if continuous else self.scale.parse
                parsed[dim_id] = parse(value)
            except ScoreError as exc:
                raise ScoreError(f"{dim_id}: {exc}") from None
        return parsed

    def missing_judged(self, scores: Mapping[str, float]) -> list[str]:
        return [d.id for d in self.judged_dimensions if d.id not in scores]

    def overall_score(self, scores: Mapping[str, float]) -> float | None:
        """The overall score, or None while a dimension is unscored."""
        if any(d not in scores for d in self.dimension_ids):
            return None
        if self.overall == "label":
            return scores[self.dimensions[0].id]
        total_weight = sum(d.weight for d in self.dimensions)
        return sum(d.weight * scores[d.id] for d in self.dimensions) / total_weight

    def verdict(self, scores: Mapping[str, float]) -> str | None:
        overall = self.overall_score(scores)
        if overall is None:
            return None
        if self.overall == "label":
            return self.scale.label(overall)
        for rule in self.verdicts:
            if rule.holds(scores, overall, self.thresholds):
                return rule.verdict
        return None

    def task_type_of(self, fields: Mapping[str, object]) -> str | None:
        if not self.task_type_field:
            return None
        value = fields.get(self.task_type_field)
        return str(value) if value not in (None, "") else None

    def guidance_for(self, dimension: Dimension, task_type: str | None) -> str | None:
        return dimension.guidance.get(task_type) if task_type else None

    def task(self, name: str | None) -> TaskType | None:
        return next((t for t in self.task_types if t.name == name), None)


# --------------------------------------------------------------------------- loading


def _describe_problems(path: Path, exc: DataError) -> str:
    return "\n".join([f"{path}: invalid rubric",
                      *(f"  field {where}: {what}" if where else f"  {what}" for where, what in exc.problems)])


def load_rubric(path: Path) -> Rubric:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RubricError(f"{path}: cannot read rubric file ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise RubricError(f"{path}: not a UTF-8 text file") from None
    return rubric_from_text(text, path)


def rubric_from_text(text: str, path: Path) -> Rubric:
    """A rubric file's text (as a database keeps it with the judge's definition); `path` names it in messages."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RubricError(f"{path}: not valid TOML ({exc})") from None
    except RecursionError:
        raise RubricError(f"{path}: not a rubric (nested too deeply)") from None
    try:
        return from_data(Rubric, raw)
    except DataError as exc:
        raise RubricError(_describe_problems(path, exc)) from None


def rubric_folders() -> list[Path]:
    """Built-in rubrics first; a user's rubric with the same id replaces the built-in one."""
    return [locations.prompts_dir(), locations.user_rubrics_dir()]


_warned: set[str] = set()  # warnings about rubric files already given by this process
_untaken: list[str] = []  # those the command line has not yet taken (take_warnings)

# The first line of a user's rubric file made from a built-in one on the judge screen: it replaces the built-in
# rubric on purpose, so loading it says nothing (a user's own file with a built-in id is warned about).
REPLACES_BUILT_IN = "# This file replaces the built-in rubric of the same id on purpose (made on the judge screen).\n"


def replaces_on_purpose(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(len(REPLACES_BUILT_IN.encode())) == REPLACES_BUILT_IN.encode()
    except OSError:
        return False


def warn_once(text: str) -> None:
    """A warning on stderr, given once by this process."""
    if text not in _warned:
        _warned.add(text)
        _untaken.append(text)


def take_warnings() -> list[str]:
    """What loading the rubric folders found wrong since this was last asked, each problem once per process (a
    broken file left out, a user's file replacing a built-in rubric): the model says nothing itself, the
    command line shows them."""
    taken = list(_untaken)
    _untaken.clear()
    return taken


def load_rubrics(extra_files: Iterable[Path] = ()) -> dict[str, tuple[Rubric, Path]]:
    """Every rubric in the rubric folders plus extra files, by id. Raises RubricError on a broken extra file.

    A broken file in a rubric folder makes only its own rubric unusable: it is left out, so commands that need
    other rubrics go on, and named once by `take_warnings`.
    """
    found: dict[str, tuple[Rubric, Path]] = {}
    paths = [p for folder in rubric_folders() if folder.is_dir() for p in sorted(folder.glob(f"*{RUBRIC_SUFFIX}"))]
    for path in paths:
        try:
            rubric = load_rubric(path)
        except RubricError as exc:
            warn_once(f"{exc}\n  (this rubric is left out until the file is fixed)")
            continue
        if (rubric.id in found and found[rubric.id][1].parent == locations.prompts_dir()
                and not replaces_on_purpose(path)):
            warn_once(f"{path} defines rubric {rubric.id!r} and replaces the built-in rubric of that id "
                       f"(give it another id to keep both)")
        found[rubric.id] = (rubric, path)
    for path in extra_files:
        rubric = load_rubric(Path(path))
        found[rubric.id] = (rubric, Path(path))
    return found


def rubric_from_definition(definition: object, where: str) -> Rubric:
    """A rubric recorded in a database (`where` names it in the error)."""
    try:
        return from_data(Rubric, definition)
    except DataError as exc:
        raise RubricError(_describe_problems(Path(where), exc)) from None


def is_rubric_path(name_or_path: str) -> bool:
    """Whether --rubric names a file rather than a rubric id."""
    candidate = Path(name_or_path)
    return candidate.suffix == ".toml" or candidate.is_file()


def unknown_rubric(name: str, available: Iterable[str]) -> RubricError:
    return RubricError(f"unknown rubric {name!r}; available: {', '.join(sorted(available)) or 'none'} "
                       f"(or pass a file path; `judge-tui rubrics` lists them)")


def get_rubric(name_or_path: str) -> Rubric:
    """A rubric by id (from the rubric folders alone), or from a file path."""
    if is_rubric_path(name_or_path):
        return load_rubric(Path(name_or_path))
    rubrics = load_rubrics()
    if name_or_path not in rubrics:
        raise unknown_rubric(name_or_path, rubrics)
    return rubrics[name_or_path][0]
