"""The validity page read while ratings come in (the judge screen, the lead's summary) decides its targets by the
rules valid at any time (analysis/stopping.py), labelled so; once every item is compared, and in `judge-tui
report`, by the report's fixed-n rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge_tui.analysis.report import build_report
from judge_tui.analysis.report.anytime import ANYTIME, FIXED_N
from judge_tui.analysis.report_render.validity import LIVE_NOTE, render_markdown, render_text, to_dict
from judge_tui.analysis.scores import load
from judge_tui.analysis.stopping import anytime_checks, items_left
from judge_tui.analysis.validity import judge_validity, ratings_coming_in
from judge_tui.model.settings import AgreementSettings
from judge_tui.store import Store
from tests.team_fixtures import binary_item, rate

RATED, POOL = 60, 100


def _labels() -> tuple[list[float], list[float]]:
    """42 PASS and 18 FAIL from the expert; the judge differs on 2 of each (56 of 60 alike)."""
    expert = [1.0] * 42 + [0.0] * 18
    judge = list(expert)
    for n in (0, 1, 42, 43):
        judge[n] = 1.0 - judge[n]
    return expert, judge


@pytest.fixture
def study_db(tmp_path: Path, rubrics) -> Path:
    """The expert has rated 60 of 100 items; the judge all of them."""
    rubric = rubrics["binary"]
    expert, judge = _labels()
    path = tmp_path / "study.db"
    with Store(path) as store:
        store.ensure_rubric_version(rubric)
        store.add_items([binary_item(n) for n in range(1, POOL + 1)])
        rate(store, rubric, "ann", "human", {f"P{n + 1:02d}": {"label": v} for n, v in enumerate(expert)})
        rate(store, rubric, "judge-v1", "judge",
             {f"P{n + 1:02d}": {"label": judge[n] if n < RATED else 1.0} for n in range(POOL)})
    return path


def _page(path: Path, rubric, *, live: bool):
    with Store(path) as store:
        ratings = load(store, rubric)
        report = build_report(store, rubric, ratings=ratings)
        return judge_validity(store, report, ratings, AgreementSettings(), live=live), report


def test_read_while_rating_the_targets_are_decided_at_any_time(study_db: Path, rubrics) -> None:
    """Fixed-n, 56 of 60 alike is "met" on alignment and κ; the rule valid at any time is not sure yet, and the
    live page says what that rule says, never "every target met"."""
    rubric = rubrics["binary"]
    report_page, report = _page(study_db, rubric, live=False)
    assert [c.decision for c in report.checks[:2]] == ["met", "met"]
    assert "may decide individual items' PASS/FAIL: every target met" in report_page.judges[0].uses
    with Store(study_db) as store:
        assert ratings_coming_in(store, report)  # 40 items left to compare
        expected = anytime_checks(report, items_left(store, rubric, report))
    live, _ = _page(study_db, rubric, live=True)
    [block] = live.judges
    assert block.decided == ANYTIME
    assert report_page.judges[0].decided == FIXED_N
    assert [c.decision for c in block.targets] == [a.decision for a in expected]
    assert [c.decision for c in block.targets[:2]] == ["undecided", "undecided"]
    assert [(c.interval.low, c.interval.high) for c in block.targets[:2]] == [a.interval for a in expected[:2]]
    assert not any("every target met" in u for u in block.uses)
    assert "may not yet decide individual items' PASS/FAIL: alignment, κ of label undecided" in block.uses


def test_the_live_page_says_how_it_decides_in_text_markdown_and_json(study_db: Path, rubrics) -> None:
    live, _ = _page(study_db, rubrics["binary"], live=True)
    fixed, _ = _page(study_db, rubrics["binary"], live=False)
    assert " ".join(LIVE_NOTE.split()) in " ".join(render_text(live).split())
    assert LIVE_NOTE in render_markdown(live)
    assert to_dict(live)["judges"][0]["decision_valid"] == ANYTIME
    assert "93.3% [78, 100]" in render_text(live)  # the interval of the rule that decides
    assert LIVE_NOTE not in render_markdown(fixed)
    assert "valid at any time" not in render_text(fixed)
    assert to_dict(fixed)["judges"][0]["decision_valid"] == FIXED_N
    json.dumps(to_dict(live))


def test_once_every_item_is_compared_the_page_reads_the_fixed_n_decisions(tmp_path: Path, rubrics) -> None:
    """The judge screen asks whether ratings still come in: with the whole pool compared, they do not."""
    rubric = rubrics["binary"]
    expert, judge = _labels()
    path = tmp_path / "whole.db"
    with Store(path) as store:
        store.ensure_rubric_version(rubric)
        store.add_items([binary_item(n) for n in range(1, RATED + 1)])
        rate(store, rubric, "ann", "human", {f"P{n + 1:02d}": {"label": v} for n, v in enumerate(expert)})
        rate(store, rubric, "judge-v1", "judge", {f"P{n + 1:02d}": {"label": v} for n, v in enumerate(judge)})
        report = build_report(store, rubric)
        assert not ratings_coming_in(store, report)
