"""The agreement engine on cases small enough to work out by hand, and its Undefined cases (the bands: test_bands.py)."""

import math
from typing import TypeGuard

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats

from judge_tui.analysis.row_figures import ROW_FIGURES
from judge_tui.stats import agreement as ag
from judge_tui.stats.agreement import Undefined
from tests.narrowing import defined

THREE = (0.0, 0.5, 1.0)
FIVE = (0.0, 0.25, 0.5, 0.75, 1.0)
BINARY = (0.0, 1.0)


def undefined(value: object) -> TypeGuard[Undefined]:
    return isinstance(value, Undefined) and bool(value.reason)


# --------------------------------------------------------------------------------------------------
# Worked by hand
# --------------------------------------------------------------------------------------------------


def test_alignment_rate_counts_differences_of_exactly_the_tolerance():
    # |diff| = 0.15 (0.65 - 0.5 is 0.15000000000000002 in floats), 0, 0.5, 0.15 -> 3 of 4 within 0.15.
    human = [0.5, 0.5, 0.0, 1.0]
    judge = [0.65, 0.5, 0.5, 0.85]
    assert ag.alignment_rate(human, judge, tolerance=0.15) == 0.75
    # Tolerance 0 keeps only the exact match.
    assert ag.alignment_rate(human, judge, tolerance=0.0) == 0.25
    # 0.5 vs 0.0 is within 0.5.
    assert ag.alignment_rate(human, judge, tolerance=0.5) == 1.0


def test_alignment_rate_just_above_the_tolerance_is_not_aligned():
    assert ag.alignment_rate([0.0], [0.1500001], tolerance=0.15) == 0.0
    assert ag.alignment_rate([0.0], [0.15], tolerance=0.15) == 1.0


def test_mean_difference_is_judge_minus_human():
    # (0 + 0.5 + 0.25) / 3 = 0.25: this judge is more lenient.
    assert ag.mean_difference([0.5, 1.0, 0.75], [0.5, 0.5, 0.5]) == pytest.approx(0.25, abs=1e-15)
    assert ag.mean_difference([0.0], [1.0]) == -1.0


def test_snap_to_scale_moves_to_nearest_point_and_counts_the_moves():
    # 0.83 -> 1 (0.17 away vs 0.33), 0.25 -> 0 (halfway goes down), 0.74 -> 0.5 (0.24 vs 0.26),
    # -0.2 -> 0 and 1.3 -> 1 (beyond the ends), 0.5 stays, NaN stays: five values moved.
    snapped, moved = ag.snap_to_scale([0.83, 0.25, 0.74, -0.2, 1.3, 0.5, np.nan], THREE)
    np.testing.assert_array_equal(snapped, [1.0, 0.0, 0.5, 0.0, 1.0, 0.5, np.nan])
    assert moved == 5


def test_snap_to_scale_ignores_float_noise_and_keeps_shape():
    snapped, moved = ag.snap_to_scale([[0.1 + 0.15, np.nan], [0.7500000000001, 1.0]], FIVE)
    np.testing.assert_array_equal(snapped, [[0.25, np.nan], [0.75, 1.0]])
    assert moved == 0


def test_kappa_of_a_two_by_two_table():
    # 5 human PASS (judge: 4 PASS, 1 FAIL), 5 human FAIL (judge: 1 PASS, 4 FAIL).
    # p_o = 8/10 = 0.8, p_e = (5*5 + 5*5)/100 = 0.5, kappa = (0.8 - 0.5)/(1 - 0.5) = 0.6.
    human = [1, 1, 1, 1, 1, 0, 0, 0, 0, 0]
    judge = [1, 1, 1, 1, 0, 1, 0, 0, 0, 0]
    assert ag.cohen_kappa(human, judge, BINARY) == pytest.approx(0.6, abs=1e-12)
    metrics = ag.binary_metrics(human, judge)
    assert (metrics.true_pass, metrics.false_fail, metrics.true_fail, metrics.false_pass) == (4, 1, 4, 1)
    assert (metrics.tpr, metrics.tnr, metrics.accuracy) == (0.8, 0.8, 0.8)


