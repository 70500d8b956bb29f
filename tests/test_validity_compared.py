"""The validity page compared with what the experts themselves reach: counts and n as the figures were computed
on, the experts' own agreement beside the judge's, and an expert who disagrees with every other one flagged."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from judge_tui.analysis.report import build_report
from judge_tui.analysis.report_render.validity import render_markdown, render_text, to_dict
from judge_tui.analysis.scores import load
from judge_tui.analysis.validity import judge_validity
from judge_tui.model.settings import AgreementSettings
from judge_tui.store import Store
from tests.team_fixtures import binary_item, rate

JUDGE = "judge-v1"


def _study(path: Path, rubric, labels: dict[str, np.ndarray]) -> None:
    """PASS/FAIL labels by rater (NaN: not rated); the judge is the rater named JUDGE."""
    items = max(v.size for v in labels.values())
    with Store(path) as store:
        store.ensure_rubric_version(rubric)
        store.add_items([binary_item(n) for n in range(1, items + 1)])
        for rater, said in labels.items():
            rate(store, rubric, rater, "judge" if rater == JUDGE else "human",
                 {f"P{n + 1:02d}": {"label": float(v)} for n, v in enumerate(said) if not np.isnan(v)})


def _page(path: Path, rubric):
    with Store(path) as store:
        ratings = load(store, rubric)
        report = build_report(store, rubric, ratings=ratings)
        return judge_validity(store, report, ratings, AgreementSettings()), report


def _labels(rng: np.random.Generator, truth: np.ndarray, wrong: float) -> np.ndarray:
    return np.where(rng.random(truth.size) < wrong, 1 - truth, truth).astype(float)


def test_the_alignment_target_gives_the_items_it_was_computed_on(tmp_path: Path, rubrics) -> None:
    """Two experts as one side leave out the items where they split (no adjudication): the alignment is computed
    on the others, and its n says so, as κ's does."""
    rng = np.random.default_rng(8)
    truth = (rng.random(80) < 0.7).astype(float)
    labels = {"ann": _labels(rng, truth, 0.15), "bob": _labels(rng, truth, 0.15), JUDGE: _labels(rng, truth, 0.1)}
    split = int(np.count_nonzero(labels["ann"] != labels["bob"]))
    assert split > 5
    _study(tmp_path / "ties.db", rubrics["binary"], labels)
    page, report = _page(tmp_path / "ties.db", rubrics["binary"])
    alignment = next(c for c in report.checks if c.key == "alignment")
    kappa = next(c for c in report.checks if c.key.startswith("kappa:"))
    assert report.summary.cases == 80
    assert alignment.n == kappa.n == 80 - split
    assert f"{80 - split:>3}  " in render_text(page).split("alignment ≥ 80%")[1].splitlines()[0]


def test_the_alt_test_gives_each_experts_count_not_the_smallest(tmp_path: Path, rubrics) -> None:
    """ann rated 40 items, bob and cat all 70: the experts × items column says 3 × 40–70."""
    rng = np.random.default_rng(9)
    truth = (rng.random(70) < 0.6).astype(float)
    ann = _labels(rng, truth, 0.1)
    ann[40:] = np.nan
    labels = {"ann": ann, "bob": _labels(rng, truth, 0.1), "cat": _labels(rng, truth, 0.1),
              JUDGE: _labels(rng, truth, 0.1)}
    _study(tmp_path / "counts.db", rubrics["binary"], labels)
    page, _ = _page(tmp_path / "counts.db", rubrics["binary"])
    [block] = page.judges
    assert sorted(c.items for c in block.replacement[0].test.compared) == [40, 70, 70]
    assert "3 × 40–70" in render_text(page)
    assert "| 3 × 40–70 |" in render_markdown(page)


def _dissent_study(path: Path, rubric) -> dict[str, np.ndarray]:
    """ann and bob label 200 items 3% off the truth; cat at random; the judge 15% off."""
    rng = np.random.default_rng(12)
    truth = (rng.random(200) < 0.6).astype(float)
    labels = {"ann": _labels(rng, truth, 0.03), "bob": _labels(rng, truth, 0.03),
              "cat": (rng.random(200) < 0.5).astype(float), JUDGE: _labels(rng, truth, 0.15)}
    _study(path, rubric, labels)
    return labels


