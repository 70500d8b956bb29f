"""A newcomer's walk as a study lead, end to end through the real command line and the app: a practitioner's
published JSONL of 101 labelled traces imported with `--map`, its labels filed as an expert's, split, judged by
a program of the lead's, a few-shot example kept on the judge screen (`x`, then `K`), the kept judge judging
again. Then: another study and the demo are untouched and no file is written to the user-wide rubrics folder;
the validity page of the kept judge compares on all 101 expert labels; the report (text and JSON), its jury and
validity page, the judge screen's heading and the app's summary name the same judge; `assign` gives two new
experts 12 items each, an overlap with each other and with the imported labels; and what `status`, `flags`,
the judge's progress and `report` print fits a terminal 80 columns wide."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from judge_tui.analysis.judges import NEWEST_KEPT
from judge_tui.judge.calibration import open_trial
from judge_tui.judge.prompts import JudgePrompt
from judge_tui.model import locations
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.store.rubric_choice import resolve_rubric
from judge_tui.transfer.demo_loading import open_demo
from judge_tui.tui.screens.calibrate import CalibrationApp, CalibrationScreen
from judge_tui.tui.widgets.dialogs import AskScreen
from tests.calibration.fixtures import JUDGE_CMD
from tests.calibration.test_changes_stay_in_their_study import user_folder_files, versions_of
from tests.calibration.test_one_judge import judge_screen, rater_of, summary_heading
from tests.test_cli_output import on_terminal
from tests.waiting import app_until

ITEMS = 101
MODEL = "my-judge"  # the lead's own program, as the command backend runs it
OTHER = "my-other-judge"  # a second model on a few items: the jury's other juror
EXPERT = "pat"  # the practitioner whose labels came with the traces
FLAG_REASON = "The recipe lists honey in the glaze but the response calls the whole dish vegan anyway"


def has_honey(n: int) -> bool:
    return n % 3 == 0


def label(n: int) -> str:
    """The practitioner's label: honey fails; a handful of their own calls differ from that rule."""
    fails = has_honey(n) != (n % 23 == 0)
    return "FAIL" if fails else "PASS"


