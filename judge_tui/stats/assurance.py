"""How many more items give an 80% chance of settling a target: an assurance, never a point-estimate plan.

A plan read off the point estimate ("if it stays at 0.93, 40 more") ignores that the estimate will move, and
near the target its answer swings over orders of magnitude. Here the judge's true value is drawn from what
the data so far allow (a posterior), the further items are drawn from that value, and the chance that the
report's own rule (``stats.decisions.decide``) then decides the target is the **assurance** of that many
more items (O'Hagan, Stevens and Campbell 2005, "Assurance in clinical trial design"). The plan is the
fewest more items whose assurance reaches ``ASSURANCE`` (80%).

Two models, both exact for the rule they stand for and free of random draws (the same data give the same
plan):

* **a share** decided on its Wilson interval (TPR, TNR, alignment on one dimension): the true share has the
  posterior Beta(s + 1, n - s + 1) of a uniform prior; the further successes are beta-binomial; the decision is
  Wilson's interval of all the items, counted exactly;
* **any other figure** (kappa, weighted kappa, pooled alignment; Pearson's r on Fisher's z scale): a normal
  estimate whose variance falls as 1/n (1/(n - 3) for Fisher's z), its current standard error read off the
  report's interval on the side of the target. With a flat prior, the final estimate given the current one is
  normal with variance v(n) - v(n + m), and the target is decided when it lies z·sqrt(v(n + m)) beyond it.

A share of one class (TPR counts human PASS items, TNR human FAIL) is planned in items of its scope (test
items), which is what a lead can add: which of them the experts will FAIL is not known until they are rated.
Of m more test items, the number in the class is beta-binomial from the class's own Jeffreys posterior share,
and the assurance of m test items is the class's assurance averaged over that count (``ScopedShareFigure``).

Beside the assurance, ``power`` answers the same question for a known true value (the interval's ends, or
the values a lead expects before the study starts), and ``undecided_at_size`` the chance that a study of a
given size, with a judge like this one, ends undecided.

A target whose estimate sits on the threshold has no practical answer: only a judge clearly above or below
can be settled, and the chance rises so slowly with more items that the plan stops at ``PRACTICAL_MORE``
and says what even that many would give.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from judge_tui.stats.intervals import wilson_bounds, z_value

__all__ = [
    "ASSURANCE", "PRACTICAL_MORE", "AssurancePlan", "Figure", "NormalFigure", "ScopedShareFigure", "ShareFigure",
    "fewest",
    "items_for_power", "plan",
]

ASSURANCE = 0.80
# More items than this, on top of an expert-rated study, is no plan: past it the answer is "not practically".
PRACTICAL_MORE = 1_000
# The prior of the judge's true share: uniform, Beta(1, 1). Jeffreys' Beta(1/2, 1/2) piles its mass at 0 and 1,
# so a perfect record (23 of 23) was taken for a judge near 1: its 80% plans settled about half the time over
# judges drawn uniformly (benchmarks/bench_decisions_planner.py), against 80% with this prior.
PRIOR = 1.0
# The prior of a class's share among the items (human FAIL among test items): Jeffreys', which measured closer
# where a study holds only a few items of the class.
CLASS_PRIOR = 0.5
# The report decides nothing on fewer items (stats.decisions.MIN_ITEMS_TO_DECIDE; not imported, to keep this
# module below decisions).
MIN_ITEMS = 5


def _cdf(x: np.ndarray) -> np.ndarray:
    """The standard normal CDF of an array (numpy has no erf; math's is exact to double precision)."""
    return np.array([0.5 * math.erfc(-v / math.sqrt(2.0)) for v in np.ravel(x)]).reshape(np.shape(x))


# --------------------------------------------------------------------------------------------------
# A share decided on its Wilson interval
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShareFigure:
    """A share of ``successes`` out of ``n`` items, decided on its Wilson interval against ``target``."""

    successes: int
    n: int
    target: float
    strict: bool = False
    confidence: float = 0.95

    def _settles(self, total: int) -> np.ndarray:
        """For every count 0..total of successes among ``total`` items: whether Wilson's interval decides."""
        if total < MIN_ITEMS:
            return np.zeros(total + 1, dtype=bool)
        low, high = wilson_bounds(np.arange(total + 1), total, self.confidence)
        if self.strict:
            return np.asarray((low > self.target) | (high <= self.target), dtype=bool)
        return np.asarray((low >= self.target) | (high < self.target), dtype=bool)

    def assurance(self, more: int) -> float:
        """The chance that ``more`` further items, the true share drawn from the posterior, decide the target."""
        a, b = self.successes + PRIOR, self.n - self.successes + PRIOR
        return float(_beta_binomial(more, a, b) @ self._settles(self.n + more)[self.successes:self.successes + more + 1])

    def power(self, truth: float, more: int) -> float:
        """The chance that ``more`` further items decide the target when the true share is ``truth``."""
        return float(_binomial(more, truth) @ self._settles(self.n + more)[self.successes:self.successes + more + 1])

    def undecided_at_size(self) -> float:
        """The chance that a new study of ``n`` items, with a judge like this one, leaves the target undecided."""
        a, b = self.successes + PRIOR, self.n - self.successes + PRIOR
        return float(1.0 - _beta_binomial(self.n, a, b) @ self._settles(self.n))

    def ends(self) -> tuple[float, float]:
        low, high = wilson_bounds(np.array([self.successes]), self.n, self.confidence)
        return float(low[0]), float(high[0])


def _log_pmf(more: int, log_first: float, log_ratio: np.ndarray) -> np.ndarray:
    return np.concatenate([[log_first], log_first + np.cumsum(log_ratio)]) if more else np.array([log_first])


def _beta_binomial(more: int, a: float, b: float) -> np.ndarray:
    """P(k successes of ``more``) for k = 0..more when the share has a Beta(a, b) law (a, b > 0)."""
    k = np.arange(more, dtype=np.float64)
    first = math.lgamma(b + more) + math.lgamma(a + b) - math.lgamma(b) - math.lgamma(a + b + more)
    ratio = np.log((more - k) * (a + k)) - np.log((k + 1.0) * (b + more - k - 1.0))
    pmf = np.exp(_log_pmf(more, first, ratio))
    return np.asarray(pmf / pmf.sum())


def _binomial(more: int, share: float) -> np.ndarray:
    """P(k successes of ``more``) for k = 0..more at a known share."""
    pmf = np.zeros(more + 1)
    if share <= 0.0 or share >= 1.0:
        pmf[0 if share <= 0.0 else more] = 1.0
        return pmf
    k = np.arange(more, dtype=np.float64)
    ratio = np.log(more - k) - np.log(k + 1.0) + math.log(share) - math.log1p(-share)
    pmf = np.exp(_log_pmf(more, more * math.log1p(-share), ratio))
    return np.asarray(pmf / pmf.sum())


# Counts of class items among more scope items: the first EXACT_COUNTS of them that matter are evaluated one by
# one (few class items, where the chance jumps from one count to the next), the rest in CLASS_BINS bins of equal
# width, each at its mean count and weighted by its mass (many class items, where the chance moves smoothly).
EXACT_COUNTS = 64
CLASS_BINS = 24
# Class counts less likely than this are left out (their mass is spread over the rest).
NEGLIGIBLE = 1e-7


@dataclass(frozen=True)
class ScopedShareFigure:
    """A share of one class (``share``: TPR over human PASS items) planned in items of its scope: so far
    ``in_class`` of ``scope_items`` items are in the class, and of m more items the number in it is
    beta-binomial from the Jeffreys posterior of the class's share (binomial at ``known_share`` when given)."""

    share: ShareFigure
    in_class: int
    scope_items: int
    known_share: float | None = None  # before a study: the class's share as the lead expects it (binomial counts)

    @property
    def target(self) -> float:
        return self.share.target

    def _class_counts(self, more: int) -> tuple[np.ndarray, np.ndarray]:
        """The counts of class items among ``more`` scope items that matter, and their weights (summing to 1)."""
        if self.known_share is not None:
            pmf = _binomial(more, self.known_share)
        else:
            pmf = _beta_binomial(more, self.in_class + CLASS_PRIOR, self.scope_items - self.in_class + CLASS_PRIOR)
        counts = np.flatnonzero(pmf > NEGLIGIBLE)
        weights = pmf[counts]
        if counts.size > EXACT_COUNTS + CLASS_BINS:
            rest, of_rest = counts[EXACT_COUNTS:], weights[EXACT_COUNTS:]
            edges = np.linspace(rest[0], rest[-1] + 1, CLASS_BINS + 1)
            bins = np.clip(np.searchsorted(edges, rest, side="right") - 1, 0, CLASS_BINS - 1)
            mass = np.bincount(bins, weights=of_rest, minlength=CLASS_BINS)
            centre = np.bincount(bins, weights=of_rest * rest, minlength=CLASS_BINS)
            kept = mass > 0
            counts = np.concatenate([counts[:EXACT_COUNTS], np.rint(centre[kept] / mass[kept]).astype(int)])
            weights = np.concatenate([weights[:EXACT_COUNTS], mass[kept]])
        return counts, weights / weights.sum()

    def assurance(self, more: int) -> float:
        """The chance that ``more`` further items of the scope, the class's share and the judge's true value
        drawn from what the data allow, decide the target."""
        counts, weights = self._class_counts(more)
        return float(sum(w * _share_assurance(self.share, int(k)) for k, w in zip(counts, weights, strict=True)))

    def power(self, truth: float, more: int) -> float:
        """The same for a known true value of the figure (the class's share still drawn)."""
        counts, weights = self._class_counts(more)
        return float(sum(w * _share_power(self.share, truth, int(k)) for k, w in zip(counts, weights, strict=True)))

    def undecided_at_size(self) -> float:
        return self.share.undecided_at_size()

    def ends(self) -> tuple[float, float]:
        return self.share.ends()


# A plan's search asks for the same class counts again and again (the small ones at every size it tries).
@functools.lru_cache(maxsize=4096)
def _share_assurance(share: ShareFigure, more: int) -> float:
    return share.assurance(more)


@functools.lru_cache(maxsize=4096)
def _share_power(share: ShareFigure, truth: float, more: int) -> float:
    return share.power(truth, more)


# --------------------------------------------------------------------------------------------------
# Any other figure: a normal estimate
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NormalFigure:
    """An estimate with a normal interval whose variance falls as ``spread / n`` (``1 / (n - 3)`` on Fisher's
    z scale when ``fisher``), decided against ``target``. ``spread`` is n times the estimate's variance."""

    estimate: float
    n: int
    target: float
    spread: float
    confidence: float = 0.95
    fisher: bool = False

    @classmethod
    def from_interval(cls, estimate: float, low: float, high: float, n: int, target: float, *,
                      confidence: float = 0.95, fisher: bool = False) -> NormalFigure:
        """The spread read off the report's interval, on the side of the target (where the decision is made)."""
        z = z_value(confidence)
        if fisher:
            return cls(estimate, n, target, 1.0, confidence, fisher=True)
        half = (estimate - low) if estimate >= target else (high - estimate)
        return cls(estimate, n, target, max(n, 1) * (half / z) ** 2, confidence)

    def _variance(self, total: np.ndarray) -> np.ndarray:
        if self.fisher:
            return 1.0 / np.maximum(total - 3.0, 1e-9)
        return np.asarray(max(self.spread, 1e-12) / np.maximum(total, 1e-9))

    def _scale(self, value: float) -> float:
        if not self.fisher:
            return value
        return math.atanh(max(-0.999999, min(0.999999, value)))

    def _decides(self, centre: np.ndarray, sd: np.ndarray, total: np.ndarray) -> np.ndarray:
        """P(the final estimate lies a half-width beyond the target), the final estimate ~ N(centre, sd²)."""
        half = z_value(self.confidence) * np.sqrt(self._variance(total))
        t = self._scale(self.target)
        sd = np.maximum(sd, 1e-12)
        chance = _cdf((centre - t - half) / sd) + _cdf((t - half - centre) / sd)
        return np.where(total >= MIN_ITEMS, chance, 0.0)

    def assurance_of(self, more: np.ndarray) -> np.ndarray:
        total = self.n + more.astype(np.float64)
        sd = np.sqrt(np.maximum(self._variance(np.array(float(self.n))) - self._variance(total), 0.0))
        return self._decides(np.full(total.shape, self._scale(self.estimate)), sd, total)

    def power_of(self, truth: float, more: np.ndarray) -> np.ndarray:
        """Given the current estimate and a true value: the final estimate is the information-weighted mean of
        the current one and the new items', whose own estimate is centred on the truth."""
        total = self.n + more.astype(np.float64)
        now, then = 1.0 / self._variance(np.array(float(self.n))), 1.0 / self._variance(total)
        if self.n == 0:
            now = np.array(0.0)
        added = np.maximum(then - now, 0.0)
        centre = (now * self._scale(self.estimate) + added * self._scale(truth)) / then
        return self._decides(centre, np.sqrt(added) / then, total)

    def assurance(self, more: int) -> float:
        return float(self.assurance_of(np.array([more]))[0])

    def power(self, truth: float, more: int) -> float:
        return float(self.power_of(truth, np.array([more]))[0])

    def undecided_at_size(self) -> float:
        """A new study of n items: its estimate ~ N(current, 2·v(n)) (the truth's uncertainty plus the new
        study's own), decided on its own interval."""
        total = np.array([float(self.n)])
        sd = np.sqrt(2.0 * self._variance(total))
        return float(1.0 - self._decides(np.array([self._scale(self.estimate)]), sd, total)[0])


Figure = ShareFigure | ScopedShareFigure | NormalFigure


# --------------------------------------------------------------------------------------------------
# The plan
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AssurancePlan:
    """What more items would settle an undecided target, with the uncertainty of the estimate included.

    ``more`` is the fewest further items (of the figure; for a ``ScopedShareFigure``, of its scope) whose
    assurance reaches ``chance``; None when even ``limit`` (``PRACTICAL_MORE`` by default) would not
    (``chance_at_limit`` says what that many give).
    ``at_ends`` is the same for a judge whose true value is at the low and the high end of the current
    interval (``end_values``): None where that end sits on the target.
    """

    more: int | None
    chance: float
    chance_at_limit: float | None
    end_values: tuple[float, float]
    at_ends: tuple[int | None, int | None]
    undecided_at_size: float

    @property
    def practical(self) -> bool:
        return self.more is not None


def fewest(chance_of: Callable[[int], float], goal: float, limit: int = PRACTICAL_MORE) -> int | None:
    """The fewest more items (1..limit) whose chance reaches ``goal``; None if ``limit`` does not. The chance
    grows with the items up to the saw-teeth of a discrete interval, so a doubling then halving search finds
    the first crossing it meets."""
    if chance_of(limit) < goal:
        return None
    high = 1
    while high < limit and chance_of(high) < goal:
        high *= 2
    high = min(high, limit)
    low = high // 2
    if low >= 1 and chance_of(low) >= goal:
        return low
    while high - low > 1:
        middle = (low + high) // 2
        if chance_of(middle) >= goal:
            high = middle
        else:
            low = middle
    return high


def plan(figure: Figure, *, goal: float = ASSURANCE, ends: tuple[float, float] | None = None,
         limit: int = PRACTICAL_MORE) -> AssurancePlan:
    """The assurance plan for an undecided target: the fewest more items (up to ``limit``) for a ``goal``
    chance of deciding it, the same for a judge at either end of its interval (``ends``: low, high; Wilson's
    own for a share), and the chance that a study of this size ends undecided."""
    more = fewest(figure.assurance, goal, limit)
    at_limit = None if more is not None else figure.assurance(limit)
    low, high = ends if ends is not None else (figure.estimate, figure.estimate) if isinstance(
        figure, NormalFigure) else figure.ends()
    at_low, at_high = (None if value == figure.target else items_for_power(figure, value, goal, limit)
                       for value in (low, high))
    return AssurancePlan(more, goal, at_limit, (low, high), (at_low, at_high), figure.undecided_at_size())


def items_for_power(figure: Figure, truth: float, goal: float = ASSURANCE, limit: int = 100_000) -> int | None:
    """Before a study (``figure`` with n = 0): the fewest items for a ``goal`` chance of deciding the target
    when the true value is ``truth``; None beyond ``limit`` (a true value on or very near the target)."""
    return fewest(lambda m: figure.power(truth, m), goal, limit)
