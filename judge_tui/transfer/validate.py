"""Checking records read from a file against a rubric, before anything is written.

Pure functions: the database's current state comes in as plain dicts, so an import can find every problem
in a file first and then write all of it, or nothing.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from judge_tui.formats import ID_KEYS, Problem, RatingRecord, Record, first_present
from judge_tui.formats.field_map import apply_mapping
from judge_tui.formats.numbers import short_text
from judge_tui.model.number_parsing import parse_number
from judge_tui.model.records import (
    MAX_REPEAT,
    MAX_SECONDS,
    SPLITS,
    Draft,
    Item,
    Rating,
    content_hash,
    rater_id_problem,
)
from judge_tui.model.rubrics import Rubric, ScoreError

MAX_ID_LENGTH = 200
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# Rating forms round the overall to two decimals (0.6875 -> 0.69, 0.625 -> 0.63); the small extra absorbs
# float error, for which 0.63 - 0.625 is a hair above 0.005.
STATED_OVERALL_TOLERANCE = 0.005 + 1e-9


@dataclass
class Checked:
    """What a file amounts to once checked: the items and ratings to write, or the problems that stop it."""

    items: list[Item] = field(default_factory=list)
    ratings: list[Rating] = field(default_factory=list)
    marks: list[Draft] = field(default_factory=list)  # items skipped or flagged without a rating
    problems: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)


# --------------------------------------------------------------------------- small checks


def lacking_required(rubric: Rubric, present: Iterable[str]) -> list[str]:
    """The fields the rubric needs to rate an item that none of the names present provides."""
    present = set(present)
    return [name for name in rubric.required_fields() if name not in present]


def _words(name: str) -> set[str]:
    return {word for word in re.split(r"[^a-z0-9]+", name.lower()) if word}


def suggested_maps(rubric: Rubric, lacking: Iterable[str], sources: Iterable[str]) -> dict[str, str]:
    """{field: source} for each lacking field one source name plausibly holds (--map FIELD=SOURCE).

    A source fits when it shares the most words with the field (``code`` for ``source_code``), and only
    sources that are not already a field of the rubric or an id count; a tie suggests nothing.
    """
    taken = {f.name for f in rubric.fields} | set(ID_KEYS) | {"split"}
    free = [source for source in sources if source not in taken]
    maps: dict[str, str] = {}
    for name in lacking:
        scored = sorted(((len(_words(name) & _words(source)), source) for source in free
                         if source not in maps.values()), reverse=True)
        if scored and scored[0][0] and (len(scored) == 1 or scored[1][0] < scored[0][0]):
            maps[name] = scored[0][1]
    return maps


def map_hint(rubric: Rubric, lacking: list[str], sources: list[str], otherwise: str) -> str:
    """The --map options that would fit, when every lacking field has a likely source; else the advice given."""
    maps = suggested_maps(rubric, lacking, sources)
    if len(maps) == len(lacking):
        return "use " + " ".join(f"--map {name}={source}" for name, source in maps.items())
    return otherwise


def quoted(names: Iterable[str]) -> str:
    return ", ".join(f'"{name}"' for name in names)


def check_id(raw: Any) -> str:
    """An item id as text; raises ValueError saying what is wrong with it."""
    if isinstance(raw, bool) or not isinstance(raw, str | int):
        raise ValueError(f"the item id must be text or a whole number, not {raw!r}")
    text = str(raw)
    if not text.strip():
        raise ValueError("the item id is empty")
    if _CONTROL.search(text):
        raise ValueError(f"the item id {text!r} contains control characters")
    if len(text) > MAX_ID_LENGTH:
        raise ValueError(f"the item id is longer than {MAX_ID_LENGTH} characters")
    return text


def _number(raw: Any, what: str, *, whole: bool = False, most: float) -> float:
    try:
        value = parse_number(raw)
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None
    if value < 0 or value > most:
        raise ValueError(f"{what} must be a number from 0 to {short_text(most)}, not {raw!r}")
    if whole and value != int(value):
        raise ValueError(f"{what} must be a whole number, not {raw!r}")
    return value


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


# --------------------------------------------------------------------------- items


def row_id_key(values: Mapping[str, Any]) -> str | None:
    """Which key of an item row holds its id: the first of ID_KEYS present (any others stay fields)."""
    key, _value = first_present(values, ID_KEYS)
    return key


def guess_rubric(rows: list[dict[str, Any]], rubrics: Mapping[str, Rubric]) -> Rubric | None:
    """The one rubric whose required fields every row has, if exactly one fits."""
    fitting = [r for r in rubrics.values() if rows and all(
        all(not _missing(row.get(name)) for name in r.required_fields()) for row in rows)]
    return fitting[0] if len(fitting) == 1 else None


def check_items(
    rows: list[tuple[int, dict[str, Any]]], rubric: Rubric, *, split: str | None,
    existing: Mapping[str, tuple[str, str]],
) -> Checked:
    """rows: (line, values with "id", fields and optional "split"), mapping already applied.

    existing: {item id: (rubric id, content hash)} for ids of this file already in the database.
    """
    checked = Checked()
    first_line: dict[str, int] = {}
    for line, data in rows:
        values = dict(data)
        id_key = row_id_key(values)
        raw_id = values.pop(id_key) if id_key else None
        if raw_id is None:
            checked.problems.append(Problem(line, "missing required field \"id\" (or \"item_id\" / \"submission_id\")"))
            continue
        try:
            item_id = check_id(raw_id)
        except ValueError as exc:
            checked.problems.append(Problem(line, str(exc)))
            continue
        item_split = values.pop("split", None)
        if split:
            item_split = split
        if _missing(item_split):
            item_split = None
        elif item_split not in SPLITS:
            checked.problems.append(Problem(line, f"split {item_split!r} is not one of {', '.join(SPLITS)}"))
            continue
        problem = item_fields_problem(values, rubric)
        if problem:
            checked.problems.append(Problem(line, f"item {item_id!r}: {problem}"))
            continue
        if item_id in first_line:
            checked.problems.append(Problem(line, f"duplicate id {item_id!r} (first at line {first_line[item_id]})"))
            continue
        first_line[item_id] = line
        digest = ""  # computed by the store as it writes, unless the id exists and must be compared now
        if item_id in existing:
            digest = content_hash(values)
            old_rubric, old_hash = existing[item_id]
            if old_rubric != rubric.id:
                checked.problems.append(Problem(line, f"item {item_id!r} already exists under rubric {old_rubric!r}"))
                continue
            if old_hash != digest:
                checked.problems.append(Problem(
                    line, f"item {item_id!r} already exists with different content (give the new version a new id)"))
                continue
        checked.items.append(Item(id=item_id, rubric=rubric.id, fields=values, task_type=rubric.task_type_of(values),
                                  split=item_split, content_hash=digest))
    return checked


def item_rows(records: Iterable[Record], mapping: Mapping[str, str]) -> list[tuple[int, dict[str, Any]]]:
    return [(record.line, apply_mapping(record.data, mapping)) for record in records]


# --------------------------------------------------------------------------- ratings


def normalise_keys(raw: Mapping[str, Any], rubric: Rubric) -> dict[str, Any]:
    """Accept "<dimension>_score" for a dimension (the rating form's r_score is cis's r)."""
    dims = set(rubric.dimension_ids)
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in dims and key.endswith("_score") and key[: -len("_score")] in dims:
            key = key[: -len("_score")]
        out[key] = value
    return out


def rating_scores(
    rubric: Rubric, raw: Mapping[str, Any], *, kind: str, fields: Mapping[str, Any],
) -> tuple[dict[str, float], list[str]]:
    """Checked scores for one rating (raises ScoreError), plus warnings.

    Humans score on the rubric's steps and must score every judged dimension; a judge's scores may lie
    between steps (kept exactly) and may leave dimensions out. Dimensions computed by code are filled in.
    """
    scores = rubric.parse_scores(normalise_keys(raw, rubric), continuous=(kind != "human"))
    warnings: list[str] = []
    if kind == "human":
        missing = rubric.missing_judged(scores)
        if missing:
            raise ScoreError(f"missing score for {', '.join(missing)} (a person's rating scores every dimension)")
    elif not any(d.id in scores for d in rubric.judged_dimensions):
        raise ScoreError(f"no scores for any of {', '.join(d.id for d in rubric.judged_dimensions)}")
    for dim_id, value in rubric.code_scores(fields).items():
        if dim_id not in scores:
            scores[dim_id] = value
        elif not math.isclose(scores[dim_id], value, abs_tol=1e-9):
            warnings.append(f"{dim_id} is {short_text(scores[dim_id])} in the file but the checker computes "
                            f"{short_text(value)}")
    return {d: scores[d] for d in rubric.dimension_ids if d in scores}, warnings


def check_ratings(
    records: Iterable[RatingRecord], rubric: Rubric, *, rater: str, kind: str,
    items: Mapping[str, Item], source: str,
) -> Checked:
    """records against the rubric and the items they name (items: id -> Item for the ids found in the store)."""
    checked = Checked()
    problem = rater_id_problem(rater, kind)
    if problem:
        checked.problems.append(Problem(0, f"rater {rater!r} cannot be used: {problem}; pass another id with "
                                           "--rater"))
        return checked
    first_line: dict[tuple[str, int], int] = {}
    for record in records:
        line = record.line
        try:
            item_id = check_id(record.item_id)
        except ValueError as exc:
            checked.problems.append(Problem(line, str(exc)))
            continue
        item = items.get(item_id)
        if item is None:
            checked.problems.append(Problem(line, f"unknown item id {item_id!r} (import the items first)"))
            continue
        if item.rubric != rubric.id:
            checked.problems.append(Problem(line, f"item {item_id!r} belongs to rubric {item.rubric!r}, "
                                                  f"not {rubric.id!r}"))
            continue
        try:
            skipped = _yes_no(record.skipped, "skipped")
            flagged, flag_reason = _flag(record.flagged, record.flag_reason)
            if not record.scores and (skipped or flagged):
                mark = Draft(item_id, rater, skipped=skipped, flagged=flagged, flag_reason=flag_reason)
            elif skipped:
                raise ValueError("a skipped item has no scores: remove its scores, or set \"skipped\" to false "
                                 "to import it as a rating")
            else:
                mark = None
                scores, notes_on_scores = rating_scores(rubric, record.scores, kind=kind, fields=item.fields)
            seconds = None if record.seconds is None else _number(record.seconds, "seconds", most=MAX_SECONDS)
            repeat = int(_number(record.repeat or 0, "repeat", whole=True, most=MAX_REPEAT))
        except (ScoreError, ValueError) as exc:
            checked.problems.append(Problem(line, f"item {item_id!r}: {exc}"))
            continue
        if mark is not None and repeat:
            checked.problems.append(Problem(line, f"item {item_id!r}: a skip or flag without scores marks the "
                                                  f"item itself, not a repeat run (repeat {repeat})"))
            continue
        if kind == "human" and repeat:
            checked.problems.append(Problem(line, f"item {item_id!r}: repeat {repeat} is for a judge's extra runs; "
                                                  "a person rates an item once"))
            continue
        key = (item_id, repeat)
        if key in first_line:
            checked.problems.append(Problem(line, f"duplicate rating of item {item_id!r} "
                                                  f"(first at line {first_line[key]})"))
            continue
        first_line[key] = line
        if mark is not None:
            checked.marks.append(mark)
            if record.notes.strip():
                checked.warnings.append(Problem(line, f"item {item_id!r}: notes of an item skipped or flagged "
                                                      "without scores are not kept (only the mark and its reason)"))
            continue
        checked.warnings.extend(Problem(line, f"item {item_id!r}: {text}") for text in notes_on_scores)
        overall, verdict = rubric.overall_score(scores), rubric.verdict(scores)
        differences = _stated_differences(record, item, overall, verdict)
        checked.warnings.extend(differences.values())
        details = dict(record.details)
        details.pop("task_type", None)
        # What the file claimed is kept only where it disagrees with the rubric, for the record.
        if "overall" in differences:
            details["stated_overall"] = record.stated_overall
        if "verdict" in differences:
            details["stated_verdict"] = record.stated_verdict
        checked.ratings.append(Rating(
            item_id=item_id, rater_id=rater, rubric_version_id=0, scores=scores, overall=overall, verdict=verdict,
            notes=record.notes, seconds=seconds, repeat=repeat, source=source, details=details,
            flagged=flagged, flag_reason=flag_reason,
        ))
    return checked


_FLAG_WORDS = {"": False, "0": False, "false": False, "no": False, "1": True, "true": True, "yes": True}


def _yes_no(raw: Any, name: str) -> bool:
    """true/false (or in CSV 1/0, yes/no, empty; missing is false)."""
    if isinstance(raw, str) and raw.strip().lower() in _FLAG_WORDS:
        raw = _FLAG_WORDS[raw.strip().lower()]
    if raw is None:
        raw = False
    if not isinstance(raw, bool):
        raise ValueError(f"\"{name}\" must be true or false, not {raw!r}")
    return raw


def _flag(raw: Any, reason: Any) -> tuple[bool, str]:
    """A rating's flag and reason: true/false (or in CSV 1/0, yes/no, empty) and text."""
    raw = _yes_no(raw, "flagged")
    if reason is None:
        reason = ""
    if not isinstance(reason, str):
        raise ValueError(f"\"flag_reason\" must be text, not {reason!r}")
    return raw, reason if raw else ""