def test_weighted_kappa_on_three_points():
    # human 0, 0, .5, 1 / judge 0, .5, .5, .5. Confusion (rows human, cols judge):
    #   [[1, 1, 0], [0, 1, 0], [0, 1, 0]]; row totals 2,1,1; column totals 1,3,0; n = 4.
    # Unweighted: p_o = 2/4, p_e = (2*1 + 1*3 + 1*0)/16 = 5/16, kappa = (1/2 - 5/16)/(11/16) = 3/11.
    # Quadratic: observed sum w*C = 1 + 1 = 2; expected E = outer/4 gives
    #   sum w*E = 6/4*1 + 1/4*1 + 1/4*4 + 3/4*1 = 3.5, kappa = 1 - 2/3.5 = 3/7.
    human = [0.0, 0.0, 0.5, 1.0]
    judge = [0.0, 0.5, 0.5, 0.5]
    np.testing.assert_array_equal(ag.confusion_matrix(human, judge, THREE), [[1, 1, 0], [0, 1, 0], [0, 1, 0]])
    assert ag.cohen_kappa(human, judge, THREE) == pytest.approx(3 / 11, abs=1e-12)
    assert ag.cohen_kappa(human, judge, THREE, weights="quadratic") == pytest.approx(3 / 7, abs=1e-12)


def test_correlations_of_a_small_case():
    # x = 1,2,3, y = 1,3,2: deviations (-1,0,1) and (-1,1,0), dot 1, norms sqrt(2) -> r = 1/2.
    # The ranks are the values themselves, so rho = 1/2 too.
    # Pairs (1,2) and (1,3) concordant, (2,3) discordant -> tau = (2 - 1)/3.
    x, y = [1.0, 2.0, 3.0], [1.0, 3.0, 2.0]
    assert ag.pearson_r(x, y) == pytest.approx(0.5, abs=1e-12)
    assert ag.spearman_rho(x, y) == pytest.approx(0.5, abs=1e-12)
    assert ag.kendall_tau(x, y) == pytest.approx(1 / 3, abs=1e-12)


def test_kendall_tau_b_with_ties():
    # x = 0,0,1,1 and y = 0,0,0,1: concordant pairs (1,4), (2,4); none discordant.
    # 6 pairs, 2 tied on x, 3 tied on y: tau_b = 2 / sqrt((6-2)(6-3)) = 1/sqrt(3).
    assert ag.kendall_tau([0, 0, 1, 1], [0, 0, 0, 1]) == pytest.approx(1 / math.sqrt(3), abs=1e-12)


def test_spearman_gives_tied_values_their_average_rank():
    # x ranks: 1.5, 1.5, 3, 4; y ranks 1, 2, 3, 4. Deviations (-1, -1, 0.5, 1.5) and (-1.5, -.5, .5, 1.5):
    # dot = 1.5 + .5 + .25 + 2.25 = 4.5; norms sqrt(4.5) and sqrt(5) -> rho = 4.5/sqrt(22.5).
    assert ag.spearman_rho([0, 0, 1, 2], [0, 1, 2, 3]) == pytest.approx(4.5 / math.sqrt(22.5), abs=1e-12)


def test_corrected_pass_rate_point_estimate():
    # TPR = TNR = 0.8 from the kappa case above; 6 of 10 judge-only items PASS:
    # (0.6 + 0.8 - 1) / (0.8 + 0.8 - 1) = 0.4 / 0.6 = 2/3.
    human = [1, 1, 1, 1, 1, 0, 0, 0, 0, 0]
    judge = [1, 1, 1, 1, 0, 1, 0, 0, 0, 0]
    result = ag.corrected_pass_rate([1] * 6 + [0] * 4, human, judge, n_boot=500)
    assert result.estimate == pytest.approx(2 / 3, abs=1e-12)
    assert result.observed_pass_rate == 0.6
    assert (result.tpr, result.tnr, result.n_judge_only, result.n_labelled) == (0.8, 0.8, 10, 10)
    # 1 of 10 PASS: (0.1 - 0.2)/0.6 < 0, clipped to 0.
    assert ag.corrected_pass_rate([1] + [0] * 9, human, judge, n_boot=500).estimate == 0.0


