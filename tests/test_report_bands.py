"""What the report says a target's band and status are: the bands an interval spans, and "met" only when decided.

Each case is a real database read by the real `report` command (text, Markdown and JSON).
"""

from __future__ import annotations

import json

import numpy as np

from judge_tui.analysis import bands
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats import agreement as ag
from tests.test_report_intervals import binary_db, report_json, report_text, skewed_split

# 17 of 20 agree: alignment 85% [64, 95], "well calibrated" by the point, undecided by the interval.
SEVENTEEN_OF_TWENTY = [(1.0, 1.0)] * 12 + [(0.0, 0.0)] * 5 + [(1.0, 0.0)] * 2 + [(0.0, 1.0)]


# 22 of 26 agree: alignment 84.6% [66, 94]; kappa from 26 items, enough for its interval.
TWENTY_TWO_OF_TWENTY_SIX = [(1.0, 1.0)] * 15 + [(0.0, 0.0)] * 7 + [(1.0, 0.0)] * 3 + [(0.0, 1.0)]


def test_band_columns_show_the_bands_the_interval_spans(tmp_path, rubrics, hermetic_home, capsys):
    db = binary_db(tmp_path / "b.db", rubrics["binary"], TWENTY_TWO_OF_TWENTY_SIX)
    row = report_json(db, capsys=capsys)["dimensions"][0]
    assert row["alignment_rate"] == 22 / 26
    assert row["alignment_band"]["label"] == "well calibrated"
    assert row["alignment_band"]["interval_bands"] == "significant drift–well calibrated"
    kappa = row["intervals"]["cohen_kappa"]
    low, high = (bands.interpret_kappa(kappa[end], AgreementSettings()).label for end in ("low", "high"))
    assert low != high
    assert row["kappa_band"]["interval_bands"] == f"{low}–{high}"
    for text in (report_text(db, capsys=capsys), report_text(db, "--format", "markdown", capsys=capsys)):
        line = next(line for line in text.splitlines() if line.lstrip("│| ").startswith("label"))
        assert "significant drift–well calibrated" in line
        assert f"{low}–{high}" in line
        assert "well calibrated" not in line.replace("significant drift–well calibrated", "")


def test_every_meets_target_field_follows_the_decision(tmp_path, rubrics, hermetic_home, capsys):
    db = binary_db(tmp_path / "m.db", rubrics["binary"], SEVENTEEN_OF_TWENTY)
    data = report_json(db, capsys=capsys)
    band = data["dimensions"][0]["alignment_band"]
    assert band["decision"] == "undecided"
    assert band["meets_target"] is None
    assert band["point_meets_target"] is True
    alignment = next(v for v in data["verdict"] if v["topic"] == "alignment")
    assert alignment["decision"] == "undecided"
    assert alignment["meets_target"] is None
    assert alignment["point_meets_target"] is True
    for finding in data["verdict"]:
        expected = {"met": True, "not met": False}.get(finding["decision"] or "")
        assert finding["meets_target"] is expected, finding["topic"]
    # Under the literal rule the point estimate decides, and the fields follow that decision.
    (hermetic_home / "settings.json").write_text(json.dumps({"agreement": {"decide_on": "point"}}))
    data = report_json(db, capsys=capsys)
    band = data["dimensions"][0]["alignment_band"]
    assert band["decision"] == "met"
    assert band["meets_target"] is True


def test_ac1_is_undefined_with_the_reason_when_every_human_said_pass(tmp_path, rubrics, hermetic_home, capsys):
    # Every human PASS; the judge says FAIL twice: AC1 was 0.947 "almost perfect" for a judge worse than
    # answering PASS always.
    db = binary_db(tmp_path / "a.db", rubrics["binary"], [(1.0, 1.0)] * 18 + [(1.0, 0.0)] * 2)
    row = report_json(db, capsys=capsys)["dimensions"][0]
    assert row["ac1"] is None
    assert row["intervals"]["ac1"] is None
    assert "same category" in row["undefined"]["ac1"]
    assert row["intervals"]["cohen_kappa"] is None
    assert "too few items" in row["undefined"]["cohen_kappa_interval"]
    assert row["kappa_band"]["interval_bands"] == "too few items"


def test_corrected_pass_rate_of_twenty_passes_is_not_a_point(tmp_path, rubrics, hermetic_home, capsys):
    db = binary_db(tmp_path / "c.db", rubrics["binary"], skewed_split(), judge_only=[(1.0, "test")] * 20)
    corrected = report_json(db, capsys=capsys)["dimensions"][0]["corrected_pass_rate"]
    assert corrected["value"] == 1.0
    assert corrected["ci_high"] == 1.0
    assert corrected["ci_low"] < 0.98  # was [1.00, 1.00]: certainty from 20 items
    direct = ag.corrected_pass_rate([1] * 20, [h for h, _ in skewed_split()], [j for _, j in skewed_split()])
    assert ag.is_defined(direct.low)
    assert direct.low == corrected["ci_low"]
    nothing = ag.corrected_pass_rate([0] * 20, [h for h, _ in skewed_split()], [j for _, j in skewed_split()])
    assert nothing.estimate == 0.0
    assert ag.is_defined(nothing.high)
    assert nothing.high > 0.0  # not [0, 0] either


def test_the_report_says_how_its_targets_combine(tmp_path, rubrics, hermetic_home, capsys):
    db = binary_db(tmp_path / "k.db", rubrics["binary"], skewed_split())
    data = report_json(db, capsys=capsys)
    combined = data["decisions_combine"]
    assert combined["targets"] == 4
    assert combined["rule"] == "each target on its own interval"  # alignment, κ, TPR, TNR
    assert combined["valid_for"] == "this n only"
    assert combined["confidence_each"] == 0.95
    assert np.isclose(combined["any_wrong_at_most"], 0.2)
    assert np.isclose(combined["confidence_for_study"], 0.9875)
    for text in (report_text(db, capsys=capsys), report_text(db, "--format", "markdown", capsys=capsys)):
        flat = " ".join(text.split())
        assert "Each of the 4 targets is decided on its own 95% interval, valid for this number of items only" in flat
        assert "can reach 20% (Bonferroni)" in flat
        assert "agreement.confidence to 0.9875" in flat
