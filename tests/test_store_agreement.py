"""The store's agreement queries: score arrays, item fields by key, raters of a rubric, revision marks."""

from __future__ import annotations

import numpy as np

from judge_tui.model.records import Item, Rating
from judge_tui.store import Store


def test_rubric_scores_arrays_and_item_fields(store: Store, rubrics):
    rubric = rubrics["binary"]
    version = store.ensure_rubric_version(rubric)
    store.add_items([Item(id=f"P{i}", rubric="binary", split="test" if i % 2 else "dev",
                          fields={"query": "q", "criterion": "c", "response": "r", "a.b": i, "tag": None})
                     for i in range(4)])
    store.ensure_rater("H", "human")
    store.ensure_rater("J", "judge")
    store.save_ratings([Rating(item_id="P1", rater_id="H", rubric_version_id=version, scores={"label": 1.0},
                               overall=1.0),
                        Rating(item_id="P2", rater_id="H", rubric_version_id=version, scores={}, overall=None),
                        Rating(item_id="P1", rater_id="J", rubric_version_id=version, scores={"label": 0.0},
                               overall=0.0, repeat=1)])
    scores = store.rubric_scores("binary", ["label"], rater_id="H")
    assert scores.scores.shape == (2, 1)
    assert scores.scores[0, 0] == 1.0
    assert np.isnan(scores.scores[1, 0])
    assert np.isnan(scores.overall[1])
    assert store.rubric_scores("binary", ["label"], split="test", rater_id="H").item_keys.size == 1
    judge = store.rubric_scores("binary", ["label"], rater_id="J")
    assert judge.repeats.tolist() == [1]
    assert judge.versions.tolist() == [version]
    assert {scores.raters[k][0] for k in store.rubric_scores("binary", ["label"]).rater_keys} == {"H", "J"}
    assert store.rubric_scores("cis", ["r"], rater_id="H").scores.shape == (0, 1)
    keys, values = store.item_field_values("binary", "a.b")  # a dot in a field name is taken literally
    assert values == [0, 1, 2, 3]
    assert keys.tolist() == sorted(keys.tolist())
    _, ids = store.item_field_values("binary", "id")
    assert ids == ["P0", "P1", "P2", "P3"]
    assert dict(zip(ids, store.item_field_values("binary", "split")[1], strict=True))["P1"] == "test"
    assert store.item_fields_present("binary", "a.b")
    assert not store.item_fields_present("binary", "colour")
    assert store.item_fields_present("binary", "tag")  # present, if null: a breakdown shows "(none)"
    assert [r["id"] for r in store.rubric_raters("binary")] == ["H", "J"]
    assert store.rubric_raters("cis") == []


def test_revision_marks(store: Store):
    store.add_items([Item(id="E1", rubric="exercise-quality", fields={}), Item(id="E2", rubric="exercise-quality",
                                                                           fields={"x": 1})])
    store.mark_for_revision("E1", "exercise-quality", "too lenient on clarity")
    store.mark_for_revision("E2", "exercise-quality")
    store.mark_for_revision("E1", "exercise-quality", "anchors for 0.5 are vague")
    assert store.revision_marks("exercise-quality") == {"E1": "anchors for 0.5 are vague", "E2": ""}
    store.unmark_for_revision("E2", "exercise-quality")
    assert store.revision_marks("exercise-quality") == {"E1": "anchors for 0.5 are vague"}
    assert store.revision_marks("cis") == {}


def test_item_field_lengths_count_in_sql_what_python_counts(store: Store):
    """Each item's response length, counted without reading its text, is the length Python gives the value it
    reads (characters, not bytes; a JSON object's or list's JSON text; a number or truth value as Python writes
    it); NaN where the item lacks the field or holds null."""
    values = ["plain", "Grüße, 東京 🎉 \u00e9", "", {"k": [1, "ü"]}, [1, 2.5], 7, 1.5, 1e20, True, False, None]
    items = [Item(id=f"P{i}", rubric="binary", split="test" if i % 2 else "dev",
                  fields={"query": "q", "criterion": "c", "response": value}) for i, value in enumerate(values)]
    items.append(Item(id="P-none", rubric="binary", split="dev", fields={"query": "q", "criterion": "c"}))
    store.add_items(items)
    keys, lengths = store.item_field_lengths("binary", "response")
    known, read = store.item_field_values("binary", "response")
    assert keys.tolist() == known.tolist()
    python = [len(v) if isinstance(v, str) else len(str(v)) if v is not None else np.nan for v in read]
    np.testing.assert_array_equal(lengths, np.array(python, dtype=np.float64))
    by_id = dict(zip(store.item_field_values("binary", "id")[1], lengths.tolist(), strict=True))
    assert by_id["P1"] == len("Grüße, 東京 🎉 é")  # characters, not UTF-8 bytes
    assert by_id["P7"] == len("1e+20")  # as Python writes it, not as SQLite would
    assert np.isnan(by_id["P10"])
    assert np.isnan(by_id["P-none"])
    test_keys, test_lengths = store.item_field_lengths("binary", "response", split="test")
    assert test_keys.tolist() == keys[1:len(values):2].tolist()
    assert test_lengths.tolist() == lengths[1:len(values):2].tolist()
    assert np.isnan(store.item_field_lengths("binary", "colour")[1]).all()