def test_krippendorff_alpha_of_a_tiny_nominal_case():
    # Units (0,0), (1,1), (1,0): coincidences o00 = 2, o11 = 2, o01 = o10 = 1; n0 = n1 = 3, n = 6.
    # D_o = 2/6, D_e = 2*3*3/(6*5) = 0.6, alpha = 1 - (1/3)/0.6 = 4/9.
    assert ag.krippendorff_alpha([[0, 1, 1], [0, 1, 0]], "nominal", BINARY) == pytest.approx(4 / 9, abs=1e-12)


def test_krippendorff_alpha_matches_the_published_example():
    # Krippendorff's four observers, twelve units, values 1-5 (Computing Krippendorff's alpha, 2011).
    nan = np.nan
    data = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
        [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
    ]
    points = (1, 2, 3, 4, 5)
    assert round(defined(ag.krippendorff_alpha(data, "nominal", points)), 3) == 0.743
    assert round(defined(ag.krippendorff_alpha(data, "ordinal", points)), 3) == 0.815
    assert round(defined(ag.krippendorff_alpha(data, "interval", points)), 3) == 0.849


def test_krippendorff_alpha_accepts_values_with_float_noise():
    noisy = [[0.1 + 0.15, 0.5, 1.0, 0.0], [0.25, 0.5, 0.75, 0.0]]
    clean = [[0.25, 0.5, 1.0, 0.0], [0.25, 0.5, 0.75, 0.0]]
    assert ag.krippendorff_alpha(noisy, "ordinal", FIVE) == ag.krippendorff_alpha(clean, "ordinal", FIVE)


def test_pairwise_kappa_uses_items_both_raters_rated():
    nan = np.nan
    matrix: list[list[float]] = [
        [1, 1, 1, 1, 1, 0, 0, 0, 0, 0, nan],
        [1, 1, 1, 1, 0, 1, 0, 0, 0, 0, 1],
        [nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, 1],
    ]
    table = ag.pairwise_kappa(matrix, BINARY)
    assert table[0][1] == table[1][0] == pytest.approx(0.6, abs=1e-12)
    assert table[0][0] == table[1][1] == 1.0
    assert undefined(table[0][2])
    assert undefined(table[2][2])


# --------------------------------------------------------------------------------------------------
# compare()
# --------------------------------------------------------------------------------------------------


def test_compare_on_a_binary_scale_reports_tpr_tnr_and_equal_kappas():
    human = [1, 1, 1, 1, 1, 0, 0, 0, 0, 0]
    judge = [1, 1, 1, 1, 0, 1, 0, 0, 0, 0]
    result = ag.compare(human, judge, BINARY, ordered=False, tolerance=0.15, figures=ROW_FIGURES)
    assert result.is_binary
    assert result.n == 10
    assert result.cohen_kappa == result.weighted_kappa == pytest.approx(0.6, abs=1e-12)
    assert (result.tpr, result.tnr, result.accuracy) == (0.8, 0.8, 0.8)
    assert result.alignment_rate == 0.8
    assert result.mean_difference == 0.0  # both pass half the items
    assert result.confusion == ((4, 1), (1, 4))
    # For 0/1 data the three correlations are the phi coefficient, here equal to kappa.
    for figure in (result.pearson_r, result.spearman_rho, result.kendall_tau):
        assert figure == pytest.approx(0.6, abs=1e-12)


def test_compare_snaps_continuous_judge_scores_for_kappa_only():
    human = [0.0, 0.5, 1.0, 0.5]
    judge = [0.1, 0.55, 0.83, 0.5]  # snaps to 0, .5, 1, .5
    result = ag.compare(human, judge, THREE, ordered=True, tolerance=0.15, figures=ROW_FIGURES)
    assert (result.snapped_human, result.snapped_judge, result.snapped) == (0, 3, 3)
    assert result.cohen_kappa == 1.0
    assert result.confusion == ((1, 0, 0), (0, 2, 0), (0, 0, 1))
    # Alignment and the mean difference use the raw scores: 1.0 vs 0.83 is 0.17 apart.
    assert result.alignment_rate == 0.75
    assert result.mean_difference == pytest.approx((0.1 + 0.05 - 0.17 + 0) / 4, abs=1e-12)
    assert undefined(result.tpr)