def _stated_differences(
    record: RatingRecord, item: Item, overall: float | None, verdict: str | None,
) -> dict[str, Problem]:
    """Warnings, by what differs, where the file states an overall, verdict or task type other than ours."""
    found: dict[str, Problem] = {}
    stated = record.stated_overall
    if isinstance(stated, int | float) and not isinstance(stated, bool) and overall is not None \
            and abs(stated - overall) > STATED_OVERALL_TOLERANCE:
        found["overall"] = (Problem(record.line, f"item {item.id!r}: the file's overall {short_text(stated)} "
                                                 f"differs from the "
                                          f"rubric's {short_text(overall)}; keeping the rubric's"))
    if isinstance(record.stated_verdict, str) and verdict is not None and record.stated_verdict != verdict:
        found["verdict"] = (Problem(record.line, f"item {item.id!r}: the file's verdict {record.stated_verdict!r} differs "
                                          f"from the rubric's {verdict!r}; keeping the rubric's"))
    task_type = record.details.get("task_type")
    if task_type and item.task_type and task_type != item.task_type:
        found["task_type"] = (Problem(record.line, f"item {item.id!r}: task type {task_type!r} in the file, "
                                          f"{item.task_type!r} in the database"))
    return found


# --------------------------------------------------------------------------- rows of another database
# A merge or a bundle brings rows another judge-tui wrote, or a hand edit, or a damaged copy: each passes the
# checks a file's rows pass above (rating_scores, check_id, _number, _flag, the rater id rule), so no road in
# admits what import-ratings refuses. Each returns why the row cannot come in, or None.

