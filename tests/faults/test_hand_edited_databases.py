"""An expert database edited by hand (or by a faulty program) and sent the documented ways, `merge` and
`export --bundle` then `import --bundle`: every row passes the checks `import` and `import-ratings` apply, and
one bad row refuses the whole file, naming the database, the table, the row and the rule, with nothing written.

Each case is the kind of edit an attacker makes with the sqlite3 shell on a copy of a real expert database.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.faults.conftest import REPO, no_traceback, run

pytestmark = pytest.mark.slow

ANN = "item_id = 'B001' AND rater_id = 'ann'"
JUDGE = "judge:m:cis@1"
B001 = "(item 'B001', rater 'ann', rubric version 1, repeat 0)"

# (case, SQL run on the expert's copy, the row named, the rule broken)
EDITS = [
    ("scores not JSON", f"UPDATE ratings SET scores = '{{r: 1' WHERE {ANN}", f"ratings row {B001}", "scores is not JSON"),
    ("NaN score", f"""UPDATE ratings SET scores = '{{"r": NaN, "a": 0.75, "t": 0.25, "l": 0.75}}' WHERE {ANN}""",
     f"ratings row {B001}", "NaN is not a number"),
    ("7.5 on 0-1", f"UPDATE ratings SET scores = json_set(scores, '$.r', 7.5) WHERE {ANN}", f"ratings row {B001}",
     "r: 7.5 is outside the scale 0 to 1"),
    ("between the steps", f"UPDATE ratings SET scores = json_set(scores, '$.r', 0.3) WHERE {ANN}",
     f"ratings row {B001}", "r: 0.3 is off the scale"),
    ("a dimension missing", f"UPDATE ratings SET scores = json_remove(scores, '$.l') WHERE {ANN}",
     f"ratings row {B001}", "missing score for l"),
    ("a list of scores", f"UPDATE ratings SET scores = '[0.75, 0.75, 0.25, 0.75]' WHERE {ANN}",
     f"ratings row {B001}", "scores must be a JSON object"),
    ("an unknown dimension", f"UPDATE ratings SET scores = json_set(scores, '$.zz', 1) WHERE {ANN}",
     f"ratings row {B001}", "unknown dimension 'zz'"),
    ("a score as a word", f"UPDATE ratings SET scores = json_set(scores, '$.r', 'high') WHERE {ANN}",
     f"ratings row {B001}", "r: 'high' is not a score"),
    ("overall 'abc'", f"UPDATE ratings SET overall = 'abc' WHERE {ANN}", f"ratings row {B001}",
     "overall 'abc' is not what rubric cis makes of the scores"),
    ("overall off its scores", f"UPDATE ratings SET overall = 0.01 WHERE {ANN}", f"ratings row {B001}",
     "overall 0.01 is not what rubric cis makes"),
    ("a verdict the rubric never gives", f"UPDATE ratings SET verdict = 'MAYBE' WHERE {ANN}", f"ratings row {B001}",
     "verdict 'MAYBE' is not what rubric cis makes"),
    ("seconds -5", f"UPDATE ratings SET seconds = -5 WHERE {ANN}", f"ratings row {B001}",
     "seconds must be a number from 0 to 604800"),
    ("seconds 1e300", f"UPDATE ratings SET seconds = 1e300 WHERE {ANN}", f"ratings row {B001}",
     "seconds must be a number from 0 to 604800"),
    ("repeat -1", f"UPDATE ratings SET repeat = -1 WHERE {ANN}", "ratings row (item 'B001', rater 'ann', "
     "rubric version 1, repeat -1)", "repeat must be a number from 0 to 1000"),
    ("details not JSON", f"UPDATE ratings SET details = 'oops' WHERE {ANN}", f"ratings row {B001}",
     "details is not JSON"),
    ("flagged 7", f"UPDATE ratings SET flagged = 7 WHERE {ANN}", f"ratings row {B001}", "flagged must be 0 or 1"),
    ("notes a blob", f"UPDATE ratings SET notes = X'FF00' WHERE {ANN}", f"ratings row {B001}", "notes must be text"),
    ("a rating whose rubric version is missing", f"UPDATE ratings SET rubric_version_id = 99 WHERE {ANN}",
     "ratings row (item 'B001', rater 'ann', rubric version 99, repeat 0)",
     "rubric version 99 is not in its rubric_versions table"),
    ("a rating of an item that is nowhere", f"UPDATE ratings SET item_id = 'NOPE' WHERE {ANN}",
     "ratings row (item 'NOPE', rater 'ann'", "item 'NOPE' is not in the items table of either database"),
    ("garbage item fields", "UPDATE items SET fields = 'garbage' WHERE id = 'B001'", "items row 'B001'",
     "fields is not JSON"),
    ("an item without a required field", "UPDATE items SET fields = json_remove(fields, '$.source_code')"
     " WHERE id = 'B001'", "items row 'B001'", "missing required field \"source_code\""),
    ("an item field as an object", "UPDATE items SET fields = json_set(fields, '$.task', json('{\"x\": 1}'))"
     " WHERE id = 'B001'", "items row 'B001'", "field 'task' must be text, not an object"),
    ("an unknown split", "UPDATE items SET split = 'holdout' WHERE id = 'B001'", "items row 'B001'",
     "split 'holdout' is not one of train, dev, test"),
    ("rater kind 'code'", "UPDATE raters SET kind = 'code' WHERE id = 'ann'", "raters row 'ann'",
     "kind 'code' is not one judge-tui rates with"),
    ("a rater id with a line break", "UPDATE raters SET id = 'ann' || char(10) || 'x' WHERE id = 'ann';"
     " UPDATE ratings SET rater_id = 'ann' || char(10) || 'x' WHERE rater_id = 'ann'", "raters row 'ann\\nx'",
     "a reviewer id is 1 to 40 letters"),
    ("a rater id with a terminal escape", f"UPDATE raters SET id = '{JUDGE}' || char(27) || '[2J' WHERE id = "
     f"'{JUDGE}'; UPDATE ratings SET rater_id = '{JUDGE}' || char(27) || '[2J' WHERE rater_id = '{JUDGE}'",
     "raters row 'judge:m:cis@1\\x1b[2J'", "cannot hold line breaks, tabs or terminal escapes"),
    ("a rater id of 500 characters", f"UPDATE raters SET id = '{JUDGE}' || printf('%.500c', 'x') WHERE id = "
     f"'{JUDGE}'; UPDATE ratings SET rater_id = '{JUDGE}' || printf('%.500c', 'x') WHERE rater_id = '{JUDGE}'",
     "raters row 'judge:m:cis@1xxxx", "a rater id is at most 200 characters, not 513"),
    ("an expert renamed 'consensus'", "UPDATE raters SET id = 'consensus' WHERE id = 'ann';"
     " UPDATE ratings SET rater_id = 'consensus' WHERE rater_id = 'ann'",
     "ratings row (item 'B001', rater 'consensus'", "'consensus' is reserved for the lead's adjudicated ratings"),
    ("a rubric definition that is not JSON", "UPDATE rubric_versions SET definition = '{{{'", "rubric_versions row 1",
     "definition is not JSON"),
    ("an expert renamed 'Consensus'", "UPDATE raters SET id = 'Consensus' WHERE id = 'ann';"
     " UPDATE ratings SET rater_id = 'Consensus' WHERE rater_id = 'ann'", "raters row 'Consensus'",
     "'Consensus' is 'consensus' in other capitals, which is reserved"),
    # What a merge trusts: hashes, dates, one row per key.
    ("an item's text changed, its hash kept", "UPDATE items SET fields = json_set(fields, '$.task',"
     " 'Return the largest value instead') WHERE id = 'B001'", "items row 'B001'",
     "is not the hash of its fields"),
    ("a rubric definition changed, its hash kept", "UPDATE rubric_versions SET definition = json_set(definition,"
     " '$.name', 'Lenient CIS')", "rubric_versions row 1", "is not the hash of its definition"),
    ("a rubric version dated 2099", "UPDATE rubric_versions SET created_at = '2099-01-01T00:00:00.000+00:00'",
     "rubric_versions row 1", "created_at '2099-01-01T00:00:00.000+00:00' is in the future"),
    ("a rating dated 2099", f"UPDATE ratings SET created_at = '2099-06-01T12:00:00.000+00:00' WHERE {ANN}",
     f"ratings row {B001}", "created_at '2099-06-01T12:00:00.000+00:00' is in the future"),
    ("a rating dated 'yesterday'", f"UPDATE ratings SET updated_at = 'yesterday' WHERE {ANN}", f"ratings row {B001}",
     "updated_at must be a date and time such as"),
    ("an item dated a year ahead", "UPDATE items SET created_at = datetime('now', '+1 year') WHERE id = 'B001'",
     "items row 'B001'", "is in the future"),
    ("a duplicate rating", "PRAGMA legacy_alter_table = ON; CREATE TABLE copied AS SELECT * FROM ratings;"
     " DROP TABLE ratings; ALTER TABLE copied RENAME TO ratings;"
     f" INSERT INTO ratings SELECT * FROM ratings WHERE {ANN}", f"ratings row {B001}",
     "duplicate: an earlier row of this table has the same item, rater, rubric version and repeat"),
    ("a duplicate rating that differs", "PRAGMA legacy_alter_table = ON; CREATE TABLE copied AS SELECT * FROM"
     " ratings; DROP TABLE ratings; ALTER TABLE copied RENAME TO ratings; INSERT INTO ratings SELECT id + 1000,"
     " item_id, rater_id, rubric_version_id, repeat, json_set(scores, '$.r', 0.25), NULL, NULL, notes, seconds,"
     f" source, details, created_at, updated_at, flagged, flag_reason FROM ratings WHERE {ANN}",
     f"ratings row {B001}", "duplicate: an earlier row of this table has the same item"),
    ("a skip mark of 7", "INSERT INTO drafts (item_id, rater_id, skipped, updated_at) VALUES ('B001', 'ann', 7,"
     " '2026-01-01T00:00:00.000+00:00')", "drafts row (item 'B001', rater 'ann')", "skipped must be 0 or 1, not 7"),
    ("a flag mark 'yes'", "INSERT INTO drafts (item_id, rater_id, flagged, updated_at) VALUES ('B001', 'ann', 'yes',"
     " '2026-01-01T00:00:00.000+00:00')", "drafts row (item 'B001', rater 'ann')",
     "flagged must be 0 or 1, not 'yes'"),
    ("a draw dated 2099", "INSERT INTO rating_draws (item_id, rater_id, rubric, kind, created_at) VALUES ('B001',"
     " 'ann', 'cis', 'balanced', '2099-01-01T00:00:00.000+00:00')", "rating_draws row (item 'B001', rater 'ann')",
     "created_at '2099-01-01T00:00:00.000+00:00' is in the future"),
    ("a draw of an order that does not exist", "INSERT INTO rating_draws (item_id, rater_id, rubric, kind,"
     " created_at) VALUES ('B001', 'ann', 'cis', 'sideways', '2026-01-01T00:00:00.000+00:00')",
     "rating_draws row (item 'B001', rater 'ann')", "kind must be one of import, random, balanced, assigned"),
]


def _dump(path: Path | str) -> list[str]:
    with sqlite3.connect(path) as conn:
        lines = list(conn.iterdump())
    conn.close()
    return lines


def _edit(path: Path | str, sql: str) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(sql)  # foreign keys are off, as in the sqlite3 shell
    conn.commit()
    conn.close()


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """An expert's database (ann and a judge rated every CIS item), ann's bundle, and the lead's database."""
    folder = tmp_path_factory.mktemp("hand-edits")
    home = folder / "home"
    home.mkdir()
    expert, lead, bundle = folder / "expert.db", folder / "lead.db", folder / "ann.bundle.db"
    data = REPO / "data"
    for args in (["import", data / "cis.jsonl", "--rubric", "cis", "--db", expert],
                 ["import-ratings", data / "cis.expert-demo.ratings.jsonl", "--rater", "ann", "--kind", "human",
                  "--db", expert],
                 ["import-ratings", data / "cis.judge-demo.ratings.jsonl", "--rater", JUDGE, "--kind", "judge",
                  "--db", expert],
                 ["export", "--bundle", "--rater", "ann", "-o", bundle, "--db", expert],
                 ["import", data / "cis.jsonl", "--rubric", "cis", "--db", lead]):
        proc = run(*args, home=home)
        assert proc.returncode == 0, proc.stderr
    for path in (expert, bundle):  # one self-contained file each, as an expert sends it
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.close()
    return {"expert": expert, "lead": lead, "bundle": bundle, "home": home}


