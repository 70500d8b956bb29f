"""The one incomplete beta function (stats/incomplete_beta.py) against scipy; Student's t, which reads it, is
checked against scipy with the intervals (tests/test_stats_intervals.py, tests/test_alt_test.py)."""

from __future__ import annotations

import math

import pytest
from scipy import special, stats

from judge_tui.stats.incomplete_beta import log_incomplete_beta


@pytest.mark.parametrize(("x", "a", "b"), [
    (0.9, 9.0, 1.0), (0.1, 1.0, 9.0), (0.5, 100.0, 120.0), (0.9, 300.5, 40.2), (0.95, 9.0, 1.0),
    (0.3, 0.5, 0.5), (0.9, 379.0, 22.0), (0.02, 2.0, 300.0), (0.999, 50.0, 0.7),
])
def test_incomplete_beta_matches_scipy(x, a, b):
    assert math.exp(log_incomplete_beta(x, a, b)) == pytest.approx(special.betainc(a, b, x), rel=1e-10, abs=1e-300)


def test_incomplete_beta_keeps_far_tails_in_logs():
    """Far in a tail (1e-160 and below) the log is still exact: scipy's logcdf and logsf agree; and the upper tail
    of a case whose lower tail rounds to 1 is read as its mirror."""
    for x, a, b in ((0.5, 600.0, 10.0), (0.2, 300.0, 40.0), (0.3, 500.0, 30.0)):
        assert log_incomplete_beta(x, a, b) == pytest.approx(stats.beta.logcdf(x, a, b), rel=1e-9)
    for x, a, b in ((0.9, 10.0, 150.0), (0.9, 30.0, 300.0), (0.95, 20.0, 150.0)):
        assert log_incomplete_beta(1 - x, b, a) == pytest.approx(stats.beta.logsf(x, a, b), rel=1e-9)
