"""Unordered categories are names: nothing averages them. On the pairwise rubric (A, B, tie) the validity
page's pool estimate is a share per category, computed on each category's indicator (the experts' figure of an
item: the share of them who named it); and no page (the report in text, Markdown and JSON, the lead's summary,
the judge screen's figures) nor export shows a mean of the preference."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from judge_tui.analysis.report import build_report
from judge_tui.analysis.report_render import validity as validity_format
from judge_tui.analysis.scores import load
from judge_tui.analysis.validity import judge_validity
from judge_tui.cli import main
from judge_tui.model.records import Item
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats.prediction_powered import PoolEstimate, prediction_powered_mean
from judge_tui.store import Store
from judge_tui.tui.screens.calibrate_figures import standing
from tests.team_fixtures import rate

ITEMS, RATED = 60, 40
CATEGORIES = ("A", "B", "tie")
JUDGE = "judge:m:pairwise@aaaa1111"


def _said(rng: np.random.Generator, truth: np.ndarray, wrong: float) -> np.ndarray:
    return np.where(rng.random(truth.size) < wrong, rng.integers(0, 3, truth.size), truth)


@pytest.fixture
def pairs(tmp_path: Path, rubrics) -> tuple[Path, dict[str, np.ndarray]]:
    """Two experts label the first 40 of 60 pairs, the judge all 60; a category is its index in CATEGORIES."""
    rubric = rubrics["pairwise"]
    rng = np.random.default_rng(5)
    truth = rng.choice(3, ITEMS, p=[0.5, 0.3, 0.2])
    said = {"ann": _said(rng, truth, 0.2)[:RATED], "bob": _said(rng, truth, 0.2)[:RATED],
            JUDGE: _said(rng, truth, 0.3)}
    path = tmp_path / "pairs.db"
    with Store(path) as store:
        store.add_items([Item(id=f"q{n:02d}", rubric="pairwise", split="dev",
                              fields={"prompt": f"question {n}", "response_a": "one", "response_b": "two"})
                         for n in range(ITEMS)])
        for rater, labels in said.items():
            kind = "judge" if rater == JUDGE else "human"
            rate(store, rubric, rater, kind,
                 {f"q{n:02d}": {"preference": rubric.scale.points[int(c)]} for n, c in enumerate(labels)},
                 prompt_version="aaaa1111" if kind == "judge" else None)
    return path, said


def test_the_pool_estimate_is_a_share_per_category(pairs, rubrics) -> None:
    path, said = pairs
    rubric = rubrics["pairwise"]
    with Store(path) as store:
        ratings = load(store, rubric)
        report = build_report(store, rubric, ratings=ratings)
        page = judge_validity(store, report, ratings, AgreementSettings())
    [block] = page.judges
    assert [p.key for p in block.pool] == [f"preference={c}" for c in CATEGORIES]
    assert [p.name for p in block.pool] == [f"Preference: {c}" for c in CATEGORIES]
    judge = said[JUDGE]
    for index, figure in enumerate(block.pool):
        experts = ((said["ann"] == index).astype(float) + (said["bob"] == index)) / 2
        expected = prediction_powered_mean(experts, (judge[:RATED] == index).astype(float),
                                           (judge[RATED:] == index).astype(float), confidence=0.95)
        found = figure.estimate
        assert isinstance(found, PoolEstimate), found
        assert found.estimate == pytest.approx(expected.estimate, abs=1e-12)
        assert found.interval.low == pytest.approx(expected.interval.low, abs=1e-12)
        assert found.judge_only == pytest.approx(float(np.mean(judge == index)), abs=1e-12)
    assert "may estimate the pool's category shares, corrected by the experts' ratings" in block.uses
    text = validity_format.render_text(page)
    assert "Preference: tie" in text
    assert "mean" not in text


# A mean of the preference in words ("the pool's means", "mean overall score"). Not one: the mean of kappas over
# pairs of experts, and the notes that say why a mean is left out.
NOT_A_MEAN = ("mean pairwise κ", "a mean of judge − experts means nothing", "length means nothing", "n/a means:")


def _mean_lines(text: str) -> list[str]:
    found = []
    for line in text.splitlines():
        rest = line
        for phrase in NOT_A_MEAN:
            rest = rest.replace(phrase, "")
        if re.search(r"\bmeans?\b", rest, re.IGNORECASE):
            found.append(line)
    return found


# Means of something other than a score: of kappas over pairs of experts, of seconds per judgment.
NOT_OF_SCORES = ("mean_pairwise_kappa", "mean_seconds")


def _means_in_json(value: object, path: str = "") -> list[str]:
    """Every key with "mean" in its name whose value is a number (a computed mean), with where it is."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            if ("mean" in key and key not in NOT_OF_SCORES and isinstance(item, (int, float))
                    and not isinstance(item, bool)):
                found.append(f"{path}.{key}")
            found += _means_in_json(item, f"{path}.{key}")
    elif isinstance(value, list):
        for n, item in enumerate(value):
            found += _means_in_json(item, f"{path}[{n}]")
    return found


def test_no_report_page_or_export_shows_a_mean_of_the_categories(pairs, rubrics, capsys, tmp_path: Path) -> None:
    path, _ = pairs
    assert main(["report", "--db", str(path), "--rubric", "pairwise", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert _means_in_json(data) == []
    for fmt in ("text", "markdown"):
        assert main(["report", "--db", str(path), "--rubric", "pairwise", "--format", fmt]) == 0
        out = capsys.readouterr().out
        assert _mean_lines(out) == [], fmt
    with Store(path) as store:
        judge_screen = standing(store, rubrics["pairwise"], prompt_version="aaaa1111", previous=None)
    assert judge_screen.validity is not None
    shown = "\n".join([*judge_screen.figures, validity_format.render_text(judge_screen.validity)])
    assert _mean_lines(shown) == []
    assert _means_in_json(validity_format.to_dict(judge_screen.validity)) == []
    for fmt in ("jsonl", "csv"):
        out = tmp_path / f"ratings.{fmt}"
        assert main(["export", "--db", str(path), "--rubric", "pairwise", "--out", str(out)]) == 0
        assert "mean" not in out.read_text(encoding="utf-8")


async def test_the_leads_and_an_experts_summary_show_no_mean_of_the_categories(pairs, rubrics) -> None:
    from tests.test_validity_screen import Host, _texts

    path, _ = pairs
    for viewer, lead in (("lead", True), ("ann", False)):
        with Store(path) as store:
            app = Host(store, rubrics["pairwise"], viewer, lead)
            async with app.run_test(size=(80, 24)) as pilot:
                await app.workers.wait_for_complete()
                await pilot.pause()
                texts = _texts(app)
        assert texts, viewer
        assert _mean_lines("\n".join(texts)) == [], viewer
