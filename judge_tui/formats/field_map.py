"""`--map FIELD=KEY` and `--map FIELD=TEMPLATE`: the fields judge-tui needs, taken from a file's own keys.

A value is a template when it holds a brace: ``--map 'criterion=Recipe must be {dietary_restriction}'`` builds
the field from the text with each ``{KEY}`` replaced by that key's value in the row (``{{`` and ``}}`` are
literal braces). Any other value names one key (a CSV column, a JSON key), which becomes the field; a bare
word is therefore never taken as the field's text. A renamed key leaves the row; a template's keys stay.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from judge_tui.model.errors import UserError

_PIECE = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|[{}]")


@dataclass(frozen=True)
class Template:
    """Literal text and key names, alternating: text, key, text, key, ..., text."""

    pieces: tuple[str, ...]

    @property
    def keys(self) -> tuple[str, ...]:
        return self.pieces[1::2]

    def render(self, row: Mapping[str, Any]) -> str | None:
        """The text for this row, or None when a key it names is missing or null there."""
        out = []
        for index, piece in enumerate(self.pieces):
            if index % 2 == 0:
                out.append(piece)
                continue
            value = row.get(piece)
            if value is None:
                return None
            out.append(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
        return "".join(out)


def is_template(source: str) -> bool:
    return "{" in source or "}" in source


def template(field: str, source: str) -> Template:
    """The template of ``--map FIELD=SOURCE``; raises UserError for a stray brace or an empty ``{}``."""
    pieces: list[str] = []
    text: list[str] = []
    end = 0
    for match in _PIECE.finditer(source):
        text.append(source[end:match.start()])
        end = match.end()
        token = match.group()
        if token in ("{{", "}}"):
            text.append(token[0])
        elif match.group(1) is None:
            raise UserError(f"--map {field}=...: a lone {token!r} in the template; write {{{{ or }}}} for a brace "
                            f"in the text, and {{KEY}} for a key's value")
        elif not match.group(1).strip():
            raise UserError(f"--map {field}=...: the template has {{}} without a key name inside; write {{KEY}}")
        else:
            pieces += ["".join(text), match.group(1).strip()]
            text = []
    pieces.append("".join(text) + source[end:])
    return Template(tuple(pieces))


def parse_mapping(pairs: Iterable[str]) -> dict[str, str]:
    """--map options as {field: key or template}; a template is checked here, so a mistake in it is named
    before the file is read."""
    mapping: dict[str, str] = {}
    for pair in pairs:
        target, sep, source = pair.partition("=")
        target = target.strip()
        if not sep or not target or not source.strip():
            raise UserError(f"--map expects FIELD=KEY (e.g. --map id=trace_id) or FIELD='text with {{KEY}}' "
                            f"(e.g. --map 'criterion=Recipe must be {{dietary_restriction}}'), got {pair!r}")
        if target in mapping:
            raise UserError(f"--map names the field {target!r} twice")
        if is_template(source):
            template(target, source)
            mapping[target] = source
        else:
            mapping[target] = source.strip()
    return mapping


def named_keys(mapping: Mapping[str, str]) -> list[str]:
    """Every key of the file the mapping reads: renamed keys and the keys its templates name."""
    keys: list[str] = []
    for target, source in mapping.items():
        for key in template(target, source).keys if is_template(source) else (source,):
            if key not in keys:
                keys.append(key)
    return keys


def apply_mapping(data: Mapping[str, Any], mapping: Mapping[str, str]) -> dict[str, Any]:
    """The row with each renamed key moved to its field and each template's text in its field (left out
    where the row lacks a key the template names); other keys keep their names."""
    if not mapping:
        return dict(data)
    renamed = {source for source in mapping.values() if not is_template(source)}
    row = {key: value for key, value in data.items() if key not in renamed}
    for target, source in mapping.items():
        if is_template(source):
            row.pop(target, None)
            text = template(target, source).render(data)
            if text is not None:
                row[target] = text
        elif source in data:
            row[target] = data[source]
    return row


def template_gaps(data: Mapping[str, Any], mapping: Mapping[str, str]) -> list[str]:
    """What this row lacks for the mapping's templates: '--map FIELD: no "KEY"' for each."""
    gaps = []
    for target, source in mapping.items():
        if is_template(source):
            missing = [key for key in template(target, source).keys if data.get(key) is None]
            if missing:
                gaps.append(f"--map {target}=...: the template needs {', '.join(map(repr, missing))}, which "
                            f"this row lacks")
    return gaps


def keys_of(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """Every key any row has, in the order they first appear."""
    seen: dict[str, None] = {}
    for row in rows:
        seen.update(dict.fromkeys(row))
    return list(seen)
