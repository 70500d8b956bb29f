"""A few-shot example is a change to the judge, not to what the experts are asked: keeping one makes a new judge
prompt version and no new rubric version, so every expert label still compares with the kept judge; and a
database where an earlier release recorded such a change as a rubric version opens with every rating compared."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from judge_tui.judge.calibration import apply_change, check_change, judge_texts, keep, promote_example
from judge_tui.judge.prompts import JudgePrompt
from judge_tui.judge.runner import judge_rater_id
from judge_tui.model.rubrics import FewShotPin, Rubric, definition_hash, rubric_from_definition
from judge_tui.store import Store
from judge_tui.store.common import now
from judge_tui.store.rubric_choice import resolve_rubric
from tests.calibration.fixtures import JUDGE_CMD, MODEL, SPLITS, build_study
from tests.narrowing import present

EXPERTS = ("alice", "bob")
EVERY_ITEM = sum(len(numbers) for numbers in SPLITS.values())


def cli(db: Path, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "judge_tui", *args, "--db", str(db)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr + done.stdout
    return done.stdout


def test_chosen_examples_change_the_judges_hash_and_never_the_rubric_versions(rubrics: dict[str, Rubric]) -> None:
    binary = rubrics["binary"]
    pinned = dataclasses.replace(binary, examples=[FewShotPin("P04", "alice", "x")])
    assert pinned.content_hash == binary.content_hash == "3ce7762da97bd64a"  # the judge's settings left out
    assert binary.judge_hash == "8827d351f1d8e9a2"  # the whole definition: the hash databases recorded
    assert pinned.judge_hash == "1d87b9dce7e81ee8"  # with them, the previous release's: prompt versions keep theirs
    fewer = dataclasses.replace(binary, few_shot_examples=0, judge_output_extras=[])
    assert fewer.content_hash == binary.content_hash
    assert fewer.judge_hash != binary.judge_hash


def judge_all(db: Path) -> None:
    """The judge command over every item (the experts rated them all), with the local program."""
    cli(db, "judge", "--rubric", "binary", "--backend", "command", "--cmd", JUDGE_CMD, "--model", MODEL)


def keep_an_example(db: Path) -> str:
    """The judge screen's `x` then `K`: a train item made an example, checked, recorded with its reason, kept.
    Returns the kept prompt version."""
    with Store(db) as store:
        rubric = resolve_rubric("binary", store)
        files = judge_texts(store, rubric)
        rubric_text, template_text = files.texts()
        new = promote_example(store, rubric, rubric_text, "P04", "FAIL: HONEY IS NOT VEGAN", "alice")
        change = check_change(store, rubric, files, new, template_text)
        trial = apply_change(store, rubric, files, change, "the judge passed honey", ["P04"])
        keep(store, trial)
        return trial.after


def judge_of(db: Path, prompt_version: str) -> str:
    with Store(db) as store:
        return next(r["id"] for r in store.judge_raters_with_prompt("binary") if r["prompt_version"] == prompt_version)


def report(db: Path, judge: str) -> dict[str, Any]:
    return dict(json.loads(cli(db, "report", "--rubric", "binary", "--raters", f"{'+'.join(EXPERTS)},{judge}",
                               "--format", "json")))


def validity_of(data: dict[str, Any], judge: str) -> dict[str, Any]:
    return next(j for j in data["judge_validity"]["judges"] if j["judge"] == judge)


def compared_on(block: dict[str, Any]) -> set[int]:
    """The items a validity block decides its item-level targets (alignment, kappa) on."""
    return {t["n"] for t in block["targets"] if t["key"] == "alignment" or t["key"].startswith("kappa")}


def body_n(data: dict[str, Any]) -> set[int]:
    """The items the body of the report compares on."""
    return {int(data["counts"]["compared"])}


@pytest.mark.slow
def test_a_kept_example_compares_the_kept_judge_on_every_expert_label(tmp_path: Path,
                                                                      rubrics: dict[str, Rubric]) -> None:
    db = build_study(tmp_path / "study.db", rubrics["binary"])
    judge_all(db)
    kept = keep_an_example(db)
    judge_all(db)  # the kept prompt judges every item again
    with Store(db) as store:
        assert len(store.rubric_versions("binary")) == 1  # what the experts are asked did not change
        assert [p["prompt_version"] for p in store.prompt_versions("binary")][-1] == kept
    judge = judge_of(db, kept)
    data = report(db, judge)
    block = validity_of(data, judge)
    assert block["rubric_version"] == 1
    assert block["newest_version"]
    assert compared_on(block) == body_n(data) == {EVERY_ITEM}
    assert data["judge_validity"]["too_few_ratings"] == []
    history = cli(db, "history", "--rubric", "binary")
    assert "the judge passed honey" in history
    assert "kept" in history  # the judge's change, with its reason
    assert "#2" not in history  # and no second rubric version
    # The rubric file without the example, adopted on purpose: a judge change again, never a rubric version.
    back = cli(db, "rubric-change", "binary", "--reason", "examples", "--items", "P04")
    assert "recorded judge prompt" in back
    assert "still rubric version #1" in back
    with Store(db) as store:
        assert len(store.rubric_versions("binary")) == 1
        assert resolve_rubric("binary", store).examples == []


@pytest.mark.slow
def test_split_says_which_few_shot_examples_were_chosen_and_which_the_judge_picked(tmp_path: Path,
                                                                                    rubrics: dict[str, Rubric]) -> None:
    db = build_study(tmp_path / "study.db", rubrics["binary"])
    judge_all(db)  # three examples a prompt, four train items: each is shown the three others
    assert "  4 few-shot examples kept in train: 4 picked by the judge itself\n" in cli(db, "split")
    keep_an_example(db)  # P04 chosen: shown first, the judge picks the other two of each prompt
    judge_all(db)
    out = cli(db, "split")
    assert "  4 few-shot examples kept in train: 1 chosen and 3 picked by the judge itself\n" in out
    assert "(s) kept in train" not in out


def old_release_database(tmp_path: Path, rubric: Rubric, first_had_example: bool
                         ) -> tuple[Path, dict[str, int], str]:
    """A database as the previous release left it after a few-shot change: rubric version #2 is #1 with one more
    example (each hashed with its examples), the experts' labels under #1, the kept judge's under #2, and one
    expert who rated an item again under #2. ``first_had_example``: #1 already had an example. Returns the
    database, each rater's count of ratings and the kept judge's rater id."""
    db = build_study(tmp_path / "old.db", rubric)
    judge_all(db)
    first = {**rubric.definition(),
             "examples": [{"item": "P02", "rater": "bob", "explanation": "FAIL: honey"}] if first_had_example else []}
    with_example = {**first, "examples": [*first["examples"],
                                          {"item": "P04", "rater": "alice", "explanation": "FAIL: HONEY IS NOT VEGAN"}]}
    with Store(db) as store:  # the kept judge's prompt version, as the previous release computed it too
        kept = JudgePrompt.for_rubric(rubric_from_definition(with_example, "the kept definition"), store).version
    judge = judge_rater_id(MODEL, "binary", kept)
    later = now()  # after everything build_study and the judge recorded
    conn = sqlite3.connect(db)
    with conn:
        first_id = conn.execute("SELECT id FROM rubric_versions").fetchone()[0]
        conn.execute("UPDATE rubric_versions SET definition = ?, content_hash = ? WHERE id = ?",
                     [json.dumps(first), definition_hash(first, judge_settings=True), first_id])
        second = conn.execute(
            "INSERT INTO rubric_versions (rubric, version, content_hash, definition, reason, motivating_items,"
            " created_at) VALUES ('binary', ?, ?, ?, 'the judge passed honey', '[\"P04\"]', ?)",
            [rubric.version, definition_hash(with_example, judge_settings=True), json.dumps(with_example),
             later]).lastrowid
        conn.execute("INSERT INTO prompt_versions (rubric, prompt_version, rubric_version_id, reason,"
                     " motivating_items, created_at) VALUES ('binary', ?, ?, 'the judge passed honey', '[\"P04\"]',"
                     " ?)", [kept, second, later])
        conn.execute("INSERT INTO raters (id, kind, model, prompt_version, created_at)"
                     " VALUES (?, 'judge', ?, ?, ?)", [judge, MODEL, kept, later])
        conn.execute("INSERT INTO ratings (item_id, rater_id, rubric_version_id, repeat, scores, overall, verdict,"
                     " created_at, updated_at) SELECT item_id, ?, ?, 0, scores, overall, verdict,"
                     " created_at, updated_at FROM ratings WHERE rater_id = 'alice'", [judge, second])
        conn.execute("INSERT INTO judge_jobs (item_id, rater_id, rubric_version_id, repeat, status, attempts,"
                     " rating_id, created_at, updated_at) SELECT item_id, rater_id, rubric_version_id, 0, 'done', 1,"
                     " id, created_at, updated_at FROM ratings WHERE rater_id = ?", [judge])
        conn.execute("INSERT INTO ratings (item_id, rater_id, rubric_version_id, repeat, scores, overall, verdict,"
                     " created_at, updated_at) SELECT item_id, rater_id, ?, 0, scores, overall, verdict,"
                     " created_at, updated_at FROM ratings WHERE rater_id = 'bob' AND item_id = 'P05'", [second])
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm015_rubric_versions_without_examples'")
    counts = dict(conn.execute("SELECT rater_id, COUNT(*) FROM ratings GROUP BY rater_id").fetchall())
    conn.close()
    assert present(second) != first_id
    return db, counts, judge


@pytest.mark.slow
@pytest.mark.parametrize("first_had_example", [False, True])
def test_a_database_of_the_previous_release_opens_with_every_rating_kept_and_compared(
        tmp_path: Path, rubrics: dict[str, Rubric], first_had_example: bool) -> None:
    db, counts, judge = old_release_database(tmp_path, rubrics["binary"], first_had_example)
    if first_had_example:  # no version holds the hash of what the experts are asked until the migration gives it
        conn = sqlite3.connect(db)
        held = {h for (h,) in conn.execute("SELECT content_hash FROM rubric_versions")}
        conn.close()
        assert rubrics["binary"].content_hash not in held
    data = report(db, judge)  # opens the file: the migration runs
    conn = sqlite3.connect(db)
    assert dict(conn.execute("SELECT rater_id, COUNT(*) FROM ratings GROUP BY rater_id").fetchall()) == counts
    assert conn.execute("SELECT COUNT(*) FROM rubric_versions").fetchone()[0] == 2  # history keeps both
    conn.close()
    block = validity_of(data, judge)
    assert block["rubric_version"] == 1  # compared as #1, the version that asks the same
    assert compared_on(block) == body_n(data) == {EVERY_ITEM}
    assert data["judge_validity"]["too_few_ratings"] == []
    with Store(db) as store:  # the rubric file (with or without the example) is #1, with its hash
        assert present(store.rubric_version_by_hash(rubrics["binary"].content_hash))["number"] == 1
    judge_all(db)  # no unexplained rubric change stops the judge, and the kept judge judges nothing again
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT COUNT(*) FROM ratings WHERE rater_id = ?", [judge]).fetchone()[0] == counts[judge]
    conn.close()
    history = cli(db, "history", "--rubric", "binary")
    assert "compared as #1: it differs only in the judge's settings" in history
    with Store(db) as store:
        first_judge = next(r["id"] for r in store.judge_raters_with_prompt("binary") if r["id"] != judge)
    compared = json.loads(cli(db, "report", "--rubric", "binary", "--compare", first_judge, "#2", "--format", "json"))
    assert compared["version_comparison"]["items"] == len(SPLITS["dev"])  # #2's judgments found, as #1's


@pytest.mark.slow
def test_a_peer_of_the_previous_release_merges_in_without_a_rating_twice(tmp_path: Path,
                                                                         rubrics: dict[str, Rubric]) -> None:
    db, counts, _judge = old_release_database(tmp_path, rubrics["binary"], first_had_example=True)
    peer = tmp_path / "peer.db"
    peer.write_bytes(db.read_bytes())  # the same study, never opened by this release: its hashes are the old ones
    cli(db, "history", "--rubric", "binary")  # ours is opened, and migrated
    cli(db, "merge", str(peer))
    conn = sqlite3.connect(db)
    assert dict(conn.execute("SELECT rater_id, COUNT(*) FROM ratings GROUP BY rater_id").fetchall()) == counts
    assert conn.execute("SELECT COUNT(*) FROM rubric_versions").fetchone()[0] == 2
    conn.close()
