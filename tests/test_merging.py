from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from judge_tui.cli import main
from judge_tui.model.records import Item
from judge_tui.store import Store, StoreError
from judge_tui.transfer.merge import MergeRefused, merge_database
from tests.narrowing import present
from tests.team_fixtures import binary_item, expert_db, rate


def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _table_rows(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute(sql).fetchall()


def test_merge_brings_items_raters_ratings_and_is_idempotent(tmp_path: Path, rubrics):
    binary = rubrics["binary"]
    items = [binary_item(n) for n in range(1, 6)]
    ours = expert_db(tmp_path / "a" / "ann.db", binary, items[:3], "ann", {"P01": {"label": 1.0}})
    theirs = expert_db(tmp_path / "b" / "bob.db", binary, items, "bob",
                       {f"P0{n}": {"label": float(n % 2)} for n in range(1, 6)}, notes="[bold]mine[/]")
    before = _file_digest(theirs)

    with Store(ours) as store:
        first = merge_database(store, theirs)
        assert first.added["ratings"] == 5
        assert first.added["items"] == 2
        assert first.added["raters"] == 1
        assert first.added["rubric_versions"] == 0  # same rubric definition, matched by content hash
        assert first.problems == 0
        assert store.count_ratings(rater_id="bob") == 5
        assert present(store.rating("P04", "bob")).notes == "[bold]mine[/]"
        # New items go after ours, in the other database's order.
        assert [i.id for i in store.iter_items("binary")] == ["P01", "P02", "P03", "P04", "P05"]

        second = merge_database(store, theirs)
        assert not second.changed
        assert second.unchanged_ratings == 5
        assert second.problems == 0
    assert _file_digest(theirs) == before  # the other file is only read
    snapshot = _table_rows(ours, "SELECT * FROM ratings ORDER BY id")
    with Store(ours) as store:
        merge_database(store, theirs)
    assert _table_rows(ours, "SELECT * FROM ratings ORDER BY id") == snapshot


def test_rubric_versions_are_remapped_by_content(tmp_path: Path, rubrics):
    binary, cis = rubrics["binary"], rubrics["cis"]
    # Versions recorded in another order get other ids in each file.
    with Store(tmp_path / "ours.db") as store:
        store.ensure_rubric_version(cis)
        store.add_items([binary_item(1)])
        rate(store, binary, "ann", "human", {"P01": {"label": 1.0}})
    other = expert_db(tmp_path / "theirs.db", binary, [binary_item(1)], "bob", {"P01": {"label": 0.0}})
    with Store(tmp_path / "ours.db") as store:
        result = merge_database(store, other)
        assert result.added["rubric_versions"] == 0
        binary_version = present(store.rubric_version_by_hash(binary.content_hash))["id"]
        assert present(store.rating("P01", "bob")).rubric_version_id == binary_version == 2


def test_conflicting_rating_keeps_ours_and_is_reported(tmp_path: Path, rubrics):
    binary = rubrics["binary"]
    items = [binary_item(1), binary_item(2)]
    ours = expert_db(tmp_path / "ours.db", binary, items, "ann", {"P01": {"label": 1.0}, "P02": {"label": 1.0}})
    # The same expert's rating of P01 changed on another copy of the database.
    theirs = expert_db(tmp_path / "copy.db", binary, items, "ann", {"P01": {"label": 0.0}, "P02": {"label": 1.0}})
    with Store(ours) as store:
        result = merge_database(store, theirs)
        assert result.added["ratings"] == 0
        assert result.unchanged_ratings == 1
        [conflict] = result.rating_conflicts
        assert (conflict.item_id, conflict.rater_id, conflict.repeat) == ("P01", "ann", 0)
        assert conflict.ours["scores"] == {"label": 1.0}
        assert conflict.theirs["scores"] == {"label": 0.0}
        assert present(store.rating("P01", "ann")).scores == {"label": 1.0}
        again = merge_database(store, theirs)
        assert len(again.rating_conflicts) == 1
        assert not again.changed


def test_same_rating_from_another_source_is_no_conflict(tmp_path: Path, rubrics):
    binary = rubrics["binary"]
    items = [binary_item(1)]
    ours = expert_db(tmp_path / "ours.db", binary, items, "ann", {"P01": {"label": 1.0}})
    theirs = expert_db(tmp_path / "copy.db", binary, items, "ann", {"P01": {"label": 1.0}})
    with sqlite3.connect(theirs) as conn:  # the same rating, imported there from a file
        conn.execute("UPDATE ratings SET source = 'import:ann-form.json'")
    conn.close()
    with Store(ours) as store:
        result = merge_database(store, theirs)
        assert result.problems == 0
        assert result.unchanged_ratings == 1
        assert not result.changed


def test_an_item_whose_hash_is_not_that_of_its_fields_is_refused_whole(tmp_path: Path, rubrics):
    # judge-tui has always hashed an item's fields one way: a hash that is not theirs means the text was edited
    # after it was stored, and matching by it would take the ratings onto text their raters never saw.
    binary = rubrics["binary"]
    items = [binary_item(1), binary_item(2)]
    ours = expert_db(tmp_path / "ours.db", binary, items, "ann", {"P01": {"label": 1.0}})
    theirs = expert_db(tmp_path / "theirs.db", binary, items, "bob", {"P01": {"label": 0.0}, "P02": {"label": 1.0}})
    with sqlite3.connect(theirs) as conn:
        conn.execute("UPDATE items SET content_hash = 'made-elsewhere' WHERE id = 'P02'")
    conn.close()
    with Store(ours) as store:
        with pytest.raises(MergeRefused, match="items row 'P02': content_hash 'made-elsewhere' is not the hash of"
                                               " its fields"):
            merge_database(store, theirs)
        assert store.count_ratings() == 1
        assert store.rater("bob") is None


def test_several_files_in_one_merge_each_add_what_is_new_and_report_their_conflicts(tmp_path: Path, rubrics,
                                                                                     capsys):
    binary = rubrics["binary"]
    items = [binary_item(n) for n in range(1, 4)]
    lead = expert_db(tmp_path / "lead.db", binary, items, "ann", {"P01": {"label": 1.0}})
    bob = expert_db(tmp_path / "bob.db", binary, items, "bob", {"P01": {"label": 1.0}, "P02": {"label": 0.0}})
    ann_again = expert_db(tmp_path / "ann.db", binary, items, "ann", {"P01": {"label": 0.0}, "P03": {"label": 1.0}})
    assert main(["merge", str(bob), str(ann_again), str(bob), "--db", str(lead)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{bob}: added 2 ratings, 0 items, 1 rater, 0 rubric versions (0 ratings already here)."
    assert out[1].startswith(f"{ann_again}: added 1 rating, 0 items, 0 raters")
    assert "(0 ratings already here)" in out[1]
    assert "CONFLICT rating of P01 by ann" in out[2]
    assert 'kept ours {"label": 1.0}' in out[2]
    assert out[3] == f"{bob}: nothing new (2 ratings already here)."
    with Store(lead) as store:
        assert store.count_ratings() == 4
        assert present(store.rating("P01", "ann")).scores == {"label": 1.0}


def test_item_with_other_content_is_reported_and_its_ratings_skipped(tmp_path: Path, rubrics):
    binary = rubrics["binary"]
    ours = expert_db(tmp_path / "ours.db", binary, [binary_item(1), binary_item(2)], "ann", {"P01": {"label": 1.0}})
    changed = Item(id="P02", rubric="binary", fields={"query": "edited", "criterion": "vegan", "response": "x"})
    theirs = expert_db(tmp_path / "theirs.db", binary, [binary_item(1), changed], "bob",
                       {"P01": {"label": 1.0}, "P02": {"label": 0.0}})
    with Store(ours) as store:
        result = merge_database(store, theirs)
        assert result.added["ratings"] == 1
        [diff] = result.item_differences
        assert diff.item_id == "P02"
        assert "different content" in diff.problem
        assert diff.skipped_ratings == ("bob",)
        assert present(store.item("P02")).fields["query"] == "question 2"
        assert store.rating("P02", "bob") is None


def test_rater_of_another_kind_is_reported(tmp_path: Path, rubrics):
    binary = rubrics["binary"]
    ours = expert_db(tmp_path / "ours.db", binary, [binary_item(1)], "ann", {"P01": {"label": 1.0}})
    with Store(tmp_path / "theirs.db") as other:
        other.add_items([binary_item(1)])
        rate(other, binary, "ann", "judge", {"P01": {"label": 0.0}})
    with Store(ours) as store:
        result = merge_database(store, tmp_path / "theirs.db")
        [conflict] = result.rater_conflicts
        assert (conflict.our_kind, conflict.their_kind, conflict.skipped_ratings) == ("human", "judge", 1)


def test_merge_keeps_judge_details_and_repeats(tmp_path: Path, rubrics):
    binary = rubrics["binary"]
    ours = expert_db(tmp_path / "ours.db", binary, [binary_item(1)], "ann", {"P01": {"label": 1.0}})
    with Store(tmp_path / "judge.db") as other:
        other.add_items([binary_item(1)])
        rate(other, binary, "judge:m:binary@abc", "judge", {"P01": {"label": 1.0}}, prompt_version="abc")
        rate(other, binary, "judge:m:binary@abc", "judge", {"P01": {"label": 0.0}}, repeat=1,
             prompt_version="abc")
        other.record_prompt_version("binary", "abc", 1, template="t", reason="first")
    with Store(ours) as store:
        result = merge_database(store, tmp_path / "judge.db")
        assert result.added["ratings"] == 2
        assert result.added["prompt_versions"] == 1
        assert present(store.rater("judge:m:binary@abc"))["prompt_version"] == "abc"
        assert [r.repeat for r in store.ratings_for_item("P01") if r.rater_id.startswith("judge")] == [0, 1]


def test_not_a_database_and_same_file_are_clear_errors(tmp_path: Path, rubrics):
    text = tmp_path / "notes.db"
    text.write_text("not sqlite " * 100)
    with Store(tmp_path / "ours.db") as store:
        with pytest.raises(StoreError, match="notes.db"):
            merge_database(store, text)
        with pytest.raises(StoreError, match="no such file"):
            merge_database(store, tmp_path / "missing.db")
        with pytest.raises(StoreError, match="same database"):
            merge_database(store, tmp_path / "ours.db")
    plain = tmp_path / "plain.db"
    sqlite3.connect(plain).execute("CREATE TABLE t (x)").connection.close()
    with Store(tmp_path / "ours.db") as store, pytest.raises(StoreError, match="not a judge-tui database"):
        merge_database(store, plain)


def test_merge_command_reports_conflicts(tmp_path: Path, rubrics, capsys):
    binary = rubrics["binary"]
    items = [binary_item(1), binary_item(2)]
    ours = expert_db(tmp_path / "ours.db", binary, items, "ann", {"P01": {"label": 1.0}})
    same_rater = expert_db(tmp_path / "copy.db", binary, items, "ann", {"P01": {"label": 0.0}})
    other = expert_db(tmp_path / "bob.db", binary, items, "bob", {"P01": {"label": 1.0}, "P02": {"label": 1.0}})
    assert main(["merge", "--db", str(ours), str(other), str(same_rater)]) == 0
    out = capsys.readouterr().out
    assert "bob.db: added 2 ratings, 0 items, 1 rater, 0 rubric versions (0 ratings already here)." in out
    assert "CONFLICT rating of P01 by ann" in out
    assert "kept ours" in out
    assert "1 conflict:" in out
    assert main(["merge", "--db", str(ours), str(tmp_path / "nope.db")]) == 1
    assert "nope.db: no such file. Nothing was merged from it." in capsys.readouterr().err


def test_a_merged_rating_ends_the_receivers_skip_of_that_item(tmp_path: Path, rubrics):
    """The lead's copy holds ann's skip of P02 (from an earlier bundle); her laptop has since rated it."""
    from judge_tui.model.records import Draft

    binary = rubrics["binary"]
    items = [binary_item(n) for n in range(1, 4)]
    lead = expert_db(tmp_path / "lead.db", binary, items, "ann", {"P01": {"label": 1.0}})
    laptop = expert_db(tmp_path / "ann.db", binary, items, "ann", {"P01": {"label": 1.0}, "P02": {"label": 0.0}})
    with Store(lead) as store:
        store.save_marks([Draft("P02", "ann", skipped=True), Draft("P03", "ann", skipped=True)])
        assert [d.item_id for d in store.set_aside(rater_id="ann")] == ["P02", "P03"]
        merge_database(store, laptop)
        assert present(store.rating("P02", "ann")).scores["label"] == 0.0
        assert [d.item_id for d in store.set_aside(rater_id="ann")] == ["P03"]  # P03 is still skipped
        assert store.draft("P02", "ann") is None


@pytest.mark.slow
def test_the_same_judgment_made_on_two_laptops_is_no_conflict(tmp_path: Path, rubrics, hermetic_home: Path):
    """Seconds and the call record (cost, tokens) differ between two runs of one judgment; scores, verdict and
    notes decide whether two ratings are the same."""
    from tests.faults.conftest import run

    binary = rubrics["binary"]
    items = [binary_item(1), binary_item(2)]
    paths = []
    for name, seconds, cost in (("lead", 3.2, 0.0041), ("ann", 7.9, 0.0057)):
        with Store(tmp_path / f"{name}.db") as store:
            store.add_items(items)
            rate(store, binary, "judge:m:binary@p1", "judge", {"P01": {"label": 1.0}, "P02": {"label": 0.0}},
                 notes="The answer names the criterion.")
        with sqlite3.connect(tmp_path / f"{name}.db") as conn:
            conn.execute("UPDATE ratings SET seconds = ?, details = json_object('cost_usd', ?, 'input_tokens', ?)",
                         [seconds, cost, int(cost * 1e6)])
        conn.close()
        paths.append(tmp_path / f"{name}.db")
    with sqlite3.connect(paths[1]) as conn:  # a real difference: another note on P02
        conn.execute("UPDATE ratings SET notes = 'Off topic.' WHERE item_id = 'P02'")
    conn.close()
    proc = run("merge", paths[1], "--db", paths[0], home=hermetic_home)
    assert proc.returncode == 0, proc.stderr
    assert "(1 rating already here)" in proc.stdout
    conflicts = [line for line in proc.stdout.splitlines() if "CONFLICT" in line]
    assert len(conflicts) == 1, proc.stdout
    assert "rating of P02" in conflicts[0], proc.stdout
    assert "1 conflict:" in proc.stdout


def test_the_leads_adjudicated_consensus_travels_but_an_expert_called_consensus_does_not(tmp_path: Path, rubrics):
    from judge_tui.model.errors import UserError
    from judge_tui.model.records import Rating

    binary = rubrics["binary"]
    items = [binary_item(1), binary_item(2)]
    lead = expert_db(tmp_path / "lead.db", binary, items, "ann", {"P01": {"label": 1.0}})
    with Store(lead) as store:  # as the adjudication screen saves it
        store.ensure_rater("consensus", "human", display_name="Adjudicated consensus")
        store.save_rating(Rating("P01", "consensus", store.rubric_version_ids("binary")[0], {"label": 1.0},
                                 overall=1.0, verdict="PASS", notes="adjudicated by lee", source="adjudication",
                                 details={"adjudicated": True, "from": ["ann", "bob"], "by": "lee"}))
    with Store(tmp_path / "copy.db") as store:
        assert merge_database(store, lead).added["ratings"] == 2
    impostor = expert_db(tmp_path / "old.db", binary, items, "consensus", {"P02": {"label": 0.0}})
    with Store(tmp_path / "copy.db") as store, pytest.raises(UserError, match="'consensus' is reserved"):
        merge_database(store, impostor)
