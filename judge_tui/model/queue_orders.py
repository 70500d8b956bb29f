"""Queue orders: the order in which the rating screen serves a reviewer's items.

* import: the items' import order (no stored order);
* random: a seeded random permutation, one per reviewer and rubric;
* balanced: stratified by the judge's verdict. Each next position's stratum is drawn at random, among the
  strata not yet used up, with the chances of the allocation (below); items within a stratum come in random
  order. Items the judge has not judged wait in a stratum of their own until a judgment arrives.

The allocation follows the uncertainty (Neyman allocation), not equal shares. The study's figures are shares
of the pool (TPR, TNR, the agreement of a graded rubric's overall label), each a ratio of stratum means; the
report weights each stratum by its known size in the pool (analysis/design.py), so the variance of a figure F
is, by the delta method, sum_h W_h² S_h² / (n_h B²), with W_h the stratum's share of the pool, S_h² the
variance within the stratum of (hit − F·counted), B the pool's mean of counted (the report's interval, for the
judge on items like these, adds the pool's own sampling of the strata's shares, the same whatever the
allocation, so it does not steer it). A target is decided when its
interval, about z·sqrt(Var_k) wide on each side, clears its threshold, so Var_k / d_k², with d_k the distance
of figure k from its threshold, is what the ratings needed to decide target k scale with; the study is
decided with its last target. The allocation therefore minimises the largest Var_k / d_k² (the binding
target), as the minimum of sum_k (Var_k / d_k²)^8, found by re-weighted Neyman allocations
(n_h ∝ W_h·sqrt(sum_k e_k S_hk² / (B_k² d_k²)), e_k each target's weight in the sum's gradient): the
targets TPR and TNR pull opposite ways, and a plain sum would serve the one already easy to decide, while a
target far from its threshold weighs little). Each stratum's outcomes are smoothed with one pseudo-item per
category an item can fall in (not counted, counted miss, counted hit): add-one rather than Jeffreys' ½,
which let a stratum whose first ratings showed no miss look nearly free of variance, so it was sampled even
less and an unlucky start went unchecked. d_k is floored at 0.02 (a figure on its threshold cannot take
everything) and every stratum with items left keeps at least MIN_SHARE of the draws and half its
proportional share (PROPORTIONAL_FLOOR, a defensive floor), so every stratum keeps being seen: without it, a
stratum whose first ratings showed no miss by luck was starved by an allocation that believed them, and a
study that stops at its first decision decided wrongly more often. On a skewed set (25% FAIL, judge TPR 0.97 / TNR 0.70) this draws about 11% of ratings from the
judge's FAILs: TPR alone would want ~90% there (the PASSes the judge failed hide there), TNR alone ~90% from
its PASSes (the FAILs it passed hide there), and TNR, far below its target, binds. Until ALLOCATE_EVERY
ratings are in, the draws are equal between strata (a pilot: the rare verdicts reach the expert early, and
each stratum's outcomes are known a little before they steer the allocation). Items the judge has not judged
keep an equal chance with each other stratum, as before: their verdict is unknown, so nothing says what
rating them would tell.

The blind rule holds: the allocation depends on the expert's own ratings against the judge's verdicts, but
nothing of it reaches a screen: no rater sees a stratum, a share or a figure, and since the stratum of each
position is drawn at random (not in blocks), an item's position says nothing about the judge's verdict.

Pure functions of (items, strata, seed, shares): the same inputs always give the same order, so an order can
be rebuilt exactly, and a stored order never changes unless its inputs do.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

IMPORT, RANDOM, BALANCED = "import", "random", "balanced"
ORDERS = (IMPORT, RANDOM, BALANCED)
ASSIGNED = "assigned"  # an assignment plan's queue (judge-tui assign), which wins over queue_order
UNJUDGED = "unjudged"
ALLOCATE_EVERY = 10  # a balanced order's allocation is worked out again after every this many ratings
MIN_SHARE = 0.05  # the least chance each stratum with items left has of the next position
MIN_DISTANCE = 0.02  # a figure's distance from its threshold, at least (see the module's docstring)
PROPORTIONAL_FLOOR = 0.5  # every stratum keeps at least this part of its proportional share
_EMPHASIS = 8  # the allocation minimises sum_k (Var_k / d_k²)^8, close to the largest one's


def default_seed(reviewer: str, rubric: str) -> int:
    """A reviewer's seed for a rubric: stable across machines, different between reviewers."""
    return int.from_bytes(hashlib.sha256(f"{reviewer}\0{rubric}".encode()).digest()[:4], "big")