def test_the_unedited_files_merge(made: dict[str, Path], tmp_path: Path):
    lead = shutil.copy(made["lead"], tmp_path / "lead.db")
    proc = run("merge", made["expert"], "--db", lead, home=made["home"])
    assert proc.returncode == 0, proc.stderr
    assert "added 50 ratings" in proc.stdout
    lead2 = shutil.copy(made["lead"], tmp_path / "lead2.db")
    proc = run("import", "--bundle", made["bundle"], "--db", lead2, home=made["home"])
    assert proc.returncode == 0, proc.stderr
    assert "added 25 ratings" in proc.stdout


@pytest.mark.parametrize(("case", "sql", "row", "rule"), EDITS, ids=[e[0] for e in EDITS])
def test_a_hand_edited_database_is_refused_whole_by_merge(made: dict[str, Path], tmp_path: Path, case: str,
                                                          sql: str, row: str, rule: str):
    edited = shutil.copy(made["expert"], tmp_path / "expert.db")
    _edit(edited, sql)
    lead = shutil.copy(made["lead"], tmp_path / "lead.db")
    before = _dump(lead)
    proc = run("merge", edited, "--db", lead, home=made["home"])
    assert proc.returncode == 1, proc.stdout
    no_traceback(proc)
    message = " ".join(proc.stderr.split())
    assert f"{edited}: refused, nothing was merged from it" in message
    assert row in message, message
    assert rule in message, message
    assert _dump(lead) == before


