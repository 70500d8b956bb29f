"""The jury: each judge against the experts (scikit-learn's accuracy and kappa on the same labels), the jury's
majority and median (written again here), how often two judges err together (written again here, with its
interval checked by simulation with known truth), and the jury against its best member."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, cohen_kappa_score

from judge_tui.analysis.jury import (
    build_jury,
    default_members,
    error_correlation,
    majority,
    median_score,
    rule_for,
)
from judge_tui.analysis.report_render.blocks import lines_of
from judge_tui.analysis.report_render.jury import jury_blocks
from judge_tui.cli.raters import parse_members
from judge_tui.model.errors import UserError
from judge_tui.model.records import Item
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.store import Store
from tests.narrowing import defined
from tests.team_fixtures import rate

JUDGES = ("judge:alpha:binary@p1", "judge:beta:binary@p1", "judge:gamma:binary@p1")


def _items(store: Store, rubric_id: str, n: int) -> list[str]:
    ids = [f"I{k:03d}" for k in range(n)]
    store.add_items([Item(id=i, rubric=rubric_id, fields={"query": i, "criterion": "c", "response": i}) for i in ids])
    return ids


def binary_study(store: Store, rubric: Rubric, n: int = 120, seed: int = 7) -> dict[str, np.ndarray]:
    """Two experts who agree, three judges who are each right about 75% of the time, independently."""
    rng = np.random.default_rng(seed)
    ids = _items(store, "binary", n)
    truth = rng.integers(0, 2, n).astype(float)
    labels = {"truth": truth}
    for expert in ("ann", "bob"):
        rate(store, rubric, expert, "human", {i: {"label": float(t)} for i, t in zip(ids, truth, strict=True)})
    for judge in JUDGES:
        said = np.where(rng.random(n) < 0.75, truth, 1.0 - truth)
        labels[judge] = said
        rate(store, rubric, judge, "judge", {i: {"label": float(s)} for i, s in zip(ids, said, strict=True)})
    return labels


def test_each_judge_and_the_majority_jury_equal_scikit_learn(tmp_path: Path, rubrics: dict[str, Rubric]) -> None:
    rubric = rubrics["binary"]
    with Store(tmp_path / "jury.db") as store:
        labels = binary_study(store, rubric)
        assert default_members(store, "binary") == JUDGES
        jury = build_jury(store, rubric, costs=False)
    assert jury is not None
    assert jury.members == JUDGES
    assert jury.items == 120
    assert jury.rule == "majority"
    truth = labels["truth"]
    for figures in jury.judges:
        said = labels[figures.rater]
        row = figures.dimensions[0].agreement
        assert row.alignment_rate == pytest.approx(accuracy_score(truth, said))
        assert row.cohen_kappa == pytest.approx(cohen_kappa_score(truth, said))
        assert figures.alignment == pytest.approx(accuracy_score(truth, said))
    majority_by_hand = np.array([Counter(column).most_common(1)[0][0]
                                 for column in zip(*(labels[j] for j in JUDGES), strict=True)])
    row = jury.jury.dimensions[0].agreement
    assert row.n == 120
    assert jury.ties == {"label": 0}  # three judges on PASS/FAIL never tie
    assert row.alignment_rate == pytest.approx(accuracy_score(truth, majority_by_hand))
    assert row.cohen_kappa == pytest.approx(cohen_kappa_score(truth, majority_by_hand))
    for e in jury.errors:  # both wrong, independence and the excess, written again
        a, b = labels[e.first] != truth, labels[e.second] != truth
        assert e.both == pytest.approx(np.mean(a & b))
        assert e.independent == pytest.approx(np.mean(a) * np.mean(b))
        assert e.excess == pytest.approx(np.mean(a & b) - np.mean(a) * np.mean(b))
        assert defined(e.excess_interval).low < defined(e.excess) < defined(e.excess_interval).high
    versus = jury.versus_best
    assert versus is not None
    best = max(jury.judges, key=lambda j: defined(j.alignment))
    assert versus.best == best.rater
    assert versus.alignment_change.value == pytest.approx(accuracy_score(truth, majority_by_hand)
                                                          - accuracy_score(truth, labels[best.rater]))


def test_a_tied_majority_gives_no_verdict_and_is_counted(tmp_path: Path, rubrics: dict[str, Rubric]) -> None:
    rubric = rubrics["binary"]
    with Store(tmp_path / "tie.db") as store:
        ids = _items(store, "binary", 4)
        rate(store, rubric, "ann", "human", {i: {"label": 1.0} for i in ids})
        rate(store, rubric, JUDGES[0], "judge", {i: {"label": 1.0} for i in ids})
        rate(store, rubric, JUDGES[1], "judge", {i: {"label": float(k % 2)} for k, i in enumerate(ids)})
        jury = build_jury(store, rubric, JUDGES[:2], costs=False)
    assert jury is not None
    assert jury.ties == {"label": 2}
    assert jury.jury.dimensions[0].agreement.n == 2  # the two items where both said PASS
    assert jury.versus_best is not None
    assert jury.versus_best.items == 2
    text = "\n".join(lines_of(jury_blocks(jury), "text"))
    assert "ties (a tied majority gives no verdict, left out): label: 2" in text


def test_the_median_of_a_graded_scale_and_split_medians(tmp_path: Path, rubrics: dict[str, Rubric]) -> None:
    rubric = rubrics["cis"]
    rng = np.random.default_rng(3)
    points = np.array(rubric.scale.points)
    dims = [d.id for d in rubric.judged_dimensions]
    with Store(tmp_path / "graded.db") as store:
        store.ensure_rubric_version(rubric)
        from tests.judge.conftest import add_cis_items

        ids = add_cis_items(store, rubric, 20)
        given = {}
        for rater, kind in (("ann", "human"), *((j.replace("binary", "cis"), "judge") for j in JUDGES[:2]),
                            ("judge:delta:cis@p1", "judge")):
            table = rng.choice(points, size=(len(ids), len(dims)))
            given[rater] = table
            rate(store, rubric, rater, kind, {i: dict(zip(dims, map(float, row), strict=True))
                                              for i, row in zip(ids, table, strict=True)})
        judges = tuple(r for r in given if r != "ann")
        jury = build_jury(store, rubric, judges, costs=False)
        pair_jury = build_jury(store, rubric, judges[:2], costs=False)
    assert jury is not None
    assert jury.rule == "median"
    assert rule_for(rubric.scale) is median_score
    stacked = np.stack([given[j] for j in judges])
    for k in range(len(dims)):
        figures = jury.jury.dimensions[k]
        assert np.allclose(figures.pair.b, np.median(stacked[:, :, k], axis=0))
        assert np.allclose(figures.pair.a, given["ann"][:, k])
    two = np.stack([given[j] for j in judges[:2]])
    assert pair_jury is not None
    assert pair_jury.ties == {d: int(np.count_nonzero(two[0, :, k] != two[1, :, k])) for k, d in enumerate(dims)}


def test_the_rules_one_per_kind_of_scale(rubrics: dict[str, Rubric]) -> None:
    scale = rubrics["binary"].scale
    assert rule_for(scale) is majority
    found = majority(np.array([[1.0, 0.0, 1.0], [1.0, 1.0, np.nan], [0.0, 1.0, 0.0]]), scale)
    assert np.array_equal(found.values, [1.0, 1.0, np.nan], equal_nan=True)
    assert found.ties.tolist() == [False, False, True]
    spread = median_score(np.array([[0.0, 0.25], [1.0, 0.25], [0.5, 0.75], [0.75, 1.0]]), rubrics["cis"].scale)
    assert spread.values.tolist() == [0.625, 0.5]
    assert spread.ties.tolist() == [True, True]


def test_jury_members_are_checked(tmp_path: Path, rubrics: dict[str, Rubric]) -> None:
    with Store(tmp_path / "members.db") as store:
        binary_study(store, rubrics["binary"], n=10)
        rate(store, rubrics["binary"], "judge:alpha:binary@p2", "judge", {"I000": {"label": 1.0}})
        assert default_members(store, "binary") == JUDGES  # p2 covers one item: p1 stands for alpha
        assert parse_members(f"{JUDGES[0]}+{JUDGES[2]}", store, "binary") == (JUDGES[0], JUDGES[2])
        with pytest.raises(UserError, match="two judges or more"):
            parse_members(JUDGES[0], store, "binary")
        with pytest.raises(UserError, match="'ann' is not a judge rater of rubric 'binary'"):
            parse_members(f"ann+{JUDGES[0]}", store, "binary")
        assert build_jury(store, rubrics["binary"], JUDGES[:1], costs=False) is None


def test_the_linearised_interval_past_the_bootstrap_is_the_delta_method() -> None:
    rng = np.random.default_rng(11)
    n = 6000
    a = rng.random(n) < 0.3
    b = np.where(rng.random(n) < 0.5, a, rng.random(n) < 0.3)
    found = error_correlation("A", "B", (a, b), np.arange(n), AgreementSettings(), max_bootstrap_items=5000)
    # The delta method for p_ab - p_a p_b over independent items, written out here.
    pa, pb, pab = a.mean(), b.mean(), (a & b).mean()
    g = (a & b) - pab - pb * (a - pa) - pa * (b - pb)
    se = np.sqrt(np.sum(g ** 2)) / n
    assert found.excess == pytest.approx(pab - pa * pb)
    assert defined(found.excess_interval).low == pytest.approx(pab - pa * pb - 1.959964 * se, abs=1e-5)
    assert defined(found.excess_interval).high == pytest.approx(pab - pa * pb + 1.959964 * se, abs=1e-5)


@pytest.mark.slow
def test_the_excess_interval_covers_the_truth_and_independent_judges_are_rarely_called_dependent() -> None:
    """Known truth: judges err with probability p_a and p_b, together with a set excess (0: independent)."""
    rng = np.random.default_rng(2026)
    runs, n = 300, 150
    for excess in (0.0, 0.06):
        pa, pb = 0.25, 0.3
        p11 = pa * pb + excess
        cells = np.array([p11, pa - p11, pb - p11, 1 - pa - pb + p11])  # both, only a, only b, neither
        covered = dependent = 0
        for run in range(runs):
            kind = rng.choice(4, size=n, p=cells)
            a, b = (kind == 0) | (kind == 1), (kind == 0) | (kind == 2)
            found = error_correlation("A", "B", (a, b), np.arange(n), AgreementSettings(), n_boot=1000, seed=run)
            interval = defined(found.excess_interval)
            covered += interval.low <= excess <= interval.high
            dependent += interval.low > 0
        assert covered / runs >= 0.92, (excess, covered / runs)
        if excess == 0.0:
            assert dependent / runs <= 0.04  # said "err together more than chance" of independent judges


def test_the_jury_against_its_best_member_is_report_compares_paired_bootstrap(
        tmp_path: Path, rubrics: dict[str, Rubric]) -> None:
    from judge_tui.analysis.pair_intervals import paired_changes

    rubric = rubrics["binary"]
    with Store(tmp_path / "paired.db") as store:
        binary_study(store, rubric, n=200, seed=5)
        jury = build_jury(store, rubric, costs=False)
    assert jury is not None
    assert jury.versus_best is not None
    best = next(j for j in jury.judges if j.rater == jury.versus_best.best)
    pairs = (best.dimensions[0].pair, jury.jury.dimensions[0].pair)
    expected = paired_changes(pairs, (pairs[0].compare(rubric, 0.15), pairs[1].compare(rubric, 0.15)), rubric, 0.15,
                              0.95)
    _dimension, n, found, _figures = jury.versus_best.dimensions[0]
    assert n == 200
    for name in ("alignment", "kappa"):
        assert found[name].value == pytest.approx(expected[name].value)
        assert found[name].interval == expected[name].interval  # the same resamples, the same bounds
        assert found[name].verdict == expected[name].verdict


def test_one_draw_for_every_interval_gives_each_its_own_intervals(tmp_path: Path, rubrics: dict[str, Rubric]) -> None:
    """The members' intervals and the pairs' come from one bootstrap draw: the same as each drawn alone."""
    from judge_tui.analysis.pair_intervals import pooled_interval

    rubric = rubrics["cis"]
    rng = np.random.default_rng(9)
    points = np.array(rubric.scale.points)
    dims = [d.id for d in rubric.judged_dimensions]
    with Store(tmp_path / "draw.db") as store:
        from tests.judge.conftest import add_cis_items

        ids = add_cis_items(store, rubric, 25)
        truth = rng.choice(points, size=(len(ids), len(dims)))
        judges = ("judge:a:cis@1", "judge:b:cis@1", "judge:c:cis@1")
        rate(store, rubric, "ann", "human", {i: dict(zip(dims, map(float, r), strict=True))
                                            for i, r in zip(ids, truth, strict=True)})
        for judge in judges:
            noisy = np.where(rng.random(truth.shape) < 0.7, truth, rng.choice(points, size=truth.shape))
            rate(store, rubric, judge, "judge", {i: dict(zip(dims, map(float, r), strict=True))
                                                for i, r in zip(ids, noisy, strict=True)})
        jury = build_jury(store, rubric, judges, costs=False)
    assert jury is not None
    for figures in jury.judges:
        alone = defined(pooled_interval([d.pair for d in figures.dimensions], 0.15, 0.95))
        assert figures.alignment_interval == alone
        assert "bootstrap" in alone.method
    wrong = {f.rater: np.concatenate([~d.pair.aligned(0.15) for d in f.dimensions]) for f in jury.judges}
    items = np.concatenate([d.pair.keys for d in jury.judges[0].dimensions])
    for e in jury.errors:
        pair_alone = defined(error_correlation(e.first, e.second, (wrong[e.first], wrong[e.second]), items,
                                                      AgreementSettings()))
        assert (e.both_interval, e.independent_interval, e.excess_interval) == (
            pair_alone.both_interval, pair_alone.independent_interval, pair_alone.excess_interval)


def test_a_viewer_who_rated_sees_the_jury_over_their_items_only(tmp_path: Path, rubrics: dict[str, Rubric]) -> None:
    with Store(tmp_path / "blind.db") as store:
        binary_study(store, rubrics["binary"], n=30)
        seen = {f"I{k:03d}" for k in range(0, 30, 3)}
        jury = build_jury(store, rubrics["binary"], only_items=seen, costs=False)
    assert jury is not None
    assert jury.items == len(seen)
    assert all(d.pair.n == len(seen) for figures in (*jury.judges, jury.jury) for d in figures.dimensions)
