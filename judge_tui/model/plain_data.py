"""Plain data (parsed JSON or TOML) into the model's dataclasses: rubrics and settings.

pydantic validates: it checks each field's type, converts what it may (an integer where a float is declared) and
names every problem with its place. Loading it and building its validators is also the largest part of starting
the app (about 60 ms before the first item could be drawn), so data that already has exactly the declared types
(what judge-tui wrote to its database, settings and rubric files as judge-tui writes them) is built directly,
giving the same objects pydantic would; anything else goes to pydantic, which converts it or says what is wrong.
The rules beyond types (ranges, patterns, consistency) live in each class's `__post_init__`, so both ways apply
them, and so does building an object in code.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from functools import cache
from typing import Any, ClassVar, Literal, TypeVar, cast

T = TypeVar("T")


class Strict:
    """Base of the model's dataclasses: a key that is not a field is an error, not ignored."""

    __pydantic_config__: ClassVar[dict[str, str]] = {"extra": "forbid"}


class DataError(ValueError):
    """Data that does not fit a model; `problems` holds each problem as (where, what is wrong), where being the
    path of keys and list positions to it, empty for the whole."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{where}: {what}" if where else what for where, what in problems))
        self.problems = problems


def from_data(cls: type[T], data: object) -> T:
    """`cls` built from `data`, checked; raises DataError naming each problem and where it is."""
    try:
        return cast(T, _build(cls, data))
    except _NotExact:
        pass
    from pydantic import ValidationError

    try:
        return cast(T, _validator(cls).validate_python(data))
    except ValidationError as exc:
        raise DataError([(".".join(str(part) for part in error["loc"]), _problem(error))
                         for error in exc.errors()]) from None


def _problem(error: Any) -> str:
    if error["type"] == "unexpected_keyword_argument":
        return "unknown field; check its spelling"
    return str(error["msg"]).removeprefix("Value error, ")  # a rule of __post_init__: its own words


def check_range(name: str, value: float, low: float | None = None, high: float | None = None, *,
                above: bool = False, below: bool = False) -> None:
    """A field's bounds, inclusive unless `above` (strictly above `low`) or `below` (strictly below `high`)."""
    if value != value:  # NaN (TOML's nan, JSON's NaN) compares false with every bound
        raise ValueError(f"{name} must be a number, not nan")
    too_low = low is not None and (value <= low if above else value < low)
    too_high = high is not None and (value >= high if below else value > high)
    if too_low or too_high:
        parts = []
        if low is not None:
            parts.append(f"{'above' if above else 'at least'} {low:g}")
        if high is not None:
            parts.append(f"{'below' if below else 'at most'} {high:g}")
        raise ValueError(f"{name} must be {' and '.join(parts)}, not {value!r}")


class _NotExact(Exception):
    """The data is not exactly of the declared types (or breaks a rule): pydantic converts it or says why."""


_validators: dict[type, Any] = {}


def _validator(cls: type) -> Any:
    if cls not in _validators:
        from pydantic import TypeAdapter

        _validators[cls] = TypeAdapter(cls)
    return _validators[cls]


@cache
def _fields(cls: type) -> dict[str, tuple[Any, bool]]:
    """Each field's declared type and whether it is required."""
    hints = typing.get_type_hints(cls)
    return {field.name: (hints[field.name],
                         field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING)
            for field in dataclasses.fields(cls)}


def _build(declared: Any, value: object) -> Any:
    if isinstance(declared, type) and dataclasses.is_dataclass(declared):
        if type(value) is not dict:
            raise _NotExact
        fields = _fields(declared)
        if not value.keys() <= fields.keys() or any(required and name not in value
                                                    for name, (_, required) in fields.items()):
            raise _NotExact
        try:
            return declared(**{name: _build(fields[name][0], item) for name, item in value.items()})
        except ValueError:
            raise _NotExact from None  # a rule of __post_init__: pydantic reports it with its place
    origin, args = typing.get_origin(declared), typing.get_args(declared)
    if origin is list and type(value) is list:
        return [_build(args[0], item) for item in value]
    if origin is dict and type(value) is dict and args[0] is str:
        if any(type(key) is not str for key in value):
            raise _NotExact
        return {key: _build(args[1], item) for key, item in value.items()}
    if origin is Literal:
        if any(type(value) is type(choice) and value == choice for choice in args):
            return value
        raise _NotExact
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        others = [arg for arg in args if arg is not type(None)]
        if len(others) == 1:
            return _build(others[0], value)
        raise _NotExact
    if declared is float and type(value) in (int, float):
        try:
            return float(value)  # type: ignore[arg-type]
        except OverflowError:
            raise _NotExact from None
    if declared in (str, int, bool) and type(value) is declared:
        return value
    raise _NotExact