def test_compare_on_an_unordered_scale_leaves_order_based_figures_undefined():
    result = ag.compare([0, 1, 2, 2], [0, 1, 2, 1], (0, 1, 2), ordered=False, tolerance=0.15, figures=ROW_FIGURES)
    assert result.cohen_kappa == pytest.approx(ag.cohen_kappa([0, 1, 2, 2], [0, 1, 2, 1], (0, 1, 2)))
    for figure in (result.weighted_kappa, result.pearson_r, result.spearman_rho, result.kendall_tau):
        assert undefined(figure)
    assert undefined(result.mean_difference)


def test_compare_with_no_items_is_all_undefined():
    result = ag.compare([], [], FIVE, ordered=True, tolerance=0.15, figures=ROW_FIGURES)
    assert result.n == 0
    assert result.confusion == tuple((0,) * 5 for _ in range(5))
    for name in (
        "alignment_rate",
        "cohen_kappa",
        "weighted_kappa",
        "pearson_r",
        "spearman_rho",
        "kendall_tau",
    ):
        assert undefined(getattr(result, name)), name
    assert undefined(result.mean_difference)


def test_compare_is_hashable_and_comparable():
    first = ag.compare([0, 0.5, 1], [0, 1, 1], THREE, ordered=True, tolerance=0.15, figures=ROW_FIGURES)
    second = ag.compare([0, 0.5, 1], [0, 1, 1], THREE, ordered=True, tolerance=0.15, figures=ROW_FIGURES)
    assert first == second
    assert hash(first) == hash(second)


# --------------------------------------------------------------------------------------------------
# Undefined, never NaN, never an exception for data
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "figure",
    [
        lambda: ag.alignment_rate([], [], tolerance=0.15),
        lambda: ag.mean_difference([], []),
        lambda: ag.cohen_kappa([], [], THREE),
        lambda: ag.cohen_kappa([0.5], [0.5], THREE),  # n < 2
        lambda: ag.cohen_kappa([0.5, 0.5, 0.5], [0.5, 0.5, 0.5], THREE),  # one category only
        lambda: ag.cohen_kappa([1, 1], [1, 1], BINARY, weights="quadratic"),
        lambda: ag.pearson_r([0.5], [0.5]),
        lambda: ag.pearson_r([0.5, 0.5, 0.5], [0.0, 0.5, 1.0]),  # zero variance
        lambda: ag.pearson_r([0.1] * 10, list(range(10))),  # constant that sums with rounding error
        lambda: ag.spearman_rho([], []),
        lambda: ag.spearman_rho([0.0, 0.5, 1.0], [1.0, 1.0, 1.0]),
        lambda: ag.kendall_tau([1.0], [2.0]),
        lambda: ag.kendall_tau([0.0, 0.5, 1.0], [1.0, 1.0, 1.0]),
        lambda: ag.binary_metrics([0, 0], [1, 0]).tpr,  # no human PASS
        lambda: ag.binary_metrics([1, 1], [1, 0]).tnr,  # no human FAIL
        lambda: ag.binary_metrics([], []).accuracy,
        lambda: ag.krippendorff_alpha([[0, 0.5, 1]], "ordinal", THREE),  # one rater
        lambda: ag.krippendorff_alpha(
            [[0, 0.5, np.nan], [0, np.nan, 1]], "ordinal", THREE
        ),  # 1 pairable item
        lambda: ag.krippendorff_alpha(
            [[1.0, 1.0, np.nan], [1.0, 1.0, 0.0]], "nominal", BINARY
        ),  # one value among pairs
        lambda: ag.krippendorff_alpha(np.empty((2, 0)), "nominal", BINARY),
    ],
)
def test_undefined_cases(figure):
    assert undefined(figure())


def test_corrected_pass_rate_undefined_when_the_judge_is_no_better_than_chance():
    # TPR = 0.5 and TNR = 0.5: TPR + TNR = 1.
    result = ag.corrected_pass_rate([1, 0, 1], [1, 1, 0, 0], [1, 0, 1, 0])
    assert undefined(result.estimate)
    assert undefined(result.low)
    assert undefined(result.high)
    assert "TPR + TNR" in result.estimate.reason
    # Worse than chance is Undefined as well.
    assert undefined(ag.corrected_pass_rate([1, 0], [1, 1, 0, 0], [0, 0, 1, 1]).estimate)


