"""`judge-tui import` and `judge-tui import-ratings`: read a file, check every row, then write it all at once.

A file with any problem imports nothing: each problem is reported as FILE:LINE: what is wrong. A clean file
is written in one transaction, and importing it again changes nothing.
"""

from __future__ import annotations

import functools
import gc
import json
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from judge_tui.formats import (
    ID_KEYS,
    Parsed,
    Problem,
    csv_rows,
    items_json,
    judge_output,
    promptfoo,
    rating_form,
    ratings_rows,
    reasoning_json,
)
from judge_tui.formats.field_map import apply_mapping, keys_of, named_keys, parse_mapping, template_gaps
from judge_tui.formats.numbers import plural, short_text, word_for
from judge_tui.formats.text import (
    TooLarge,
    Unreadable,
    decode,
    file_lines,
    flaw,
    load_json,
    one_json_document,
    parse_json,
)
from judge_tui.model.errors import UserError
from judge_tui.model.records import Draft, Item, Rating
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Finish, ItemConflict, Store
from judge_tui.store.rubric_choice import available_rubrics, resolve_rubric
from judge_tui.transfer.validate import (
    Checked,
    check_items,
    check_ratings,
    expert_name_problem,
    finished_at_problem,
    guess_rubric,
    item_rows,
    lacking_required,
    row_id_key,
    suggested_maps,
)

MAX_SHOWN = 20

ITEM_READERS = {
    "json": items_json.read_array,
    "jsonl": items_json.read_lines,
    "csv": csv_rows.read,
    "promptfoo": promptfoo.read,
}
RATING_READERS = {
    "rating-form": rating_form.read,
    "judge-output": judge_output.read,
    "reasoning-json": reasoning_json.read,
    "jsonl": ratings_rows.read_jsonl,
    "csv": ratings_rows.read_csv,
}


# The ratings formats whose keys --map can rename.
ROW_READERS = {"jsonl": ratings_rows.read_jsonl, "csv": ratings_rows.read_csv}


class ImportFailed(UserError):
    """A file with problems: nothing was imported. The message lists FILE:LINE: problem for each."""

    def __init__(self, path: Path | str, problems: list[Problem]) -> None:
        self.path = str(path)
        self.problems = sorted(problems, key=lambda p: p.line)
        shown = [f"{_where(self.path, p.line)}: {p.message}" for p in self.problems[:MAX_SHOWN]]
        if len(self.problems) > MAX_SHOWN:
            shown.append(f"... and {len(self.problems) - MAX_SHOWN} more errors")
        count = len(self.problems)
        super().__init__(f"nothing imported from {self.path}: {plural(count, 'error')}\n"
                         + "\n".join(shown))


def _where(path: str, line: int) -> str:
    return f"{path}:{line}" if line else path


@dataclass
class ImportResult:
    path: str
    format: str
    rubric: str
    items: dict[str, int] = field(default_factory=lambda: {"added": 0, "unchanged": 0, "split_changed": 0})
    ratings: dict[str, int] = field(default_factory=lambda: {"added": 0, "updated": 0, "unchanged": 0})
    marks: dict[str, int] = field(default_factory=lambda: {"added": 0, "updated": 0, "unchanged": 0})
    raters: list[str] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)

    def summary(self) -> str:
        parts = []
        if sum(self.items.values()):
            moved = f", {self.items['split_changed']} moved to another split" if self.items["split_changed"] else ""
            parts.append(f"items: {self.items['added']} added, {self.items['unchanged']} unchanged{moved}")
        if sum(self.ratings.values()):
            parts.append(f"ratings: {self.ratings['added']} added, {self.ratings['updated']} updated, "
                         f"{self.ratings['unchanged']} unchanged ({', '.join(self.raters)})")
        if sum(self.marks.values()):
            parts.append(f"skipped or flagged without a rating: {self.marks['added']} added, "
                         f"{self.marks['updated']} updated, {self.marks['unchanged']} unchanged")
        return f"{self.path} ({self.format}, rubric {self.rubric}): " + ("; ".join(parts) or "nothing to import")

    def warning_lines(self) -> list[str]:
        ordered = sorted(self.warnings, key=lambda w: w.line)
        return [f"{_where(self.path, w.line)}: warning: {w.message}" for w in ordered]