RATER_KINDS_WRITTEN = ("human", "judge")  # the kinds of rater judge-tui makes (the schema also allows "code")


def stored_json(text: Any, what: str, shape: type) -> Any:
    """A JSON column's value; raises ValueError when it is not JSON of that shape."""
    if not isinstance(text, str):
        raise ValueError(f"{what} must be JSON text, not {text!r}")
    try:
        value = _STRICT_JSON.decode(text)
    except ValueError as exc:
        raise ValueError(f"{what} is not JSON ({exc})") from None
    if not isinstance(value, shape):
        raise ValueError(f"{what} must be a JSON {'object' if shape is dict else 'list'}, not {text[:60]!r}")
    return value


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


_STRICT_JSON = json.JSONDecoder(parse_constant=_refuse_constant)  # NaN and Infinity are not JSON numbers


def stored_rater_problem(row: Mapping[str, Any]) -> str | None:
    """A raters row: a kind judge-tui makes, an id the rater id rule allows for it, and a name that is one
    line of text."""
    if row["kind"] not in RATER_KINDS_WRITTEN:
        return f"kind {row['kind']!r} is not one judge-tui rates with ({' or '.join(RATER_KINDS_WRITTEN)})"
    return rater_id_problem(row["id"], row["kind"]) or expert_name_problem(row.get("display_name", ""))


