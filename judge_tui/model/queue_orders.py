"""Queue orders: the order in which the rating screen serves a reviewer's items.

* import: the items' import order (no stored order);
* random: a seeded random permutation, one per reviewer and rubric;
* balanced: stratified by the judge's verdict. Strata are interleaved at random (each next item comes from a
  stratum chosen with equal chance among those not yet used up), items within a stratum in random order, so
  rare verdicts reach the expert early and an item's position says nothing about its verdict. Items the judge
  has not judged wait in a stratum of their own until a judgment arrives.

Pure functions of (items, strata, seed): the same inputs always give the same order, so an order can be
rebuilt exactly, and a stored order never changes unless its inputs do.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence

IMPORT, RANDOM, BALANCED = "import", "random", "balanced"
ORDERS = (IMPORT, RANDOM, BALANCED)
ASSIGNED = "assigned"  # an assignment plan's queue (judge-tui assign), which wins over queue_order
UNJUDGED = "unjudged"


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


def balanced_order(strata: Mapping[str, str], seed: int) -> list[tuple[str, str]]:
    """[(item id, stratum)] in balanced order: strata {item id: stratum}."""
    rng = random.Random(seed)
    members: dict[str, list[str]] = {}
    for item_id in sorted(strata):
        members.setdefault(strata[item_id], []).append(item_id)
    for ids in members.values():
        rng.shuffle(ids)
    pools = {name: ids[::-1] for name, ids in sorted(members.items())}  # popped from the end
    order: list[tuple[str, str]] = []
    while pools:
        name = rng.choice(sorted(pools))
        order.append((pools[name].pop(), name))
        if not pools[name]:
            del pools[name]
    return order