BUNDLE_EDITS = [e for e in EDITS if e[0] in ("7.5 on 0-1", "scores not JSON", "seconds 1e300", "overall 'abc'",
                                             "a rating whose rubric version is missing", "garbage item fields",
                                             "an expert renamed 'consensus'", "rater kind 'code'",
                                             "an item's text changed, its hash kept", "a rubric version dated 2099",
                                             "a duplicate rating that differs", "a skip mark of 7")]


@pytest.mark.parametrize(("case", "sql", "row", "rule"), BUNDLE_EDITS, ids=[e[0] for e in BUNDLE_EDITS])
def test_a_hand_edited_bundle_is_refused_whole_by_import(made: dict[str, Path], tmp_path: Path, case: str, sql: str,
                                                         row: str, rule: str):
    edited = shutil.copy(made["bundle"], tmp_path / "ann.bundle.db")
    _edit(edited, sql)
    lead = shutil.copy(made["lead"], tmp_path / "lead.db")
    before = _dump(lead)
    proc = run("import", "--bundle", edited, "--db", lead, home=made["home"])
    assert proc.returncode == 1, proc.stdout
    no_traceback(proc)
    message = " ".join(proc.stderr.split())
    assert f"{edited}: refused, nothing was merged from it" in message
    assert row in message, message
    assert rule in message, message
    assert _dump(lead) == before