# --------------------------------------------------------------------------- reading


MAX_FILE_BYTES = 2_000_000_000  # 2 GB: more than any study's file, less than would exhaust a laptop's memory
# A JSON document (an array, promptfoo's results, a rating form) is parsed whole, which takes about three times
# its size in memory at the peak; JSON Lines and CSV are read line by line and take about their own size.
MAX_DOCUMENT_BYTES = 500_000_000
STREAMED = ("jsonl", "csv")  # the formats read a line at a time
TO_JSON_LINES = "jq -c '.[]' FILE.json > FILE.jsonl"


def _regular_file_size(path: Path) -> int:
    """The size of a regular file. A device such as /dev/zero, a pipe or a folder is refused: it would be
    read until memory runs out, or cannot be read at all."""
    try:
        status = path.stat()
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror})") from None
    if stat.S_ISDIR(status.st_mode):
        raise UserError(f"{path}: is a folder, not a file")
    if not stat.S_ISREG(status.st_mode):
        raise UserError(f"{path}: not a regular file (a device, pipe or socket); judge-tui reads files saved "
                        f"on disk: save the data to a file first")
    if status.st_size > MAX_FILE_BYTES:
        raise _too_large(path, MAX_FILE_BYTES)
    return status.st_size


def _too_large(path: Path, limit: int) -> UserError:
    if limit == MAX_FILE_BYTES:
        return UserError(f"{path}: larger than {short_text(MAX_FILE_BYTES / 1e9)} GB, the most judge-tui "
                         f"imports at once; "
                         f"split it into smaller files")
    return UserError(f"{path}: larger than {short_text(limit / 1e6)} MB, the most judge-tui reads as one JSON "
                     f"document (it "
                     f"is parsed whole, which takes about three times its size in memory). JSON Lines and CSV are "
                     f"read line by line up to {short_text(MAX_FILE_BYTES / 1e9)} GB: write a JSON array as JSON Lines "
                     f"({TO_JSON_LINES}), or pass --format jsonl if the file already holds one object per line")


def read_text(path: Path, limit: int = MAX_DOCUMENT_BYTES) -> str:
    """A whole file's text, for the formats parsed as one document (at most ``limit`` bytes)."""
    size = _regular_file_size(path)
    if size > limit:
        raise _too_large(path, limit)
    try:
        with path.open("rb") as handle:
            data = handle.read(size + 1)  # read() sets aside room for as many bytes as it is asked for
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror})") from None
    if len(data) > size:
        raise UserError(f"{path}: the file grew while it was read; import it once whatever writes it is done")
    try:
        return decode(data)
    except Unreadable as exc:
        raise ImportFailed(path, [exc.problem]) from None


@contextmanager
def _read_lines(path: Path) -> Iterator[Iterator[str]]:
    """A file's lines as they are read (JSON Lines, CSV): the file is never in memory whole."""
    _regular_file_size(path)
    try:
        with path.open("rb") as handle:
            yield file_lines(handle, MAX_FILE_BYTES)
    except TooLarge:
        raise _too_large(path, MAX_FILE_BYTES) from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror})") from None


