"""The regularised incomplete beta function I_x(a, b) (the Beta(a, b) distribution's CDF at x), in logs: the
beta mixture's evidence (`sequential.py`) and Student's t distribution (`intervals.py`) both read it.

Lentz's continued fraction (Numerical Recipes, 3rd ed., section 6.4), pure Python, checked against scipy's
``betainc``, ``beta.logcdf`` and ``beta.logsf`` in the tests.
"""

from __future__ import annotations

import math

_TINY = 1e-300
_EPS = 1e-15
_MAX_TERMS = 10_000


def log_beta(a: float, b: float) -> float:
    """log B(a, b), the beta function."""
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def _continued_fraction(x: float, a: float, b: float) -> float:
    """The continued fraction of I_x(a, b) by Lentz's method (converges fast for x < (a+1)/(a+b+2))."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _MAX_TERMS):
        m2 = 2 * m
        for numerator in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            step = d * c
            h *= step
        if abs(step - 1.0) < _EPS:
            return h
    raise ArithmeticError(f"the incomplete beta fraction did not converge at x={x}, a={a}, b={b}")


def log_incomplete_beta(x: float, a: float, b: float) -> float:
    """log I_x(a, b), the regularised incomplete beta function (the Beta(a, b) distribution's CDF at x).

    Exact in the far tail, where I_x itself underflows: ``log_incomplete_beta(1 - x, b, a)`` is the log of the
    upper tail 1 - I_x(a, b).
    """
    if not (a > 0 and b > 0):
        raise ValueError(f"a and b must be positive, got {a} and {b}")
    if x <= 0.0:
        return -math.inf
    if x >= 1.0:
        return 0.0
    front = a * math.log(x) + b * math.log1p(-x) - log_beta(a, b)
    if x < (a + 1.0) / (a + b + 2.0):
        return front + math.log(_continued_fraction(x, a, b)) - math.log(a)
    upper = front + math.log(_continued_fraction(1.0 - x, b, a)) - math.log(b)
    return math.log1p(-math.exp(upper)) if upper < 0 else -math.inf