def test_one_bad_file_of_several_merges_none(made: dict[str, Path], tmp_path: Path):
    good = shutil.copy(made["bundle"], tmp_path / "ann.bundle.db")
    bad = shutil.copy(made["expert"], tmp_path / "expert.db")
    _edit(bad, f"UPDATE ratings SET scores = json_set(scores, '$.r', 7.5) WHERE {ANN}")
    lead = shutil.copy(made["lead"], tmp_path / "lead.db")
    before = _dump(lead)
    proc = run("merge", good, bad, "--db", lead, home=made["home"])
    assert proc.returncode == 1
    assert "Nothing was merged from the other files named either" in " ".join(proc.stderr.split())
    assert _dump(lead) == before


def test_an_expert_database_that_was_edited_cannot_be_bundled_either(made: dict[str, Path], tmp_path: Path):
    edited = shutil.copy(made["expert"], tmp_path / "expert.db")
    _edit(edited, f"UPDATE ratings SET seconds = -5 WHERE {ANN}")
    out = tmp_path / "ann.bundle.db"
    proc = run("export", "--bundle", "--rater", "ann", "-o", out, "--db", edited, home=made["home"])
    assert proc.returncode == 1
    assert "seconds must be a number from 0 to 604800" in " ".join(proc.stderr.split())
    assert not out.exists()
    assert not list(tmp_path.glob("*.partial*"))
