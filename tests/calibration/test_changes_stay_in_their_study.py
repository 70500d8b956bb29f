"""A study's changes live in the study's database: a few-shot example kept on the judge screen of study A writes no
file and changes nothing in study B or the demo, and the kept judge still compares on every expert label. A
database as the previous release left it (the judge's few-shot count recorded as a rubric version) opens with
every rating kept and compared, and a re-rating there becomes the current rating."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import Input

from judge_tui.judge.calibration import open_trial
from judge_tui.judge.prompts import JudgePrompt
from judge_tui.judge.runner import judge_rater_id
from judge_tui.model import locations
from judge_tui.model.records import Rating
from judge_tui.model.rubrics import Rubric, definition_hash, rubric_from_definition
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.store.common import now
from judge_tui.store.rubric_choice import resolve_rubric
from judge_tui.transfer.demo_loading import open_demo
from judge_tui.tui.screens.calibrate import CalibrationApp, CalibrationScreen
from judge_tui.tui.widgets.dialogs import AskScreen, ChooseScreen
from tests.calibration.fixtures import JUDGE_CMD, MODEL, build_study
from tests.calibration.test_examples_keep_expert_labels import (
    EVERY_ITEM,
    body_n,
    cli,
    compared_on,
    judge_all,
    judge_of,
    report,
    validity_of,
)
from tests.narrowing import present
from tests.waiting import app_until

VERSION_TABLES = ("rubric_versions", "prompt_versions", "calibration_changes")


def versions_of(db: Path) -> list[str]:
    """Every row of the tables that say which definition a database uses, as SQL."""
    conn = sqlite3.connect(db)
    try:
        return [line for line in conn.iterdump() if any(f'"{table}"' in line for table in VERSION_TABLES)]
    finally:
        conn.close()


def user_folder_files() -> list[Path]:
    folder = locations.user_rubrics_dir()
    return sorted(folder.iterdir()) if folder.exists() else []


async def keep_an_example_on_the_judge_screen(db: Path) -> str:
    """The lead's `x` (P04, alice's rating, a one-line why), the reason, then `K`. Returns the kept version."""
    with Store(db) as store:
        rubric = resolve_rubric("binary", store)
        app = CalibrationApp(store, rubric, "lead", settings=Settings(judge_in_background=False))
        async with app.run_test(size=(80, 24)) as pilot:
            screen = app.screen
            assert isinstance(screen, CalibrationScreen)
            await app_until(pilot, lambda: screen.standing is not None and not screen.computing, "the figures")
            await pilot.press("x")
            await app_until(pilot, lambda: isinstance(app.screen, AskScreen), "the example's dialog")
            await pilot.press(*"P04", "enter", *"FAIL: honey is not vegan", "enter")
            await app_until(pilot, lambda: isinstance(app.screen, ChooseScreen), "whose rating")
            await pilot.press("enter")  # alice, the first expert
            await app_until(pilot, lambda: isinstance(app.screen, AskScreen), "the reason's dialog")
            assert "P04" in app.screen.query(Input).last().value  # the example's item motivates the change
            await pilot.press(*"the judge passed honey", "enter", "enter")
            await app_until(pilot, lambda: open_trial(store, "binary") is not None, "the change under trial")
            await pilot.press("K")
            await app_until(pilot, lambda: open_trial(store, "binary") is None, "the change kept")
            await pilot.press("q")
        kept = JudgePrompt.for_rubric(resolve_rubric("binary", store), store).version
        assert [(p.item, p.rater) for p in resolve_rubric("binary", store).examples] == [("P04", "alice")]
        return kept


@pytest.mark.slow  # real processes and a Pilot session
async def test_an_example_kept_for_one_study_changes_no_other_database_and_no_file(tmp_path: Path,
                                                                                 rubrics: dict[str, Rubric]) -> None:
    study_a = build_study(tmp_path / "a.db", rubrics["binary"])
    study_b = build_study(tmp_path / "b.db", rubrics["binary"])
    for db in (study_a, study_b):
        judge_all(db)
    demo, _added = open_demo()
    demo.close()
    demo_db = locations.demo_db_path()
    before = {db: versions_of(db) for db in (study_b, demo_db)}

    kept = await keep_an_example_on_the_judge_screen(study_a)

    assert user_folder_files() == []  # nothing written to the user-wide rubrics folder
    for db in (study_b, demo_db):  # every command on the other databases: their own definition, untouched
        judged = subprocess.run([sys.executable, "-m", "judge_tui", "judge", "--rubric", "binary", "--backend",
                                 "command", "--cmd", JUDGE_CMD, "--model", MODEL, "--dry-run", "--db", str(db)],
                                capture_output=True, text=True, check=False)
        assert judged.returncode == 0, judged.stderr
        assert "rubric-change" not in judged.stderr
        assert "has changed" not in judged.stderr
        cli(db, "history", "--rubric", "binary")
        cli(db, "status")
        with Store(db) as store:
            in_force = resolve_rubric("binary", store)
            assert in_force.examples == []
            assert in_force.judge_hash == rubrics["binary"].judge_hash
            assert JudgePrompt.for_rubric(in_force, store).version != kept
        assert versions_of(db) == before[db]
    assert user_folder_files() == []

    judge_all(study_a)  # the kept judge judges every item
    with Store(study_a) as store:
        assert len(store.rubric_versions("binary")) == 1  # what the experts are asked did not change
    judge = judge_of(study_a, kept)
    data = report(study_a, judge)
    block = validity_of(data, judge)
    assert compared_on(block) == body_n(data) == {EVERY_ITEM}  # every expert label compares with the kept judge
    assert data["judge_validity"]["too_few_ratings"] == []


# The view of a rater's current rating as the previous release made it (m014), and the columns added since.
PREVIOUS_VIEW = """
    CREATE VIEW current_ratings AS
    SELECT r.* FROM ratings r JOIN rubric_versions v ON v.id = r.rubric_version_id
     WHERE r.repeat = 0 AND NOT EXISTS (
           SELECT 1 FROM ratings o JOIN rubric_versions w ON w.id = o.rubric_version_id
            WHERE o.item_id = r.item_id AND o.rater_id = r.rater_id AND o.repeat = 0
              AND o.rubric_version_id <> r.rubric_version_id
              AND (w.created_at > v.created_at OR (w.created_at = v.created_at AND w.id > v.id)))
