"""--map for JSON, JSON Lines and CSV items and ratings: one grouped error with the file's keys and the --map
that fits, templates that build a field from several keys, and --map on import-ratings.

The file is shaped like the labelled traces of a recipe bot that an LLM-evals course publishes: trace_id,
query, dietary_restriction, response and a human PASS/FAIL label.
"""

from __future__ import annotations

import csv
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from judge_tui.formats.field_map import apply_mapping, parse_mapping, template
from judge_tui.model.errors import UserError

ROOT = Path(__file__).resolve().parent.parent
DIETS = ("vegan", "gluten-free", "keto", "vegetarian", "dairy-free", "low-sodium")
N = 30
KEYS = "trace_id, query, dietary_restriction, response, label"
TEMPLATE = "criterion=The recipe must be {dietary_restriction}."


def traces() -> list[dict[str, str]]:
    return [{"trace_id": f"{n // 3 + 1}_{n % 3 + 1}", "query": f"A {DIETS[n % 6]} dinner for two, please ({n})",
             "dietary_restriction": DIETS[n % 6], "response": f"Try lentil curry with rice, version {n}.",
             "label": "FAIL" if n % 4 == 0 else "PASS"} for n in range(N)]


def write(path: Path, rows: list[dict[str, str]]) -> Path:
    if path.suffix == ".csv":
        with path.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    else:
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def cli(cwd: Path, *args: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "JUDGE_TUI_HOME": str(cwd / "home"), "PYTHONPATH": str(ROOT)}
    env.pop("JUDGE_TUI_DB", None)
    return subprocess.run([sys.executable, "-m", "judge_tui", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120, stdin=subprocess.DEVNULL)


def rows_of(db: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql).fetchall()


# --------------------------------------------------------------------------- items


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".json"])
def test_every_missing_field_is_one_error_naming_the_keys_and_the_map(tmp_path: Path, suffix: str):
    path = tmp_path / f"traces{suffix}"
    if suffix == ".json":
        path.write_text(json.dumps(traces(), indent=1))
    else:
        write(path, traces())
    db = tmp_path / "study.db"
    done = cli(tmp_path, "import", path, "--rubric", "binary", "--db", db)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert f"nothing imported from {path}: 1 error\n" in done.stderr
    what, subject = ("columns", "the header has no column for") if suffix == ".csv" else ("keys", "no item has")
    assert (f'{subject} "id" or "criterion", which rubric binary needs: use --map id=trace_id --map criterion=KEY, '
            f"where KEY is the {what[:-1]} that holds the field, or a template that builds it from the {what} with "
            f"{{{what[:-1].upper()}}} in it, such as --map 'criterion=... {{dietary_restriction}} ...' "
            f"({what}: {KEYS})") in done.stderr
    assert "missing required field" not in done.stderr
    assert not db.exists()

    done = cli(tmp_path, "import", path, "--rubric", "binary", "--db", db, "--map", "id=trace_id", "--map", TEMPLATE)
    assert done.returncode == 0, done.stderr
    assert f"items: {N} added" in done.stdout
    stored = {item_id: json.loads(fields) for item_id, fields in rows_of(db, "SELECT id, fields FROM items")}
    assert stored["1_1"]["criterion"] == "The recipe must be vegan."
    assert stored["2_3"]["criterion"] == "The recipe must be low-sodium."
    assert stored["1_1"]["dietary_restriction"] == "vegan"  # a template's keys stay in the item
    assert "trace_id" not in stored["1_1"]  # a renamed key moves


@pytest.mark.slow
def test_a_bare_word_is_a_key_never_the_fields_text(tmp_path: Path):
    path = write(tmp_path / "traces.jsonl", traces())
    done = cli(tmp_path, "import", path, "--rubric", "binary", "--db", tmp_path / "s.db", "--map", "id=trace_id",
               "--map", "criterion=vegan")
    assert done.returncode == 1
    assert (f"--map names key 'vegan', which no item has (keys: {KEYS}); a --map value is a key of the file, "
            f"or a template with {{KEY}} in it") in done.stderr


@pytest.mark.slow
def test_a_row_without_a_key_its_template_names_is_an_error_there(tmp_path: Path):
    rows = traces()
    del rows[6]["dietary_restriction"]
    path = write(tmp_path / "traces.jsonl", rows)
    done = cli(tmp_path, "import", path, "--rubric", "binary", "--db", tmp_path / "s.db", "--map", "id=trace_id",
               "--map", TEMPLATE)
    assert done.returncode == 1
    assert (f"{path}:7: --map criterion=...: the template needs 'dietary_restriction', which this row lacks\n"
            in done.stderr)
    assert "1 error" in done.stderr
    assert not (tmp_path / "s.db").exists()


# --------------------------------------------------------------------------- ratings


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_import_ratings_takes_the_label_with_map(tmp_path: Path, suffix: str):
    path = write(tmp_path / f"traces{suffix}", traces())
    db = tmp_path / "study.db"
    done = cli(tmp_path, "import", path, "--rubric", "binary", "--db", db, "--map", "id=trace_id", "--map", TEMPLATE)
    assert done.returncode == 0, done.stderr

    done = cli(tmp_path, "import-ratings", path, "--rater", "ann", "--kind", "human", "--db", db)
    assert done.returncode == 1
    assert "1 error\n" in done.stderr
    row = "column" if suffix == ".csv" else "row"
    what = "columns" if suffix == ".csv" else "keys"
    assert (f"no {row} holds the item id (item_id, id or submission_id): use --map item_id=trace_id "
            f"({what}: {KEYS})") in done.stderr

    done = cli(tmp_path, "import-ratings", path, "--rater", "ann", "--kind", "human", "--db", db,
               "--map", "item_id=trace_id")
    assert done.returncode == 0, done.stderr
    assert f"ratings: {N} added" in done.stdout
    assert ("warning: left out query, dietary_restriction, response: not dimensions of rubric binary (label)"
            in done.stderr)
    labels = dict(rows_of(db, "SELECT item_id, verdict FROM ratings WHERE rater_id = 'ann'"))
    assert labels == {row["trace_id"]: row["label"] for row in traces()}


