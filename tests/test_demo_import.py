"""The bundled demo loads through the importer, ratings included, and only into an empty database."""

from __future__ import annotations

from pathlib import Path

from formats_helpers import binary_item, run, write_jsonl

from judge_tui import locations
from judge_tui.demo import demo_rating_files, load_demo
from judge_tui.importing import import_items
from judge_tui.store import Store


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
        assert store.rater("demo-expert")["kind"] == "human" and store.rater("demo-judge")["kind"] == "judge"
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

    from judge_tui.importing import ImportFailed

    data = tmp_path / "data"
    shutil.copytree(locations.data_dir(), data, ignore=shutil.ignore_patterns("build"))
    (data / "reasoning-trace.jsonl").write_text('{"id": "R01", "question": "q"\n', encoding="utf-8")
    monkeypatch.setattr(locations, "data_dir", lambda: data)
    with Store(tmp_path / "demo.db") as store:
        with pytest.raises(ImportFailed):
            load_demo(store)
        assert store.count_items() == 0  # cis and exercise-quality, loaded before, were rolled back too
        assert store.count_ratings() == 0
