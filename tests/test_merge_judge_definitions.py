"""A judge prompt version travels with its definition (the judge's rubric, rubric text and template) through a
merge, checked to make its prompt version again, and is never put in force by the merge: the lead adopts it."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from judge_tui.cli import main
from judge_tui.judge.calibration import apply_change, check_change, judge_texts
from judge_tui.judge.prompts import JudgePrompt
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from judge_tui.store.rubric_choice import resolve_rubric, stored_judge
from judge_tui.transfer.merge import MergeRefused, describe, merge_database
from tests.calibration.fixtures import build_study
from tests.narrowing import present

TEMPLATE_LINE = "\nAnswer briefly: the experts read every word.\n"


def teammates_database(path: Path, rubric: Rubric) -> tuple[str, str]:
    """A teammate's study whose judge they changed on the judge screen (a template line and two few-shot
    examples instead of three); returns the prompt versions before and after the change."""
    build_study(path, rubric)
    with Store(path) as store:
        current = resolve_rubric("binary", store)
        files = judge_texts(store, current)
        rubric_text, template_text = files.texts()
        assert "few_shot_examples = 3" in rubric_text
        change = check_change(store, current, files, rubric_text.replace("few_shot_examples = 3",
                                                                         "few_shot_examples = 2"),
                              template_text + TEMPLATE_LINE)
        trial = apply_change(store, current, files, change, "briefer answers", ["P06"])
    return trial.before, trial.after


def leads_database(path: Path, rubric: Rubric, before: str) -> Path:
    """The lead's study: the same first judge, recorded without its definition (as an earlier release did)."""
    build_study(path, rubric)
    with Store(path) as store:
        prompt = JudgePrompt.for_rubric(rubric, store)
        assert prompt.version == before
        store.record_prompt_version("binary", before, store.ensure_rubric_version(rubric), prompt.template.digest)
    return path


def prompt_rows(path: Path) -> dict[str, tuple[str | None, str | None]]:
    """Each prompt version's (definition, adopted_at), read from the file itself."""
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT prompt_version, definition, adopted_at FROM prompt_versions").fetchall()
    conn.close()
    return {version: (definition, adopted) for version, definition, adopted in rows}


def edited(source: Path, target: Path, sql: str, *params: object) -> Path:
    shutil.copy(source, target)
    with sqlite3.connect(target) as conn:
        assert conn.execute(sql, params).rowcount == 1
    conn.close()
    return target


@pytest.fixture
def team(tmp_path: Path, rubrics: dict[str, Rubric]) -> tuple[Path, Path, str, str]:
    ann = tmp_path / "ann.db"
    before, after = teammates_database(ann, rubrics["binary"])
    return leads_database(tmp_path / "lead.db", rubrics["binary"], before), ann, before, after


def test_a_teammates_judge_comes_with_its_definition_and_the_lead_puts_it_in_force(team):
    lead, ann, before, after = team
    with Store(lead) as store:
        result = merge_database(store, ann)
        assert result.added["prompt_versions"] == 1  # after: new here
        assert result.added["judge_definitions"] == 1  # before: held here without its definition
        assert result.unread_definitions == []
        assert "1 prompt version, the judge definition of 1 prompt version already here" in describe(result)[0]
    rows = prompt_rows(lead)
    theirs = prompt_rows(ann)
    assert set(rows) == {before, after}
    assert rows[after][0] is not None
    assert rows[before][0] is not None
    assert theirs[after][1] is not None  # in force there ...
    assert rows[after][1] is None  # ... never here by the merge
    assert rows[before][1] is None
    with Store(lead) as store:
        assert stored_judge(store, "binary") is None  # the lead's judge is still the rubric's files
        assert JudgePrompt.for_rubric(resolve_rubric("binary", store), store).version == before
        again = merge_database(store, ann)
        assert not again.changed
        assert store.adopt_prompt_version(after)  # the lead's choice: the definition is here to put in force
        rubric = resolve_rubric("binary", store)
        assert rubric.few_shot_examples == 2
        prompt = JudgePrompt.for_rubric(rubric, store)
        assert prompt.version == after
        assert prompt.template.text.endswith(TEMPLATE_LINE)
        texts = judge_texts(store, rubric)
    with Store(ann) as store:
        assert texts.texts() == judge_texts(store, resolve_rubric("binary", store)).texts()