def _format_by_name(path: Path, fmt: str | None) -> str | None:
    """--format, or the format a .jsonl, .ndjson or .csv file name says, before anything is read."""
    return fmt or {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv"}.get(path.suffix.lower())


def _source(path: Path) -> str:
    """Where rows came from, as stored with them. A file name that is not UTF-8 (its bytes decoded as
    surrogates) gets U+FFFD for each bad byte, since the database holds only real characters."""
    return "import:" + os.fsencode(path.name).decode("utf-8", "replace")


def _parse(path: Path, reader: Callable[[Any], Parsed], text: str | None) -> Parsed:
    """The file's records (text: the file's whole text, or None to read it line by line); rows that cannot be
    read become problems, reported with those the checks find."""
    try:
        if text is None:
            with _read_lines(path) as lines:
                parsed = reader(lines)
        else:
            parsed = reader(text)
    except Unreadable as exc:
        raise ImportFailed(path, [exc.problem]) from None
    _set_aside_flawed(parsed)
    if parsed.problems and not parsed.records:
        raise ImportFailed(path, parsed.problems)
    return parsed


def _set_aside_flawed(parsed: Parsed) -> None:
    """Records holding a value JSON cannot carry (NaN, 1e400, a repeated key) become problems at their line."""
    kept = []
    for record in parsed.records:
        problem = flaw(record)
        if problem:
            parsed.problems.append(Problem(record.line, problem))
        else:
            kept.append(record)
    parsed.records = kept
    problem = flaw(parsed.meta)
    if problem:
        parsed.problems.append(Problem(1, problem))


def _first_json_char(text: str) -> str:
    stripped = text.lstrip()
    return stripped[:1]


def detect_item_format(path: Path, text: str) -> str:
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    if suffix == ".csv":
        return "csv"
    first = _first_json_char(text)
    if first == "[":
        return "json"
    if first == "{":
        try:
            whole = load_json(text)
        except Unreadable:  # one broken document is read as such, so its one JSON error is reported
            return "json" if suffix == ".json" or one_json_document(text) else "jsonl"
        return "promptfoo" if isinstance(whole, dict) and "results" in whole else "jsonl"
    if suffix == ".json":
        return "json"
    raise UserError(f"{path}: cannot tell the file's format from its name or content; pass --format "
                    f"({', '.join(ITEM_READERS)})")


def _rating_format_by_head(path: Path) -> str | None:
    """A .csv file is CSV; a .jsonl or .ndjson file is rows of ratings unless its first line says it is the
    reasoning-trace judge's output or a whole {"ratings": [...]} document (then detect_rating_format decides,
    from the whole text)."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return "csv"
    if suffix not in (".jsonl", ".ndjson"):
        return None
    try:
        with _read_lines(path) as lines:
            first = next((line for line in lines if line.strip()), "")
    except Unreadable:
        return "jsonl"  # reading it as rows reports the bad byte at its line
    if '"overall_score"' in first or '"issues"' in first:
        return None
    try:
        value = parse_json(first)
    except (json.JSONDecodeError, RecursionError):
        return "jsonl"
    return None if isinstance(value, dict) and "ratings" in value else "jsonl"


def detect_rating_format(path: Path, text: str) -> str:
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return "csv"
    try:
        whole = load_json(text)
    except Unreadable as exc:
        if suffix not in (".jsonl", ".ndjson") and _first_json_char(text) in ("{", "[") and one_json_document(text):
            raise ImportFailed(path, [exc.problem]) from None  # one broken document, not many broken lines
        whole = None
    if isinstance(whole, dict) and "ratings" in whole:
        return "rating-form" if any(k in whole for k in ("expert_id", "expert_name", "study_date")) else "judge-output"
    if isinstance(whole, dict | list):
        rows = whole if isinstance(whole, list) else [whole]
        if any(isinstance(r, dict) and ("overall_score" in r or "issues" in r) for r in rows):
            return "reasoning-json"
        return "jsonl" if isinstance(whole, dict) else "reasoning-json"
    if _first_json_char(text) in ("{", ""):
        first_line = next((line for line in text.splitlines() if line.strip()), "")
        return "reasoning-json" if ('"overall_score"' in first_line or '"issues"' in first_line) else "jsonl"
    raise UserError(f"{path}: cannot tell the ratings format; pass --format ({', '.join(RATING_READERS)})")


def _rubric(store: Store, rubric: Rubric | str | None) -> Rubric | None:
    """--rubric: a Rubric as it is, else a file path or an id as this database knows it."""
    if rubric is None or isinstance(rubric, Rubric):
        return rubric
    return resolve_rubric(rubric, store)


# --------------------------------------------------------------------------- items


@contextmanager
def _collector_paused() -> Iterator[None]:
    """A file's rows are hundreds of thousands of dicts and strings that hold no cycles (freed as their counts
    drop): the collector's passes over them find nothing and cost a fifth of a 100k-item import's CPU."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


