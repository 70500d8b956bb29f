"""The judge's biases: leniency and length bias against scipy, and measured through the store."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.proportion import proportion_confint

from judge_tui.analysis.biases import judge_biases, response_length_field
from judge_tui.analysis.report_render.biases import biases_dict, biases_lines
from judge_tui.model.records import Item
from judge_tui.stats.agreement import Undefined
from judge_tui.stats.bias import length_correlation, mean_difference_estimate
from judge_tui.stats.intervals import mean_interval
from tests.narrowing import defined
from tests.team_fixtures import rate

JUDGE = "judge:m:exercise-quality@p1"


def _lengths_and_residuals(planted: bool, n: int = 60) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    lengths = rng.integers(50, 5000, size=n).astype(float)
    noise = rng.normal(0, 0.1, size=n)
    residuals = noise + (0.4 * (lengths - lengths.mean()) / lengths.std() if planted else 0.0)
    return lengths, residuals


@pytest.mark.parametrize("planted", [True, False])
def test_length_bias_equals_scipy_spearman(planted):
    lengths, residuals = _lengths_and_residuals(planted)
    estimate = length_correlation(lengths, residuals)
    expected = sps.spearmanr(lengths, residuals).statistic
    assert estimate.value == pytest.approx(expected, abs=1e-12)
    assert estimate.n == lengths.size
    assert estimate.excludes_zero is planted  # flagged with a planted bias, not without one


def test_length_bias_leaves_out_unscored_items():
    lengths, residuals = _lengths_and_residuals(True, n=30)
    residuals[[3, 9]] = np.nan
    estimate = length_correlation(lengths, residuals)
    keep = ~np.isnan(residuals)
    assert estimate.n == 28
    assert estimate.value == pytest.approx(sps.spearmanr(lengths[keep], residuals[keep]).statistic)


def test_leniency_is_the_mean_difference_with_an_interval_around_it():
    rng = np.random.default_rng(3)
    human = rng.choice([0.0, 0.5, 1.0], size=80)
    lenient = mean_difference_estimate(np.clip(human + 0.25, 0, 1), human)
    assert lenient.value == pytest.approx(float(np.mean(np.clip(human + 0.25, 0, 1) - human)))
    assert defined(lenient.interval).low <= defined(lenient.value) <= defined(lenient.interval).high
    assert lenient.excludes_zero
    # Agreeing on all 80 items: items where they differ (by up to 1) may still be 4.5% of items like these
    # (Clopper-Pearson's one-sided bound for 0 of 80), never a certain [0, 0].
    share = proportion_confint(0, 80, alpha=0.05, method="beta")[1]
    fair = mean_difference_estimate(human, human)
    assert fair.value == 0.0
    assert not fair.excludes_zero
    assert (defined(fair.interval).low, defined(fair.interval).high) == pytest.approx((-share, share), abs=1e-12)
    always_higher = mean_difference_estimate(human + 0.25, human)  # one shift on every item: lenient
    assert always_higher.value == pytest.approx(0.25)
    assert always_higher.excludes_zero
    assert (defined(always_higher.interval).low, defined(always_higher.interval).high) == pytest.approx(
        (0.25 - share * 1.25, 0.25 + share * 0.75), abs=1e-12)


@pytest.mark.parametrize("n", [2, 5, 12, 25, 80])
def test_values_all_alike_are_wrongly_certain_no_more_often_than_alpha(n):
    """A population of one value v and a share q of another, w (anywhere within the bounds): a sample whose n
    values are all alike (all v, chance (1 - q)^n, or all w, chance q^n) gets the interval around the value it
    shows. Over a fine grid of v, w and q, that interval misses the population's mean with a chance of at most
    alpha / 2."""
    q = np.linspace(0.0, 1.0, 4001)
    worst = 0.0
    for v in np.linspace(-1.0, 1.0, 9):
        for w in np.linspace(-1.0, 1.0, 9):
            mean = (1 - q) * v + q * w
            miss = np.zeros_like(q)
            for seen, chance in ((v, (1 - q) ** n), (w, q ** n)):
                interval = defined(mean_interval(np.full(n, seen), 0.95, bounds=(-1.0, 1.0)))
                miss += np.where((mean < interval.low - 1e-12) | (mean > interval.high + 1e-12), chance, 0.0)
            worst = max(worst, float(miss.max()))
    assert 0.02 < worst <= 0.025 + 1e-12  # the bound is reached, never passed


def test_values_all_alike_without_bounds_have_no_interval():
    assert isinstance(mean_interval(np.zeros(30)), Undefined)


def test_no_items_is_undefined_not_a_crash():
    empty = mean_difference_estimate(np.array([np.nan]), np.array([1.0]))
    assert empty.n == 0
    assert str(empty.value) == "n/a"
    assert length_correlation(np.array([1.0, 2.0]), np.array([0.0, 0.0])).excludes_zero is False


def _exercise(n: int, level: str, exercise_len: int) -> Item:
    fields = {"source_document": "<doc>d</doc>", "instruction": f"item {n}", "cefr_level": level, "focus": "verbs",
              "exercise": '<exercise><blank answer="w" student-answer=""/></exercise>' + " " * exercise_len}
    return Item(id=f"E{n:02d}", rubric="exercise-quality", fields=fields, split="dev")


def test_biases_from_the_store_find_a_planted_length_bias_and_a_weak_level(store, rubrics):
    rubric = rubrics["exercise-quality"]
    assert response_length_field(rubric) == "exercise"
    items = [_exercise(n, "C1" if n % 4 == 0 else "B1", exercise_len=n * 40) for n in range(40)]
    store.add_items(items)
    dims = [d.id for d in rubric.judged_dimensions]
    expert = {i.id: dict.fromkeys(dims, 0.5) for i in items}
    # The judge adds more the longer the exercise, and gets the C1 items wrong.
    judge = {}
    for n, i in enumerate(items):
        lift = 0.5 if n >= 20 else 0.0
        judge[i.id] = dict.fromkeys(dims, 0.0 if n % 4 == 0 else 0.5 + lift)
    rate(store, rubric, "alice", "human", expert)
    rate(store, rubric, JUDGE, "judge", judge, prompt_version="p1")
    biases = judge_biases(store, rubric, JUDGE, split="dev")
    assert biases.experts == ("alice",)
    assert biases.length_flagged
    assert defined(biases.length.value) > 0
    weak = [g for g in biases.groups if g.weak]
    assert [(g.by, g.value) for g in weak] == [("cefr_level", "C1")]
    overall = biases.leniency[-1]
    assert overall.key == "overall"
    lines = biases_lines(biases)
    assert any("FLAGGED: the judge rewards longer responses" in line for line in lines)
    assert any("Markedly worse: cefr_level C1" in line for line in lines)
    assert any("no repeats" in line for line in lines)
    section = json.loads(json.dumps(biases_dict(biases)))  # plain JSON
    assert section["length_bias"]["flagged"] is True
    assert section["length_bias"]["spearman_rho"] == pytest.approx(biases.length.value)


def _planted_study(store, rubrics) -> None:
    rubric = rubrics["exercise-quality"]
    items = [_exercise(n, "C1" if n % 4 == 0 else "B1", exercise_len=n * 40) for n in range(40)]
    store.add_items(items)
    dims = [d.id for d in rubric.judged_dimensions]
    rate(store, rubric, "alice", "human", {i.id: dict.fromkeys(dims, 0.5) for i in items})
    rate(store, rubric, JUDGE, "judge", {i.id: dict.fromkeys(dims, 0.0 if n % 4 == 0 else 0.5 + (0.5 if n >= 20 else 0))
                                         for n, i in enumerate(items)}, prompt_version="p1")


def test_the_report_shows_the_judges_biases_in_every_format_at_the_configured_confidence(
        store, rubrics, hermetic_home, capsys):
    from judge_tui.cli import main

    _planted_study(store, rubrics)
    (hermetic_home / "settings.json").write_text(json.dumps({"agreement": {"confidence": 0.9}}))
    out = {}
    for fmt in ("json", "markdown", "text"):
        capsys.readouterr()
        assert main(["report", "--db", str(store.path), "--rubric", "exercise-quality", "--format", fmt]) == 0
        out[fmt] = capsys.readouterr().out
    [section] = json.loads(out["json"])["judge_biases"]
    assert section["judge"] == JUDGE
    assert section["experts"] == ["alice"]
    assert section["confidence"] == 0.9
    assert section["length_bias"]["flagged"] is True
    assert section["length_bias"]["interval"]["confidence"] == 0.9
    overall = section["leniency"][-1]
    assert overall["key"] == "overall"
    assert overall["interval"]["confidence"] == 0.9
    assert [(g["by"], g["value"]) for g in section["groups"] if g["weak"]] == [("cefr_level", "C1")]
    for fmt in ("markdown", "text"):
        text = out[fmt]
        assert f"Judge biases: {JUDGE}" in text, fmt
        assert "90% intervals" in text, fmt
        assert "FLAGGED: the judge rewards longer responses" in text, fmt
        assert "Markedly worse: cefr_level C1" in text, fmt
    assert "| overall | 40 |" in out["markdown"]


def test_biases_come_from_the_ratings_the_report_read(store, rubrics):
    """Given the report's ratings, the biases read no score again and take the report's self-agreement."""
    from judge_tui.analysis.report import Group, build_report
    from judge_tui.analysis.scores import load

    _planted_study(store, rubrics)
    rubric = rubrics["exercise-quality"]
    ratings = load(store, rubric, None)
    report = build_report(store, rubric, human=Group("human", ("alice",)), judge=Group("judge", (JUDGE,)),
                          ratings=ratings)
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    given = judge_biases(store, rubric, JUDGE, ratings=ratings, report=report)
    store.conn.set_trace_callback(None)
    assert not [s for s in statements if "r.scores" in s]
    assert biases_dict(given) == biases_dict(judge_biases(store, rubric, JUDGE))
