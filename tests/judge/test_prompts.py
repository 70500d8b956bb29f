"""The judge prompt: four parts, a stable cacheable prefix, the item last, few-shot from train only."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from judge_tui.cli import main
from judge_tui.judge.prompts import JudgePrompt, PromptError, load_template, prompt_version, template_path
from judge_tui.model import locations
from judge_tui.model.records import Item, Rating
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from tests.judge.conftest import add_binary_items, add_cis_items
from tests.narrowing import present


def test_every_rubric_has_a_four_part_template(rubrics: dict[str, Rubric]) -> None:
    for rubric_id in ("cis", "reasoning-trace", "exercise-quality", "binary"):
        path = template_path(rubric_id)
        assert path == locations.prompts_dir() / f"{rubric_id}.judge.md"
        prompt = JudgePrompt.for_rubric(rubrics[rubric_id])
        system = prompt.system_text([])
        for part in ("# Part 1.", "# Part 2.", "# Part 3.", "# Part 4."):
            assert part in system, (rubric_id, part)
        for dimension in rubrics[rubric_id].judged_dimensions:
            assert prompt.output.keys[dimension.id] in system


def test_cis_prompt_shows_the_submission_and_never_a_human_score(cis_store: Store, rubrics: dict[str, Rubric]) -> None:
    rubric = rubrics["cis"]
    item = cis_store.item("B001")
    assert item is not None
    # a human rating with distinctive values and a note, and an extra field an import might carry
    version = cis_store.ensure_rubric_version(rubric)
    cis_store.ensure_rater("EXP001", "human")
    cis_store.save_rating(Rating(item_id="B001", rater_id="EXP001", rubric_version_id=version,
                                 scores={"r": 0.25, "a": 0.25, "t": 0.25, "l": 0.25}, overall=0.25,
                                 notes="HUMAN-NOTE-capacity-one-missing"))
    leaky = Item(id="B001", rubric="cis", fields={**item.fields, "expert_cis": 0.6875, "human_notes": "LEAK"})
    rendered = JudgePrompt.for_rubric(rubric, cis_store).render(leaky)
    text = rendered.system + rendered.user
    for field_name in ("task", "rationale", "source_code", "test_code", "test_results"):
        assert str(item.fields[field_name]).strip()[:60] in rendered.user
    assert "HUMAN-NOTE" not in text
    assert "LEAK" not in text
    assert "0.6875" not in text
    assert "EXP001" not in text
    assert rendered.few_shot_ids == ()  # the CIS rubric asks for no examples


def test_the_prefix_is_the_same_for_every_item_and_the_item_comes_last(cis_store: Store, rubrics: dict[str, Rubric]) -> None:
    prompt = JudgePrompt.for_rubric(rubrics["cis"], cis_store)
    first, second = (prompt.render(present(cis_store.item(i))) for i in ("B001", "B002"))
    assert first.system == second.system
    assert first.user != second.user
    blocks = first.system_blocks()
    assert blocks == [{"type": "text", "text": first.system, "cache_control": {"type": "ephemeral"}}]
    assert "B001" not in first.system


def test_few_shot_examples_come_only_from_rated_train_items(tmp_path: Path, rubrics: dict[str, Rubric]) -> None:
    with Store(tmp_path / "b.db") as store:
        add_binary_items(store, rubrics["binary"])
        prompt = JudgePrompt.for_rubric(rubrics["binary"], store)
        rendered = prompt.render(present(store.item("P07")))
        # train items with a human rating: P01 (PASS), P02, P03 (FAIL); never P04 (unrated) or P05/P06 (dev)
        assert sorted(rendered.few_shot_ids) == ["P01", "P02", "P03"]
        assert rendered.few_shot_ids[:2] in (("P01", "P02"), ("P02", "P01"))  # both labels shown first
        assert "Response P05" not in rendered.system
        assert "Response P04" not in rendered.system
        assert "human note for P01" in rendered.system  # the human's explanation is the example's critique
        assert "Example 1" in rendered.system
        assert "Example 3" in rendered.system
        # judging a train example never shows the item as its own example
        own = prompt.render(present(store.item("P02")))
        assert "P02" not in own.few_shot_ids
        assert "Response P02" not in own.system


def test_the_version_follows_template_and_rubric(tmp_path: Path, rubrics: dict[str, Rubric],
                                                 hermetic_home: Path) -> None:
    rubric = rubrics["cis"]
    bundled = load_template(present(template_path("cis")))
    assert prompt_version(rubric, bundled) == JudgePrompt.for_rubric(rubric).version
    # a user's own template for the rubric takes over and gets its own version
    user_dir = locations.user_rubrics_dir()
    user_dir.mkdir(parents=True)
    text = (locations.prompts_dir() / "cis.judge.md").read_text()
    (user_dir / "cis.judge.md").write_text(text.replace("senior software engineer", "staff engineer"))
    assert JudgePrompt.for_rubric(rubric).version != prompt_version(rubric, bundled)
    changed = replace(rubric, instructions="Be brief.")
    assert prompt_version(changed, bundled) != prompt_version(rubric, bundled)


@pytest.mark.parametrize(("text", "message"), [
    ("no marker {{item}}", "exactly one <!-- item -->"),
    ("{{criteria}} {{secret}}\n<!-- item -->\n{{item}}", "unknown placeholder"),
    ("{{criteria}}\n<!-- item -->\nno item here", "must contain {{item}}"),
    ("+++\nlayout = \n+++\n{{criteria}}\n<!-- item -->\n{{item}}", "front matter is not valid TOML"),
])
def test_broken_templates_are_reported_with_the_file(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "x.judge.md"
    path.write_text(text)
    with pytest.raises(PromptError) as caught:
        load_template(path)
    assert str(path) in str(caught.value)
    assert message in str(caught.value)


@pytest.mark.parametrize(("front_matter", "message"), [
    ('layout = "flatt"', "unknown output layout 'flatt': use 'scores' or 'flat'"),
    ('layout = "flat"\nscore_key = "score"', "score_key 'score' must contain {id}"),
])
def test_a_front_matter_the_answer_format_refuses_is_a_message_naming_the_file(
        tmp_path: Path, rubrics: dict[str, Rubric], hermetic_home: Path, capsys: pytest.CaptureFixture[str],
        front_matter: str, message: str) -> None:
    user_template = locations.user_rubrics_dir() / "binary.judge.md"
    user_template.parent.mkdir(parents=True, exist_ok=True)
    user_template.write_text(f"+++\n{front_matter}\n+++\n{{{{criteria}}}}\n<!-- item -->\n{{{{item}}}}")
    with pytest.raises(PromptError, match=re.escape(f"{user_template}: {message}")):
        JudgePrompt(rubrics["binary"], load_template(user_template))
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"id": "P1", "query": "q", "criterion": "c", "response": "r"}) + "\n")
    db = tmp_path / "s.db"
    assert main(["import", str(items), "--rubric", "binary", "--db", str(db)]) == 0
    assert main(["judge", "--rubric", "binary", "--db", str(db), "--dry-run"]) == 1  # a message, not a traceback
    assert f"judge-tui: {user_template}: {message}" in capsys.readouterr().err


def test_item_text_is_inserted_verbatim(cis_store: Store, rubrics: dict[str, Rubric]) -> None:
    # placeholders or fences inside an item are data, not template
    fields = {**present(cis_store.item("B001")).fields, "rationale": "I use {{criteria}} and ``` fences"}
    rendered = JudgePrompt.for_rubric(rubrics["cis"]).render(Item(id="X", rubric="cis", fields=fields))
    assert "I use {{criteria}} and ``` fences" in rendered.user


def test_exercise_items_show_the_computed_dimension(tmp_path: Path, rubrics: dict[str, Rubric]) -> None:
    fields = {"source_document": "<doc>Cats sleep.</doc>", "instruction": "verbs", "cefr_level": "A2",
              "exercise": '<exercise>Cats <blank answer="sleep" student-answer=""/>.</exercise>'}
    rendered = JudgePrompt.for_rubric(rubrics["exercise-quality"]).render(
        Item(id="E1", rubric="exercise-quality", fields=fields))
    assert "Structural validity: 1" in rendered.user
    assert "do not score" in rendered.user


def test_cis_prefix_is_long_enough_to_cache(rubrics: dict[str, Rubric], tmp_path: Path) -> None:
    with Store(tmp_path / "c.db") as store:
        add_cis_items(store, rubrics["cis"], 2)
        chars = JudgePrompt.for_rubric(rubrics["cis"], store).stable_prefix_chars()
    assert chars // 4 >= 1024  # the smallest published minimum; shorter rubrics get a warning instead


def test_the_answer_format_asks_for_the_judges_confidence_last(rubrics: dict[str, Rubric]) -> None:
    for rubric_id in ("cis", "reasoning-trace", "exercise-quality", "binary", "pairwise"):
        prompt = JudgePrompt.for_rubric(rubrics[rubric_id])
        system = prompt.system_text([])
        answer_part = system[system.index("# Part 4."):]
        keys = list(prompt.output.example())
        assert keys[-1] == "confidence"
        assert f"Use these keys in this order: {', '.join(keys)}." in answer_part
        assert "Last, `confidence`: your probability, a number from 0 to 1, that expert reviewers" in answer_part
        assert prompt.output.json_schema()["required"][-1] == "confidence"