@_collector_paused()
def import_items(
    store: Store, path: Path | str, rubric: Rubric | str | None = None, fmt: str | None = None,
    mapping: dict[str, str] | list[str] | None = None, split: str | None = None,
) -> ImportResult:
    """Import a file of items (and, from promptfoo, the ratings in it). Raises ImportFailed, writing nothing."""
    path = Path(path)
    fmt = _format_by_name(path, fmt)
    text = None if fmt in STREAMED else read_text(path)
    fmt = fmt or detect_item_format(path, text or "")
    if fmt not in ITEM_READERS:
        raise UserError(f"unknown item format {fmt!r}; use one of {', '.join(ITEM_READERS)}")
    if isinstance(mapping, list):
        mapping = parse_mapping(mapping)
    mapping = dict(mapping or {})
    parsed = _parse(path, ITEM_READERS[fmt], text)
    if not parsed.records and not parsed.problems:  # nothing to write: no database is made or changed for it
        raise ImportFailed(path, [Problem(0, "the file holds no items (is it the right file?)")])
    if fmt == "promptfoo":
        from judge_tui.transfer.promptfoo_import import lacking_vars, promptfoo_rows

        chosen = _rubric(store, rubric)
        rows, pending, warnings = promptfoo_rows(parsed, chosen, mapping, lambda: available_rubrics(store))
        chosen = pending.rubric
        problem = lacking_vars(parsed.records, rows, chosen, mapping)
        if problem:
            raise ImportFailed(path, [problem])
    else:
        header = parsed.meta.get("header") if fmt == "csv" else None
        keys = header if header is not None else keys_of(record.data for record in parsed.records)
        _check_mapped_keys(path, keys, mapping, header is not None, parsed.problems)
        rows, pending, warnings = item_rows(parsed.records, mapping), None, []
        rows = _without_template_gaps(rows, parsed.records, mapping, parsed.problems)
        chosen = _rubric(store, rubric) or _guess(store, path, rows, parsed.problems)
        _check_keys(path, keys, rows, mapping, chosen, header is not None, parsed.problems)
    if split is not None and split not in ("train", "dev", "test"):
        raise UserError(f"--split must be train, dev or test, not {split!r}")
    existing = store.item_states(str(data[key]) for _line, data in rows if (key := row_id_key(data)))
    checked = check_items(rows, chosen, split=split, existing=existing)
    checked.problems[:0] = parsed.problems
    checked.warnings.extend(warnings)
    if pending is not None:
        pending.check(checked, store)
    if checked.problems:
        raise ImportFailed(path, checked.problems + _demo_clash(store, existing, checked.problems))
    result = ImportResult(path=str(path), format=fmt, rubric=chosen.id, warnings=checked.warnings)
    if not checked.items:  # every row was left out (a promptfoo file whose every provider call failed)
        raise ImportFailed(path, [*checked.warnings, Problem(0, "no item is left to import: every row was left out,"
                                                                " each for the reason given")])
    parsed.records.clear()  # the checked items now hold the file's values: nothing else may keep them alive
    rows.clear()
    try:
        with store.transaction():
            version = store.ensure_rubric_version(chosen)
            result.items = _add_a_chunk_at_a_time(store, checked.items, _source(path))
            if pending is not None:
                for rater, kind, ratings in pending.by_rater:
                    store.ensure_rater(rater, kind, model=pending.models.get(rater))
                    _save(store, result, rater, version, ratings)
    except ItemConflict as exc:  # the database changed between checking and writing
        raise ImportFailed(path, [Problem(0, str(exc))]) from None
    return result


def _add_a_chunk_at_a_time(store: Store, items: list[Item], source: str) -> dict[str, int]:
    """Write the items (in the caller's transaction), letting each go as the store takes it: the store writes a
    chunk at a time, so a large file's values are in memory once, not a second time as the rows sent to SQLite."""
    items.reverse()  # popped from the end, in the file's order
    return store.add_items((items.pop() for _ in range(len(items))), source=source)


