"""A kappa whose table is too thin for an interval that covers ("too few items") is undecided, in the report
and in the decisions valid at any time: more items can settle it, so it is never passed over as a figure that
cannot be computed."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from judge_tui.analysis.report.anytime import anytime_check
from judge_tui.analysis.targets import check, too_few
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats.intervals import Interval, kappa_interval
from tests.kappa_reference import jeffreys_kappa_quantiles
from tests.test_report_intervals import binary_db, report_json

SETTINGS = AgreementSettings()

# 16 items both PASS, 3 the human FAILs and the judge passes, 1 both FAIL: the judge puts one item outside PASS.
THIN = [(1.0, 1.0)] * 16 + [(0.0, 1.0)] * 3 + [(0.0, 0.0)]


def test_too_few_items_for_a_kappa_interval_is_undecided_in_the_report(tmp_path, rubrics, hermetic_home, capsys):
    data = report_json(binary_db(tmp_path / "t.db", rubrics["binary"], THIN), capsys=capsys)
    row = data["dimensions"][0]
    assert row["cohen_kappa"] is not None
    assert "too few items" in row["undefined"]["cohen_kappa_interval"]
    kappa = next(f for f in data["verdict"] if f["topic"] == "kappa")
    assert kappa["decision"] == "undecided"
    assert kappa["meets_target"] is None
    plans = [p for p in data["plan"] if p["target"].startswith("kappa")]
    assert plans
    assert "too few items" in plans[0]["text"]
    assert "rarer category" in plans[0]["text"]


def test_too_few_items_is_undecided_at_any_time_and_holds_up_the_stop():
    table = [[1, 3], [0, 16]]  # human FAIL/PASS rows, judge FAIL/PASS columns
    interval = kappa_interval(table)
    assert not isinstance(interval, Interval)
    assert too_few(interval)
    c = check("kappa:label", "κ of label", "all compared items", 0.348, interval, 20, 0.61, settings=SETTINGS)
    assert c.decision == "undecided"
    assert c.point_decision == "not met"
    assert c.plan is None
    assert anytime_check(c, SETTINGS, left=5).decision == "undecided"
    held = anytime_check(c, SETTINGS, left=0)
    assert held.decision == "undecided"
    assert "only new items" in held.held_up
    assert "second rater" not in held.held_up  # a rater may read it: no word about other raters' labels
    nothing = check("kappa:label", "κ", "all", 0.3, kappa_interval([[0, 0], [0, 20]]), 20, 0.61, settings=SETTINGS)
    assert nothing.decision is None or too_few(nothing.interval)


def _labels(both_pass: int, human_fail_judge_pass: int, human_pass_judge_fail: int, both_fail: int
            ) -> list[tuple[float, float]]:
    return ([(1.0, 1.0)] * both_pass + [(0.0, 1.0)] * human_fail_judge_pass + [(1.0, 0.0)] * human_pass_judge_fail
            + [(0.0, 0.0)] * both_fail)


def test_twelve_items_give_kappa_but_say_too_few_items_for_its_interval(tmp_path, rubrics, hermetic_home, capsys):
    """Seed 003's review size: at 12 items no kappa interval covers as often as it says in every kind of study,
    so the report gives scikit-learn's kappa, no interval, and an undecided target that says what is needed."""
    labels = _labels(6, 1, 2, 3)
    data = report_json(binary_db(tmp_path / "twelve.db", rubrics["binary"], labels), capsys=capsys)
    row = data["dimensions"][0]
    human, judge = zip(*labels, strict=True)
    assert row["cohen_kappa"] == pytest.approx(cohen_kappa_score(human, judge), abs=1e-12)
    assert row["intervals"]["cohen_kappa"] is None
    assert "12 rated by both, 25 needed" in row["undefined"]["cohen_kappa_interval"]
    kappa = next(f for f in data["verdict"] if f["topic"] == "kappa")
    assert kappa["decision"] == "undecided"
    assert kappa["meets_target"] is None


def test_from_25_items_pass_fail_kappa_gets_the_jeffreys_posterior_interval(tmp_path, rubrics, hermetic_home,
                                                                            capsys):
    labels = _labels(16, 2, 2, 6)
    data = report_json(binary_db(tmp_path / "26.db", rubrics["binary"], labels), capsys=capsys)
    row = data["dimensions"][0]
    human, judge = zip(*labels, strict=True)
    assert row["cohen_kappa"] == pytest.approx(cohen_kappa_score(human, judge), abs=1e-12)
    interval = row["intervals"]["cohen_kappa"]
    low, high = jeffreys_kappa_quantiles(np.array([[6, 2], [2, 16]]))  # rows human FAIL, PASS
    assert interval["method"] == "bayes-jeffreys"
    assert interval["low"] == pytest.approx(low, abs=0.02)
    assert interval["high"] == pytest.approx(high, abs=0.02)