def stratum_of(verdict: str | None, overall: float | None, points: Sequence[float] = ()) -> str:
    """The judge's verdict (PASS/FAIL, or a graded rubric's verdict), else its overall score's band (the
    nearest scale point, else the nearest whole number), else UNJUDGED."""
    if verdict:
        return verdict
    if overall is not None:
        band = min(points, key=lambda p: (abs(p - overall), p)) if points else round(overall)
        return f"overall {band:g}"
    return UNJUDGED


def random_order(item_ids: Sequence[str], seed: int) -> list[str]:
    order = sorted(item_ids)  # independent of the order the items were read in
    random.Random(seed).shuffle(order)
    return order


@dataclass(frozen=True)
class Question:
    """A target the allocation works toward: a share of the pool, sum(hits) / sum(counted), and its threshold;
    outcomes holds the (hits, counted) of each rated item, by stratum."""

    threshold: float
    outcomes: Mapping[str, Sequence[tuple[float, float]]]
    # The (hits, counted) an item of a stratum can have, where fewer than all three (not counted, miss, hit)
    # can happen: a TPR item the judge passed is a hit or not counted, never a miss.
    categories: Mapping[str, Sequence[tuple[float, float]]] | None = None

    def moments(self, stratum: str, most: float) -> list[tuple[float, float, float]]:
        """[(weight, hits, counted)]: the rated items, plus one pseudo-item on each category an item can fall in."""
        possible = (self.categories or {}).get(stratum) or [(0.0, 0.0), (0.0, most), (most, most)]
        return [(1.0, h, c) for h, c in possible] + [(1.0, h, c) for h, c in self.outcomes.get(stratum, ())]


# The (hits, counted) an item can have in each PASS/FAIL stratum (the judge's verdict), per share.
PASS_FAIL_CATEGORIES: dict[str, dict[str, list[tuple[float, float]]]] = {
    "tpr": {"PASS": [(0.0, 0.0), (1.0, 1.0)], "FAIL": [(0.0, 0.0), (0.0, 1.0)]},
    "tnr": {"PASS": [(0.0, 0.0), (0.0, 1.0)], "FAIL": [(0.0, 0.0), (1.0, 1.0)]},
    "accuracy": {"PASS": [(0.0, 1.0), (1.0, 1.0)], "FAIL": [(0.0, 1.0), (1.0, 1.0)]},
}


def pass_fail_questions(rated: Mapping[str, tuple[str, bool]], target: float) -> list[Question]:
    """TPR and TNR above target, from rated {item: (stratum, the expert said PASS)}; strata PASS and FAIL are
    the judge's verdicts (an item of another stratum, unjudged, counts as neither)."""
    tpr: dict[str, list[tuple[float, float]]] = {}
    tnr: dict[str, list[tuple[float, float]]] = {}
    for stratum, human_pass in rated.values():
        judge_pass = stratum == "PASS"
        tpr.setdefault(stratum, []).append((float(human_pass and judge_pass), float(human_pass)))
        tnr.setdefault(stratum, []).append((float(not human_pass and not judge_pass), float(not human_pass)))
    return [Question(target, tpr, PASS_FAIL_CATEGORIES["tpr"]), Question(target, tnr, PASS_FAIL_CATEGORIES["tnr"])]