def _demo_clash(store: Store, existing: dict[str, tuple[str, str]], problems: list[Problem]) -> list[Problem]:
    """A database holding the demo's items: ids clashing with them say so, how they came (an earlier judge-tui
    loaded the demo with its raters; otherwise someone imported its item files), and what to do."""
    from judge_tui.transfer.demo import DEMO_EXPERT, DEMO_JUDGE, demo_items_among

    clashing = [i for i in demo_items_among(existing)
                if any(p.message.startswith(f"item {i!r} already exists") for p in problems)]
    if not clashing:
        return []
    shown = ", ".join(clashing[:5]) + (f" and {len(clashing) - 5} more" if len(clashing) > 5 else "")
    loaded = store.rater(DEMO_EXPERT) is not None or store.rater(DEMO_JUDGE) is not None
    how = (f"which an earlier judge-tui loaded into {store.path} (the demo now has a database of its own: "
           "judge-tui demo)" if loaded else
           f"whose item file (judge-tui's data folder) was imported into {store.path}")
    return [Problem(0, f"{shown} {word_for(len(clashing), 'is an item', 'are items')} of the bundled demo, {how}. "
                       "To start your study without the demo, import into a new database "
                       "(judge-tui import FILE --db study.db, then --db study.db with every command), or move "
                       f"{store.path} aside and import again")]


def _check_mapped_keys(path: Path, keys: list[str], mapping: dict[str, str], is_csv: bool,
                       problems: list[Problem]) -> None:
    """--map naming a key (or a template naming one) that the file does not have: one error, with its keys."""
    absent = [key for key in named_keys(mapping) if key not in keys]
    if absent and keys:
        what = "column" if is_csv else "key"
        found = f"{'columns' if is_csv else 'keys'}: {', '.join(keys)}"
        raise ImportFailed(path, [*problems, Problem(1 if is_csv else 0, (
            f"--map names {what} {absent[0]!r}, which {'is not in the header' if is_csv else 'no item has'} "
            f"({found}); a --map value is a {what} of the file, or a template with {{KEY}} in it"))])


def _without_template_gaps(rows: list[tuple[int, dict[str, Any]]], records: list[Any], mapping: dict[str, str],
                           problems: list[Problem]) -> list[tuple[int, dict[str, Any]]]:
    """The rows a template can be filled for; a row lacking a key its template names is a problem there."""
    kept = []
    for (line, row), record in zip(rows, records, strict=True):
        gaps = template_gaps(record.data, mapping)
        if gaps:
            problems.extend(Problem(line, gap) for gap in gaps)
        else:
            kept.append((line, row))
    return kept


def _check_keys(path: Path, keys: list[str], rows: list[tuple[int, dict[str, Any]]], mapping: dict[str, str],
                rubric: Rubric, is_csv: bool, problems: list[Problem]) -> None:
    """The id and the fields the rubric needs that no row has: one error for all of them, naming the keys
    (columns) the file has and the --map that fits each, rather than the same error at every row."""
    if not rows:
        return
    held = {name for _line, data in rows for name, value in data.items() if value not in (None, "")}
    lacking = ([] if held & set(ID_KEYS) else ["id"]) + lacking_required(rubric, held)
    if not lacking:
        return
    what = "columns" if is_csv else "keys"
    sources = [key for key in keys if key not in named_keys(mapping)]
    maps = suggested_maps(rubric, lacking, sources)
    fixes = " ".join(f"--map {name}={maps.get(name, 'KEY')}" for name in lacking)
    unknown = [name for name in lacking if name not in maps]
    if unknown:
        free = [key for key in sources if key not in maps.values() and key not in ID_KEYS and key != "split"
                and key not in {f.name for f in rubric.fields}]
        example = f", such as --map '{unknown[-1]}=... {{{free[0]}}} ...'" if free and unknown[-1] != "id" else ""
        fixes += (f", where {'each ' if len(unknown) > 1 else ''}KEY is the {what[:-1]} that holds the field, or "
                  f"a template that builds it from the {what} with {{{what[:-1].upper()}}} in it{example}")
    names = ", ".join(f'"{name}"' for name in lacking[:-1]) + (" or " if len(lacking) > 1 else "") + f'"{lacking[-1]}"'
    columns = apply_mapping(dict.fromkeys(keys), mapping)
    empty = is_csv and any(name in columns or (name == "id" and set(columns) & set(ID_KEYS)) for name in lacking)
    subject = (f"no row has a value for {names}" if empty else f"the header has no column for {names}" if is_csv
               else f"no item has {names}")
    problem = Problem(1 if is_csv else 0, f"{subject}, which rubric {rubric.id} needs: use {fixes} "
                                          f"({what}: {', '.join(keys)})")
    raise ImportFailed(path, [*problems, problem])


