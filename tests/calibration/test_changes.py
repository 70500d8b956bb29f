"""Changing the judge: few-shot examples from train only, broken changes refused with nothing recorded, the test
split kept out of the loop, and the judge screen kept from experts."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge_tui.judge.calibration import (
    apply_change,
    check_change,
    example_raters,
    judge_texts,
    promote_example,
)
from judge_tui.judge.prompts import JudgePrompt
from judge_tui.model import locations
from judge_tui.model.errors import UserError
from judge_tui.model.records import Item
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.store.rubric_choice import resolve_rubric
from judge_tui.tui.app import JudgeTuiApp
from judge_tui.tui.screens.calibrate import CalibrationApp, CalibrationScreen, lead_may_calibrate
from judge_tui.tui.screens.calibrate_figures import standing
from tests.calibration.fixtures import build_study, judge_dev
from tests.narrowing import present, screen_of
from tests.team_fixtures import rate
from tests.tui.screen_text import widget_text
from tests.waiting import app_until


@pytest.fixture
def study_store(tmp_path: Path, rubrics: dict[str, Rubric]) -> Iterator[Store]:
    with Store(build_study(tmp_path / "study.db", rubrics["binary"])) as store:
        yield store


def _recorded(store: Store) -> tuple[int, int]:
    return len(store.rubric_versions("binary")), len(store.prompt_versions("binary"))


def _nothing_written() -> bool:
    """The user-wide rubrics folder holds no file: a study's changes live in its database."""
    folder = locations.user_rubrics_dir()
    return not folder.exists() or not any(folder.iterdir())


@pytest.mark.parametrize(("item", "split"), [("P05", "dev"), ("P17", "test")])
def test_promotion_refuses_dev_and_test_items_with_the_reason(study_store, item, split):
    rubric = resolve_rubric("binary", study_store)
    text, _template = judge_texts(study_store, rubric).texts()
    with pytest.raises(UserError) as refused:
        promote_example(study_store, rubric, text, item, "honey is not vegan")
    assert f"{item} is in the {split} split" in str(refused.value)
    assert "train split only" in str(refused.value)


def test_a_promoted_train_item_leads_the_examples_with_its_explanation(study_store):
    rubric = resolve_rubric("binary", study_store)
    files = judge_texts(study_store, rubric)
    rubric_text, template_text = files.texts()
    new_text = promote_example(study_store, rubric, rubric_text, "P04", "FAIL: honey comes from bees")
    change = check_change(study_store, rubric, files, new_text, template_text)
    assert [(p.item, p.rater) for p in change.rubric.examples] == [("P04", "alice")]
    shown = change.prompt.render(study_store.item("P05"))
    assert shown.few_shot_ids[0] == "P04"
    assert "Why this answer: FAIL: honey comes from bees" in shown.system
    assert change.prompt.version != JudgePrompt.for_rubric(rubric, study_store).version


def test_a_hand_written_example_from_the_dev_split_is_refused_with_the_field(study_store):
    rubric = resolve_rubric("binary", study_store)
    files = judge_texts(study_store, rubric)
    rubric_text, template_text = files.texts()
    bad = rubric_text + '\n[[examples]]\nitem = "P05"\nrater = "alice"\n'
    with pytest.raises(UserError) as refused:
        check_change(study_store, rubric, files, bad, template_text)
    assert f"{files.rubric}: field examples.0.item: P05 is in the dev split" in str(refused.value)


def test_a_broken_rubric_is_refused_with_file_and_field_and_nothing_is_recorded(study_store):
    rubric = resolve_rubric("binary", study_store)
    files = judge_texts(study_store, rubric)
    rubric_text, template_text = files.texts()
    before = _recorded(study_store)
    broken = rubric_text.replace('kind = "pass_fail"', 'kind = "five_stars"')
    with pytest.raises(UserError) as refused:
        check_change(study_store, rubric, files, broken, template_text)
    assert str(files.rubric) in str(refused.value)
    assert "field scale.kind" in str(refused.value)
    assert _recorded(study_store) == before
    assert _nothing_written()


def test_a_broken_template_is_refused_with_its_file(study_store):
    rubric = resolve_rubric("binary", study_store)
    files = judge_texts(study_store, rubric)
    rubric_text, template_text = files.texts()
    with pytest.raises(UserError) as refused:
        check_change(study_store, rubric, files, rubric_text, template_text.replace("{{examples}}", "{{exemples}}"))
    assert str(files.template) in str(refused.value)
    assert "exemples" in str(refused.value)
    assert _nothing_written()