MAX_NAME_LENGTH = 200
MAX_SUMMARY_LENGTH = 100_000  # summary notes: pages of patterns, never a whole file pasted by mistake


def expert_name_problem(name: Any) -> str | None:
    """An expert's name as typed on the finish screen or given by a rating form: one line of text."""
    if not isinstance(name, str):
        return f"the expert's name must be text, not {name!r}"
    if len(name) > MAX_NAME_LENGTH or _CONTROL.search(name):
        return f"the expert's name must be one line of at most {MAX_NAME_LENGTH} characters, not {name[:60]!r}"
    return None


# How far ahead of this machine's clock another machine's may run: a date beyond it was not made by a clock but
# typed (a rubric version dated 2099 would stay the newest for ever, and every later change would be ignored).
CLOCK_SKEW = timedelta(hours=1)


def time_problem(value: Any, what: str, *, at: datetime | None = None) -> str | None:
    """A date and time as judge-tui stores them ("2026-01-15T14:30:00.000+00:00"; a time without a zone is
    UTC): one that cannot be read, or is later than now (`at`) by more than CLOCK_SKEW, is refused."""
    moment = None
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    if moment is None:
        return f"{what} must be a date and time such as \"2026-01-15T14:30:00Z\", not {value!r}"
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    at = at or datetime.now(UTC)
    if moment - at > CLOCK_SKEW:
        return (f"{what} {value!r} is in the future: later than this machine's clock ({at:%Y-%m-%d %H:%M} UTC) by "
                f"more than the {CLOCK_SKEW.seconds // 3600} hour two clocks may differ")
    return None