def _guess(store: Store, path: Path, rows: list[tuple[int, dict[str, Any]]], problems: list[Problem]) -> Rubric:
    """The one rubric the rows fit; problems found in reading the file are reported with the request for one."""
    rubrics = available_rubrics(store)
    guessed = guess_rubric([data for _line, data in rows], rubrics)
    if guessed is None:
        ask = (f"pass --rubric NAME to say which rubric these items are rated against "
               f"(one of {', '.join(sorted(rubrics))})")
        if problems:
            raise ImportFailed(path, [*problems, Problem(0, ask)])
        raise UserError(f"{path}: {ask}")
    return guessed


def _save(store: Store, result: ImportResult, rater: str, version: int, ratings: list[Rating]) -> None:
    before = store.rating_keys(rater, version)
    ratings = [replace(r, rubric_version_id=version) for r in ratings]
    changed = store.save_ratings(ratings)
    added = sum((r.item_id, r.repeat) not in before for r in ratings)
    result.ratings["added"] += added
    result.ratings["updated"] += changed - added
    result.ratings["unchanged"] += len(ratings) - changed
    if rater not in result.raters:
        result.raters.append(rater)


# --------------------------------------------------------------------------- ratings


def import_ratings(
    store: Store, path: Path | str, rater: str | None = None, kind: str | None = None,
    rubric: Rubric | str | None = None, fmt: str | None = None, model: str | None = None,
    mapping: dict[str, str] | None = None,
) -> ImportResult:
    """Import ratings made elsewhere under one rater. Raises ImportFailed, writing nothing.

    Without a rater, the one the file names is taken (a rating form's expert_id, or the one rater its rows
    name); without a kind, the rater's kind in the database, else the kind the file implies.
    """
    path = Path(path)
    if kind is not None and kind not in KINDS:
        raise UserError(f"--kind must be human or judge, not {kind!r}")
    if rater is not None and not rater.strip():
        raise UserError("--rater must name the rater (e.g. EXP001)")
    fmt = fmt or _rating_format_by_head(path)
    text = None if fmt in STREAMED else read_text(path)
    fmt = fmt or detect_rating_format(path, text or "")
    if fmt not in RATING_READERS:
        raise UserError(f"unknown ratings format {fmt!r}; use one of {', '.join(RATING_READERS)}")
    reader: Any = RATING_READERS[fmt]
    if mapping:
        if fmt not in ROW_READERS:
            raise UserError(f"--map applies to ratings as JSON Lines or CSV rows, not to {fmt}")
        reader = functools.partial(ROW_READERS[fmt], mapping=mapping)
    parsed = _parse(path, reader, text)
    if mapping:
        keys = parsed.meta.get("header") or parsed.meta.get("keys") or []
        _check_mapped_keys(path, keys, mapping, fmt == "csv", parsed.problems)
    if not parsed.records and not parsed.problems:
        raise ImportFailed(path, [Problem(0, "the file holds no ratings")])
    rater = rater or _named_rater(path, parsed, fmt)
    existing_rater = store.rater(rater)
    if kind is None:
        kind = existing_rater["kind"] if existing_rater else _implied_kind(path, parsed, fmt, rater)
    elif existing_rater and existing_rater["kind"] != kind:
        raise UserError(f"rater {rater!r} already exists as a {existing_rater['kind']} rater; "
                        f"use --kind {existing_rater['kind']} or another --rater")
    warnings: list[Problem] = []
    records = _records_for_rater(path, parsed, rater, warnings)
    items = store.items_by_id(str(r.item_id) for r in records if isinstance(r.item_id, str | int))
    chosen = _rubric(store, rubric) or _rubric_of_items(store, path, items, parsed.problems)
    _only_dimensions(path, parsed, records, chosen, warnings)
    checked = check_ratings(records, chosen, rater=rater, kind=kind, items=items, source=_source(path))
    checked.warnings[:0] = warnings
    checked.problems[:0] = parsed.problems
    finish = _finish_of(parsed, rater, chosen.id)
    name = parsed.meta.get("expert_name")
    for problem in (finished_at_problem(finish.finished_at) if finish else None,
                    expert_name_problem(name.strip()) if isinstance(name, str) else None):
        if problem:
            checked.problems.append(Problem(1, problem))
    if checked.problems:
        raise ImportFailed(path, checked.problems)
    result = ImportResult(path=str(path), format=fmt, rubric=chosen.id, warnings=checked.warnings)
    marks = _unrated_marks(store, checked, rater, chosen.id)
    with store.transaction():
        version = store.ensure_rubric_version(chosen)
        store.ensure_rater(rater, kind, model=model, display_name=name.strip() if isinstance(name, str) else "")
        _save(store, result, rater, version, checked.ratings)
        added, updated = store.save_marks(marks)
        result.marks = {"added": added, "updated": updated, "unchanged": len(marks) - added - updated}
        study_date = parsed.meta.get("study_date")
        if isinstance(study_date, str) and study_date.strip():  # written back by `export --format rating-form`
            store.set_meta(f"study_date:{rater}:{chosen.id}", study_date.strip())
        if finish is not None:
            store.save_finish(finish)
    result.raters = [rater]
    return result


