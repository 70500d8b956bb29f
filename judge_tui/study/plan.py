"""`judge-tui plan`: before a study, how many items to label for an 80% chance of deciding each target.

The lead states what they expect of the judge (PASS/FAIL: TPR, TNR and the share of FAIL items; graded: r,
kappa, weighted kappa, alignment). Each expectation is taken as the judge's true value, items are drawn from
it, and each target is decided by the report's own rule (stats.assurance, with no data yet): the plan is the
fewest items whose chance of a decision reaches the goal, and, for a given study size, the chance that the
target ends undecided. TPR counts human PASS items and TNR human FAIL items: their plans are in items to
label, how many of them fall in the class binomial at the expected FAIL share.

Kappa's spread depends on the whole table, not on kappa alone: the binary table follows from TPR, TNR and the
FAIL share; a graded one is built with every level equally common and the misses spread evenly (weighted
kappa: misses one level away), the level of disagreement solved so that the table's kappa is the one expected.
Alignment is counted as one score per item, which is what it is on one dimension and errs on the side of more
items when several dimensions are pooled.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from judge_tui.formats.numbers import decimal_text, share_text, short_text
from judge_tui.model.errors import UserError
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats import assurance, decisions
from judge_tui.stats import intervals as iv
from judge_tui.stats.agreement import Undefined

# Past this many items a plan says "more than": the expected value is too close to the target to decide.
PLAN_LIMIT = 100_000
DEFAULT_LEVELS = 5
# Studies drawn to check a kappa plan against the report's own interval (±1.3 points at 80%), and their seed.
KAPPA_RUNS = 1000
KAPPA_SEED = 20261127


@dataclass(frozen=True)
class Expected:
    """What the lead expects of the judge; None where not given."""

    tpr: float | None = None
    tnr: float | None = None
    fail_share: float | None = None
    kappa: float | None = None
    weighted_kappa: float | None = None
    r: float | None = None
    alignment: float | None = None
    levels: int = DEFAULT_LEVELS


@dataclass(frozen=True)
class TargetPlan:
    key: str
    goal: str
    expected: float
    of_class: int | None  # items of the class (TPR: human PASS, TNR: human FAIL) expected among the items
    class_label: str | None
    items: int | None  # items to label; None beyond PLAN_LIMIT
    undecided_at: float | None  # chance of "undecided" at the study size asked about
    # How many of the items to label fall in each class at the expected shares: human PASS and FAIL for a
    # PASS/FAIL plan, each score level for a graded one (the plan takes the levels as equally common).
    classes: tuple[tuple[str, int], ...] = ()
    # The chance of a decision at ``items``, by the plan's own law: above the chance asked for where fewer items
    # cannot give it (a kappa interval needs 25 items or more; a share's chance rises in steps).
    chance_at_items: float | None = None


def _check(name: str, value: float | None, low: float, high: float) -> None:
    if value is None:
        return
    if not (low <= value <= high) or value != value:
        raise UserError(f"--{name.replace('_', '-')} {short_text(value)} is outside "
                        f"{short_text(low)}–{short_text(high)}: give the value you "
                        f"expect, e.g. --{name.replace('_', '-')} {0.9 if low >= 0 else 0.7}")


def validate(expected: Expected, items: int | None, chance: float) -> None:
    """Every value in range, and enough given to plan anything; a UserError naming the option otherwise."""
    for name in ("tpr", "tnr", "alignment"):
        _check(name, getattr(expected, name), 0.0, 1.0)
    _check("fail_share", expected.fail_share, 0.0, 1.0)
    for name in ("kappa", "weighted_kappa"):
        _check(name, getattr(expected, name), -1.0, 1.0)
    _check("pearson", expected.r, -1.0, 1.0)
    if expected.fail_share is not None and expected.fail_share in (0.0, 1.0):
        raise UserError(f"--fail-share {short_text(expected.fail_share)} leaves no human "
                        f"{'FAIL' if expected.fail_share == 0 else 'PASS'} item, so TPR or TNR could never be "
                        "measured: give the share of FAIL items you expect, e.g. --fail-share 0.3")
    binary = (expected.tpr, expected.tnr, expected.fail_share)
    if any(v is not None for v in binary) and not all(v is not None for v in binary):
        raise UserError("a PASS/FAIL plan needs all three of --tpr, --tnr and --fail-share (the share of items "
                        "the experts will FAIL), e.g. --tpr 0.95 --tnr 0.93 --fail-share 0.3")
    graded = (expected.kappa, expected.weighted_kappa, expected.r, expected.alignment)
    if all(v is None for v in (*binary, *graded)):
        raise UserError("nothing to plan: give what you expect of the judge, e.g. --tpr 0.95 --tnr 0.93 "
                        "--fail-share 0.3 (PASS/FAIL) or --kappa 0.7 --pearson 0.8 (graded)")
    if not 2 <= expected.levels <= 20:
        raise UserError(f"--levels {expected.levels} is outside 2–20: give the number of points of the scale")
    if items is not None and items < 1:
        raise UserError(f"--items {items} is not a study size: give a positive number of items")
    if not 0.5 <= chance < 1.0:
        raise UserError(f"--chance {short_text(chance)} is outside 0.5–0.99: give the chance of a decision you want, "
                        "e.g. --chance 0.8")


# A plan's items to label, the chance of "undecided" at the size asked about, and the chance of a decision at its
# items (None where there is no practical number or no size was asked about).
Planned = tuple[int | None, float | None, float | None]


def _fewest(figure: assurance.Figure, truth: float, chance: float) -> int | None:
    return assurance.items_for_power(figure, truth, chance, PLAN_LIMIT)


def _share_plan(truth: float, target: float, strict: bool, chance: float, settings: AgreementSettings,
                size: int | None, class_share: float | None = None) -> Planned:
    """A share planned in items to label; with ``class_share`` (TPR, TNR) the share counts only the items of
    its class, and how many of the labelled items fall in it is binomial at that share."""
    share = assurance.ShareFigure(0, 0, target, strict, settings.confidence)
    figure: assurance.Figure = (share if class_share is None
                                else assurance.ScopedShareFigure(share, 0, 0, known_share=class_share))
    needed = _fewest(figure, truth, chance)
    if needed is not None and class_share is None:
        # Wilson's interval on whole counts makes a share's chance rise and fall in steps: the search finds a
        # size that reaches the chance, the scan below it the fewest that does (alignment 0.956: 33, not 40).
        needed = next((m for m in range(max(1, needed // 2), needed) if figure.power(truth, m) >= chance), needed)
    return (needed, None if size is None else 1.0 - figure.power(truth, size),
            None if needed is None else figure.power(truth, needed))


def _normal_plan(truth: float, target: float, spread: float, chance: float, settings: AgreementSettings,
                 size: int | None, fisher: bool = False) -> Planned:
    figure = assurance.NormalFigure(truth, 0, target, spread, settings.confidence, fisher=fisher)
    needed = _fewest(figure, truth, chance)
    return (needed, None if size is None else 1.0 - figure.power(truth, size),
            None if needed is None else figure.power(truth, needed))


def _kappa_decided(table: np.ndarray, n: int, target: float, weights: iv.KappaWeights,
                   settings: AgreementSettings) -> float:
    """The share of ``KAPPA_RUNS`` studies of n items drawn from ``table`` whose kappa interval (the report's
    own function) decides the target; seeded by n, so the same question gets the same answer."""
    rng = np.random.default_rng(KAPPA_SEED + n)
    counts = rng.multinomial(n, table.ravel(), size=KAPPA_RUNS)
    # Each distinct table once (a study of a few dozen items repeats its tables often), counted as often as drawn.
    distinct, times = np.unique(counts, axis=0, return_counts=True)
    hits = 0
    for one, drawn in zip(distinct, times, strict=True):
        interval = iv.kappa_interval(one.reshape(table.shape), weights, settings.confidence)
        if not isinstance(interval, Undefined):
            hits += int(drawn) * (decisions.decide(interval, target, n=n) != "undecided")
    return hits / KAPPA_RUNS


def _kappa_plan(table: np.ndarray, target: float, weights: iv.KappaWeights, chance: float,
                settings: AgreementSettings, size: int | None) -> Planned:
    """Kappa's large-sample law gives a first answer; studies drawn from the table and decided by the report's
    kappa interval then raise it until they decide in ``chance`` of runs (at a dozen items the law promises
    more than the interval gives)."""
    found = iv.kappa_standard_error(table * 10_000.0, weights)
    assert not isinstance(found, Undefined)  # _spread has checked the table
    kappa = found[0]
    figure = assurance.NormalFigure(kappa, 0, target, _spread(table, weights), settings.confidence)
    needed = _fewest(figure, kappa, chance)
    if needed is not None:
        # fewer: no kappa interval
        needed = max(needed, decisions.MIN_ITEMS_TO_DECIDE, iv.kappa_min_items(table.shape[0], weights))
        while _kappa_decided(table, needed, target, weights, settings) < chance:
            needed = math.ceil(needed * 1.1)
            if needed > PLAN_LIMIT:
                needed = None
                break
    undecided = None if size is None else 1.0 - _kappa_decided(table, size, target, weights, settings)
    return needed, undecided, None if needed is None else _kappa_decided(table, needed, target, weights, settings)


def _spread(table: np.ndarray, weights: iv.KappaWeights) -> float:
    """n times the variance of kappa on a table of proportions (Fleiss, Cohen and Everitt), as the report's."""
    n = 10_000.0
    found = iv.kappa_standard_error(table * n, weights)
    if isinstance(found, Undefined):
        raise UserError(f"kappa cannot be planned here: {found.reason}")
    return n * found[1] ** 2


