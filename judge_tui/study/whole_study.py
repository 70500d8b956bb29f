"""`judge-tui plan` for the whole study: items for every target decided together, read once at the end or by
the stop notice's rule valid at any time, and what a study of that size decides of each target alone.

Each target planned on its own (study/plan.py) gets its chance alone; a study needs all of them at once,
which takes more items, and the rating screen's stop notice decides by rules valid at any time
(analysis.stopping), which take more again. Both are found by drawing studies from what the lead expects and
deciding every target with the report's own code: ``targets.check`` for the fixed-n decision read once at the
end, and ``stopping.anytime_check`` for the rule the stop notice uses (looked at once the planned items are
rated; a notice that fired earlier only helps).

PASS/FAIL studies are drawn whole: one table of human × judge labels gives TPR, TNR, kappa and alignment
together, so their dependence is the table's. Graded targets come from separate models (a table of levels for
kappa, another for weighted kappa, a normal pair for r, a share for alignment), so each is drawn apart and
"together" is the product of their chances: targets that move together are decided together more often than
that, so the plan errs towards more items.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from judge_tui.analysis.report.anytime import DECIDED, anytime_check
from judge_tui.analysis.targets import TargetCheck, check
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats import intervals as iv
from judge_tui.stats.agreement import Undefined
from judge_tui.study.plan import PLAN_LIMIT, Expected, TargetPlan, binary_table, graded_table

# Studies drawn at each size, and their seed.
RUNS = 500
SEED = 20261204
# Sizes are tried growing by this factor until the chance is reached, then the first size that reaches it is
# found between the last two, to within this share of it.
GROWTH = 1.5
NARROW = 0.005


@dataclass(frozen=True)
class AtSize:
    """What a study of ``items`` items decides: each target alone (read once at the end), every target
    together, and every target by the stop notice's rule valid at any time."""

    items: int
    alone: tuple[tuple[str, float], ...]  # (goal, chance that it is decided)
    together: float
    anytime: float


@dataclass(frozen=True)
class WholeStudy:
    """Items for every target decided together at the chance (``together``: read once at the end; ``anytime``:
    by the stop notice), None beyond the plan's limit; and the chances at those sizes and at ``asked``."""

    chance: float
    together: int | None
    anytime: int | None
    at_together: AtSize | None
    at_anytime: AtSize | None
    at_asked: AtSize | None

    def to_dict(self) -> dict[str, Any]:
        def size(a: AtSize | None) -> dict[str, Any] | None:
            return None if a is None else {"items": a.items, "each_target_alone": dict(a.alone),
                                           "every_target_together": a.together, "stop_notice": a.anytime}
        return {"chance": self.chance, "items_every_target_together": self.together,
                "items_stop_notice": self.anytime, "runs": RUNS,
                "at_items_every_target_together": size(self.at_together),
                "at_items_stop_notice": size(self.at_anytime), "at_study_items": size(self.at_asked)}


# One drawn study's outcome: its weight (how many of the runs drew it) and, for each target, whether it is
# decided read once at the end and by the rule valid at any time.
Outcome = tuple[int, dict[str, tuple[bool, bool]]]


def _decided(c: TargetCheck, settings: AgreementSettings) -> tuple[bool, bool]:
    return c.decision in DECIDED, anytime_check(c, settings).decision in DECIDED


def _share_check(key: str, goal: str, hits: int, of: int, target: float, strict: bool,
                 settings: AgreementSettings, scope: str) -> TargetCheck:
    interval = iv.wilson(hits, of, settings.confidence) if of else Undefined("no item of the class")
    estimate = hits / of if of else Undefined("no item of the class")
    return check(key, goal, scope, estimate, interval, of, target, strict=strict, percent=key == "alignment",
                 settings=settings, share=(hits, of), plan=False)