def _only_dimensions(path: Path, parsed: Parsed, records: list[Any], rubric: Rubric, warnings: list[Problem]) -> None:
    """Rows without a "scores" object score the rubric's dimensions by key; their other keys (the query, the
    response, a trace's metadata) are left out with one warning. No row scoring any dimension is one error."""
    keyed = [record for record in records if getattr(record, "keyed_scores", False)]
    if not keyed:
        return
    dimensions = set(rubric.dimension_ids)
    scored = {key: key.removesuffix("_score") for record in keyed for key in record.scores}
    others = [key for key, dimension in scored.items() if key not in dimensions and dimension not in dimensions]
    if not others:
        return
    for record in keyed:
        record.scores = {key: value for key, value in record.scores.items() if key not in others}
    if not any(record.scores or record.skipped or record.flagged for record in keyed):
        keys = parsed.meta.get("header") or parsed.meta.get("keys") or others
        judged = [d.id for d in rubric.judged_dimensions]
        fix = " ".join(f"--map {d}=KEY" for d in judged)
        raise ImportFailed(path, [*parsed.problems, Problem(0, (
            f"no row scores a dimension of rubric {rubric.id} ({', '.join(judged)}): name the key that holds "
            f"each score with {fix} ({'columns' if 'header' in parsed.meta else 'keys'}: {', '.join(keys)})"))])
    warnings.append(Problem(0, f"left out {', '.join(others)}: not dimensions of rubric {rubric.id} "
                               f"({', '.join(rubric.dimension_ids)})"))


def _finish_of(parsed: Parsed, rater: str, rubric: str) -> Finish | None:
    """The form's summary notes and completion date, as the expert's finished study (None when it has neither)."""
    notes = parsed.meta.get("summary_notes")
    done = parsed.meta.get("completion_date")
    notes = notes if isinstance(notes, str) else ""
    done = done.strip() if isinstance(done, str) else ""
    if not notes and not done:
        return None
    return Finish(rater, rubric, notes, done)


def _unrated_marks(store: Store, checked: Checked, rater: str, rubric: str) -> list[Draft]:
    """The file's skip and flag marks of items the rater has not rated here; a rated item's mark is left out
    with a warning, since its flag belongs to the rating."""
    rated = store.rated_item_ids(rater, rubric)
    for mark in checked.marks:
        if mark.item_id in rated:
            checked.warnings.append(Problem(0, f"item {mark.item_id!r} is rated by {rater} here already; the file's "
                                               f"{'skip' if mark.skipped else 'flag'} without a rating is left out "
                                               f"(a rated item's flag is set on its rating, in the app)"))
    return [mark for mark in checked.marks if mark.item_id not in rated]


