"""The bundled demo loads through the importer, ratings included, and only into an empty database."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_tui.model import locations
from judge_tui.store import Store
from judge_tui.transfer.demo import demo_rating_files
from judge_tui.transfer.demo_loading import load_demo
from judge_tui.transfer.importing import import_items
from tests.formats_helpers import binary_item, run, write_jsonl
from tests.narrowing import present


def _lines(path: Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def test_demo_items_and_ratings_load_into_a_new_database(tmp_path: Path, capsys):
    data = locations.data_dir()
    db = tmp_path / "demo.db"
    with Store(db) as store:
        added = load_demo(store)
        expected_items = sum(_lines(p) for p in (data / f"{r}.jsonl" for r in
                                                 ("cis", "exercise-quality", "reasoning-trace", "binary"))
                             if p.is_file())
        assert added == expected_items == store.count_items()
        for rubric in ("cis", "exercise-quality", "reasoning-trace", "binary"):
            for name, rater, _kind in demo_rating_files(rubric):
                if (data / name).is_file():
                    assert store.count_ratings(rater_id=rater, rubric=rubric) == _lines(data / name)
        assert present(store.rater("demo-expert"))["kind"] == "human"
        assert present(store.rater("demo-judge"))["kind"] == "judge"
        assert load_demo(store) == 0  # never loaded twice
    if (data / "exercise-quality.judge-demo.ratings.jsonl").is_file():
        code, out, _err = run(capsys, "export", "--format", "review-template", "--db", db)
        assert code == 0
        assert "| Total cases reviewed | 12/12 |" in out


def test_demo_never_mixes_with_user_data(tmp_path: Path):
    with Store(tmp_path / "mine.db") as store:
        import_items(store, write_jsonl(tmp_path / "mine.jsonl", [binary_item("MY1")]), "binary")
        assert load_demo(store) == 0
        assert store.count_items() == 1


def test_a_broken_demo_file_leaves_the_database_empty(tmp_path: Path, monkeypatch):
    import shutil

    import pytest

    from judge_tui.transfer.importing import ImportFailed

    data = tmp_path / "data"
    shutil.copytree(locations.data_dir(), data, ignore=shutil.ignore_patterns("build"))
    (data / "reasoning-trace.jsonl").write_text('{"id": "R01", "question": "q"\n', encoding="utf-8")
    monkeypatch.setattr(locations, "data_dir", lambda: data)
    with Store(tmp_path / "demo.db") as store:
        with pytest.raises(ImportFailed):
            load_demo(store)
        assert store.count_items() == 0  # cis and exercise-quality, loaded before, were rolled back too
        assert store.count_ratings() == 0


def test_the_demo_database_is_marked_so_screens_can_name_it(tmp_path: Path):
    from judge_tui.transfer.demo import is_demo_database

    with Store(tmp_path / "demo.db") as store:
        load_demo(store)
        assert is_demo_database(store)
    with Store(tmp_path / "mine.db") as store:
        import_items(store, write_jsonl(tmp_path / "mine.jsonl", [binary_item("MY1")]), "binary")
        assert not is_demo_database(store)


def test_ids_clashing_with_the_demo_an_earlier_version_loaded_say_so_and_the_database_keeps_working(
        tmp_path: Path, capsys):
    from judge_tui.transfer.demo import DEMO_META_KEY

    db = tmp_path / "judge-tui.db"
    with Store(db) as store:  # the user's own database, filled with the demo by an earlier judge-tui
        load_demo(store)
        with store.transaction() as conn:
            conn.execute("DELETE FROM meta WHERE key = ?", [DEMO_META_KEY])  # which did not mark it
    mine = write_jsonl(tmp_path / "mine.jsonl", [binary_item("P01"), binary_item("P02", 2), binary_item("MY3", 3)])
    code, _out, err = run(capsys, "import", mine, "--rubric", "binary", "--db", db)
    assert code == 1
    assert f"P01, P02 are items of the bundled demo, which an earlier judge-tui loaded into {db}" in err
    assert "judge-tui import FILE --db study.db" in err
    assert f"move {db} aside" in err
    assert "item 'P01' already exists with different content" in err  # each line is still named
    with Store(db) as store:
        assert store.item("MY3") is None
    code, out, err = run(capsys, "report", "--db", db, "--rubric", "cis")
    assert code == 0, err
    # A clash with the user's own items is only that.
    other = tmp_path / "other.db"
    assert run(capsys, "import", write_jsonl(tmp_path / "a.jsonl", [binary_item("P01", 7)]), "--rubric", "binary",
               "--db", other)[0] == 0
    code, _out, err = run(capsys, "import", mine, "--rubric", "binary", "--db", other)
    assert code == 1
    assert "bundled demo" not in err


@pytest.mark.slow
def test_ids_clashing_with_demo_items_the_user_imported_do_not_blame_an_earlier_judge_tui(tmp_path: Path,
                                                                                         hermetic_home: Path):
    from tests.faults.conftest import REPO
    from tests.faults.conftest import run as run_cli

    db = tmp_path / "study.db"
    assert run_cli("import", REPO / "data" / "binary.jsonl", "--db", db, home=hermetic_home).returncode == 0
    mine = write_jsonl(tmp_path / "mine.jsonl", [binary_item("P01", 9)])
    proc = run_cli("import", mine, "--rubric", "binary", "--db", db, home=hermetic_home)
    assert proc.returncode == 1
    message = " ".join(proc.stderr.split())
    assert f"P01 is an item of the bundled demo, whose item file (judge-tui's data folder) was imported into {db}" \
        in message
    assert "earlier judge-tui" not in message