def test_corrected_pass_rate_undefined_without_judge_only_items_or_labels():
    no_judge_only = ag.corrected_pass_rate([], [1, 0], [1, 0])
    assert undefined(no_judge_only.estimate)
    assert undefined(no_judge_only.observed_pass_rate)
    assert no_judge_only.tpr == 1.0
    no_labels = ag.corrected_pass_rate([1, 0], [], [])
    assert undefined(no_labels.estimate)
    assert no_labels.observed_pass_rate == 0.5
    only_passes = ag.corrected_pass_rate([1, 0], [1, 1], [1, 1])
    assert undefined(only_passes.estimate)
    assert undefined(only_passes.tnr)


def test_corrected_pass_rate_gives_no_interval_when_draws_are_often_undefined():
    # One human PASS and one FAIL: TPR and TNR are each known only to be Beta(1.5, 0.5), and in more than 5% of
    # draws they sum to 1 or less (the judge no better than chance), so no honest interval exists.
    result = ag.corrected_pass_rate([1, 0, 1, 1], [1, 0], [1, 0], n_boot=400)
    assert result.estimate == 0.75
    assert undefined(result.low)
    assert undefined(result.high)
    assert result.n_boot_used < 0.95 * 400


def test_figures_are_plain_floats_not_numpy_scalars():
    result = ag.compare([0, 0.5, 1, 1], [0, 1, 1, 0.5], THREE, ordered=True, tolerance=0.15, figures=ROW_FIGURES)
    for name in (
        "alignment_rate",
        "cohen_kappa",
        "weighted_kappa",
        "pearson_r",
        "spearman_rho",
        "kendall_tau",
    ):
        assert type(getattr(result, name)) is float, name


# --------------------------------------------------------------------------------------------------
# Programming mistakes raise a clear ValueError
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: ag.alignment_rate([0, 1], [0], tolerance=0.15), "lengths 2 and 1 differ"),
        (lambda: ag.pearson_r([0, np.nan], [0, 1]), "NaN"),
        (lambda: ag.alignment_rate([[0, 1]], [[0, 1]], tolerance=0.15), "1-D"),
        (lambda: ag.alignment_rate([0], [0], tolerance=-0.1), "tolerance"),
        (lambda: ag.cohen_kappa([0, 0.83], [0, 1], THREE), "snap"),
        (lambda: ag.cohen_kappa([0, 1], [0, 1], BINARY, weights="cubic"), "weights"),  # type: ignore[arg-type]  # refused on purpose
        (lambda: ag.confusion_matrix([0], [0], (1.0, 0.0)), "increasing"),
        (lambda: ag.confusion_matrix([0], [0], (1.0,)), "at least two points"),
        (lambda: ag.binary_metrics([0.5], [1]), "off the scale"),
        (lambda: ag.krippendorff_alpha([[0, 1], [1, 0]], "interval-ish", BINARY), "level"),  # type: ignore[arg-type]  # refused on purpose
        (lambda: ag.krippendorff_alpha([0, 1], "nominal", BINARY), "raters x items"),
        (lambda: ag.pairwise_kappa([[0.0, 0.3], [0.0, 1.0]], BINARY), "off the scale"),
        (lambda: ag.corrected_pass_rate([1], [1, 0], [1, 0], n_boot=0), "n_boot"),
    ],
)
def test_mistakes_raise_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --------------------------------------------------------------------------------------------------
# Bootstrap interval
# --------------------------------------------------------------------------------------------------


def _binary_sample(seed: int, n_labelled: int = 300, n_judge_only: int = 2000):
    """Labels from a population with 30% PASS, judged with TPR 0.9 and TNR 0.8."""
    rng = np.random.default_rng(seed)

    def judged(truth: np.ndarray) -> np.ndarray:
        correct = rng.random(truth.size) < np.where(truth == 1, 0.9, 0.8)
        return np.where(correct, truth, 1 - truth).astype(float)

    human = (rng.random(n_labelled) < 0.3).astype(float)
    judge_only = judged((rng.random(n_judge_only) < 0.3).astype(float))
    return judge_only, human, judged(human)