def binary_table(tpr: float, tnr: float, fail_share: float) -> np.ndarray:
    """Proportions (human FAIL/PASS rows, judge FAIL/PASS columns) of a judge with this TPR and TNR."""
    return np.array([[fail_share * tnr, fail_share * (1 - tnr)],
                     [(1 - fail_share) * (1 - tpr), (1 - fail_share) * tpr]])


def graded_table(kappa: float, levels: int, weighted: bool) -> np.ndarray:
    """A table of proportions over ``levels`` equally common levels whose (quadratic-weighted) kappa is
    ``kappa``: the misses spread evenly over the other levels, or for weighted kappa over the neighbours (over
    every level when a kappa that low needs misses further away)."""
    if weighted:
        try:
            return _table_with_misses(kappa, levels, True, neighbours=True)
        except UserError:
            pass
    return _table_with_misses(kappa, levels, weighted, neighbours=False)


def _table_with_misses(kappa: float, levels: int, weighted: bool, *, neighbours: bool) -> np.ndarray:
    k = levels
    if neighbours:
        misses = np.zeros((k, k))
        for i in range(k - 1):
            misses[i, i + 1] = misses[i + 1, i] = 1.0
    else:
        misses = 1.0 - np.eye(k)
    misses /= misses.sum()

    def table(missed: float) -> np.ndarray:
        return (1.0 - missed) * np.eye(k) / k + missed * misses

    def kappa_of(missed: float) -> float:
        found = iv.kappa_standard_error(table(missed) * 10_000.0, "quadratic" if weighted else None)
        assert not isinstance(found, Undefined)  # no table here has one category only
        return found[0]

    lowest = kappa_of(1.0)
    if kappa < lowest:
        which = "weighted kappa" if weighted else "kappa"
        raise UserError(f"a {which} of {short_text(kappa)} is below what judges that miss by "
                        f"{'one level' if neighbours else 'any level'} can reach on {k} levels "
                        f"({decimal_text(lowest, 2)}): "
                        f"expect a value from {decimal_text(lowest, 2)} up, or set --levels to your scale's points")
    low, high = 0.0, 1.0  # kappa falls as more is missed
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if kappa_of(middle) > kappa else (low, middle)
    return table((low + high) / 2)


