"""The bands: what a figure means for trusting the judge, under the default bounds and the user's own."""

import pytest

from judge_tui.analysis import bands
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats.agreement import Undefined

DEFAULTS = AgreementSettings()


# --------------------------------------------------------------------------------------------------
# Interpretation bands
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rate", "label", "status"),
    [
        (1.0, "well calibrated", "ok"),
        (0.80, "well calibrated", "ok"),
        (28 / 35, "well calibrated", "ok"),  # 0.8 from a division
        (0.7999, "minor drift", "caution"),
        (0.70, "minor drift", "caution"),
        (7 / 10, "minor drift", "caution"),
        (0.6999, "significant drift", "act"),
        (0.60, "significant drift", "act"),
        (0.5999, "unreliable", "stop"),
        (0.0, "unreliable", "stop"),
    ],
)
def test_alignment_bands(rate, label, status):
    verdict = bands.interpret_alignment(rate, DEFAULTS)
    assert (verdict.label, verdict.status) == (label, status)
    assert verdict.meets_target is (label == "well calibrated")
    assert verdict.action


@pytest.mark.parametrize(
    ("kappa", "label", "meets"),
    [
        (0.95, "almost perfect", True),
        (0.8001, "almost perfect", True),
        (0.80, "substantial", True),
        (0.61, "substantial", True),
        (0.605, "moderate", False),  # in the 0.60-0.61 gap: the lower band
        (0.41, "moderate", False),
        (0.405, "fair or poor", False),  # in the 0.40-0.41 gap: the lower band
        (0.0, "fair or poor", False),
        (-0.3, "fair or poor", False),
    ],
)
def test_kappa_bands(kappa, label, meets):
    verdict = bands.interpret_kappa(kappa, DEFAULTS)
    assert (verdict.label, verdict.meets_target) == (label, meets)


def test_pearson_and_binary_targets():
    assert bands.meets_pearson_target(0.70, DEFAULTS).meets_target is True
    assert bands.meets_pearson_target(0.6999, DEFAULTS).meets_target is False
    assert bands.meets_binary_target(0.91, 0.95, DEFAULTS).meets_target is True
    assert bands.meets_binary_target(0.90, 0.95, DEFAULTS).meets_target is False  # 0.90 is not above 0.90
    weak = bands.meets_binary_target(0.95, 0.85, DEFAULTS)
    assert weak.label.startswith("TNR")
    assert "FAIL" in weak.action
    assert bands.meets_binary_target(Undefined("no PASS"), 0.95, DEFAULTS).status == "unknown"


def test_user_thresholds_replace_the_defaults():
    strict = AgreementSettings(
        alignment_well_calibrated=0.9, kappa_substantial=0.7, pearson_target=0.8, tpr_tnr_target=0.95
    )
    assert bands.interpret_alignment(0.85, strict).label == "minor drift"
    assert bands.interpret_kappa(0.65, strict).label == "moderate"
    assert bands.meets_pearson_target(0.75, strict).meets_target is False
    assert bands.meets_binary_target(0.93, 0.96, strict).meets_target is False


@pytest.mark.parametrize(
    "overrides",
    [
        {"alignment_minor_drift": 0.9},  # above well calibrated (0.80)
        {"alignment_well_calibrated": 1.2},
        {"kappa_substantial": 0.3},  # below moderate (0.41)
        {"tpr_tnr_target": 1.5},
    ],
)
def test_inconsistent_thresholds_are_refused(overrides):
    with pytest.raises(ValueError, match="must"):
        AgreementSettings(**overrides)


def test_undefined_figures_are_interpreted_as_not_enough_data():
    why = Undefined("no items were rated by both")
    for verdict in (bands.interpret_alignment(why, DEFAULTS), bands.interpret_kappa(why, DEFAULTS),
                    bands.meets_pearson_target(why, DEFAULTS)):
        assert verdict.status == "unknown"
        assert verdict.meets_target is None
        assert "no items were rated by both" in verdict.action
