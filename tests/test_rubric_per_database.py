"""A rubric belongs to its database: one given by path is remembered there, and a change recorded for one
database stays with that database. The real command on real SQLite files."""

from __future__ import annotations

import json
from pathlib import Path

from judge_tui.cli import launch
from judge_tui.model import locations
from judge_tui.model.rubrics import load_rubric, load_rubrics
from judge_tui.store import Store
from judge_tui.store.rubric_choice import resolve_rubric
from tests.formats_helpers import binary_item, run, write_jsonl

BINARY_FILE = Path(__file__).resolve().parent.parent / "prompts" / "binary.rubric.toml"


def _rubric_file(path: Path, rubric_id: str, description: str = "") -> Path:
    text = BINARY_FILE.read_text(encoding="utf-8").replace('id = "binary"', f'id = "{rubric_id}"', 1)
    if description:
        text = text.replace('description = "', f'description = "{description} ', 1)
    path.write_text(text, encoding="utf-8")
    return path


def _answers(path: Path, ids: list[str], *, built_in: bool = False) -> Path:
    """Recorded PASS answers: flat for the built-in binary rubric, under "scores" for a rubric of one's own."""
    answer = {"label": "PASS", "critique": "fine"} if built_in else {"scores": {"label": "PASS"}, "critique": "fine"}
    return write_jsonl(path, [{"item_id": i, "answer": answer} for i in ids])