def test_corrected_pass_rate_interval_is_identical_on_every_run():
    sample = _binary_sample(1)
    first = ag.corrected_pass_rate(*sample)
    second = ag.corrected_pass_rate(*sample)
    assert first == second
    assert ag.corrected_pass_rate(*sample, seed=7) != first  # the seed is what fixes it


def test_corrected_pass_rate_recovers_the_true_rate_and_brackets_it():
    judge_only, human, judge = _binary_sample(2, n_labelled=3000, n_judge_only=20000)
    result = ag.corrected_pass_rate(judge_only, human, judge, n_boot=1000)
    # The raw judge pass rate is biased up: 0.3*0.9 + 0.7*0.2 = 0.41.
    assert result.observed_pass_rate == pytest.approx(0.41, abs=0.02)
    assert result.estimate == pytest.approx(0.30, abs=0.02)
    assert defined(result.low) < defined(result.estimate) < defined(result.high)
    assert defined(result.low) < 0.30 < defined(result.high)
    assert result.n_boot_used == 1000


def test_corrected_pass_rate_interval_matches_scipy_jeffreys_posteriors():
    """The interval reads the correction off Jeffreys posteriors of TPR, TNR and the judge-only pass rate: the
    same from scipy's beta draws (another seed), within Monte Carlo error; and it still has width when every
    labelled FAIL was caught, where a bootstrap of the labelled items never varies TNR."""
    for seed, n_labelled in ((3, 200), (4, 25)):
        judge_only, human, judge = _binary_sample(seed, n_labelled=n_labelled, n_judge_only=300)
        if seed == 4:
            judge = np.where(human == 0, 0.0, judge)  # every human FAIL caught
        result = ag.corrected_pass_rate(judge_only, human, judge, n_boot=4000)
        h, j = human.astype(bool), judge.astype(bool)
        rng = np.random.default_rng(99)
        tpr = stats.beta.rvs((h & j).sum() + 0.5, (h & ~j).sum() + 0.5, size=100_000, random_state=rng)
        tnr = stats.beta.rvs((~h & ~j).sum() + 0.5, (~h & j).sum() + 0.5, size=100_000, random_state=rng)
        passes = judge_only.sum()
        seen = stats.beta.rvs(passes + 0.5, judge_only.size - passes + 0.5, size=100_000, random_state=rng)
        keep = tpr + tnr > 1
        estimates = np.clip((seen + tnr - 1) / (tpr + tnr - 1), 0, 1)[keep]
        low, high = np.percentile(estimates, [2.5, 97.5])
        assert result.low == pytest.approx(low, abs=0.02)
        assert result.high == pytest.approx(high, abs=0.02)
        assert defined(result.high) - defined(result.low) > 0.05


# --------------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------------

scale_choice = st.sampled_from([BINARY, THREE, FIVE])


@st.composite
def paired_on_scale(draw):
    points = draw(scale_choice)
    n = draw(st.integers(min_value=0, max_value=40))
    a = draw(st.lists(st.sampled_from(points), min_size=n, max_size=n))
    b = draw(st.lists(st.sampled_from(points), min_size=n, max_size=n))
    return points, a, b


@settings(max_examples=150, deadline=None)
@given(paired_on_scale(), st.floats(min_value=0, max_value=1))
def test_alignment_is_a_share_and_grows_with_the_tolerance(case, tolerance):
    _, a, b = case
    rate = ag.alignment_rate(a, b, tolerance)
    if not a:
        assert undefined(rate)
        return
    assert 0.0 <= defined(rate) <= 1.0
    assert defined(ag.alignment_rate(a, b, tolerance + 0.25)) >= defined(rate)


@settings(max_examples=150, deadline=None)
@given(paired_on_scale(), st.sampled_from([None, "linear", "quadratic"]))
def test_kappa_of_identical_ratings_is_one_when_defined(case, weights):
    points, a, _ = case
    kappa = ag.cohen_kappa(a, a, points, weights=weights)
    if len(a) >= 2 and len(set(a)) >= 2:
        assert kappa == pytest.approx(1.0, abs=1e-12)
    else:
        assert undefined(kappa)