def allocation_shares(pool: Mapping[str, int], left: Mapping[str, int], questions: Sequence[Question],
                      min_share: float = MIN_SHARE, proportional_floor: float = PROPORTIONAL_FLOOR
                      ) -> dict[str, float]:
    """{stratum: chance of the next position} over the strata with items left (see the module's docstring).
    pool: items per stratum in the whole pool; left: items per stratum not yet in the order's rated part."""
    if left.get(UNJUDGED, 0) > 0:  # an equal chance, the rest allocated between the judged strata
        judged = allocation_shares({n: c for n, c in pool.items() if n != UNJUDGED},
                                   {n: c for n, c in left.items() if n != UNJUDGED}, questions, min_share,
                                   proportional_floor)
        unjudged = 1.0 / (len(judged) + 1)
        return {**{n: share * (1.0 - unjudged) for n, share in judged.items()}, UNJUDGED: unjudged}
    open_strata = sorted(name for name, count in left.items() if count > 0)
    if not open_strata:
        return {}
    total = sum(pool.values()) or 1
    # need[k][h]: stratum h's part of Var_k / d_k² per unit share of the draws, W_h² S_hk² / (B_k² d_k²).
    need: list[dict[str, float]] = []
    for question in questions:
        most = max([1.0, *(c for rows in question.outcomes.values() for _, c in rows)])
        moments = {name: question.moments(name, most) for name in {*pool, *open_strata}}
        means = {}
        for name, rows in moments.items():
            mass = sum(w for w, _, _ in rows)
            means[name] = (sum(w * h for w, h, _ in rows) / mass, sum(w * c for w, _, c in rows) / mass)
        base = sum(pool[n] / total * means[n][1] for n in pool)
        if base <= 0:
            continue
        figure = sum(pool[n] / total * means[n][0] for n in pool) / base
        distance = max(abs(figure - question.threshold), MIN_DISTANCE)
        parts = {}
        for name in open_strata:
            rows = moments[name]
            mass = sum(w for w, _, _ in rows)
            residuals = [(w, h - figure * c) for w, h, c in rows]
            mean = sum(w * r for w, r in residuals) / mass
            spread = sum(w * (r - mean) ** 2 for w, r in residuals) / mass
            parts[name] = (pool.get(name, left[name]) / total) ** 2 * spread / (base * distance) ** 2
        need.append(parts)
    shares = dict.fromkeys(open_strata, 1.0 / len(open_strata))
    emphasis = [1.0] * len(need)
    for _ in range(30 if need else 0):
        score = {h: math.sqrt(sum(e * parts[h] for e, parts in zip(emphasis, need, strict=True)))
                 for h in open_strata}
        mass = sum(score.values())
        if mass <= 0:
            break
        shares = {h: max(score[h] / mass, 1e-9) for h in open_strata}
        burden = [sum(parts[h] / shares[h] for h in open_strata) for parts in need]
        worst = max(burden)
        emphasis = [(b / worst) ** (_EMPHASIS - 1) for b in burden]
    # Each stratum keeps at least half its proportional share (and MIN_SHARE): a defensive floor, so a stratum
    # whose first ratings looked settled by luck is still sampled enough to show otherwise.
    open_pool = sum(pool.get(name, left[name]) for name in open_strata) or 1
    floor = {name: max(min(min_share, 1.0 / len(open_strata)),
                       proportional_floor * pool.get(name, left[name]) / open_pool) for name in open_strata}
    fixed: dict[str, float] = {}
    while True:  # strata below their floor are held at it; the others share the rest in proportion
        free = [name for name in open_strata if name not in fixed]
        rest = 1.0 - sum(fixed.values())
        mass = sum(shares[name] for name in free)
        scaled = {name: shares[name] / mass * rest for name in free} if mass > 0 else {}
        below = [name for name in free if scaled[name] < floor[name]]
        if not below or len(below) == len(free):
            return {**fixed, **scaled} if not below else {**fixed, **{n: rest / len(free) for n in free}}
        fixed.update((name, floor[name]) for name in below)


def balanced_order(strata: Mapping[str, str], seed: int, shares: Mapping[str, float] | None = None
                   ) -> list[tuple[str, str]]:
    """[(item id, stratum)] in balanced order: strata {item id: stratum}. Each position's stratum is drawn
    with the chances `shares` (equal without) among the strata not yet used up."""
    rng = random.Random(seed)
    members: dict[str, list[str]] = {}
    for item_id in sorted(strata):
        members.setdefault(strata[item_id], []).append(item_id)
    for ids in members.values():
        rng.shuffle(ids)
    pools = {name: ids[::-1] for name, ids in sorted(members.items())}  # popped from the end
    order: list[tuple[str, str]] = []
    while pools:
        names = sorted(pools)
        if shares is None:
            name = rng.choice(names)
        else:  # a stratum without a share (one that joined since) gets the least one
            name = rng.choices(names, weights=[max(shares.get(n, 0.0), MIN_SHARE) for n in names])[0]
        order.append((pools[name].pop(), name))
        if not pools[name]:
            del pools[name]
    return order