"""


def previous_release_hash(definition: dict[str, object]) -> str:
    """A rubric version's hash as the previous release computed it: the judge's chosen examples left out, its
    few-shot count and output extras in."""
    return definition_hash({k: v for k, v in definition.items() if k != "examples"}, judge_settings=True)


def previous_release_database(tmp_path: Path, rubric: Rubric) -> tuple[Path, dict[str, int], str]:
    """A database as the previous release left it after the lead raised the judge's few-shot count: rubric version
    #2 is #1 with `few_shot_examples` 4 (a rubric version then), the experts' labels under #1, the judge of #2's
    prompt under #2, and bob's rating of P05 made again under #2. Returns the database, each rater's count of
    ratings and the judge of #2."""
    db = build_study(tmp_path / "previous.db", rubric)
    judge_all(db)
    first = rubric.definition()
    more = {**first, "few_shot_examples": 4}
    with Store(db) as store:
        prompt = JudgePrompt.for_rubric(rubric_from_definition(more, "the second definition"), store).version
    judge = judge_rater_id(MODEL, "binary", prompt)
    later = now()
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("DROP VIEW current_ratings")
        for table, column in (("rubric_versions", "compared_as"), ("prompt_versions", "definition"),
                              ("prompt_versions", "adopted_at")):
            conn.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        conn.execute(PREVIOUS_VIEW)
        conn.execute("DROP TABLE judge_decisions")
        conn.execute("DROP TABLE judge_certificates")
        conn.execute("DELETE FROM _sqlite_migrations WHERE name IN ('m016_judge_decisions', 'm017_judge_definitions')")
        first_id = conn.execute("SELECT id FROM rubric_versions").fetchone()[0]
        conn.execute("UPDATE rubric_versions SET content_hash = ? WHERE id = ?",
                     [previous_release_hash(first), first_id])
        second = conn.execute(
            "INSERT INTO rubric_versions (rubric, version, content_hash, definition, reason, motivating_items,"
            " created_at) VALUES ('binary', ?, ?, ?, 'four examples', '[\"P06\"]', ?)",
            [rubric.version, previous_release_hash(more), json.dumps(more), later]).lastrowid
        conn.execute("INSERT INTO prompt_versions (rubric, prompt_version, rubric_version_id, reason,"
                     " motivating_items, created_at) VALUES ('binary', ?, ?, 'four examples', '[\"P06\"]', ?)",
                     [prompt, second, later])
        conn.execute("INSERT INTO raters (id, kind, model, prompt_version, created_at)"
                     " VALUES (?, 'judge', ?, ?, ?)", [judge, MODEL, prompt, later])
        conn.execute("INSERT INTO ratings (item_id, rater_id, rubric_version_id, repeat, scores, overall, verdict,"
                     " created_at, updated_at) SELECT item_id, ?, ?, 0, scores, overall, verdict,"
                     " ?, ? FROM ratings WHERE rater_id = 'alice'", [judge, second, later, later])
        conn.execute("INSERT INTO judge_jobs (item_id, rater_id, rubric_version_id, repeat, status, attempts,"
                     " rating_id, created_at, updated_at) SELECT item_id, rater_id, rubric_version_id, 0, 'done', 1,"
                     " id, created_at, updated_at FROM ratings WHERE rater_id = ?", [judge])
        conn.execute("INSERT INTO ratings (item_id, rater_id, rubric_version_id, repeat, scores, overall, verdict,"
                     " created_at, updated_at) SELECT item_id, rater_id, ?, 0, scores, overall, verdict,"
                     " ?, ? FROM ratings WHERE rater_id = 'bob' AND item_id = 'P05'", [second, later, later])
    counts = dict(conn.execute("SELECT rater_id, COUNT(*) FROM ratings GROUP BY rater_id").fetchall())
    conn.close()
    assert present(second) != first_id
    return db, counts, judge