def refuse_orderless_targets(expected: Expected, rubric: Rubric) -> None:
    """A UserError for a target that needs an order of the scale on a rubric of nominal categories: weighted
    kappa weighs a miss by how far apart two positions are, and Pearson r correlates positions; on nominal
    categories neither distance means anything, so the report never decides them."""
    if not rubric.scale.nominal:
        return
    asked = {option: figure for option, figure, value in (("--weighted-kappa", "a weighted kappa", expected.weighted_kappa),
                                                          ("--pearson", "a Pearson r", expected.r)) if value is not None}
    if asked:
        raise UserError(f"{' and '.join(asked)}: rubric {rubric.id!r} has nominal categories "
                        f"({', '.join(rubric.scale.categories)}), which have no order, so the report never decides "
                        f"{' or '.join(asked.values())} on them; plan --kappa (Cohen's) or --alignment (the share "
                        "in the same category) instead")


def plan_study(expected: Expected, settings: AgreementSettings, *, items: int | None = None,
               chance: float = assurance.ASSURANCE, rubric: Rubric | None = None) -> list[TargetPlan]:
    """Every target the report would decide on what was given, planned for ``chance`` of a decision (on
    ``rubric``'s scale when given: no target a nominal scale cannot have)."""
    validate(expected, items, chance)
    if rubric is not None:
        refuse_orderless_targets(expected, rubric)
    t = settings
    plans: list[TargetPlan] = []

    def add(key: str, goal: str, value: float, found: Planned, *,
            of_class: str | None = None, share: float | None = None) -> None:
        needed, undecided, at_needed = found
        if of_class is not None and share is not None:
            classes = _classes(needed, expected)
            plans.append(TargetPlan(key, goal, value, dict(classes).get(of_class), of_class, needed, undecided,
                                    classes, at_needed))
        else:
            plans.append(TargetPlan(key, goal, value, None, None, needed, undecided, _classes(needed, expected),
                                    at_needed))

    if expected.tpr is not None and expected.tnr is not None and expected.fail_share is not None:
        f = expected.fail_share
        for key, value, share, label in (("tpr", expected.tpr, 1 - f, "PASS"), ("tnr", expected.tnr, f, "FAIL")):
            add(key, f"{key.upper()} > {decimal_text(t.tpr_tnr_target, 2)}", value,
                _share_plan(value, t.tpr_tnr_target, True, chance, t, items, class_share=share),
                of_class=label, share=share)
        table = binary_table(expected.tpr, expected.tnr, f)
        kappa = float((np.trace(table) - (table.sum(1) @ table.sum(0))) / (1 - table.sum(1) @ table.sum(0)))
        add("kappa", f"κ ≥ {decimal_text(t.kappa_substantial, 2)}", kappa,
            _kappa_plan(table, t.kappa_substantial, None, chance, t, items))
        accuracy = float(np.trace(table))
        add("alignment", f"alignment ≥ {share_text(t.alignment_well_calibrated)}", accuracy,
            _share_plan(accuracy, t.alignment_well_calibrated, False, chance, t, items))
    if expected.kappa is not None:
        table = graded_table(expected.kappa, expected.levels, weighted=False)
        add("kappa", f"κ ≥ {decimal_text(t.kappa_substantial, 2)}", expected.kappa,
            _kappa_plan(table, t.kappa_substantial, None, chance, t, items))
    if expected.weighted_kappa is not None:
        table = graded_table(expected.weighted_kappa, expected.levels, weighted=True)
        add("weighted_kappa", f"weighted κ ≥ {decimal_text(t.kappa_substantial, 2)}", expected.weighted_kappa,
            _kappa_plan(table, t.kappa_substantial, "quadratic", chance, t, items))
    if expected.r is not None:
        add("pearson", f"r ≥ {decimal_text(t.pearson_target, 2)}", expected.r,
            _normal_plan(expected.r, t.pearson_target, 1.0, chance, t, items, fisher=True))
    if expected.alignment is not None:
        add("alignment", f"alignment ≥ {share_text(t.alignment_well_calibrated)}", expected.alignment,
            _share_plan(expected.alignment, t.alignment_well_calibrated, False, chance, t, items))
    return plans