@pytest.mark.slow
def test_import_ratings_with_the_label_under_another_name(tmp_path: Path):
    rows = [{("human_label" if key == "label" else key): value for key, value in row.items()} for row in traces()]
    path = write(tmp_path / "labels.jsonl", rows)
    db = tmp_path / "study.db"
    assert cli(tmp_path, "import", path, "--rubric", "binary", "--db", db, "--map", "id=trace_id",
               "--map", TEMPLATE).returncode == 0
    done = cli(tmp_path, "import-ratings", path, "--rater", "ann", "--kind", "human", "--db", db,
               "--map", "item_id=trace_id")
    assert done.returncode == 1
    assert "1 error\n" in done.stderr
    assert "no row scores a dimension of rubric binary (label): name the key that holds each score with " \
           "--map label=KEY" in done.stderr
    done = cli(tmp_path, "import-ratings", path, "--rater", "ann", "--kind", "human", "--db", db,
               "--map", "item_id=trace_id", "--map", "label=human_label")
    assert done.returncode == 0, done.stderr
    assert len(rows_of(db, "SELECT 1 FROM ratings")) == N


@pytest.mark.slow
def test_map_on_a_rating_form_is_refused(tmp_path: Path):
    done = cli(tmp_path, "import-ratings", ROOT / "tests" / "fixtures" / "rating_form.json", "--map", "item_id=x",
               "--db", tmp_path / "s.db")
    assert done.returncode == 1
    assert "--map applies to ratings as JSON Lines or CSV rows, not to rating-form" in done.stderr


# --------------------------------------------------------------------------- the templates themselves


def test_template_fills_keys_and_keeps_literal_braces():
    mapping = parse_mapping(["criterion=Must be {diet} ({{strict}}, level {level})", "id=trace_id"])
    row = apply_mapping({"trace_id": "t1", "diet": "vegan", "level": 2, "ok": True}, mapping)
    assert row == {"diet": "vegan", "level": 2, "ok": True, "criterion": "Must be vegan ({strict}, level 2)",
                   "id": "t1"}
    assert template("f", "{a}{b}").keys == ("a", "b")
    assert "criterion" not in apply_mapping({"diet": None}, mapping)  # a null key: the field is left out


@pytest.mark.parametrize(("option", "message"), [
    ("criterion=Must be {diet", "a lone '{' in the template"),
    ("criterion=Must be }", "a lone '}' in the template"),
    ("criterion=Must be {}", "the template has {} without a key name inside"),
    ("criterion", "--map expects FIELD=KEY"),
])
def test_a_broken_template_is_named_before_the_file_is_read(option: str, message: str):
    with pytest.raises(UserError, match=message.replace("{", r"\{").replace("}", r"\}")):
        parse_mapping([option])


@pytest.mark.slow
def test_a_column_empty_in_every_row_is_one_error_too(tmp_path: Path):
    path = tmp_path / "empty.csv"
    path.write_text("id,query,criterion,response\n" + "".join(f"P{n},q,,r\n" for n in range(25)))
    done = cli(tmp_path, "import", path, "--rubric", "binary", "--db", tmp_path / "s.db")
    assert done.returncode == 1
    assert "1 error\n" in done.stderr
    assert f'{path}:1: no row has a value for "criterion", which rubric binary needs' in done.stderr


@pytest.mark.slow
def test_a_real_promptfoo_eval_gets_its_criterion_from_a_template(tmp_path: Path):
    results = ROOT / "tests" / "fixtures" / "promptfoo_real_recipe_binary.json"
    db = tmp_path / "s.db"
    done = cli(tmp_path, "import", results, "--rubric", "binary", "--db", db, "--map", "id=trace_id")
    assert done.returncode == 1
    assert ("no test's vars hold \"criterion\", which rubric binary needs to rate an item: name the var that holds "
            "each with --map FIELD=VAR (--map FIELD=output for the provider's answer), or build it from the vars "
            "with a template, --map 'FIELD=text {VAR} text' (vars: trace_id, query, dietary_restriction)"
            in done.stderr)
    done = cli(tmp_path, "import", results, "--rubric", "binary", "--db", db, "--map", "id=trace_id",
               "--map", TEMPLATE)
    assert done.returncode == 0, done.stderr
    assert "items: 4 added" in done.stdout
    assert "ratings: 4 added" in done.stdout
    stored = {item_id: json.loads(fields) for item_id, fields in rows_of(db, "SELECT id, fields FROM items")}
    assert stored["1_2"]["criterion"] == "The recipe must be keto."
    assert stored["1_2"]["response"].startswith("Here is a keto dinner: grilled chicken stir fry")
    verdicts = dict(rows_of(db, "SELECT item_id, verdict FROM ratings"))
    assert verdicts == {"1_1": "PASS", "1_2": "FAIL", "2_1": "PASS", "2_2": "PASS"}  # the file's assertions
