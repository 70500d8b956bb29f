from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
import sqlite_utils

from judge_tui.model.records import Draft, Item, Rating
from judge_tui.store import ItemConflict, Store, StoreError, migrations
from tests.narrowing import present


def _items(n: int, rubric: str = "binary") -> list[Item]:
    return [Item(id=f"P{i:03d}", rubric=rubric, fields={"query": f"q{i}", "criterion": "c", "response": "r"})
            for i in range(1, n + 1)]


def test_pragmas_and_schema(store: Store):
    assert store.scalar("PRAGMA journal_mode") == "wal"
    assert store.scalar("PRAGMA synchronous") == 2  # FULL
    assert store.scalar("PRAGMA foreign_keys") == 1
    tables = {r["name"] for r in store.query("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"items", "raters", "ratings", "rubric_versions", "drafts", "judge_jobs", "meta"} <= tables


def test_reopening_applies_no_migration_twice(tmp_path: Path):
    path = tmp_path / "x.db"
    with Store(path) as first:
        applied = first.scalar("SELECT COUNT(*) FROM _sqlite_migrations")
    assert applied >= 1
    with Store(path) as again:
        assert again.scalar("SELECT COUNT(*) FROM _sqlite_migrations") == applied
        assert applied == len(migrations.pending(sqlite_utils.Database(":memory:")))
        names = {row[0] for row in again.conn.execute("SELECT name FROM _sqlite_migrations")}
        assert applied == len(names)


def test_not_a_database_is_a_clear_error(tmp_path: Path):
    path = tmp_path / "notes.txt"
    path.write_text("hello, this is not sqlite\n" * 100)
    with pytest.raises(StoreError, match="cannot open"):
        Store(path)


def test_items_idempotent_and_conflicts(store: Store):
    assert store.add_items(_items(3)) == {"added": 3, "unchanged": 0, "split_changed": 0}
    assert store.add_items(_items(3)) == {"added": 0, "unchanged": 3, "split_changed": 0}
    changed = Item(id="P001", rubric="binary", fields={"query": "other", "criterion": "c", "response": "r"})
    with pytest.raises(ItemConflict, match="different content"):
        store.add_items([*_items(1)[:0], Item(id="P009", rubric="binary", fields={}), changed])
    assert store.item("P009") is None  # the whole batch was rolled back
    with pytest.raises(ItemConflict, match="under rubric"):
        store.add_items([Item(id="P001", rubric="cis", fields={"query": "q1", "criterion": "c", "response": "r"})])
    assert [i.id for i in store.iter_items("binary")] == ["P001", "P002", "P003"]


def test_ratings_upsert_and_next_unrated(store: Store, rubrics):
    store.add_items(_items(4))
    version = store.ensure_rubric_version(rubrics["binary"])
    assert store.ensure_rubric_version(rubrics["binary"]) == version
    store.ensure_rater("ann", "human")
    with pytest.raises(ValueError, match="already exists as a human"):
        store.ensure_rater("ann", "judge")
    first = present(store.next_unrated_item("ann", "binary"))
    assert first.id == "P001"
    rating = Rating(item_id="P001", rater_id="ann", rubric_version_id=version, scores={"label": 1.0},
                    overall=1.0, verdict="PASS", notes="fine", seconds=12.5)
    assert store.save_rating(rating) is True
    assert store.save_rating(rating) is False  # same again changes nothing
    # The same rating read from another file is unchanged too, and keeps where it first came from.
    assert store.save_rating(replace(rating, source="import:copy.jsonl")) is False
    assert present(store.rating("P001", "ann")).source == ""
    assert store.save_rating(replace(rating, notes="on second thought", source="app")) is True
    assert present(store.rating("P001", "ann")).source == "app"
    store.save_rating(rating)
    assert present(store.next_unrated_item("ann", "binary")).id == "P002"
    assert present(store.next_unrated_item("ann", "binary", after_position=3)).id == "P004"
    assert present(store.rating("P001", "ann")).notes == "fine"
    assert store.progress("ann", "binary") == {"rated": 1, "skipped": 0, "flagged": 0, "total": 4}


def test_drafts_survive_and_submit_clears_them(store: Store, rubrics):
    store.add_items(_items(2))
    store.ensure_rater("ann", "human")
    version = store.ensure_rubric_version(rubrics["binary"])
    store.save_draft(Draft(item_id="P002", rater_id="ann", scores={"label": 0.0}, notes="n", seconds=3.0,
                           flagged=True, flag_reason="unclear"))
    store.save_draft(Draft(item_id="P001", rater_id="ann", skipped=True))
    assert present(store.latest_draft("ann")).item_id == "P002"
    assert present(store.next_unrated_item("ann", "binary")).id == "P002"  # P001 skipped
    assert store.progress("ann", "binary")["flagged"] == 1
    store.save_rating(Rating(item_id="P002", rater_id="ann", rubric_version_id=version, scores={"label": 0.0},
                             flagged=True, flag_reason="unclear"), clear_draft=True)
    assert store.draft("P002", "ann") is None  # the flag is the rating's now
    assert present(store.rating("P002", "ann")).flag_reason == "unclear"
    assert store.progress("ann", "binary")["flagged"] == 1


def test_foreign_keys_are_enforced(store: Store):
    with pytest.raises(sqlite3.IntegrityError), store.transaction() as conn:
        conn.execute("INSERT INTO drafts (item_id, rater_id, updated_at) VALUES ('nope', 'nobody', 'x')")


def test_committed_rating_visible_to_another_connection(tmp_path: Path, rubrics):
    path = tmp_path / "shared.db"
    with Store(path) as a:
        a.add_items(_items(1))
        a.ensure_rater("ann", "human")
        version = a.ensure_rubric_version(rubrics["binary"])
        a.save_rating(Rating(item_id="P001", rater_id="ann", rubric_version_id=version, scores={"label": 1.0}))
        with Store(path) as b:
            assert present(b.rating("P001", "ann")).scores == {"label": 1.0}


def test_has_human_rerating_ignores_judge_repeats(store: Store, rubrics):
    store.add_items(_items(2))
    version = store.ensure_rubric_version(rubrics["binary"])
    store.ensure_rater("ann", "human")
    store.ensure_rater("judge:m:binary@1", "judge")
    for rater, repeat in (("ann", 0), ("judge:m:binary@1", 0), ("judge:m:binary@1", 1)):
        store.save_rating(Rating(item_id="P001", rater_id=rater, rubric_version_id=version, scores={"label": 1.0},
                                 repeat=repeat))
    assert store.has_human_rerating("binary") is False
    store.save_rating(Rating(item_id="P001", rater_id="ann", rubric_version_id=version, scores={"label": 0.0},
                             repeat=1))
    assert store.has_human_rerating("binary") is True
    assert store.has_human_rerating("cis") is False


class _RacingConnection:
    """A connection whose first rater look-up comes back empty while another process creates that rater."""

    def __init__(self, real: sqlite3.Connection, meanwhile) -> None:  # noqa: ANN001
        self.real, self.meanwhile, self.fired = real, meanwhile, False

    def execute(self, sql: str, params=()):  # noqa: ANN001, ANN201
        if sql.startswith("SELECT kind FROM raters") and not self.fired:
            self.fired = True
            self.meanwhile()
            return self.real.execute("SELECT kind FROM raters WHERE 0")
        return self.real.execute(sql, params)

    def __getattr__(self, name: str):  # noqa: ANN204
        return getattr(self.real, name)


def test_a_rater_created_by_another_process_meanwhile_is_accepted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "two.db"
    with Store(path) as a, Store(path) as b:
        racing = _RacingConnection(b.conn, lambda: a.ensure_rater("ann", "human"))
        monkeypatch.setattr(b, "conn", racing)
        b.ensure_rater("ann", "human")  # looked before a wrote, inserts after: no IntegrityError
        assert racing.fired
        assert [r["id"] for r in b.raters()] == ["ann"]
        monkeypatch.setattr(b, "conn", _RacingConnection(racing.real, lambda: a.ensure_rater("bob", "judge")))
        with pytest.raises(ValueError, match="already exists as a judge"):
            b.ensure_rater("bob", "human")


def test_rubric_ids_and_has_items_answer_without_counting(store: Store):
    assert store.rubric_ids() == []
    assert not store.has_items()
    store.add_items([Item(id=f"C{n}", rubric="cis", fields={"task": "t"}) for n in range(3)]
                    + [Item(id="B1", rubric="binary", fields={"query": "q"}, split="dev")])
    assert store.rubric_ids() == ["binary", "cis"]  # by id, each once, however many items it has
    assert store.has_items("cis")
    assert store.has_items("binary", "dev")
    assert not store.has_items("binary", "test")
    assert not store.has_items("reasoning-trace")


def test_a_second_store_in_the_process_keeps_the_first_ones_locks(tmp_path: Path):
    """Opening and closing another Store of the same file (the judge screen's figures are computed on a
    connection of their own) must not drop the locks of the connection still open: else another program
    closing the database takes it for unused and deletes the -wal and -shm files from under it."""
    import subprocess
    import sys

    path = tmp_path / "shared.db"
    with Store(path) as store:
        store.set_meta("k", "v")
        with Store(path) as other:
            assert other.get_meta("k") == "v"
        done = subprocess.run([sys.executable, "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                               "c.execute('SELECT COUNT(*) FROM meta').fetchall(); c.close()", str(path)],
                              capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        assert (tmp_path / "shared.db-shm").exists()
        assert (tmp_path / "shared.db-wal").exists()
        store.set_meta("k", "w")  # the first connection still works
        assert store.get_meta("k") == "w"