def _classes(total: int | None, expected: Expected) -> tuple[tuple[str, int], ...]:
    """The ``total`` items to label split by class as expected: human FAIL and PASS when a FAIL share is given,
    else each of the scale's levels, taken as equally common, as the graded plans assume."""
    if total is None:
        return ()
    if expected.fail_share is not None:
        fail = round(total * expected.fail_share)
        return (("PASS", total - fail), ("FAIL", fail))
    levels = expected.levels
    each, extra = divmod(total, levels)
    return tuple((f"level {i + 1}", each + (1 if i < extra else 0)) for i in range(levels))


def items_for_all(plans: list[TargetPlan], fail_share: float | None) -> tuple[int | None, dict[str, int]]:
    """The items that give every target its chance on its own (the most any target needs), and how many of
    each class they are expected to hold."""
    if any(p.items is None for p in plans):
        return None, {}
    total = max(p.items for p in plans if p.items is not None)
    if fail_share is None:
        return total, {}
    fail = round(total * fail_share)
    return total, {"PASS": total - fail, "FAIL": fail}


def to_dict(plans: list[TargetPlan], expected: Expected, settings: AgreementSettings, items: int | None,
            chance: float) -> dict[str, Any]:
    total, classes = items_for_all(plans, expected.fail_share)
    return {
        "chance": chance, "confidence": settings.confidence, "study_items": items,
        "expected": {k: v for k, v in expected.__dict__.items() if v is not None},
        "targets": [{"target": p.key, "goal": p.goal, "expected": p.expected, "items": p.items,
                     "of_class": p.of_class, "class": p.class_label, "practical": p.items is not None,
                     "of_each_class": dict(p.classes), "chance_at_items": p.chance_at_items,
                     "undecided_at_study_items": p.undecided_at} for p in plans],
        "items_for_every_target": total, "of_each_class": classes,
    }