def test_a_change_without_a_reason_writes_and_records_nothing(study_store):
    rubric = resolve_rubric("binary", study_store)
    files = judge_texts(study_store, rubric)
    rubric_text, template_text = files.texts()
    change = check_change(study_store, rubric, files, rubric_text, template_text + "\nBe brief.\n")
    before = _recorded(study_store)
    with pytest.raises(UserError, match="needs a reason"):
        apply_change(study_store, rubric, files, change, "  ", ["P06"])
    assert _recorded(study_store) == before
    assert _nothing_written()


@pytest.mark.slow  # a real process
def test_the_test_split_never_enters_the_loop(study_store, tmp_path):
    rubric = resolve_rubric("binary", study_store)
    with pytest.raises(UserError, match="report --split test"):
        standing(study_store, rubric, prompt_version="x", previous=None, split="test")
    done = subprocess.run([sys.executable, "-m", "judge_tui", "calibrate", "--rubric", "binary", "--reviewer", "lead",
                           "--split", "test", "--db", str(study_store.path)], capture_output=True, text=True, check=False)
    assert done.returncode != 0
    assert "judge-tui report --split test" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow  # the judge program over the dev split
async def test_a_lead_who_rated_sees_the_judge_screen_over_their_own_items_only(tmp_path, rubrics):
    """The adjudication screen's rule (blind.visible_items): a lead who has rated is an expert too, and sees the
    judge, the other experts' notes and every figure over the items they rated, nothing over the others."""
    path = build_study(tmp_path / "study.db", rubrics["binary"])
    judge_dev(path)
    with Store(path) as store:
        rubric = resolve_rubric("binary", store)
        rate(store, rubric, "lena", "human", {"P05": {"label": 1.0}, "P06": {"label": 0.0}})
        store.mark_for_revision("P08", "binary", "honey passed again")  # an item lena has not rated
        assert lead_may_calibrate(store, rubric, "lena", lead=True) is None
        assert lead_may_calibrate(store, rubric, "lena", lead=False) is not None  # never an expert's, unasked
        app = CalibrationApp(store, rubric, "lena", settings=Settings(judge_in_background=False))
        async with app.run_test(size=(120, 40)) as pilot:
            screen = screen_of(app, CalibrationScreen)
            assert isinstance(screen, CalibrationScreen)
            s = await app_until(pilot, lambda: screen.standing, "the figures")
            assert [m.item_id for m in s.misaligned] == ["P06"]  # of the six honey items, the one lena rated
            assert s.figures[0].startswith("2 dev items judged and rated by the experts")
            assert any("you rated only" in note for note in s.notes)
            assert s.biases is not None
            assert {le.estimate.n for le in s.biases.leniency} == {2}
            shown = "\n".join(str(w.render()) for w in screen.query("Static"))
            assert "P08" not in shown
            assert "honey passed again" not in shown
        # The whole team's lead, who rated nothing, sees every dev item.
        app = CalibrationApp(store, rubric, "lead", settings=Settings(judge_in_background=False))
        async with app.run_test(size=(120, 40)) as pilot:
            screen = screen_of(app, CalibrationScreen)
            await app_until(pilot, lambda: screen.standing, "the figures")
            assert len(screen.standing.misaligned) == 6
            assert not screen.standing.notes


