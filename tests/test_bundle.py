from __future__ import annotations

import argparse
import sqlite3
from pathlib import Path

import pytest

from judge_tui.cli.bundle import run_export_bundle
from judge_tui.model.errors import UserError
from judge_tui.store import Store
from judge_tui.transfer.bundle import export_bundle, import_bundle
from tests.team_fixtures import binary_item, rate


def _laptop(path: Path, rubrics) -> Path:
    binary = rubrics["binary"]
    with Store(path) as store:
        store.add_items([binary_item(n) for n in range(1, 6)])
        rate(store, binary, "ann", "human", {"P01": {"label": 1.0}, "P02": {"label": 0.0}})
        rate(store, binary, "ann", "human", {"P01": {"label": 0.0}}, repeat=1)  # a drift re-rating
        rate(store, binary, "judge:m:binary@v1", "judge", {f"P0{n}": {"label": 1.0} for n in range(1, 6)})
    return path


def test_bundle_holds_one_experts_work_and_merges_into_the_lead_database(tmp_path: Path, rubrics):
    laptop = _laptop(tmp_path / "laptop" / "judge-tui.db", rubrics)
    bundle_path = tmp_path / "out" / "ann.bundle.db"
    with Store(laptop) as store:
        export_bundle(store, "ann", bundle_path)
    assert not list(bundle_path.parent.glob("*-wal"))
    assert not list(bundle_path.parent.glob("*.partial"))
    with sqlite3.connect(bundle_path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # a single self-contained file
        assert conn.execute("SELECT value FROM meta WHERE key = 'bundle_of'").fetchone() == ("ann",)
        assert sorted(conn.execute("SELECT id FROM items")) == [("P01",), ("P02",)]
        assert sorted(conn.execute("SELECT rater_id, item_id, repeat FROM ratings")) == [
            ("ann", "P01", 0), ("ann", "P01", 1), ("ann", "P02", 0)]

    with Store(tmp_path / "lead.db") as lead:
        result = import_bundle(lead, bundle_path)
        assert result.added["ratings"] == 3
        assert result.added["items"] == 2
        assert not import_bundle(lead, bundle_path).changed
        assert lead.rater("judge:m:binary@v1") is None


def test_bundle_replaces_only_an_older_bundle(tmp_path: Path, rubrics):
    laptop = _laptop(tmp_path / "laptop.db", rubrics)
    bundle_path = tmp_path / "ann.bundle.db"
    with Store(laptop) as store:
        export_bundle(store, "ann", bundle_path)
        rate(store, rubrics["binary"], "ann", "human", {"P03": {"label": 1.0}})
        export_bundle(store, "ann", bundle_path)
        with pytest.raises(UserError, match="not a judge-tui bundle"):
            export_bundle(store, "ann", laptop)
        with pytest.raises(UserError, match="no rater 'zed'"):
            export_bundle(store, "zed", tmp_path / "zed.db")
    with sqlite3.connect(bundle_path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM ratings").fetchone() == (4,)


def test_importing_a_whole_database_as_a_bundle_points_to_merge(tmp_path: Path, rubrics):
    laptop = _laptop(tmp_path / "laptop.db", rubrics)
    with Store(tmp_path / "lead.db") as lead, pytest.raises(UserError, match="judge-tui merge"):
        import_bundle(lead, laptop)


def test_export_needs_an_output_file_and_a_rater_when_several(tmp_path: Path, rubrics):
    laptop = _laptop(tmp_path / "laptop.db", rubrics)
    with Store(laptop) as store:
        rate(store, rubrics["binary"], "bob", "human", {"P03": {"label": 1.0}})
    args = argparse.Namespace(db=laptop, output=None, rater=None)
    with pytest.raises(UserError, match="-o FILE"):
        run_export_bundle(args)
    args.output = tmp_path / "x.db"
    with pytest.raises(UserError, match="Pass --rater ID .*ann, bob"):
        run_export_bundle(args)


def test_export_and_import_bundle_commands(tmp_path: Path, rubrics, capsys):
    from judge_tui.cli import main

    laptop = _laptop(tmp_path / "laptop.db", rubrics)
    with Store(laptop) as store:
        store.set_meta("reviewer_id", "ann")  # the rating app remembers its reviewer here
    bundle_path = tmp_path / "ann.bundle.db"
    assert main(["export", "--bundle", "-o", str(bundle_path), "--db", str(laptop)]) == 0
    assert f"wrote {bundle_path}: 3 ratings of 2 items by ann." in capsys.readouterr().out
    lead = tmp_path / "lead.db"
    assert main(["import", "--bundle", str(bundle_path), "--db", str(lead)]) == 0
    assert "added 3 ratings, 2 items, 1 rater, 1 rubric version" in capsys.readouterr().out
    assert main(["import", "--bundle", str(laptop), "--db", str(lead)]) == 1
    assert "not a bundle" in capsys.readouterr().err


def test_a_bundle_names_the_experts_database_but_never_its_folder(tmp_path: Path, rubrics, capsys):
    """A bundle travels (mail, a USB stick): the path of the expert's database would tell whose machine and which
    folders it came from."""
    import sqlite3

    from judge_tui.cli import main

    private = tmp_path / "home" / "ann.smith" / "private-study"
    private.mkdir(parents=True)
    laptop = _laptop(private / "laptop.db", rubrics)
    bundle_path = tmp_path / "ann.bundle.db"
    assert main(["export", "--bundle", "-o", str(bundle_path), "--rater", "ann", "--db", str(laptop)]) == 0
    capsys.readouterr()
    with sqlite3.connect(bundle_path) as conn:
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    conn.close()
    assert meta["bundle_source"] == "laptop.db"
    assert b"ann.smith" not in bundle_path.read_bytes()
    assert b"private-study" not in bundle_path.read_bytes()
