"""The one rule for "the judge" (analysis/judges.py) on a database built by hand: the newest kept judge version,
never a reverted trial or one under trial, "the previous version" the kept one before it, a version kept again
as new as that keep, each model's juror by the same rule, and `--judge` by rater id or version."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge_tui.analysis.judges import (
    MOST_ITEMS,
    NAMED,
    NEWEST_KEPT,
    judge_of_each_model,
    kept_versions,
    previous_judge,
    the_judge,
)
from judge_tui.model.errors import UserError
from judge_tui.model.records import Item
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from judge_tui.store.version_rows import TRIAL_META
from tests.narrowing import present
from tests.team_fixtures import rate

FIRST, TRIED, KEPT, TRIAL = "aaaa1111aaaa", "bbbb2222bbbb", "cccc3333cccc", "cccc4444cccc"
COVERAGE = {FIRST: 10, TRIED: 8, KEPT: 3}  # items each version's judge of model m rated


def judge(version: str, model: str = "m") -> str:
    return f"judge:{model}:binary@{version}"


def at(minute: int) -> str:
    return f"2026-01-01T00:{minute:02d}:00.000+00:00"


@pytest.fixture
def study_store(tmp_path: Path, rubrics: dict[str, Rubric]) -> Store:
    """The first version judged every item; a trial reverted; a change kept, judged on 3 items by model m and 2
    by model o; an imported judge without a version on every item."""
    store = Store(tmp_path / "judges.db")
    rubric = rubrics["binary"]
    ids = [f"I{k:02d}" for k in range(10)]
    store.add_items([Item(id=i, rubric="binary", fields={"query": i, "criterion": "c", "response": i}) for i in ids])
    rate(store, rubric, "ann", "human", {i: {"label": 1.0} for i in ids})
    for minute, version in enumerate((FIRST, TRIED, KEPT), start=1):
        store.record_prompt_version("binary", version, store.ensure_rubric_version(rubric))
        rate(store, rubric, judge(version), "judge", {i: {"label": 1.0} for i in ids[:COVERAGE[version]]},
             prompt_version=version)
        with store.transaction() as conn:
            conn.execute("UPDATE prompt_versions SET created_at = ? WHERE prompt_version = ?", [at(minute), version])
    rate(store, rubric, judge(KEPT, "o"), "judge", {i: {"label": 0.0} for i in ids[:2]}, prompt_version=KEPT)
    rate(store, rubric, "imported-judge", "judge", {i: {"label": 1.0} for i in ids})
    store.record_calibration_change("binary", "reverted", TRIED, FIRST, "no better", [])
    store.record_calibration_change("binary", "kept", FIRST, KEPT, "better", [])
    with store.transaction() as conn:
        conn.execute("UPDATE calibration_changes SET created_at = ?", [at(5)])
    return store


def test_the_judge_is_the_newest_kept_version_and_the_previous_one_is_kept_too(study_store: Store) -> None:
    assert kept_versions(study_store, "binary") == [FIRST, KEPT]
    chosen = present(the_judge(study_store, "binary"))
    # The kept version rated 3 items, the reverted one 8 and the first 10: the kept one is the judge all the same.
    assert (chosen.rater, chosen.prompt_version, chosen.rated, chosen.why) == (judge(KEPT), KEPT, 3, NEWEST_KEPT)
    assert dict((r, (n, state)) for r, n, state in chosen.others) == {
        judge(FIRST): (10, "kept"), "imported-judge": (10, ""), judge(TRIED): (8, "reverted"),
        judge(KEPT, "o"): (2, "kept")}
    assert previous_judge(study_store, "binary", KEPT) == judge(FIRST)  # never the reverted trial
    assert previous_judge(study_store, "binary", FIRST) is None
    assert judge_of_each_model(study_store, "binary") == {"judge:m:binary": judge(KEPT), "judge:o:binary": judge(KEPT, "o"),
                                                     "imported-judge": "imported-judge"}


def test_a_version_under_trial_is_not_the_judge_and_is_compared_with_it(study_store: Store,
                                                                        rubrics: dict[str, Rubric]) -> None:
    study_store.record_prompt_version("binary", TRIAL, study_store.ensure_rubric_version(rubrics["binary"]))
    rate(study_store, rubrics["binary"], judge(TRIAL), "judge", {f"I{k:02d}": {"label": 1.0} for k in range(10)},
         prompt_version=TRIAL)
    study_store.set_meta(TRIAL_META.format(rubric="binary"), json.dumps({"after": TRIAL}))
    chosen = present(the_judge(study_store, "binary"))
    assert chosen.rater == judge(KEPT)
    assert (judge(TRIAL), 10, "under trial") in chosen.others
    assert previous_judge(study_store, "binary", TRIAL) == judge(KEPT)  # the trial beside the judge
    study_store.set_meta(TRIAL_META.format(rubric="binary"), "")  # kept: now it is the judge
    study_store.record_calibration_change("binary", "kept", KEPT, TRIAL, "better still", [])
    assert present(the_judge(study_store, "binary")).rater == judge(TRIAL)
    assert previous_judge(study_store, "binary", TRIAL) == judge(KEPT)


def test_a_version_kept_again_is_as_new_as_that_keep(study_store: Store) -> None:
    study_store.record_calibration_change("binary", "kept", KEPT, FIRST, "back to the first", [])
    with study_store.transaction() as conn:
        conn.execute("UPDATE calibration_changes SET created_at = ? WHERE after_version = ? AND outcome = 'kept'",
                     [at(9), FIRST])
    assert kept_versions(study_store, "binary") == [KEPT, FIRST]
    assert present(the_judge(study_store, "binary")).rater == judge(FIRST)
    assert previous_judge(study_store, "binary", FIRST) == judge(KEPT)


def test_judge_names_a_rater_or_a_version(study_store: Store, rubrics: dict[str, Rubric]) -> None:
    named = present(the_judge(study_store, "binary", TRIED))
    assert (named.rater, named.why) == (judge(TRIED), NAMED)  # a reverted trial, named on purpose
    assert present(the_judge(study_store, "binary", "cccc")).rater == judge(KEPT)  # of its two models, the one with most
    assert present(the_judge(study_store, "binary", judge(KEPT, "o"))).rater == judge(KEPT, "o")
    assert present(the_judge(study_store, "binary", "imported-judge")).rater == "imported-judge"
    study_store.record_prompt_version("binary", TRIAL, study_store.ensure_rubric_version(rubrics["binary"]))
    rate(study_store, rubrics["binary"], judge(TRIAL), "judge", {"I00": {"label": 1.0}}, prompt_version=TRIAL)
    with pytest.raises(UserError, match=r"'cccc' is the start of several judge versions \(cccc3333cccc, cccc4444"):
        the_judge(study_store, "binary", "cccc")
    with pytest.raises(UserError, match=r"'ccc' is not a judge of rubric 'binary'.*its judges: .*judge:m:binary@aaaa1111aaaa"):
        the_judge(study_store, "binary", "ccc")  # a prefix is four characters or more


def test_without_a_recorded_version_the_judge_rated_most_items(tmp_path: Path, rubrics: dict[str, Rubric]) -> None:
    with Store(tmp_path / "imported.db") as store:
        ids = [f"I{k:02d}" for k in range(4)]
        store.add_items([Item(id=i, rubric="binary", fields={"query": i, "criterion": "c", "response": i})
                         for i in ids])
        rate(store, rubrics["binary"], "judge:a:binary@1", "judge", {i: {"label": 1.0} for i in ids})
        rate(store, rubrics["binary"], "judge:a:binary@2", "judge", {i: {"label": 1.0} for i in ids[:1]})
        chosen = present(the_judge(store, "binary"))
        assert (chosen.rater, chosen.why, chosen.others) == ("judge:a:binary@1", MOST_ITEMS,
                                                             (("judge:a:binary@2", 1, ""),))
        assert the_judge(store, "other") is None