def _kappa_check(table: np.ndarray, n: int, target: float, weights: iv.KappaWeights,
                 settings: AgreementSettings) -> TargetCheck:
    found = iv.kappa_standard_error(table, weights)
    estimate = found if isinstance(found, Undefined) else found[0]
    interval = iv.kappa_interval(table, weights, settings.confidence)
    return check("kappa", "κ", "all compared items", estimate, interval, n, target, settings=settings,
                 plan=False)


def _distinct(counts: np.ndarray) -> Iterator[tuple[np.ndarray, int]]:
    """Each distinct drawn table once, with how many runs drew it (a study repeats its tables often)."""
    found, times = np.unique(counts, axis=0, return_counts=True)
    yield from zip(found, (int(t) for t in times), strict=True)


def _pass_fail(expected: Expected, settings: AgreementSettings, n: int, rng: np.random.Generator) -> list[Outcome]:
    """Studies of n items drawn whole from the table of human × judge labels; every target decided as the
    report decides it (all items taken as test items)."""
    assert expected.tpr is not None and expected.tnr is not None and expected.fail_share is not None
    table = binary_table(expected.tpr, expected.tnr, expected.fail_share)
    t = settings
    shares: dict[tuple[str, int, int], tuple[bool, bool]] = {}  # many tables share a class's counts

    def share(key: str, hits: int, of: int) -> tuple[bool, bool]:
        if (key, hits, of) not in shares:
            if key == "alignment":
                c = _share_check(key, key, hits, of, t.alignment_well_calibrated, False, t, "all compared items")
            else:
                c = _share_check(key, key.upper(), hits, of, t.tpr_tnr_target, True, t, "test split")
            shares[key, hits, of] = _decided(c, t)
        return shares[key, hits, of]

    out: list[Outcome] = []
    for drawn, weight in _distinct(rng.multinomial(n, table.ravel(), size=RUNS)):
        true_fail, false_pass, false_fail, true_pass = (int(v) for v in drawn)
        out.append((weight, {
            "tpr": share("tpr", true_pass, true_pass + false_fail),
            "tnr": share("tnr", true_fail, true_fail + false_pass),
            "kappa": _decided(_kappa_check(drawn.reshape(2, 2), n, t.kappa_substantial, None, t), t),
            "alignment": share("alignment", true_fail + true_pass, n),
        }))
    return out


def _graded_one(key: str, expected: Expected, settings: AgreementSettings, n: int,
                rng: np.random.Generator) -> list[tuple[int, tuple[bool, bool]]]:
    """Studies of n items for one graded target, drawn from its own model."""
    t = settings
    out: list[tuple[int, tuple[bool, bool]]] = []
    if key in ("kappa", "weighted_kappa"):
        weighted = key == "weighted_kappa"
        value = expected.weighted_kappa if weighted else expected.kappa
        assert value is not None
        table = graded_table(value, expected.levels, weighted)
        for drawn, weight in _distinct(rng.multinomial(n, table.ravel(), size=RUNS)):
            c = _kappa_check(drawn.reshape(table.shape), n, t.kappa_substantial, "quadratic" if weighted else None, t)
            out.append((weight, _decided(c, t)))
    elif key == "pearson":
        assert expected.r is not None
        cov = [[1.0, expected.r], [expected.r, 1.0]]
        for _ in range(RUNS):
            x, y = rng.multivariate_normal([0.0, 0.0], cov, n).T
            r = float(np.corrcoef(x, y)[0, 1])
            c = check("pearson", "r", "all compared items", r, iv.fisher_z(r, n, t.confidence), n, t.pearson_target,
                      settings=t, correlation=True, plan=False)
            out.append((1, _decided(c, t)))
    else:
        assert expected.alignment is not None
        hits, times = np.unique(rng.binomial(n, expected.alignment, size=RUNS), return_counts=True)
        for h, weight in zip(hits, times, strict=True):
            c = _share_check("alignment", "alignment", int(h), n, t.alignment_well_calibrated, False, t,
                             "all compared items")
            out.append((int(weight), _decided(c, t)))
    return out


