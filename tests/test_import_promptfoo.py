"""judge-tui import of promptfoo's `promptfoo eval -o results.json` (results versions 3 and 2)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from judge_tui.model.records import content_hash
from judge_tui.store import Store
from tests.formats_helpers import FIXTURES, run, table_counts
from tests.narrowing import present

V3 = FIXTURES / "promptfoo_v3_exercise.json"
V2 = FIXTURES / "promptfoo_v2_binary.json"
HAIKU = "judge:anthropic:messages:claude-haiku-4-5:exercise-quality@promptfoo"


def entry_lines(text: str) -> list[int]:
    """Lines where the entries of results.results open, in json.dumps(indent=2) text."""
    return [n for n, line in enumerate(text.splitlines(), start=1) if line == "      {"]


@pytest.fixture
def new_db(tmp_path: Path) -> Path:
    """Where a new database goes: the file does not exist yet."""
    return tmp_path / "p.db"


def test_v3_exercise_results(new_db: Path, capsys):
    code, out, err = run(capsys, "import", V3, "--db", new_db)  # the rubric is evident from the vars
    assert code == 0, err
    assert "(promptfoo, rubric exercise-quality): items: 2 added" in out
    errored = entry_lines(V3.read_text())[3]  # after the one entry of "prompts"
    assert f"{V3}:{errored}: warning: the provider failed on this test (Request timed out after 60000 ms); skipped" in err
    assert "judges the output as a whole, not a dimension of rubric exercise-quality; not imported" in err
    with Store(new_db) as store:
        item = present(store.item("PF-E01"))
        assert item.fields["cefr_level"] == "A2"
        assert "id" not in item.fields
        assert item.fields["exercise"].startswith("<exercise>")  # response.output -> exercise
        rating = present(store.rating("PF-E01", HAIKU))
        assert rating.scores == {"structural_validity": 1.0, "difficulty_match": 1.0, "instruction_clarity": 0.8,
                                 "learning_objective_alignment": 1.0}
        assert rating.overall == pytest.approx(0.95)
        assert rating.verdict == "pass"
        assert "instruction_clarity: A word bank is given" in rating.notes
        assert present(store.rater(HAIKU))["kind"] == "judge"
        assert present(store.rater(HAIKU))["model"] == "anthropic:messages:claude-haiku-4-5"
        broken = present(store.rating("PF-E02", HAIKU))
        assert broken.scores["structural_validity"] == 0.0
        assert broken.verdict == "fail"
    before = table_counts(new_db)
    code, out, _err = run(capsys, "import", V3, "--db", new_db, "--rubric", "exercise-quality")
    assert "items: 0 added, 2 unchanged" in out
    assert "ratings: 0 added, 0 updated, 2 unchanged" in out
    assert table_counts(new_db) == before


def test_v2_binary_with_human_ratings_and_hashed_ids(new_db: Path, capsys):
    code, out, err = run(capsys, "import", V2, "--rubric", "binary", "--db", new_db)
    assert code == 0, err
    top = json.loads(V2.read_text())
    first = top["results"]["results"][0]
    fields = {**first["vars"], "response": first["response"]["output"]}
    expected_id = "pf-" + content_hash(fields)[:12]
    with Store(new_db) as store:
        assert present(store.item(expected_id)).fields == fields
        judge = present(store.rating(expected_id, "judge:openai:gpt-4.1-mini:binary@promptfoo"))
        assert judge.scores == {"label": 1.0}
        assert judge.verdict == "PASS"
        human = [r for r in store.iter_ratings(rubric="binary", kind="human")]
        assert [(r.scores["label"], r.verdict, r.notes) for r in human] == [
            (1.0, "PASS", ""), (0.0, "FAIL", "Honey is not vegan.")]
        assert present(store.rater("promptfoo-reviewer"))["kind"] == "human"


def test_shared_vars_id_gets_provider_suffix(new_db: Path, tmp_path: Path, capsys):
    top = json.loads(V2.read_text())
    for entry in top["results"]["results"]:
        entry["vars"]["id"] = "soup" if "lentil" in entry["vars"]["query"] else "bars"
    path = tmp_path / "shared.json"
    path.write_text(json.dumps(top))
    code, _out, err = run(capsys, "import", path, "--rubric", "binary", "--db", new_db)
    assert code == 0, err
    with Store(new_db) as store:
        assert sorted(i.id for i in store.iter_items("binary")) == ["bars", "soup@ollama:llama3", "soup@openai:gpt-4.1"]


def test_human_rating_off_the_steps_is_an_error(new_db: Path, tmp_path: Path, capsys):
    top = json.loads(V2.read_text())
    human = top["results"]["results"][1]["gradingResult"]["componentResults"][1]
    human["score"] = 0.4
    text = json.dumps(top, indent=2)
    path = tmp_path / "off.json"
    path.write_text(text)
    code, _out, err = run(capsys, "import", path, "--rubric", "binary", "--db", new_db)
    assert code == 1
    second = entry_lines(text)[1]
    assert f"{path}:{second}: item 'pf-" in err
    assert "label: 0.4 is off the scale: allowed values are FAIL, PASS" in err
    assert not new_db.exists() or table_counts(new_db)["items"] == 0


def test_judge_scores_keep_continuous_values_and_reject_out_of_range(new_db: Path, tmp_path: Path, capsys):
    top = json.loads(V3.read_text())
    entry = top["results"]["results"][1]
    entry["namedScores"]["difficulty_match"] = 0.63
    entry["gradingResult"]["componentResults"][0]["score"] = 0.63
    path = tmp_path / "cont.json"
    path.write_text(json.dumps(top))
    assert run(capsys, "import", path, "--rubric", "exercise-quality", "--db", new_db)[0] == 0
    with Store(new_db) as store:
        assert present(store.rating("PF-E02", HAIKU)).scores["difficulty_match"] == 0.63
    bad = copy.deepcopy(top)
    bad["results"]["results"][0]["gradingResult"]["componentResults"][1]["score"] = 3
    path.write_text(json.dumps(bad))
    code, _out, err = run(capsys, "import", path, "--rubric", "exercise-quality", "--db", tmp_path / "other.db")
    assert code == 1
    assert "instruction_clarity: 3 is outside the scale 0 to 1" in err


def test_map_output_and_vars(new_db: Path, tmp_path: Path, capsys):
    top = json.loads(V2.read_text())
    for entry in top["results"]["results"]:
        entry["vars"]["question"] = entry["vars"].pop("query")
    path = tmp_path / "renamed.json"
    path.write_text(json.dumps(top))
    code, _out, err = run(capsys, "import", path, "--rubric", "binary", "--db", new_db)
    assert code == 1
    assert "1 error\n" in err
    assert ("no test's vars hold \"query\", which rubric binary needs to rate an item: name the var that holds "
            "each with --map FIELD=VAR (--map FIELD=output for the provider's answer), or build it from the vars "
            "with a template, --map 'FIELD=text {VAR} text' (vars: criterion, question)") in err
    code, _out, err = run(capsys, "import", path, "--rubric", "binary", "--db", new_db,
                          "--map", "query=question", "--map", "response=output")
    assert code == 0, err
    with Store(new_db) as store:
        assert {i.fields["query"] for i in store.iter_items("binary")} == {"A quick lentil soup", "Granola bars"}


def test_not_promptfoo_or_unsupported_version(new_db: Path, tmp_path: Path, capsys):
    path = tmp_path / "old.json"
    top = json.loads(V2.read_text())
    top["results"]["version"] = 1
    path.write_text(json.dumps(top))
    code, _out, err = run(capsys, "import", path, "--rubric", "binary", "--db", new_db)
    assert code == 1
    assert f"{path}:1: promptfoo results version 1 is not supported" in err
    path.write_text(json.dumps({"results": "nothing"}))
    code, _out, err = run(capsys, "import", path, "--rubric", "binary", "--db", new_db, "--format", "promptfoo")
    assert code == 1
    assert f"{path}:1: not a promptfoo results file" in err
    top = json.loads(V2.read_text())
    top["results"]["results"][2]["vars"] = "oops"
    text = json.dumps(top, indent=2)
    path.write_text(text)
    code, _out, err = run(capsys, "import", path, "--rubric", "binary", "--db", new_db)
    assert code == 1
    assert f"{path}:{entry_lines(text)[2]}: result has no `vars` object" in err


def test_human_components_with_metrics_rate_every_dimension(new_db: Path, tmp_path: Path, capsys):
    top = json.loads(V3.read_text())
    components = top["results"]["results"][1]["gradingResult"]["componentResults"]
    for metric, score in (("difficulty_match", 0.5), ("instruction_clarity", 0), ("learning_objective_alignment", 1)):
        components.append({"pass": score >= 0.7, "score": score, "reason": "Manual result",
                           "assertion": {"type": "human", "metric": metric}})
    top["results"]["results"][1]["gradingResult"]["comment"] = "No task line for the student."
    path = tmp_path / "human.json"
    path.write_text(json.dumps(top))
    code, _out, err = run(capsys, "import", path, "--rubric", "exercise-quality", "--db", new_db)
    assert code == 0, err
    with Store(new_db) as store:
        human = present(store.rating("PF-E02", "promptfoo-reviewer"))
        # the item's exercise has no closing tag: the checker's 0.0 is added to the person's three scores
        assert human.scores == {"structural_validity": 0.0, "difficulty_match": 0.5, "instruction_clarity": 0.0,
                                "learning_objective_alignment": 1.0}
        assert human.verdict == "fail"
        assert human.notes == "No task line for the student."