def write_traces(path: Path) -> None:
    """Labelled traces as practitioners publish them: their own keys, the label beside the response."""
    rows = [{"trace_id": f"t-{n:03d}", "query": f"a vegan dinner idea, number {n}", "dietary_restriction": "vegan",
             "response": f"roasted squash with {'a honey glaze' if has_honey(n) else 'a miso glaze'}, serves {n % 4 + 1}",
             "label": label(n)} for n in range(1, ITEMS + 1)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def cli(db: Path, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "judge_tui", *args, "--db", str(db)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr + done.stdout
    return done.stdout


def judge(db: Path, *args: str, model: str = MODEL) -> None:
    cli(db, "judge", "--rubric", "binary", "--backend", "command", "--cmd", JUDGE_CMD, "--model", model, *args)


def lines_over(text: str, columns: int) -> list[str]:
    """The runs of text drawn from the first column (a carriage return starts one again) wider than the terminal."""
    lines = [re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", line).rstrip() for line in re.split(r"[\r\n]", text)]
    return [line for line in lines if len(line) > columns]


def start_study(db: Path, traces: Path) -> None:
    """The README's first steps on the practitioner's file: items and labels with `--map`, then the splits."""
    cli(db, "import", str(traces), "--rubric", "binary", "--map", "id=trace_id",
        "--map", "criterion=The recipe must be {dietary_restriction}.")
    cli(db, "import-ratings", str(traces), "--rubric", "binary", "--rater", EXPERT, "--kind", "human",
        "--map", "item_id=trace_id")
    cli(db, "split", "--seed", "42")


def a_train_item_with_honey(db: Path) -> str:
    with Store(db) as store:
        return next(item.id for item in store.iter_items("binary", "train") if "honey" in item.fields["response"])


async def keep_an_example(db: Path, item_id: str) -> str:
    """On the judge screen: `x` makes the practitioner's FAIL of a train item an example, a reason, then `K`.
    Returns the kept prompt version."""
    with Store(db) as store:
        app = CalibrationApp(store, resolve_rubric("binary", store), "lead",
                             settings=Settings(judge_in_background=False))
        async with app.run_test(size=(80, 24)) as pilot:
            screen = app.screen
            assert isinstance(screen, CalibrationScreen)
            await app_until(pilot, lambda: screen.standing is not None and not screen.computing, "the figures")
            await pilot.press("x")
            await app_until(pilot, lambda: isinstance(app.screen, AskScreen), "the example's dialog")
            await pilot.press(*item_id, "enter", *"FAIL: HONEY IS NOT VEGAN", "enter")
            # one expert rated the item: their rating is taken without asking whose
            await app_until(pilot, lambda: isinstance(app.screen, AskScreen)
                            and item_id in app.screen.query(Input).last().value, "the reason's dialog")
            await pilot.press(*"the judge passed honey", "enter", "enter")
            await app_until(pilot, lambda: open_trial(store, "binary") is not None, "the change under trial")
            await pilot.press("K")
            await app_until(pilot, lambda: open_trial(store, "binary") is None, "the change kept")
            await pilot.press("q")
        assert [(p.item, p.rater) for p in resolve_rubric("binary", store).examples] == [(item_id, EXPERT)]
        return JudgePrompt.for_rubric(resolve_rubric("binary", store), store).version


def validity_block(data: dict[str, Any], judge_id: str) -> dict[str, Any]:
    return dict(next(j for j in data["judge_validity"]["judges"] if j["judge"] == judge_id))


@pytest.mark.slow  # a dozen real processes and three Pilot sessions
async def test_a_newcomers_walk_from_labelled_traces_to_a_kept_judge_and_two_new_experts(tmp_path: Path) -> None:
    traces = tmp_path / "traces.jsonl"
    write_traces(traces)
    study, other = tmp_path / "study.db", tmp_path / "other.db"
    for db in (study, other):
        start_study(db, traces)
    judge(other)
    demo, _added = open_demo()
    demo.close()
    demo_db = locations.demo_db_path()
    before = {db: versions_of(db) for db in (other, demo_db)}
    assert user_folder_files() == []

    judge(study)  # the first judge over every item, then a flag the lead raises
    with Store(study) as store, store.transaction() as conn:
        conn.execute("UPDATE ratings SET flagged = 1, flag_reason = ? WHERE rater_id = ? AND item_id = 't-003'",
                     [FLAG_REASON, EXPERT])
    version = await keep_an_example(study, a_train_item_with_honey(study))
    progress = on_terminal("judge", "--rubric", "binary", "--backend", "command", "--cmd", JUDGE_CMD,
                           "--model", MODEL, "--db", str(study), columns=80)  # the kept judge, every item
    assert lines_over(progress, 80) == []
    judge(study, "--limit", "5", model=OTHER)
    the_judge = rater_of(study, version, MODEL)

    # Another study and the demo keep their own definitions; no file was written for the user.
    for db in (other, demo_db):
        cli(db, "status")
        with Store(db) as store:
            assert resolve_rubric("binary", store).examples == []
        assert versions_of(db) == before[db]
    assert user_folder_files() == []

    # The kept judge compares on every expert label, and every place names it.
    with Store(study) as store:
        assert len(store.rubric_versions("binary")) == 1  # an example changes the judge, not the rubric
    data = json.loads(cli(study, "report", "--rubric", "binary", "--format", "json"))
    assert data["judge"]["rater"] == the_judge
    assert data["judge"]["chosen"] == NEWEST_KEPT
    assert data["raters"]["judge"]["ids"] == [the_judge]
    block = validity_block(data, the_judge)
    assert data["judge_validity"]["judges"][0]["judge"] == the_judge
    assert {t["n"] for t in block["targets"] if t["key"] == "alignment" or t["key"].startswith("kappa")} == {ITEMS}
    assert int(data["counts"]["compared"]) == ITEMS
    with Store(study) as store:  # TPR and TNR on every test item, each with the practitioner's label
        test_items = sum(1 for _item in store.iter_items("binary", "test"))
    assert test_items > 0
    assert sum(t["n"] for t in block["targets"] if t["key"] in ("tpr", "tnr")) == test_items
    assert data["judge_validity"]["too_few_ratings"] == []
    assert the_judge in data["jury"]["members"]
    text = cli(study, "report", "--rubric", "binary")
    assert text.startswith(f"What the judge may be used for: judge {the_judge}")
    assert f"The judge is {the_judge} (the newest kept judge version)" in " ".join(text.split())
    assert f"The judge: {the_judge}" in (await judge_screen(study))[1]
    assert f"The judge: {the_judge}" in await summary_heading(study, the_judge)

    # Two new experts: 12 items each, an overlap with each other, every item compared with the labels too.
    plan = json.loads(cli(study, "assign", "--rubric", "binary", "--experts", "ann,bob", "--overlap", "0.3",
                          "--per-expert", "12", "--format", "json"))
    assert {e["expert"]: e["items"] for e in plan["experts"]} == {"ann": 12, "bob": 12}
    assert plan["rated_by_others"] == {EXPERT: ITEMS}
    with Store(study) as store:
        queues = {e: {item for _e, item, _p, _s in store.assigned_items(plan["plan"], e)} for e in ("ann", "bob")}
    assert plan["overlap_items"] >= 3
    assert len(queues["ann"] & queues["bob"]) == plan["overlap_items"]
    conn = sqlite3.connect(study)
    labelled = {item for (item,) in conn.execute("SELECT item_id FROM ratings WHERE rater_id = ?", [EXPERT])}
    conn.close()
    assert queues["ann"] | queues["bob"] <= labelled

    # What the lead prints fits 80 columns: tables, the judge's progress and messages alike.
    for args in (["status"], ["flags"], ["report", "--rubric", "binary"], ["split", "--seed", "42"],
                 ["assign", "--rubric", "binary", "--experts", "ann,bob", "--overlap", "0.3", "--per-expert", "12"]):
        out = on_terminal(*args, "--db", str(study), columns=80)
        assert lines_over(out, 80) == [], args
        if args == ["flags"]:  # the lead's reason, wrapped on words
            words = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out).replace("│", " ").split()
            assert all(word in words for word in FLAG_REASON.split()), out
