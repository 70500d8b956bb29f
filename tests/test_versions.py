from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from judge_tui.analysis.compare import compare_versions
from judge_tui.analysis.full_report import build_full_report
from judge_tui.analysis.report_render.full import render_full
from judge_tui.cli import main
from judge_tui.judge.history import history_lines, require_recorded
from judge_tui.model import locations
from judge_tui.model.errors import UserError
from judge_tui.model.plain_data import from_data
from judge_tui.model.rubrics import Rubric, load_rubrics
from judge_tui.store import Store
from tests.team_fixtures import binary_item, rate

CIS_FILE = Path(__file__).resolve().parent.parent / "prompts" / "cis.rubric.toml"


def _edited_cis(tmp_path: Path, anchor: str) -> Path:
    text = CIS_FILE.read_text(encoding="utf-8")
    assert 'version = "1"' in text
    path = tmp_path / "cis-new.rubric.toml"
    path.write_text(text.replace('description = "', f'description = "{anchor} ', 1), encoding="utf-8")
    return path


def _cis_db(tmp_path: Path, rubrics) -> Path:
    db = tmp_path / "lead.db"
    with Store(db) as store:
        store.ensure_rubric_version(rubrics["cis"])
        store.add_items([binary_item(1)])  # an item of another rubric, to test --items checks
        from judge_tui.model.records import Item

        store.add_items([Item(id=f"B00{n}", rubric="cis", fields={"task_type": "LRU Cache", "code": str(n)})
                         for n in range(1, 8)])
    return db


def test_rubric_change_records_reason_and_items_in_that_database(tmp_path: Path, rubrics, capsys):
    db = _cis_db(tmp_path, rubrics)
    new_file = _edited_cis(tmp_path, "Stricter.")
    assert main(["rubric-change", "cis", "--db", str(db), "--reason", "Clarity anchors were too lenient",
                 "--items", "B003,B007", "--file", str(new_file)]) == 0
    out = capsys.readouterr().out
    assert "recorded rubric cis version #2" in out
    assert "motivated by B003, B007" in out
    assert load_rubrics()["cis"][1].parent == locations.prompts_dir()  # the shared rubric files are unchanged
    with Store(db) as store:
        [first, second] = store.rubric_versions("cis")
        assert first["reason"] == ""
        assert second["reason"] == "Clarity anchors were too lenient"
        assert second["motivating_items"] == ["B003", "B007"]
    # Recording the same definition again is refused: nothing changed.
    assert main(["rubric-change", "cis", "--db", str(db), "--reason", "again", "--items", "B001",
                 "--file", str(new_file)]) == 1
    assert "are what" in capsys.readouterr().err


@pytest.mark.parametrize(("args", "message"), [
    (["--reason", "  ", "--items", "B003"], "needs a reason"),
    (["--reason", "why", "--items", ","], "needs the items that motivated it"),
    (["--reason", "why", "--items", "B003,B099"], "B099 not in"),
    (["--reason", "why", "--items", "P01"], "P01 belong to another rubric"),
])
def test_rubric_change_refuses_incomplete_records(tmp_path: Path, rubrics, capsys, args, message):
    db = _cis_db(tmp_path, rubrics)
    new_file = _edited_cis(tmp_path, "X.")
    assert main(["rubric-change", "cis", "--db", str(db), "--file", str(new_file), *args]) == 1
    assert message in capsys.readouterr().err
    with Store(db) as store:
        assert len(store.rubric_versions("cis")) == 1


def test_rubric_change_checks_the_file_is_that_rubric(tmp_path: Path, rubrics, capsys):
    db = _cis_db(tmp_path, rubrics)
    other = Path(CIS_FILE.parent / "binary.rubric.toml")
    assert main(["rubric-change", "cis", "--db", str(db), "--reason", "r", "--items", "B001",
                 "--file", str(other)]) == 1
    assert "defines rubric 'binary', not 'cis'" in capsys.readouterr().err


def test_judge_refuses_unrecorded_rubric_and_prompt_changes(tmp_path: Path, rubrics):
    db = _cis_db(tmp_path, rubrics)
    changed = from_data(Rubric, {**tomllib.loads(CIS_FILE.read_text()), "description": "Changed."})
    with Store(db) as store:
        first = require_recorded(store, rubrics["cis"], prompt_version="p1", template="T1")
        assert require_recorded(store, rubrics["cis"], prompt_version="p1", template="T1") == first
        with pytest.raises(UserError, match="rubric cis has changed since version #1.*rubric-change cis"):
            require_recorded(store, changed, prompt_version="p2", template="T1")
        # The template changed too: a prompt change needs its own reason.
        with pytest.raises(UserError, match="judge prompt has changed since prompt version p1"):
            require_recorded(store, rubrics["cis"], prompt_version="p9", template="T2")
        second = require_recorded(store, changed, prompt_version="p2", template="T1", reason="anchors",
                                  items=["B003"])
        assert second != first
        prompts = store.prompt_versions("cis")
        assert [p["prompt_version"] for p in prompts] == ["p1", "p2"]
        assert prompts[1]["reason"] == "anchors"
        require_recorded(store, rubrics["cis"], prompt_version="p9", template="T2", reason="few-shot added",
                         items=["B001"])
        lines = "\n".join(history_lines(store, "cis"))
    assert "rubric cis" in lines
    assert "first version" in lines
    assert "reason: anchors" in lines
    assert "items: B003" in lines
    assert "prompt p9" in lines
    assert "reason: few-shot added" in lines