@settings(max_examples=150, deadline=None)
@given(paired_on_scale())
@example(((0.0, 0.5, 1.0), [0.5, 0.0, 1.0], [0.5, 1.0, 0.0]))  # quadratic kappa's rounding once gave -1 - 4e-16
def test_no_figure_is_ever_nan(case):
    points, a, b = case
    result = ag.compare(a, b, points, ordered=True, tolerance=0.15, figures=ROW_FIGURES)
    bounded = ("alignment_rate", "cohen_kappa", "weighted_kappa", "pearson_r", "spearman_rho", "kendall_tau")
    for name in (*bounded, "mean_difference", "tpr", "tnr", "accuracy"):
        value = getattr(result, name)
        assert isinstance(value, float | Undefined), name
        if isinstance(value, float):
            assert math.isfinite(value), name
            assert -1.0 <= value <= 1.0, name
    if a:
        assert 0.0 <= defined(result.alignment_rate) <= 1.0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), min_size=2, max_size=60))
def test_kendall_table_and_sorting_methods_agree(pairs):
    x = np.array([p[0] for p in pairs], dtype=float)
    y = np.array([p[1] for p in pairs], dtype=float)
    cx, cy = ag.coded_scores(x), ag.coded_scores(y)
    table, by_sorting = ag.kendall_tau_coded(cx, cy, "table"), ag.kendall_tau_coded(cx, cy, "sort")
    if undefined(table):
        assert undefined(by_sorting)
    else:
        assert by_sorting == pytest.approx(table, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 40), max_size=80))
def test_count_inversions_matches_counting_every_pair(values):
    sequence = np.array(values, dtype=np.int64)
    expected = sum(1 for i in range(len(values)) for j in range(i + 1, len(values)) if values[i] > values[j])
    assert ag.count_inversions(sequence, 41) == expected


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-1, 2, allow_nan=False), max_size=30), scale_choice)
def test_snapping_lands_on_the_scale_and_is_idempotent(values, points):
    snapped, moved = ag.snap_to_scale(values, points)
    assert set(snapped.tolist()) <= set(points)
    assert 0 <= moved <= len(values)
    again, moved_again = ag.snap_to_scale(snapped, points)
    np.testing.assert_array_equal(again, snapped)
    assert moved_again == 0


def test_lowest_and_highest_dimension():
    rates: dict[str, ag.Figure] = {
        "difficulty_match": 0.6,
        "instruction_clarity": 0.5,
        "learning_objective_alignment": 0.9,
        "structural_validity": Undefined("no items"),
    }
    assert ag.lowest_and_highest(rates) == ("instruction_clarity", "learning_objective_alignment")
    # Ties go to the dimension listed first.
    assert ag.lowest_and_highest({"b": 0.7, "a": 0.7, "c": 0.7}) == ("b", "b")
    assert ag.lowest_and_highest({"x": Undefined("none")}) == (None, None)
    assert ag.lowest_and_highest({}) == (None, None)


def test_an_averaged_overall_score_has_the_figures_of_scores_and_none_of_categories():
    """An overall score that is a weighted mean of dimensions lies between the scale's points: alignment, the
    correlations and the mean difference as for any scores; kappa, the confusion matrix and TPR/TNR say why not."""
    human = np.array([0.25, 0.5, 0.625, 0.875, 1.0, 0.375])
    judge = np.array([0.25, 0.625, 0.5, 1.0, 0.875, 0.5])
    found = ag.compare_averaged(human, judge, tolerance=0.15, figures=ROW_FIGURES)
    assert found.n == 6
    assert found.alignment_rate == pytest.approx(ag.alignment_rate(human, judge, 0.15))
    assert found.pearson_r == pytest.approx(ag.pearson_r(human, judge))
    assert found.mean_difference == pytest.approx(float(np.mean(judge - human)))
    assert found.confusion == ()
    for figure in (found.cohen_kappa, found.weighted_kappa):
        assert isinstance(figure, ag.Undefined)
        assert figure.reason == ag.AVERAGED_OVERALL
    assert isinstance(found.tpr, ag.Undefined)