@pytest.mark.slow
async def test_j_opens_the_judge_screen_for_the_lead_only(study_store):
    rubric = resolve_rubric("binary", study_store)
    settings = Settings(judge_in_background=False)
    lead = JudgeTuiApp(study_store, rubric, reviewer="lead", settings=settings, lead=True)
    async with lead.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("J")
        await pilot.pause()
        assert isinstance(lead.screen, CalibrationScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(lead.screen, CalibrationScreen)
    expert = JudgeTuiApp(study_store, rubric, reviewer="carol", settings=settings)
    async with expert.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("J")
        await pilot.pause()
        assert not any(isinstance(s, CalibrationScreen) for s in expert.screen_stack)
        notices = list(expert.notices)
        assert any("The judge screen is the lead's" in n for n in notices)


async def test_the_in_app_editor_refuses_a_broken_template_and_keeps_the_text(study_store, monkeypatch):
    from textual.widgets import TextArea

    from judge_tui.tui.screens.calibrate import CalibrationApp
    from judge_tui.tui.widgets.dialogs import TextEditorScreen

    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    rubric = resolve_rubric("binary", study_store)
    files = judge_texts(study_store, rubric)
    before = _recorded(study_store)
    app = CalibrationApp(study_store, rubric, "lead")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, TextEditorScreen)
        area = app.screen.query_one(TextArea)
        area.move_cursor(area.document.end)
        await pilot.press(*"{{bad}}", "ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, CalibrationScreen)
        notices = "\n".join(app.notices)
        assert "Not saved, nothing recorded" in notices
        assert str(files.template) in notices
        assert "bad" in notices
        await pilot.press("t")  # the refused text comes back for the next try
        await pilot.pause()
        assert app.screen.query_one(TextArea).text.endswith("{{bad}}")
        await pilot.press("escape")
    assert _recorded(study_store) == before
    assert _nothing_written()


def test_the_example_carries_the_chosen_experts_rating_and_the_consensus_by_default(study_store):
    rubric = resolve_rubric("binary", study_store)
    rate(study_store, rubric, "carol", "human", {"P03": {"label": 0.0}})
    rate(study_store, rubric, "consensus", "human", {"P03": {"label": 1.0}})
    text, _template = judge_texts(study_store, rubric).texts()
    assert example_raters(study_store, rubric, "P03") == ["consensus", "alice", "bob", "carol"]
    assert 'rater = "consensus"' in promote_example(study_store, rubric, text, "P03", "maple syrup is vegan")
    assert 'rater = "carol"' in promote_example(study_store, rubric, text, "P03", "maple syrup is vegan", "carol")
    with pytest.raises(UserError, match="'dave' has no rating of P03; choose one of consensus, alice, bob, carol"):
        promote_example(study_store, rubric, text, "P03", "maple syrup is vegan", "dave")
    with pytest.raises(UserError, match="P05 is in the dev split"):
        example_raters(study_store, rubric, "P05")


@pytest.mark.slow
async def test_the_lead_chooses_whose_rating_the_example_shows_and_sees_what_is_written(study_store):
    from textual.widgets import OptionList

    from judge_tui.tui.widgets.dialogs import AskScreen, ChooseScreen

    rubric = resolve_rubric("binary", study_store)
    rate(study_store, rubric, "carol", "human", {"P03": {"label": 0.0}}, notes="syrup may hold bone char")
    files = judge_texts(study_store, rubric)
    app = CalibrationApp(study_store, rubric, "lead")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("x")
        await pilot.pause()
        from textual.widgets import Input

        train = next(iter(study_store.iter_items("binary", "train"))).id
        assert app.screen.query(Input).first().placeholder == f"e.g. {train}"  # this study's own train item
        await pilot.press(*"P03", "enter", *"carol saw the bone char", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ChooseScreen)
        listed = app.screen.query_one(OptionList)
        assert [str(listed.get_option_at_index(n).prompt) for n in range(listed.option_count)] == [
            "alice: Label PASS", "bob: Label PASS", "carol: Label FAIL"]
        assert 'rater = "alice"' in " ".join(widget_text(app).split())  # the default, the first expert (no consensus here)
        await pilot.press("down", "down")
        await pilot.pause()
        shown = " ".join(widget_text(app).split())
        assert 'rater = "carol"' in shown
        assert 'explanation = "carol saw the bone char"' in shown
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, AskScreen)
        await pilot.press(*"carol's view as an example", "enter", "enter")
        await pilot.pause()
        assert 'item = "P03"\nrater = "carol"' in judge_texts(study_store, resolve_rubric("binary", study_store)).rubric_text
        await pilot.press("q")
    assert [(p.item, p.rater) for p in resolve_rubric("binary", study_store).examples] == [("P03", "carol")]
    assert files.rubric_text != judge_texts(study_store, resolve_rubric("binary", study_store)).rubric_text
    assert _nothing_written()


@pytest.mark.slow
async def test_an_item_one_expert_rated_needs_no_choice(study_store):
    from judge_tui.tui.widgets.dialogs import AskScreen

    rubric = resolve_rubric("binary", study_store)
    study_store.add_items([Item(id="T1", rubric="binary", split="train",
                          fields={"query": "q", "criterion": "vegan", "response": "tofu"})])
    rate(study_store, rubric, "carol", "human", {"T1": {"label": 1.0}})
    app = CalibrationApp(study_store, rubric, "lead")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("x")
        await pilot.pause()
        await pilot.press(*"T1", "enter", *"tofu is vegan", "enter")
        await pilot.pause()
        assert isinstance(app.screen, AskScreen)
        assert "Why this change" in " ".join(widget_text(app).split())
        await pilot.press("escape")