def test_prompt_change_caused_by_a_recorded_rubric_change_takes_its_reason(tmp_path: Path, rubrics):
    db = _cis_db(tmp_path, rubrics)
    changed = from_data(Rubric, {**tomllib.loads(CIS_FILE.read_text()), "description": "Changed."})
    with Store(db) as store:
        require_recorded(store, rubrics["cis"], prompt_version="p1", template="T")
        store.ensure_rubric_version(changed, "tightened", ["B002"])
        require_recorded(store, changed, prompt_version="p2", template="T")
        assert store.prompt_versions("cis")[1]["reason"] == "rubric version #2: tightened"


def test_history_flags_a_version_without_reason(tmp_path: Path, rubrics, capsys):
    db = _cis_db(tmp_path, rubrics)
    changed = from_data(Rubric, {**tomllib.loads(CIS_FILE.read_text()), "description": "Changed."})
    with Store(db) as store:
        store.ensure_rubric_version(changed)  # e.g. an expert rated under an edited file
    assert main(["history", "--db", str(db), "--rubric", "cis"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "rubric cis"
    assert out[1].startswith("  #1  ")
    assert "ratings: 0 human, 0 judge" in out[1]
    assert out[2] == "      first version"
    assert out[4] == "      reason: NONE RECORDED (record it: judge-tui rubric-change cis --reason TEXT --items ID,ID)"


# --------------------------------------------------------------------------- report --compare, worked by hand


def _comparison_db(tmp_path: Path, rubrics) -> Path:
    """Two experts, two judge prompt versions, binary labels.

    Dev items P01-P10; the experts agree on P01-P09 (PASS x5, FAIL x4) and tie on P10 (left out).
    v1 calls P06 and P07 PASS (2 errors), v2 calls P05 FAIL (1 error). P11 (test split) and P12 (judged by v1
    only) must not count.
    """
    binary = rubrics["binary"]
    db = tmp_path / "cmp.db"
    human = [1, 1, 1, 1, 1, 0, 0, 0, 0]
    v1 = [1, 1, 1, 1, 1, 1, 1, 0, 0]
    v2 = [1, 1, 1, 1, 0, 0, 0, 0, 0]
    with Store(db) as store:
        store.add_items([binary_item(n, "dev") for n in range(1, 11)] + [binary_item(11, "test"),
                                                                        binary_item(12, "dev")])

        def labels(values: Sequence[float], extra: dict[str, dict[str, float]] | None = None) -> dict[str, dict[str, float]]:
            out = {f"P{n:02d}": {"label": float(v)} for n, v in enumerate(values, start=1)}
            return {**out, **(extra or {})}

        rate(store, binary, "ann", "human", labels(human, {"P10": {"label": 1.0}, "P11": {"label": 1.0},
                                                            "P12": {"label": 1.0}}))
        rate(store, binary, "bob", "human", labels(human, {"P10": {"label": 0.0}, "P11": {"label": 1.0},
                                                            "P12": {"label": 1.0}}))
        rate(store, binary, "judge:m:binary@aaaa1111", "judge",
             labels(v1, {"P10": {"label": 1.0}, "P11": {"label": 0.0}, "P12": {"label": 0.0}}),
             prompt_version="aaaa1111")
        rate(store, binary, "judge:m:binary@bbbb2222", "judge",
             labels(v2, {"P10": {"label": 1.0}, "P11": {"label": 1.0}}), prompt_version="bbbb2222")
    return db


def test_compare_versions_on_the_same_dev_items_with_hand_worked_figures(tmp_path: Path, rubrics):
    db = _comparison_db(tmp_path, rubrics)
    with Store(db) as store:
        c = compare_versions(store, rubrics["binary"], "aaaa", "bbbb2222")
    assert c.split == "dev"
    assert c.items == 9
    assert c.experts == ("ann", "bob")
    [label] = c.dimensions
    assert label.n == 9
    assert label.alignment == pytest.approx((7 / 9, 8 / 9))
    # v1: po = 7/9, pe = (5*7 + 4*2)/81 = 43/81 -> kappa = 20/38.  v2: po = 8/9, pe = (5*4 + 4*5)/81 -> 32/41.
    assert label.kappa == pytest.approx((20 / 38, 32 / 41))
    assert c.alignment == pytest.approx((7 / 9, 8 / 9))


def test_compare_section_text_and_errors(tmp_path: Path, rubrics):
    db = _comparison_db(tmp_path, rubrics)
    with Store(db) as store:
        full = build_full_report(store, rubrics["binary"], compare=("aaaa1111", "bbbb"))  # `report --compare`
        text = render_full(full, "text", width=10_000)
        assert "77.8%" in text
        assert "88.9%" in text
        assert "+11.1 pts" in text
        assert "+0.25" in text
        with Store(db) as s2, pytest.raises(UserError, match="known prompt versions: aaaa1111, bbbb2222"):
            compare_versions(s2, rubrics["binary"], "cccc", "aaaa")
        with pytest.raises(UserError, match="same version"):
            compare_versions(store, rubrics["binary"], "aaaa", "judge:m:binary@aaaa1111")
        with pytest.raises(UserError, match="no items of rubric binary in the train split"):
            compare_versions(store, rubrics["binary"], "aaaa", "bbbb", split="train")
        # On the test split only P11 counts: v1 wrong, v2 right.
        on_test = compare_versions(store, rubrics["binary"], "aaaa", "bbbb", split="test")
        assert on_test.items == 1
        assert on_test.alignment == (0.0, 1.0)


def test_an_edited_template_is_used_only_once_rubric_change_adopts_it(tmp_path: Path, capsys):
    import json

    from judge_tui.model.locations import prompts_dir, user_rubrics_dir

    db = tmp_path / "j.db"
    with Store(db) as store:
        store.add_items([binary_item(n) for n in range(1, 4)])
    replay = tmp_path / "answers.jsonl"
    replay.write_text("".join(json.dumps({"item_id": f"P0{n}", "answer": {"label": "PASS", "critique": "fine"}}) + "\n"
                              for n in range(1, 4)))
    judge = ["judge", "--db", str(db), "--rubric", "binary", "--backend", "replay", "--replay", str(replay)]
    assert main(judge) == 0
    # The lead edits the judge prompt (a user copy of the template beside the bundled one).
    user_rubrics_dir().mkdir(parents=True, exist_ok=True)
    template = (prompts_dir() / "binary.judge.md").read_text(encoding="utf-8")
    (user_rubrics_dir() / "binary.judge.md").write_text(template + "\nBe strict about implied ingredients.\n",
                                                      encoding="utf-8")
    capsys.readouterr()
    assert main(judge) == 0  # the study keeps the template it judged with, and says how to adopt the file
    out, err = capsys.readouterr()
    assert "nothing to judge" in out
    assert "binary.judge.md differs from the judge template" in err
    assert "judge-tui rubric-change binary" in err
    assert main(["rubric-change", "binary", "--db", str(db), "--reason", "Lenient on implied ingredients",
                 "--items", "P02"]) == 0
    out = capsys.readouterr().out
    assert "recorded judge prompt" in out
    assert "still rubric version #1" in out
    assert main(judge) == 0
    capsys.readouterr()
    assert main(["history", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "reason: Lenient on implied ingredients" in out
    assert "items: P02" in out
    with Store(db) as store:
        judges = [r["id"] for r in store.raters("judge")]
        assert len(store.rubric_versions("binary")) == 1
    assert len(judges) == 2  # one judge rater per prompt version; both kept


def test_versions_are_numbered_per_rubric_alike_in_history_exports_and_messages(tmp_path: Path, rubrics, capsys):
    """Two versions of cis, labelled "1" in both files, with a binary version recorded between them."""
    from judge_tui.model.records import Item, Rating

    db = tmp_path / "n.db"
    changed = from_data(Rubric, {**tomllib.loads(CIS_FILE.read_text()), "description": "Changed."})
    with Store(db) as store:
        store.ensure_rubric_version(rubrics["binary"])  # row id 1
        store.add_items([Item(id="B001", rubric="cis", fields={"task_type": "LRU Cache"})])
        store.ensure_rater("EXP001", "human")
        for rubric in (rubrics["cis"], changed):  # row ids 2 and 3
            version = store.ensure_rubric_version(rubric)
            store.save_rating(Rating(item_id="B001", rater_id="EXP001", rubric_version_id=version,
                                     scores={"r": 1.0, "a": 1.0, "t": 1.0, "l": 1.0}))
    assert main(["history", "--db", str(db), "--rubric", "cis"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("  #1  ")
    assert "(label in the file: 1, hash" in out[1]
    assert out[3].startswith("  #2  ")
    assert "(label in the file: 1, hash" in out[3]
    assert main(["export", "--db", str(db), "--rubric", "cis"]) == 0
    import json

    assert [json.loads(line)["rubric_version"] for line in capsys.readouterr().out.splitlines()] == [1, 2]
    with Store(db) as store:
        store.ensure_rater("judge:m:cis@p2", "judge", model="m", prompt_version="p2")
        store.save_rating(Rating(item_id="B001", rater_id="judge:m:cis@p2", rubric_version_id=3,
                                 scores={"r": 1.0, "a": 1.0, "t": 1.0, "l": 1.0}))
        from judge_tui.analysis.compare import resolve_version

        assert resolve_version(store, changed, "#2").rubric_version_ids == (3,)  # cis's second, row 3
        with pytest.raises(UserError, match="changed since version #2"):
            require_recorded(store, replace(changed, description="Again."))