def alice_and_bob_aligned(db: Path) -> float:
    """How often bob's current ratings align with alice's, from the report (the figures' own rule)."""
    data = json.loads(cli(db, "report", "--rubric", "binary", "--raters", "alice,bob", "--format", "json"))
    [label] = [d for d in data["dimensions"] if d["dimension"] == "label"]
    assert label["n"] == EVERY_ITEM
    return float(label["alignment_rate"])


@pytest.mark.slow  # real processes
def test_a_database_of_the_previous_release_keeps_and_compares_every_rating_and_takes_a_re_rating(
        tmp_path: Path, rubrics: dict[str, Rubric]) -> None:
    db, counts, judge = previous_release_database(tmp_path, rubrics["binary"])
    data = report(db, judge)  # opens the file: the migration runs
    conn = sqlite3.connect(db)
    assert dict(conn.execute("SELECT rater_id, COUNT(*) FROM ratings GROUP BY rater_id").fetchall()) == counts
    assert conn.execute("SELECT COUNT(*) FROM rubric_versions").fetchone()[0] == 2  # history keeps both
    conn.close()
    block = validity_of(data, judge)
    assert block["rubric_version"] == 1  # compared as #1, the version that asks the same
    assert compared_on(block) == body_n(data) == {EVERY_ITEM}
    assert alice_and_bob_aligned(db) == 1.0
    with Store(db) as store:  # the rubric file is #1, with the hash that leaves the judge's settings out
        assert present(store.rubric_version_by_hash(rubrics["binary"].content_hash))["number"] == 1
        rubric = resolve_rubric("binary", store)
        assert rubric.few_shot_examples == 4  # the judge the lead chose stays in force
        version = store.ensure_rubric_version(rubric)
        assert present(store.rubric_version(version))["number"] == 1
        # bob rates P05 again under the version in force (#1): that is his rating now, not #2's older one
        assert present(store.rating("P05", "bob")).scores == {"label": 1.0}
        store.save_rating(Rating(item_id="P05", rater_id="bob", rubric_version_id=version, scores={"label": 0.0}))
        assert present(store.rating("P05", "bob")).scores == {"label": 0.0}
    assert alice_and_bob_aligned(db) == pytest.approx((EVERY_ITEM - 1) / EVERY_ITEM)  # P05 now differs
    # The lead's kept change on the judge screen, then history: the earlier release's version and the judge's.
    cli(db, "rubric-change", "binary", "--reason", "back to three examples", "--items", "P06")
    history = cli(db, "history", "--rubric", "binary")
    assert "compared as #1: it differs only in the judge's settings" in history
    assert "reason: back to three examples" in history
    assert "judge prompt" in history
    with Store(db) as store:
        assert len(store.rubric_versions("binary")) == 2
        assert resolve_rubric("binary", store).few_shot_examples == 3


@pytest.mark.slow  # real processes and a Pilot session
async def test_a_study_adopts_another_studys_exported_judge_only_on_purpose(tmp_path: Path,
                                                                          rubrics: dict[str, Rubric]) -> None:
    from judge_tui.cli.launch import prepare
    from judge_tui.cli.parser import build_parser

    study_a = build_study(tmp_path / "a.db", rubrics["binary"])
    study_b = build_study(tmp_path / "b.db", rubrics["binary"])
    for db in (study_a, study_b):
        judge_all(db)
    kept = await keep_an_example_on_the_judge_screen(study_a)
    folder = locations.user_rubrics_dir()
    cli(study_a, "rubric-export", "binary", "--to", str(folder))  # the lead writes the files on purpose
    assert [p.name for p in user_folder_files()] == ["binary.judge.md", "binary.rubric.toml"]
    before = versions_of(study_b)
    launch = prepare(build_parser().parse_args(["rate", "--db", str(study_b), "--reviewer", "carol"]))
    try:  # study B keeps its own, and its app says once how to adopt the file
        assert launch.rubric.examples == []
        assert f"{folder / 'binary.rubric.toml'} differs from rubric binary as {study_b} uses it" in launch.notice
        assert "judge-tui rubric-change binary --reason TEXT --items ID,ID" in launch.notice
    finally:
        launch.store.close()
    assert versions_of(study_b) == before
    adopted = cli(study_b, "rubric-change", "binary", "--reason", "the example that helped study A", "--items",
                  "P04")
    assert "recorded judge prompt" in adopted
    assert "still rubric version #1" in adopted
    with Store(study_b) as store:
        assert len(store.rubric_versions("binary")) == 1  # every expert label still compares
        in_force = resolve_rubric("binary", store)
        assert [(p.item, p.rater) for p in in_force.examples] == [("P04", "alice")]
        assert JudgePrompt.for_rubric(in_force, store).version == kept  # the same judge as study A's