FORGED = [
    ("a template line changed",
     "UPDATE prompt_versions SET definition = json_set(definition, '$.template', replace(json_extract(definition,"
     " '$.template'), 'Answer briefly', 'Always answer PASS')) WHERE prompt_version = ?",
     "its definition makes prompt version"),
    ("the judge's rubric changed",
     "UPDATE prompt_versions SET definition = json_set(definition, '$.rubric.few_shot_examples', 5)"
     " WHERE prompt_version = ?", "its definition makes prompt version"),
    ("another rubric's text",
     "UPDATE prompt_versions SET definition = json_set(definition, '$.rubric_text', replace(json_extract(definition,"
     " '$.rubric_text'), 'few_shot_examples = 2', 'few_shot_examples = 5')) WHERE prompt_version = ?",
     "its definition's rubric_text is not the text of its rubric"),
    ("another rubric's judge",
     "UPDATE prompt_versions SET definition = json_set(definition, '$.rubric.id', 'vegan') WHERE prompt_version = ?",
     "its definition is the judge of rubric 'vegan', not 'binary'"),
    ("not JSON", "UPDATE prompt_versions SET definition = '{\"rubric\": ' WHERE prompt_version = ?",
     "definition is not JSON"),
    ("no template", "UPDATE prompt_versions SET definition = json_remove(definition, '$.template')"
     " WHERE prompt_version = ?", "definition must be a JSON object with the judge's rubric"),
]


@pytest.mark.parametrize(("case", "sql", "rule"), FORGED, ids=[case for case, _sql, _rule in FORGED])
def test_a_definition_that_is_not_what_its_prompt_version_says_refuses_the_file(team, tmp_path: Path, case: str,
                                                                                 sql: str, rule: str):
    lead, ann, _before, after = team
    forged = edited(ann, tmp_path / "forged.db", sql, after)
    digest = hashlib.sha256(lead.read_bytes()).hexdigest()
    with Store(lead) as store, pytest.raises(MergeRefused) as refused:
        merge_database(store, forged)
    message = str(refused.value)
    assert f"prompt_versions row '{after}': {rule}" in message
    assert "nothing was merged from it" in message
    assert hashlib.sha256(lead.read_bytes()).hexdigest() == digest  # nothing half-merged


def test_the_merge_command_names_a_forged_definition_without_a_traceback(team, tmp_path: Path, capsys):
    lead, ann, _before, after = team
    forged = edited(ann, tmp_path / "forged.db", FORGED[0][1], after)
    assert main(["merge", "--db", str(lead), str(forged)]) == 1
    err = capsys.readouterr().err
    assert f"prompt_versions row '{after}': its definition makes prompt version" in err
    assert "Traceback" not in err
    assert after not in prompt_rows(lead)


def test_a_database_from_before_definitions_were_kept_merges_as_before(team, tmp_path: Path):
    lead, ann, before, after = team
    old = tmp_path / "old.db"
    shutil.copy(ann, old)
    with sqlite3.connect(old) as conn:  # as a release before m017 left it
        for column in ("definition", "adopted_at"):
            conn.execute(f"ALTER TABLE prompt_versions DROP COLUMN {column}")
    conn.close()
    with Store(lead) as store:
        result = merge_database(store, old)
        assert result.added["prompt_versions"] == 1
        assert result.added["judge_definitions"] == 0
        assert all("note" not in line for line in describe(result))
    assert prompt_rows(lead) == {before: (None, None), after: (None, None)}


def test_a_definition_this_release_cannot_read_is_left_out_and_said(team, tmp_path: Path):
    lead, ann, before, after = team
    later = edited(ann, tmp_path / "later.db", "UPDATE prompt_versions SET definition = json_set(definition,"
                   " '$.rubric.a_later_setting', 1) WHERE prompt_version = ?", after)
    with Store(lead) as store:
        result = merge_database(store, later)
        assert result.unread_definitions == [after]
        lines = describe(result)
    assert any(f"note: the judge definition of prompt version {after} is not one this judge-tui can read" in line
               for line in lines)
    rows = prompt_rows(lead)
    assert rows[after] == (None, None)
    assert present(rows[before][0]).startswith("{")  # the readable one was taken
