"""Random rows and random bytes into every importer: a clean import or a clean error, never a crash,
and an error writes nothing."""

from __future__ import annotations

import csv
import io
import itertools
import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge_tui.model.errors import UserError
from judge_tui.store import Store
from judge_tui.transfer.importing import import_items, import_ratings
from tests.formats_helpers import binary_item, cis_item, write_jsonl

ITEM_FORMATS = [None, "json", "jsonl", "csv", "promptfoo"]
RATING_FORMATS = [None, "rating-form", "judge-output", "reasoning-json", "jsonl", "csv"]
KEYS = ["id", "item_id", "submission_id", "query", "criterion", "response", "split", "scores", "label", "r_score",
        "a_score", "t_score", "l_score", "r", "notes", "seconds", "time_spent_minutes", "rater", "repeat", "vars",
        "overall_score", "verdict", "details", "task_type"]
IDS = ["P1", "P2", "C1", "C2", "", "x", "P1 ", 7]

scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([0, 0.25, 0.5, 1, "PASS", "FAIL", "train", "dev", "0.75"] + IDS),
                    st.text(max_size=12))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                        st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)),
                      max_leaves=8)
random_rows = st.lists(st.dictionaries(st.sampled_from(KEYS), values, max_size=8), max_size=5)
# Rows close to valid ones, so that clean imports happen too and partial writes would show.
text_or_any = st.text(max_size=6) | scalars
near_items = st.lists(st.fixed_dictionaries(
    {"id": st.sampled_from([*IDS, "P3", "P4", "Q5"]), "query": text_or_any, "criterion": text_or_any,
     "response": text_or_any}, optional={"split": st.sampled_from(["train", "dev", "x", None])}), max_size=4)
near_ratings = st.lists(st.fixed_dictionaries(
    {"item_id": st.sampled_from(IDS), "scores": st.dictionaries(st.sampled_from(["label", "r", "a", "t", "l", "x"]),
                                                               scalars, max_size=4)},
    optional={"notes": text_or_any, "seconds": scalars, "repeat": scalars}), max_size=4)
rows = st.one_of(random_rows, near_items, near_ratings)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
_files = itertools.count()


@pytest.fixture(scope="module")
def two_rubrics_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("fuzz")
    path = folder / "fuzz.db"
    with Store(path) as store:
        import_items(store, write_jsonl(folder / "b.jsonl", [binary_item("P1", 1), binary_item("P2", 2)]), "binary")
        import_items(store, write_jsonl(folder / "c.jsonl", [cis_item("C1", 1), cis_item("C2", 2)]), "cis")
    return path


def _counts(path: Path) -> tuple[int, ...]:
    with sqlite3.connect(path) as conn:
        return tuple(conn.execute(f"SELECT COUNT(*), COALESCE(SUM(LENGTH({column})), 0) FROM {table}").fetchone()
                     for table, column in (("items", "fields || IFNULL(split, '')"), ("ratings", "scores || notes"),
                                           ("raters", "id"), ("rubric_versions", "id"), ("meta", "value")))


def _attempt(two_rubrics_db: Path, data: bytes, suffix: str, action) -> None:  # noqa: ANN001 - a callable taking (store, path)
    path = two_rubrics_db.parent / f"input{next(_files)}{suffix}"
    path.write_bytes(data)
    before = _counts(two_rubrics_db)
    with Store(two_rubrics_db) as store:
        try:
            action(store, path)
        except UserError as exc:
            assert str(exc)  # a message the user can read
            assert _counts(two_rubrics_db) == before, "a failed import wrote something"
    path.unlink()


def _csv(rows_: list[dict]) -> bytes:
    header = sorted({key for row in rows_ for key in row})
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    for row in rows_:
        writer.writerow([json.dumps(row[k]) if isinstance(row.get(k), dict | list) else row.get(k, "") for k in header])
    return out.getvalue().encode("utf-8", "surrogatepass")


def _encodings(rows_: list[dict]) -> list[tuple[bytes, str]]:
    def dump(value: object) -> bytes:
        return json.dumps(value).encode()

    return [
        (b"".join(dump(r) + b"\n" for r in rows_), ".jsonl"),
        (dump(rows_), ".json"),
        (dump({"ratings": rows_, "expert_id": "EXP"}), ".json"),
        (dump({"results": {"version": 3, "results": rows_}}), ".json"),
        (_csv(rows_), ".csv"),
    ]


@SETTINGS
@given(rows=rows, fmt=st.sampled_from(ITEM_FORMATS), rubric=st.sampled_from([None, "binary", "cis"]))
def test_random_item_rows(two_rubrics_db: Path, rows, fmt, rubric):
    for data, suffix in _encodings(rows):
        _attempt(two_rubrics_db, data, suffix, lambda store, path: import_items(store, path, rubric, fmt=fmt))


@SETTINGS
@given(rows=rows, fmt=st.sampled_from(RATING_FORMATS), kind=st.sampled_from(["human", "judge"]))
def test_random_rating_rows(two_rubrics_db: Path, rows, fmt, kind):
    for data, suffix in _encodings(rows):
        _attempt(two_rubrics_db, data, suffix, lambda store, path: import_ratings(store, path, f"FUZZ-{kind}", kind, fmt=fmt))


@SETTINGS
@given(data=st.binary(max_size=200) | st.text(alphabet='{}[]",:0123456789.\n PASFILtrueidscoreslabel', max_size=120)
       .map(str.encode), fmt=st.sampled_from(ITEM_FORMATS + RATING_FORMATS[1:]), suffix=st.sampled_from(
       [".json", ".jsonl", ".csv", ".txt"]))
def test_random_bytes(two_rubrics_db: Path, data, fmt, suffix):
    if fmt in ITEM_FORMATS:
        _attempt(two_rubrics_db, data, suffix, lambda store, path: import_items(store, path, "binary", fmt=fmt))
    if fmt in RATING_FORMATS:
        _attempt(two_rubrics_db, data, suffix, lambda store, path: import_ratings(store, path, "FUZZ-judge", "judge", fmt=fmt))
