"""A kappa whose table is too thin for an interval that covers ("too few items") is undecided, in the report
and in the decisions valid at any time: more items can settle it, so it is never passed over as a figure that
cannot be computed."""

from __future__ import annotations

from judge_tui.analysis.stopping import anytime_check
from judge_tui.analysis.targets import check, too_few
from judge_tui.stats.intervals import Interval, kappa_interval
from tests.test_report_intervals import binary_db, report_json

# 16 items both PASS, 3 the human FAILs and the judge passes, 1 both FAIL: the judge puts one item outside PASS.
THIN = [(1.0, 1.0)] * 16 + [(0.0, 1.0)] * 3 + [(0.0, 0.0)]


def test_too_few_items_for_a_kappa_interval_is_undecided_in_the_report(tmp_path, rubrics, hermetic_home, capsys):
    data = report_json(binary_db(tmp_path / "t.db", rubrics["binary"], THIN), capsys=capsys)
    row = data["dimensions"][0]
    assert row["cohen_kappa"] is not None and "too few items" in row["undefined"]["cohen_kappa_interval"]
    kappa = next(f for f in data["verdict"] if f["topic"] == "kappa")
    assert kappa["decision"] == "undecided" and kappa["meets_target"] is None
    plans = [p for p in data["plan"] if p["target"].startswith("kappa")]
    assert plans and "too few items" in plans[0]["text"] and "rarer category" in plans[0]["text"]


def test_too_few_items_is_undecided_at_any_time_and_holds_up_the_stop():
    table = [[1, 3], [0, 16]]  # human FAIL/PASS rows, judge FAIL/PASS columns
    interval = kappa_interval(table)
    assert not isinstance(interval, Interval) and too_few(interval)
    c = check("kappa:label", "κ of label", "all compared items", 0.348, interval, 20, 0.61)
    assert c.decision == "undecided" and c.point_decision == "not met" and c.plan is None
    assert anytime_check(c, 0.95, left=5).decision == "undecided"
    held = anytime_check(c, 0.95, left=0)
    assert held.decision == "undecided" and "only new items" in held.held_up
    assert "second rater" not in held.held_up  # a rater may read it: no word about other raters' labels
    nothing = check("kappa:label", "κ", "all", 0.3, kappa_interval([[0, 0], [0, 20]]), 20, 0.61)
    assert nothing.decision is None or too_few(nothing.interval)