def at_size(plans: list[TargetPlan], expected: Expected, settings: AgreementSettings, n: int,
            seed: int | None = None) -> AtSize:
    """Studies of n items drawn from the expected values: the share in which each target, every target read
    once at the end, and every target by the rule valid at any time, is decided (``seed``: SEED unless given,
    so the same question gets the same answer, and neighbouring sizes draw alike, which keeps the chance
    from jumping between them by chance alone)."""
    rng = np.random.default_rng(SEED if seed is None else seed)
    goals = {p.key: p.goal for p in plans}
    if expected.fail_share is not None:
        outcomes = _pass_fail(expected, settings, n, rng)
        alone = {key: sum(w for w, d in outcomes if d[key][0]) / RUNS for key in goals}
        together = sum(w for w, d in outcomes if all(d[key][0] for key in goals)) / RUNS
        anytime = sum(w for w, d in outcomes if all(d[key][1] for key in goals)) / RUNS
    else:
        alone, together, anytime = {}, 1.0, 1.0
        for key in goals:
            found = _graded_one(key, expected, settings, n, rng)
            alone[key] = sum(w for w, d in found if d[0]) / RUNS
            together *= alone[key]
            anytime *= sum(w for w, d in found if d[1]) / RUNS
    return AtSize(n, tuple((goals[key], alone[key]) for key in goals), together, anytime)


def _first_size(start: int, chance_of: Callable[[int], float], goal: float) -> int | None:
    """The first size from ``start`` (a size that cannot do better than needed) whose drawn studies reach
    ``goal``: grown by GROWTH until one reaches it, then narrowed by interpolating the chance on a logit scale
    against the log of the size, to within NARROW of the size (or a single item)."""
    low, high = start - 1, start
    c_low, c_high = 0.0, chance_of(high)
    while c_high < goal:
        if high >= PLAN_LIMIT:
            return None
        low, c_low = high, c_high
        high = min(PLAN_LIMIT, math.ceil(high * GROWTH))
        c_high = chance_of(high)
    while high - low > max(1, NARROW * high):
        middle = _between(low, c_low, high, c_high, goal)
        c_middle = chance_of(middle)
        if c_middle >= goal:
            high, c_high = middle, c_middle
        else:
            low, c_low = middle, c_middle
    return high


def _between(low: int, c_low: float, high: int, c_high: float, goal: float) -> int:
    """Where the chance crosses ``goal`` between two sizes, read on a logit scale against the log of the size
    (kept strictly inside, and halfway when the ends say nothing)."""
    def logit(p: float) -> float:
        p = min(max(p, 0.5 / RUNS), 1 - 0.5 / RUNS)
        return math.log(p / (1 - p))
    if c_low <= 0.0 or c_high <= c_low:
        guess = (low + high) / 2
    else:
        x0, x1 = math.log(low), math.log(high)
        guess = math.exp(x0 + (logit(goal) - logit(c_low)) * (x1 - x0) / (logit(c_high) - logit(c_low)))
    return min(high - 1, max(low + 1, round(guess)))


def plan_whole(plans: list[TargetPlan], expected: Expected, settings: AgreementSettings, *, chance: float,
               items_each: int | None, asked: int | None = None) -> WholeStudy:
    """The whole study planned from the per-target plans (``items_each``: the items that give every target its
    chance on its own, where the search starts)."""
    if not plans or items_each is None:
        at_asked = None if asked is None or not plans else at_size(plans, expected, settings, asked)
        return WholeStudy(chance, None, None, None, None, at_asked)
    cache: dict[int, AtSize] = {}

    def measured(n: int) -> AtSize:
        if n not in cache:
            cache[n] = at_size(plans, expected, settings, n)
        return cache[n]

    together = _first_size(items_each, lambda n: measured(n).together, chance)
    anytime = None if together is None else _first_size(together, lambda n: measured(n).anytime, chance)
    at_asked = None if asked is None else measured(asked)
    return WholeStudy(chance, together, anytime, None if together is None else measured(together),
                      None if anytime is None else measured(anytime), at_asked)
