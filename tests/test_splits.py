"""judge-tui split: stratified on the human label, deterministic, few-shot examples stay in train."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from judge_tui.store import Store
from judge_tui.transfer.importing import import_items, import_ratings
from judge_tui.transfer.splits import plan_split, quotas
from tests.formats_helpers import binary_item, run, write_jsonl

N_PASS, N_FAIL, N_UNLABELLED = 40, 20, 7


@pytest.fixture
def labelled_db(tmp_path: Path) -> Path:
    """67 binary items: 40 labelled PASS, 20 FAIL by a person, 7 with no label (one of them only judged)."""
    path = tmp_path / "s.db"
    total = N_PASS + N_FAIL + N_UNLABELLED
    with Store(path) as store:
        import_items(store, write_jsonl(tmp_path / "i.jsonl", [binary_item(f"P{i:03d}", i) for i in range(total)]),
                     "binary")
        labels = [{"item_id": f"P{i:03d}", "label": "PASS" if i < N_PASS else "FAIL"}
                  for i in range(N_PASS + N_FAIL)]
        import_ratings(store, write_jsonl(tmp_path / "l.jsonl", labels), "EXP001", "human")
        judged = [{"item_id": f"P{total - 1:03d}", "label": "PASS"}]
        import_ratings(store, write_jsonl(tmp_path / "j.jsonl", judged), "judge:m:binary@1", "judge")
    return path


def _splits(labelled_db: Path) -> dict[str, str | None]:
    with Store(labelled_db) as store:
        return {item.id: item.split for item in store.iter_items("binary")}


def test_stratified_counts_are_printed_and_stored(labelled_db: Path, capsys):
    code, out, err = run(capsys, "split", "--seed", "7", "--db", labelled_db)
    assert code == 0, err
    splits = _splits(labelled_db)
    by_stratum = Counter((("PASS" if int(i[1:]) < N_PASS else "FAIL" if int(i[1:]) < N_PASS + N_FAIL else "none"),
                          s) for i, s in splits.items())
    # 15/40/45 of 40 = 6/16/18; of 20 = 3/8/9; of 7 = 1.05/2.8/3.15 -> 1/3/3 by largest remainder
    assert (by_stratum["PASS", "train"], by_stratum["PASS", "dev"], by_stratum["PASS", "test"]) == (6, 16, 18)
    assert (by_stratum["FAIL", "train"], by_stratum["FAIL", "dev"], by_stratum["FAIL", "test"]) == (3, 8, 9)
    assert (by_stratum["none", "train"], by_stratum["none", "dev"], by_stratum["none", "test"]) == (1, 3, 3)
    table = [line.split() for line in out.splitlines()]
    assert ["stratum", "train", "dev", "test", "total"] in table
    assert ["PASS", "6", "16", "18", "40"] in table
    assert ["FAIL", "3", "8", "9", "20"] in table
    assert ["(no", "label)", "1", "3", "3", "7"] in table
    assert ["all", "10", "27", "30", "67"] in table


def test_same_seed_same_split_other_seed_differs(labelled_db: Path, capsys):
    run(capsys, "split", "--seed", "3", "--db", labelled_db)
    first = _splits(labelled_db)
    run(capsys, "split", "--seed", "4", "--reassign", "--db", labelled_db)
    other = _splits(labelled_db)
    run(capsys, "split", "--seed", "3", "--reassign", "--db", labelled_db)
    assert _splits(labelled_db) == first
    assert other != first


def test_a_split_made_stays_made_and_only_new_items_are_placed(labelled_db: Path, tmp_path: Path, capsys):
    """Labels that came in since, another seed, a few-shot example: nothing an item was measured on moves
    (a judge tuned on dev is never tested on it), until --reassign; items imported later are placed."""
    run(capsys, "split", "--seed", "3", "--db", labelled_db)
    first = _splits(labelled_db)
    with Store(labelled_db) as store:  # the unlabelled items get labels: every stratum changes
        import_ratings(store, write_jsonl(tmp_path / "more.jsonl", [
            {"item_id": f"P{i:03d}", "label": "FAIL"} for i in range(N_PASS + N_FAIL, N_PASS + N_FAIL + N_UNLABELLED)]),
            "EXP002", "human")
        import_items(store, write_jsonl(tmp_path / "new.jsonl", [binary_item(f"N{i:03d}", i) for i in range(20)]),
                     "binary")
    code, out, err = run(capsys, "split", "--seed", "4", "--db", labelled_db)
    assert code == 0, err
    assert f"{len(first)} items kept the split they had (--reassign splits every item afresh)" in out
    now = _splits(labelled_db)
    assert {i: now[i] for i in first} == first
    assert all(now[f"N{i:03d}"] in ("train", "dev", "test") for i in range(20))


def test_few_shot_examples_stay_in_train_and_count_toward_it(labelled_db: Path, capsys):
    run(capsys, "split", "--seed", "1", "--db", labelled_db)
    test_items = sorted(i for i, s in _splits(labelled_db).items() if s == "test" and int(i[1:]) < N_PASS)[:8]
    with Store(labelled_db) as store:
        store.mark_few_shot_used(test_items)  # as if a bad earlier run had used them: they belong in train
    before = _splits(labelled_db)
    code, _out, err = run(capsys, "split", "--seed", "1", "--db", labelled_db)
    assert code == 0
    assert "were outside train; put back in train" in err
    splits = _splits(labelled_db)
    assert all(splits[i] == "train" for i in test_items)
    assert {i: s for i, s in splits.items() if i not in test_items} == {
        i: s for i, s in before.items() if i not in test_items}  # the others keep theirs
    for seed in (2, 3, 4):
        run(capsys, "split", "--seed", seed, "--reassign", "--db", labelled_db)
        splits = _splits(labelled_db)
        assert all(splits[i] == "train" for i in test_items)
        passes = Counter(s for i, s in splits.items() if int(i[1:]) < N_PASS)
        # 8 pinned > the 6 train places: the other 32 share dev/test as 40:45
        assert passes == {"train": 8, "dev": 15, "test": 17}


def test_latest_human_label_decides_the_stratum(tmp_path: Path):
    ids = [f"x{i}" for i in range(10)]
    labels = dict.fromkeys(ids[:5], "PASS") | dict.fromkeys(ids[5:], "FAIL")
    plan = plan_split(ids, labels, set(), seed=0, rubric="binary", proportions=(0.2, 0.4, 0.4))
    assert plan.counts == {"FAIL": {"train": 1, "dev": 2, "test": 2}, "PASS": {"train": 1, "dev": 2, "test": 2}}
    assert plan_split(list(reversed(ids)), labels, set(), seed=0, rubric="binary",
                      proportions=(0.2, 0.4, 0.4)).assignment == plan.assignment


def test_quotas_add_up():
    for n in range(0, 50):
        counts = quotas(n, [0.15, 0.40, 0.45])
        assert sum(counts) == n
        assert all(c >= 0 for c in counts)
    assert quotas(10, [1, 0, 0]) == [10, 0, 0]
    assert quotas(4, [0.15, 0.40, 0.45]) == [1, 1, 2]  # .6/.6/.8 remainders: the tie goes to the earlier split


@pytest.mark.parametrize("args,message", [
    (["--train", "0.2", "--dev", "0.4", "--test", "0.3"], "must add up to 1; they add up to 0.9"),
    (["--train", "-0.1", "--dev", "0.6", "--test", "0.5"], "--train must be a share between 0 and 1"),
])
def test_bad_proportions(labelled_db: Path, capsys, args, message):
    before = _splits(labelled_db)
    code, _out, err = run(capsys, "split", *args, "--db", labelled_db)
    assert code == 1
    assert message in err
    assert _splits(labelled_db) == before


def test_empty_database(tmp_path: Path, capsys):
    Store(tmp_path / "empty.db").close()
    code, _out, err = run(capsys, "split", "--db", tmp_path / "empty.db")
    assert code == 1
    assert "no items to split" in err


def test_missing_database_is_not_created(tmp_path: Path, capsys):
    code, _out, err = run(capsys, "split", "--db", tmp_path / "typo.db")
    assert code == 1
    assert "no such database" in err
    assert not (tmp_path / "typo.db").exists()


def test_splits_set_at_import_are_kept_unless_reassigned(tmp_path: Path, capsys):
    labelled_db = tmp_path / "s.db"
    rows = [{**binary_item(f"P{i:02d}", i), **({"split": "test"} if i < 4 else {})} for i in range(20)]
    assert run(capsys, "import", write_jsonl(tmp_path / "i.jsonl", rows), "--rubric", "binary", "--db", labelled_db)[0] == 0
    chosen = {f"P{i:02d}" for i in range(4)}
    for seed in (1, 2, 3):
        code, out, err = run(capsys, "split", "--seed", seed, "--db", labelled_db)
        assert code == 0, err
        assert f"{4 if seed == 1 else 20} items kept the split they had" in out
        splits = _splits(labelled_db)
        assert all(splits[i] == "test" for i in chosen)
        # They count toward test's share: 15/40/45 of 20 is 3/8/9 in all.
        assert Counter(splits.values()) == {"train": 3, "dev": 8, "test": 9}
    with Store(labelled_db) as store:  # a later import that sets the split again is the user's decision too
        assert store.splits_from_import("binary") == dict.fromkeys(sorted(chosen), "test")
    code, out, _err = run(capsys, "split", "--seed", "1", "--reassign", "--db", labelled_db)
    assert code == 0
    assert "kept the split they had" not in out
    moved = [run(capsys, "split", "--seed", seed, "--reassign", "--db", labelled_db) and _splits(labelled_db) for seed in (4, 5, 6)]
    assert any(m[i] != "test" for m in moved for i in chosen)
    with Store(labelled_db) as store:
        assert store.splits_from_import("binary") == {}  # now `split`'s own, which a later split may move


def test_few_shot_examples_imported_outside_train_still_go_to_train(tmp_path: Path, capsys):
    labelled_db = tmp_path / "s.db"
    rows = [{**binary_item(f"P{i:02d}", i), "split": "dev"} for i in range(10)]
    assert run(capsys, "import", write_jsonl(tmp_path / "i.jsonl", rows), "--rubric", "binary", "--db", labelled_db)[0] == 0
    with Store(labelled_db) as store:
        store.mark_few_shot_used(["P03"])
    assert run(capsys, "split", "--db", labelled_db)[0] == 0
    splits = _splits(labelled_db)
    assert splits["P03"] == "train"
    assert all(s == "dev" for i, s in splits.items() if i != "P03")


def test_a_database_from_before_split_origins_keeps_every_split_until_reassigned(tmp_path: Path, capsys):
    import sqlite3

    labelled_db = tmp_path / "old.db"
    rows = [binary_item(f"P{i:02d}", i) for i in range(10)]
    assert run(capsys, "import", write_jsonl(tmp_path / "i.jsonl", rows), "--rubric", "binary", "--db", labelled_db)[0] == 0
    assert run(capsys, "split", "--seed", "1", "--db", labelled_db)[0] == 0
    before = _splits(labelled_db)
    with sqlite3.connect(labelled_db) as conn:  # as an earlier judge-tui left it: no record of where a split came from
        conn.execute("ALTER TABLE items DROP COLUMN split_from_import")
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm007_items_split_from_import'")
    conn.close()
    code, out, _err = run(capsys, "split", "--seed", "2", "--db", labelled_db)
    assert code == 0
    assert "10 items kept the split they had" in out
    assert _splits(labelled_db) == before
    assert run(capsys, "split", "--seed", "2", "--reassign", "--db", labelled_db)[0] == 0


def test_the_few_shot_line_counts_each_kind_in_words() -> None:
    from judge_tui.transfer.splits import few_shot_line

    assert few_shot_line(1, 1) == "1 few-shot example kept in train: 1 chosen"
    assert few_shot_line(1, 0) == "1 few-shot example kept in train: 1 picked by the judge itself"
    assert few_shot_line(4, 1) == "4 few-shot examples kept in train: 1 chosen and 3 picked by the judge itself"