def finished_at_problem(value: Any) -> str | None:
    """When a study was finished: "" (not known) or a date and time such as "2026-01-15T14:30:00Z", not in the
    future."""
    if value == "":
        return None
    return time_problem(value, "a completion date")


def stored_finish_problem(row: Mapping[str, Any]) -> str | None:
    """A study_finishes row: an expert's id, a rubric, summary notes as text and when they finished."""
    problem = rater_id_problem(row["rater_id"], "human")
    if problem:
        return problem
    if not isinstance(row["rubric"], str) or not row["rubric"].strip():
        return f"rubric must name a rubric, not {row['rubric']!r}"
    notes = row["summary_notes"]
    if not isinstance(notes, str) or len(notes) > MAX_SUMMARY_LENGTH:
        return f"summary notes must be text of at most {MAX_SUMMARY_LENGTH} characters"
    return finished_at_problem(row["finished_at"])


def stored_item_problem(row: Mapping[str, Any], rubric: Rubric | None) -> str | None:
    """An items row: an id as an import takes it, fields a JSON object the rubric can show, the content hash of
    those fields, a known split."""
    try:
        check_id(row["id"])
        fields = stored_json(row["fields"], "fields", dict)
    except ValueError as exc:
        return str(exc)
    if row["split"] is not None and row["split"] not in SPLITS:
        return f"split {row['split']!r} is not one of {', '.join(SPLITS)}"
    if row["task_type"] is not None and not isinstance(row["task_type"], str):
        return f"task_type must be text, not {row['task_type']!r}"
    if rubric is None:
        return f"rubric {row['rubric']!r} has no recorded definition in either database"
    return item_fields_problem(fields, rubric) or stored_hash_problem(row, fields)


def stored_hash_problem(row: Mapping[str, Any], fields: dict[str, Any]) -> str | None:
    """An items row's content hash, computed again from its fields: a merge matches items by it, so a hash left
    as it was on edited text would take the other side's ratings onto text their raters never saw."""
    digest = content_hash(fields)
    if row["content_hash"] != digest:
        return (f"content_hash {row['content_hash']!r} is not the hash of its fields ({digest!r}): the item's text "
                "was changed after it was stored")
    return None


