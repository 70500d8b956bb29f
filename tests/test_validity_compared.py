"""The validity page compared with what the experts themselves reach: counts and n as the figures were computed
on, the experts' own agreement beside the judge's, and an expert who disagrees with every other one flagged."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from judge_tui.analysis.report import build_report
from judge_tui.analysis.scores import load
from judge_tui.analysis.validity import judge_validity
from judge_tui.analysis.validity_format import render_markdown, render_text
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
    assert "3 × 40–70" in render_text(page) and "| 3 × 40–70 |" in render_markdown(page)
