"""The one score loader: a rubric's ratings read once, the first-run rule, repeats, pairing and pooled alignment."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from judge_tui.analysis.full_report import SelfAgreement, build_full_report
from judge_tui.analysis.report import Report
from judge_tui.analysis.scores import AlignedPair, load, pair, pooled_alignment
from judge_tui.analysis.team import TeamAgreement
from judge_tui.model.records import Rating
from judge_tui.model.rubrics import Rubric
from judge_tui.stats import agreement as ag
from judge_tui.store import Store
from tests.narrowing import present
from tests.team_fixtures import binary_item, rate


def _new_version(store: Store, rubric: Rubric) -> int:
    """A second rubric version (a changed guidance text), as an edited rubric file would record."""
    changed = replace(rubric, description=rubric.description + " (revised)")
    return store.ensure_rubric_version(changed)


@pytest.fixture
def rated_db(tmp_path: Path, rubrics) -> Path:
    binary = rubrics["binary"]
    path = tmp_path / "s.db"
    with Store(path) as store:
        store.add_items([binary_item(n, "test" if n % 2 else "dev") for n in range(1, 6)])
        rate(store, binary, "ann", "human", {f"P0{n}": {"label": 1} for n in range(1, 5)})
        rate(store, binary, "bob", "human", {"P01": {"label": 0}, "P02": {"label": 1}, "P05": {"label": 1}})
        rate(store, binary, "ann", "human", {"P01": {"label": 0}, "P02": {"label": 1}}, repeat=1)
        rate(store, binary, "judge:x", "judge", {f"P0{n}": {"label": 1} for n in range(1, 6)})
        rate(store, binary, "judge:x", "judge", {"P01": {"label": 0}, "P03": {"label": 1}}, repeat=1)
    return path


def test_first_runs_are_repeat_zero_under_the_newest_version_the_rater_used(rated_db: Path, rubrics):
    binary = rubrics["binary"]
    with Store(rated_db) as store:
        first_version = store.ensure_rubric_version(binary)
        newer = _new_version(store, binary)
        store.ensure_rater("bob", "human")
        store.save_ratings([Rating(item_id="P01", rater_id="bob", rubric_version_id=newer, scores={"label": 1.0},
                                   overall=1.0)])
        ratings = load(store, binary)
        keys, ids = store.item_keys_in_order("binary")
    key = dict(zip(ids, keys.tolist(), strict=True))
    bob = ratings.first_runs("bob")
    assert bob.keys.tolist() == sorted(key[i] for i in ("P01", "P02", "P05"))
    assert bob.on(np.array([key["P01"]]), 0).tolist() == [1.0]  # the newer version's score
    older = ratings.first_runs("bob", versions=[first_version])
    assert older.on(np.array([key["P01"]]), 0).tolist() == [0.0]
    assert ratings.rater_ids == ("ann", "bob", "judge:x")
    assert ratings.raters_of_kind("judge") == ("judge:x",)


def test_repeats_stay_available_and_pair_item_by_item(rated_db: Path, rubrics):
    binary = rubrics["binary"]
    with Store(rated_db) as store:
        ratings = load(store, binary)
        keys, ids = store.item_keys_in_order("binary")
    runs = ratings.by_repeat("judge:x")
    assert sorted(runs) == [0, 1]
    assert runs[1].keys.size == 2
    judge = pair(runs[0], runs[1]).column(0)
    assert [ids[keys.tolist().index(k)] for k in judge.keys.tolist()] == ["P01", "P03"]
    assert judge.a.tolist() == [1.0, 1.0]
    assert judge.b.tolist() == [0.0, 1.0]
    expert = ratings.reratings("ann", 1).column(0)
    assert expert.n == 2
    assert expert.a.tolist() == [1.0, 1.0]
    assert expert.b.tolist() == [0.0, 1.0]
    assert pooled_alignment([judge, expert], 0.15, "none") == pytest.approx(0.5)
    assert pooled_alignment([], 0.15, "nothing to compare") == ag.Undefined("nothing to compare")


def test_an_aligned_pair_drops_items_either_side_left_unscored():
    paired = AlignedPair.of(np.array([1, 2, 3]), np.array([1.0, np.nan, 0.0]), np.array([1.0, 1.0, np.nan]))
    assert paired.keys.tolist() == [1]
    assert paired.n == 1
    assert paired.aligned(0.15).tolist() == [True]


def test_a_full_report_reads_the_scores_once(rated_db: Path, rubrics):
    """The judge comparison, the team and the experts' self-agreement all come from one read of the scores."""
    statements: list[str] = []
    with Store(rated_db) as store:
        store.conn.set_trace_callback(statements.append)
        full = build_full_report(store, rubrics["binary"], by=["split"])
    assert full.section(TeamAgreement) is not None
    assert full.section(SelfAgreement) is not None
    assert present(full.section(Report)).self_agreement  # the judge's repeats
    score_reads = [s for s in statements if "r.scores" in s]
    assert len(score_reads) == 1, score_reads