_SHAPED = (dict, list)  # a tuple, not `dict | list`: that makes a new union at every look, once per field and item


def item_fields_problem(values: Mapping[str, Any], rubric: Rubric) -> str | None:
    """Why an item's fields cannot be rated under the rubric: a field that is not text, a required one missing."""
    shaped = [f.name for f in rubric.fields if isinstance(values.get(f.name), _SHAPED)]
    if shaped:
        return (f"field {shaped[0]!r} must be text, not "
                f"{'an object' if isinstance(values[shaped[0]], dict) else 'a list'} "
                "(the rating screen shows it as written)")
    missing = [name for name in rubric.required_fields() if _missing(values.get(name))]
    if missing:
        return f"missing required field {quoted(missing)} (rubric {rubric.id})"
    return None


def stored_rating_problem(row: Mapping[str, Any], rubric: Rubric, kind: str,
                          fields: Mapping[str, Any]) -> str | None:
    """A ratings row against its rubric version, as check_ratings checks a file's rating, plus the columns
    judge-tui computes (overall, verdict), which must be what the rubric makes of the scores."""
    return stored_rating_columns_problem(row) or stored_scores_problem(
        rubric, kind, row["scores"], row["overall"], row["verdict"], fields)


def stored_rating_columns_problem(row: Mapping[str, Any]) -> str | None:
    """A ratings row's columns that do not depend on its rubric: item id, seconds, repeat, details, flag, notes."""
    try:
        check_id(row["item_id"])
        if row["seconds"] is not None:
            _number(row["seconds"], "seconds", most=MAX_SECONDS)
        _number(row["repeat"], "repeat", whole=True, most=MAX_REPEAT)
        if row["details"] != "{}":  # the common case, read at a glance
            stored_json(row["details"], "details", dict)
        if row["flagged"] not in (0, 1):
            raise ValueError(f"flagged must be 0 or 1, not {row['flagged']!r}")
        _flag(bool(row["flagged"]), row["flag_reason"])
        if not isinstance(row["notes"], str):
            raise ValueError(f"notes must be text, not {row['notes']!r}")
    except ValueError as exc:
        return str(exc)
    return None


def stored_scores_problem(rubric: Rubric, kind: str, scores_text: Any, stated: Any, stated_verdict: Any,
                          fields: Mapping[str, Any]) -> str | None:
    """A stored rating's scores, overall and verdict under its rubric. Depends on the item's fields only
    through the rubric's dimensions computed by code (`fields` is unused when it has none)."""
    try:
        raw = stored_json(scores_text, "scores", dict)
        wrong = [d for d, v in raw.items() if isinstance(v, bool) or not isinstance(v, int | float)]
        if wrong:
            raise ScoreError(f"{wrong[0]}: {raw[wrong[0]]!r} is not a score (stored scores are numbers)")
        scores, _notes = rating_scores(rubric, raw, kind=kind, fields=fields)
    except (ScoreError, ValueError) as exc:
        return str(exc)
    overall, verdict = rubric.overall_score(scores), rubric.verdict(scores)
    if stated is not None and (isinstance(stated, bool) or not isinstance(stated, int | float) or overall is None
                               or abs(stated - overall) > STATED_OVERALL_TOLERANCE):
        return f"overall {stated!r} is not what rubric {rubric.id} makes of the scores ({overall!r})"
    if stated_verdict is not None and stated_verdict != verdict:
        return f"verdict {stated_verdict!r} is not what rubric {rubric.id} makes of the scores ({verdict!r})"
    return None


def stored_mark_problem(row: Mapping[str, Any]) -> str | None:
    """A drafts row holding only a skip or flag mark (a merge copies nothing else of a draft)."""
    try:
        check_id(row["item_id"])
        for name in ("skipped", "flagged"):
            if row[name] not in (0, 1):
                raise ValueError(f"{name} must be 0 or 1, not {row[name]!r}")
        _flag(bool(row["flagged"]), row["flag_reason"])
    except ValueError as exc:
        return str(exc)
    return None