def test_a_rubric_given_by_path_is_remembered_by_every_command(tmp_path: Path, capsys):
    mine = _rubric_file(tmp_path / "mine.rubric.toml", "mine")
    db = tmp_path / "study.db"
    items = write_jsonl(tmp_path / "items.jsonl", [binary_item(f"M{n}", n) for n in range(1, 5)])
    assert run(capsys, "import", items, "--rubric", mine, "--db", db)[0] == 0
    mine.unlink()  # the file may be gone: the database has it
    ratings = write_jsonl(tmp_path / "ratings.jsonl", [{"item_id": f"M{n}", "label": "PASS"} for n in range(1, 5)])
    code, out, err = run(capsys, "import-ratings", ratings, "--rater", "EXP001", "--kind", "human", "--db", db)
    assert code == 0, err
    assert "4 added" in out
    answers = _answers(tmp_path / "answers.jsonl", [f"M{n}" for n in range(1, 5)])
    code, _out, err = run(capsys, "judge", "--db", db, "--backend", "replay", "--replay", answers)
    assert code == 0, err
    code, out, err = run(capsys, "report", "--db", db)
    assert code == 0, err
    assert "mine" in out
    assert "unknown rubric" not in err
    code, out, err = run(capsys, "report", "--db", db, "--rubric", "mine", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["rubric"]["id"] == "mine"
    code, out, err = run(capsys, "export", "--db", db, "--rubric", "mine")
    assert code == 0, err
    assert len(out.splitlines()) == 8
    code, out, err = run(capsys, "split", "--db", db, "--rubric", "mine")
    assert code == 0, err
    code, out, _err = run(capsys, "history", "--db", db, "--rubric", "mine")
    assert code == 0
    assert "rubric mine" in out
    more = write_jsonl(tmp_path / "more.jsonl", [binary_item("M9", 9)])
    assert run(capsys, "import", more, "--rubric", "mine", "--db", db)[0] == 0
    with Store(db) as store:
        assert launch.choose_rubric(store, "mine").id == "mine"  # `rate --rubric mine`, `adjudicate`
        assert launch.choose_rubric(store, None).id == "mine"


def test_a_rubric_given_by_path_with_a_built_in_id_stays_the_databases(tmp_path: Path, capsys):
    """A copy of a built-in rubric, edited and kept outside the rubrics folder, given by path at import."""
    strict = _rubric_file(tmp_path / "strict.rubric.toml", "binary", "Strict.")
    db = tmp_path / "study.db"
    items = write_jsonl(tmp_path / "items.jsonl", [binary_item(f"P0{n}", n) for n in range(1, 4)])
    assert run(capsys, "import", items, "--rubric", strict, "--db", db)[0] == 0
    answers = _answers(tmp_path / "answers.jsonl", ["P01", "P02", "P03"], built_in=True)
    code, _out, err = run(capsys, "judge", "--db", db, "--backend", "replay", "--replay", answers)
    assert code == 0, err  # the built-in file is not taken for an unexplained change
    with Store(db) as store:
        assert launch.choose_rubric(store, None).description.startswith("Strict.")
        assert [v["content_hash"] for v in store.rubric_versions("binary")] == [load_rubric(strict).content_hash]
    # Another database keeps the built-in rubric.
    other = tmp_path / "other.db"
    assert run(capsys, "import", items, "--rubric", "binary", "--db", other)[0] == 0
    with Store(other) as store:
        assert not resolve_rubric("binary", store).description.startswith("Strict.")


def test_an_unknown_rubric_lists_the_databases_own_too(tmp_path: Path, capsys):
    db = tmp_path / "study.db"
    items = write_jsonl(tmp_path / "items.jsonl", [binary_item("M1")])
    assert run(capsys, "import", items, "--rubric", _rubric_file(tmp_path / "x.rubric.toml", "mine"), "--db", db)[0] == 0
    code, _out, err = run(capsys, "report", "--db", db, "--rubric", "mien")
    assert code == 1
    assert "unknown rubric 'mien'; available: binary, cis, exercise-quality, mine, pairwise, reasoning-trace" in err


def test_an_edit_in_the_rubrics_folder_is_adopted_only_with_rubric_change(tmp_path: Path, capsys):
    """The folder workflow: edit the file, and the study keeps its version, says so once, and adopts the file
    when the lead records the change with its reason."""
    folder = locations.user_rubrics_dir()
    folder.mkdir(parents=True)
    in_folder = _rubric_file(folder / "tone.rubric.toml", "tone")
    db = tmp_path / "study.db"
    items = write_jsonl(tmp_path / "items.jsonl", [binary_item(f"T{n}", n) for n in range(1, 4)])
    assert run(capsys, "import", items, "--rubric", "tone", "--db", db)[0] == 0
    judge = ["judge", "--db", db, "--backend", "replay", "--replay",
             _answers(tmp_path / "answers.jsonl", ["T1", "T2", "T3"])]
    assert run(capsys, *judge)[0] == 0
    _rubric_file(in_folder, "tone", "Edited.")
    code, out, err = run(capsys, *judge)
    assert code == 0
    assert "nothing to judge" in out  # the study's own version, never the file silently
    assert f"{in_folder} differs from rubric tone as {db} uses it (rubric version #1)" in err
    assert "judge-tui rubric-change tone --reason TEXT --items ID,ID" in err
    with Store(db) as store:
        assert not resolve_rubric("tone", store, notice=False).description.startswith("Edited.")
    code, out, err = run(capsys, "rubric-change", "tone", "--db", db, "--reason", "clearer", "--items", "T2")
    assert code == 0, err
    assert "recorded rubric tone version #2" in out
    assert run(capsys, *judge)[0] == 0
    with Store(db) as store:
        assert resolve_rubric("tone", store).description.startswith("Edited.")


def test_a_change_recorded_for_one_database_stays_with_it(tmp_path: Path, capsys):
    lead, other = tmp_path / "lead.db", tmp_path / "other.db"
    items = write_jsonl(tmp_path / "items.jsonl", [binary_item(f"P0{n}", n) for n in range(1, 4)])
    answers = _answers(tmp_path / "answers.jsonl", ["P01", "P02", "P03"], built_in=True)
    for db in (lead, other):
        assert run(capsys, "import", items, "--rubric", "binary", "--db", db)[0] == 0
        assert run(capsys, "judge", "--db", db, "--backend", "replay", "--replay", answers)[0] == 0
    new = _rubric_file(tmp_path / "binary-new.rubric.toml", "binary", "Stricter.")
    code, out, err = run(capsys, "rubric-change", "binary", "--db", lead, "--reason", "implied ingredients",
                         "--items", "P02", "--file", new)
    assert code == 0, err
    assert f"recorded rubric binary version #2 (hash {load_rubric(new).content_hash}) in {lead}" in out
    assert "other databases keep their own version of binary" in out
    assert not locations.user_rubrics_dir().exists()  # nothing copied into the shared folder
    assert load_rubrics()["binary"][1].parent == locations.prompts_dir()
    # The other database, and the judge on it, are untouched.
    code, _out, err = run(capsys, "judge", "--db", other, "--backend", "replay", "--replay", answers)
    assert code == 0, err
    assert "changed since" not in err
    with Store(other) as store:
        assert len(store.rubric_versions("binary")) == 1
        assert resolve_rubric("binary", store).content_hash == load_rubrics()["binary"][0].content_hash
    # The lead's database uses its new version everywhere: the rating screen, the judge, the exports.
    with Store(lead) as store:
        assert launch.choose_rubric(store, "binary").description.startswith("Stricter.")
    code, _out, err = run(capsys, "judge", "--db", lead, "--backend", "replay", "--replay", answers)
    assert code == 0, err
    code, out, _err = run(capsys, "export", "--db", lead)
    rows = [json.loads(line) for line in out.splitlines()]
    assert sorted({(r["rater"], r["rubric_version"]) for r in rows}) == [
        (rows[0]["rater"], 1), (rows[-1]["rater"], 2)]


def test_a_built_in_rubric_a_newer_version_ships_reaches_new_databases_only(tmp_path: Path, capsys, monkeypatch):
    """An upgrade is no change the user made: the database keeps its version and the judge runs without asking."""
    db = tmp_path / "study.db"
    items = write_jsonl(tmp_path / "items.jsonl", [binary_item(f"P0{n}", n) for n in range(1, 4)])
    answers = _answers(tmp_path / "answers.jsonl", ["P01", "P02", "P03"], built_in=True)
    assert run(capsys, "import", items, "--rubric", "binary", "--db", db)[0] == 0
    assert run(capsys, "judge", "--db", db, "--backend", "replay", "--replay", answers)[0] == 0
    shipped = tmp_path / "shipped"  # the built-in rubrics of a newer judge-tui, written after the import
    shipped.mkdir()
    for path in locations.prompts_dir().iterdir():
        (shipped / path.name).write_bytes(path.read_bytes())
    _rubric_file(shipped / "binary.rubric.toml", "binary", "Shipped later.")
    monkeypatch.setattr(locations, "prompts_dir", lambda: shipped)
    with Store(db) as store:
        assert not resolve_rubric("binary", store).description.startswith("Shipped later.")
    code, out, err = run(capsys, "judge", "--db", db, "--backend", "replay", "--replay", answers)
    assert code == 0, err
    assert "has changed since" not in err
    fresh = tmp_path / "fresh.db"
    assert run(capsys, "import", items, "--rubric", "binary", "--db", fresh)[0] == 0
    with Store(fresh) as store:
        assert resolve_rubric("binary", store).description.startswith("Shipped later.")