def test_each_target_shows_the_judge_against_each_expert_beside_expert_against_expert(tmp_path: Path,
                                                                                     rubrics) -> None:
    from sklearn.metrics import cohen_kappa_score

    labels = _dissent_study(tmp_path / "team.db", rubrics["binary"])
    page, report = _page(tmp_path / "team.db", rubrics["binary"])
    [block] = page.judges
    kappa = next(a for a in block.against if a.key.startswith("kappa:"))
    assert [(p.first, p.second) for p in kappa.judge] == [("ann", JUDGE), ("bob", JUDGE), ("cat", JUDGE)]
    assert [(p.first, p.second) for p in kappa.experts] == [("ann", "bob"), ("ann", "cat"), ("bob", "cat")]
    for p in (*kappa.judge, *kappa.experts):
        assert p.check.estimate == pytest.approx(cohen_kappa_score(labels[p.first], labels[p.second]), abs=1e-12)
        assert p.check.n == 200
    alignment = next(a for a in block.against if a.key == "alignment")
    for p in alignment.experts:
        assert p.check.estimate == pytest.approx(float(np.mean(labels[p.first] == labels[p.second])), abs=1e-12)
    assert kappa.met_by_experts  # ann and bob agree well
    text = " ".join(render_text(page).split())
    assert "Compared with the experts' own agreement" in text
    assert "judge vs expert" in text
    data = to_dict(page)["judges"][0]
    pairs = next(a for a in data["compared_with_experts"] if a["key"] == kappa.key)["expert_vs_expert"]
    assert {(p["first"], p["second"]) for p in pairs} == {("ann", "bob"), ("ann", "cat"), ("bob", "cat")}
    assert all(p["interval"]["low"] <= p["estimate"] <= p["interval"]["high"] for p in pairs)


def test_an_expert_who_disagrees_with_every_other_is_flagged_with_the_figures(tmp_path: Path, rubrics) -> None:
    from sklearn.metrics import cohen_kappa_score

    labels = _dissent_study(tmp_path / "team.db", rubrics["binary"])
    page, _ = _page(tmp_path / "team.db", rubrics["binary"])
    [block] = page.judges
    [dissent] = block.dissent
    assert dissent.expert == "cat"
    assert dissent.figure == "κ of label"
    assert dict(dissent.with_others) == pytest.approx(
        {e: cohen_kappa_score(labels["cat"], labels[e]) for e in ("ann", "bob")}, abs=1e-12)
    between = cohen_kappa_score(labels["ann"], labels["bob"])
    assert dissent.among_others == pytest.approx((between, between), abs=1e-12)
    text = " ".join(render_text(page).split())
    assert "⚠ cat disagrees with every other expert: κ of label" in text
    assert f"against {between:.2f} between the others" in text
    assert to_dict(page)["judges"][0]["dissent"][0]["expert"] == "cat"
    assert "cat disagrees with every other expert" in render_markdown(page)


def test_no_one_is_flagged_among_experts_who_agree_alike(tmp_path: Path, rubrics) -> None:
    """Three experts equally good: one pair is always the lowest, but not clearly below the others."""
    rng = np.random.default_rng(13)
    truth = (rng.random(120) < 0.6).astype(float)
    labels = {e: _labels(rng, truth, 0.1) for e in ("ann", "bob", "cat")} | {JUDGE: _labels(rng, truth, 0.1)}
    _study(tmp_path / "alike.db", rubrics["binary"], labels)
    page, _ = _page(tmp_path / "alike.db", rubrics["binary"])
    assert page.judges[0].dissent == ()


def test_the_page_says_when_no_two_experts_meet_what_the_judge_misses(tmp_path: Path, rubrics) -> None:
    """Experts 25% off the truth each agree about 62% of the time: none meets alignment ≥ 80%, nor does the judge;
    the page says so beside "may not"."""
    rng = np.random.default_rng(14)
    truth = (rng.random(120) < 0.6).astype(float)
    labels = {e: _labels(rng, truth, 0.25) for e in ("ann", "bob", "cat")} | {JUDGE: _labels(rng, truth, 0.25)}
    _study(tmp_path / "loose.db", rubrics["binary"], labels)
    page, _ = _page(tmp_path / "loose.db", rubrics["binary"])
    [block] = page.judges
    assert not any(a.met_by_experts for a in block.against)
    text = " ".join(render_text(page).split())
    assert "No two experts are shown to meet alignment ≥ 80% and κ of label ≥ 0.61 with each other either" in text
    assert to_dict(page)["judges"][0]["experts_short_of_targets"].startswith("No two experts are shown to meet")