def test_reverting_a_change_puts_the_earlier_definition_in_force_and_writes_no_file(study_store):
    from judge_tui.judge.calibration import open_trial, revert

    rubric = resolve_rubric("binary", study_store)
    files = judge_texts(study_store, rubric)
    rubric_text, template_text = files.texts()
    change = check_change(study_store, rubric, files, rubric_text, template_text + "\nBe brief.\n")
    apply_change(study_store, rubric, files, change, "briefer answers", ["P06"])
    assert _nothing_written()
    assert JudgePrompt.for_rubric(resolve_rubric("binary", study_store), study_store).version == change.prompt.version
    trial = present(open_trial(study_store, "binary"))
    revert(study_store, trial, "no better")
    assert _nothing_written()
    assert resolve_rubric("binary", study_store).judge_hash == rubric.judge_hash
    assert JudgePrompt.for_rubric(resolve_rubric("binary", study_store), study_store).version == trial.before
    assert judge_texts(study_store, resolve_rubric("binary", study_store)).texts() == (rubric_text, template_text)


@pytest.mark.slow  # real processes
def test_rubric_export_writes_the_definition_in_force_and_a_built_in_copy_says_so(study_store, tmp_path):
    from judge_tui.judge.calibration import keep, open_trial
    from judge_tui.model.rubrics import REPLACES_BUILT_IN

    rubric = resolve_rubric("binary", study_store)
    files = judge_texts(study_store, rubric)
    rubric_text, template_text = files.texts()
    change = check_change(study_store, rubric, files, rubric_text, template_text + "\nBe brief.\n")
    apply_change(study_store, rubric, files, change, "briefer answers", ["P06"])
    keep(study_store, present(open_trial(study_store, "binary")), "")
    assert _nothing_written()
    folder = locations.user_rubrics_dir()
    done = subprocess.run([sys.executable, "-m", "judge_tui", "rubric-export", "binary", "--to", str(folder),
                           "--db", str(study_store.path)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    written = folder / "binary.rubric.toml"
    assert written.read_text(encoding="utf-8").startswith(REPLACES_BUILT_IN)
    assert (folder / "binary.judge.md").read_text(encoding="utf-8").endswith("Be brief.\n")
    done = subprocess.run([sys.executable, "-m", "judge_tui", "rubrics"], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0
    assert "replaces the built-in rubric" not in done.stderr
    again = subprocess.run([sys.executable, "-m", "judge_tui", "rubric-export", "binary", "--to", str(folder),
                            "--db", str(study_store.path)], capture_output=True, text=True, check=False)
    assert again.returncode != 0
    assert "--overwrite" in again.stderr
    assert "Traceback" not in again.stderr
    # a file of the user's own that takes a built-in id by chance is still pointed out
    written.write_text(written.read_text(encoding="utf-8").removeprefix(REPLACES_BUILT_IN), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "judge_tui", "rubrics"], capture_output=True, text=True,
                          check=False)
    assert "replaces the built-in rubric" in done.stderr


def test_a_trial_an_earlier_release_kept_in_files_is_not_reverted_to_nothing(study_store):
    """An earlier release kept a change under trial as files (their old bytes in the trial): its earlier version
    has no definition in the database, so a revert here refuses, says what to do, and records nothing."""
    import json

    from judge_tui.judge.calibration import open_trial, revert
    from judge_tui.store.version_rows import TRIAL_META

    rubric = resolve_rubric("binary", study_store)
    study_store.record_prompt_version("binary", "0123456789ab", study_store.ensure_rubric_version(rubric))  # no definition
    study_store.set_meta(TRIAL_META.format(rubric="binary"), json.dumps({
        "rubric": "binary", "before": "0123456789ab", "after": "ba9876543210", "reason": "briefer", "items": ["P06"],
        "rubric_file": "/somewhere/binary.rubric.toml", "template_file": "/somewhere/binary.judge.md",
        "rubric_bytes": "", "template_bytes": "", "rubric_was_file": False, "template_was_file": False}))
    trial = present(open_trial(study_store, "binary"))
    assert (trial.before, trial.after, trial.items) == ("0123456789ab", "ba9876543210", ("P06",))
    with pytest.raises(UserError, match="kept in files by an earlier judge-tui"):
        revert(study_store, trial, "no better")
    assert open_trial(study_store, "binary") == trial
    assert study_store.calibration_changes("binary") == []