KINDS = ("human", "judge")
# The kind of rater a format holds when nothing else says: an expert fills in a rating form; the others are
# a judge's output.
FORMAT_KINDS = {"rating-form": "human", "judge-output": "judge", "reasoning-json": "judge"}


def _named_rater(path: Path, parsed: Parsed, fmt: str) -> str:
    """The rater a file names: a rating form's expert_id, or the one rater its rows name."""
    expert = parsed.meta.get("expert_id")
    if expert is not None:
        if isinstance(expert, bool) or not isinstance(expert, str | int) or not str(expert).strip() \
                or any(not char.isprintable() for char in str(expert)):
            raise UserError(f"{path}: the form's expert_id {expert!r} cannot name a rater; pass --rater NAME")
        return str(expert).strip()
    named = sorted({r.rater for r in parsed.records if r.rater})
    if len(named) == 1:
        return str(named[0])
    if named:
        raise UserError(f"{path}: the file holds ratings of several raters ({', '.join(named)}); "
                        f"pass one of them as --rater")
    kind = "" if fmt in FORMAT_KINDS else " (and --kind human or judge)"
    raise UserError(f"{path}: the file does not say whose ratings these are; pass --rater NAME{kind}")


def _implied_kind(path: Path, parsed: Parsed, fmt: str, rater: str) -> str:
    """A new rater's kind from the file: the kind its rows state, else the kind its format holds."""
    stated = {r.kind for r in parsed.records if r.kind and r.rater in (None, rater)}
    if len(stated) == 1 and next(iter(stated)) in KINDS:
        return str(next(iter(stated)))
    if not stated and fmt in FORMAT_KINDS:
        return FORMAT_KINDS[fmt]
    raise UserError(f"{path}: say whether {rater!r} is a person or a judge: pass --kind human or --kind judge")


def _records_for_rater(path: Path, parsed: Parsed, rater: str, warnings: list[Problem]) -> list[Any]:
    """The rows to file under --rater.

    A rating form names its expert: a different expert_id is only a warning. Rows that name their rater
    (judge-tui's own exports) are filtered to --rater when some match; rows of a single other rater are
    taken under --rater with a warning; rows of several other raters are an error.
    """
    expert = parsed.meta.get("expert_id")
    if expert is not None and str(expert) != rater:
        warnings.append(Problem(0, f"the form's expert_id is {expert!r}; filing its ratings under --rater {rater!r}"))
    named = {r.rater for r in parsed.records if r.rater}
    if not named:
        return parsed.records
    if rater in named:
        kept = [r for r in parsed.records if r.rater in (None, rater)]
        if len(kept) < len(parsed.records):
            warnings.append(Problem(0, f"took the {len(kept)} rows of rater {rater!r}; skipped "
                                       f"{len(parsed.records) - len(kept)} rows of {', '.join(sorted(named - {rater}))}"))
        return kept
    if len(named) == 1:
        warnings.append(Problem(0, f"the rows name rater {next(iter(named))!r}; filing them under --rater {rater!r}"))
        return parsed.records
    raise ImportFailed(path, [Problem(0, f"the file holds ratings of several raters ({', '.join(sorted(named))}) and "
                                         f"none is {rater!r}; pass one of them as --rater")])


def _rubric_of_items(store: Store, path: Path, items: dict[str, Any], problems: list[Problem]) -> Rubric:
    """The rubric of the items the ratings name; problems found in reading the file are reported with any error."""
    found = sorted({item.rubric for item in items.values()})
    if len(found) == 1:
        return resolve_rubric(found[0], store)
    if not found:
        raise ImportFailed(path, [*problems, Problem(0, "none of the item ids in this file is in the database "
                                                         "(import the items first, or check --db)")])
    raise ImportFailed(path, [*problems, Problem(0, f"the ratings cover items of several rubrics "
                                                     f"({', '.join(found)}); pass --rubric NAME")])


# --------------------------------------------------------------------------- commands
