"""Setting up a reviewer's queue order (model/queue_orders.py) in the store when a rating session opens.

A random or balanced order is built once per reviewer and rubric and stored, so quitting and coming back
never reshuffles it. It is rebuilt only for the items nobody has touched yet (no rating, no draft) and only
when its inputs changed: items imported since, a judgment arrived for an item of the unjudged stratum, or the
judge that stratifies a balanced order is another one now, or, for a balanced order, the reviewer has
ALLOCATE_EVERY more ratings than when it was last laid out (the allocation follows their ratings so far). The
items a reviewer worked on keep their place. That rebuild is one query of the reviewer's and the judge's
verdicts and one rewrite of the untouched rows (docs/benchmarks.md has its time on a 500-item pool).
"""

from __future__ import annotations

from collections import Counter

from judge_tui.analysis.judges import default_judge
from judge_tui.model import queue_orders as qo
from judge_tui.model.errors import UserError
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.store import Store
from judge_tui.store.queue_orders import QueueOrder


def check_order(kind: str) -> str:
    if kind not in qo.ORDERS:
        raise UserError(f"unknown queue order {kind!r}: choose one of {', '.join(qo.ORDERS)} "
                        "(rate --order, or queue_order in settings.json)")
    return kind


def stratifying_judge(store: Store, rubric_id: str) -> str | None:
    """The judge rater the report compares by default (the one that covers the rubric best)."""
    return default_judge(store, rubric_id)


def judge_strata(store: Store, rubric: Rubric, judge: str | None) -> dict[str, str]:
    """{item: stratum} of every item of the rubric by this judge's verdict (UNJUDGED without one)."""
    verdicts = store.judge_verdicts(judge, rubric.id) if judge else {}
    points = rubric.scale.points
    return {item_id: qo.stratum_of(*verdicts.get(item_id, (None, None)), points)
            for item_id in store.rubric_item_ids(rubric.id)}


def allocation_questions(store: Store, rubric: Rubric, reviewer: str, strata: dict[str, str],
                         settings: AgreementSettings) -> list[qo.Question]:
    """The targets a balanced order's allocation works toward, with the reviewer's own first ratings: TPR and
    TNR on a PASS/FAIL rubric; on a graded one the agreement of the reviewer's overall verdict or band with the
    judge's (the share kappa and alignment rest on), above the alignment target."""
    own = store.judge_verdicts(reviewer, rubric.id)  # a reviewer's first ratings: (verdict, overall) per item
    judged = {i: s for i, s in strata.items() if s != qo.UNJUDGED and i in own}
    if rubric.scale.binary:
        return qo.pass_fail_questions({i: (s, own[i][0] == "PASS") for i, s in judged.items()},
                                      settings.tpr_tnr_target)
    points = rubric.scale.points
    outcomes: dict[str, list[tuple[float, float]]] = {}
    for item_id, stratum in judged.items():
        outcomes.setdefault(stratum, []).append((float(qo.stratum_of(*own[item_id], points) == stratum), 1.0))
    either = [(0.0, 1.0), (1.0, 1.0)]
    return [qo.Question(settings.alignment_well_calibrated, outcomes, {s: either for s in set(strata.values())})]


def prepare_queue(store: Store, rubric: Rubric, reviewer: str, kind: str, *, assigned: bool = False,
                  seed: int | None = None, settings: AgreementSettings | None = None) -> QueueOrder:
    """Record and, for random or balanced, build or bring up to date the reviewer's order. With an
    assignment, its queue wins (recorded as ASSIGNED) and nothing is built."""
    rubric_id = rubric.id
    kind = qo.ASSIGNED if assigned else check_order(kind)
    stored = store.queue_order(reviewer, rubric_id)
    seed = seed if seed is not None else stored.seed if stored else qo.default_seed(reviewer, rubric_id)
    if kind in (qo.IMPORT, qo.ASSIGNED):
        order = QueueOrder(kind, seed, None)
        if stored is not None and stored != order:  # no row needed until another order has been used
            store.set_queue_order(reviewer, rubric_id, order)
        return order
    judge = stratifying_judge(store, rubric_id) if kind == qo.BALANCED else None
    order = QueueOrder(kind, seed, judge)
    entries = {item_id: stratum for item_id, _, stratum in store.queue_entries(reviewer, rubric_id)}
    strata = judge_strata(store, rubric, judge) if kind == qo.BALANCED else None
    items = set(strata) if strata is not None else set(store.rubric_item_ids(rubric_id))
    same_design = stored is not None and (stored.kind, stored.seed) == (kind, seed)
    keep = store.worked_on(reviewer, rubric_id) & set(entries) if same_design else set()
    untouched = set(entries) - keep
    joined = strata is not None and any(entries[i] == qo.UNJUDGED != strata.get(i, qo.UNJUDGED) for i in untouched)
    # A balanced order is laid out again after every ALLOCATE_EVERY ratings (a checkpoint: the same whether
    # the reviewer rated them in one session or several, or the app was killed in between).
    rated = len(store.rated_item_ids(reviewer, rubric_id)) if strata is not None and same_design else 0
    checkpoint = rated - rated % qo.ALLOCATE_EVERY
    due = strata is not None and checkpoint != store.allocated_with(reviewer, rubric_id)
    if same_design and stored == order and untouched == items - keep and not joined and not due:
        return order  # nothing changed: the stored order stands
    # The untouched items are laid out again after the kept ones, from a seed that depends on how many are kept.
    rest_seed = seed + len(keep)
    if strata is None:
        new_entries: list[tuple[str, str | None]] = [(i, None) for i in qo.random_order(sorted(items - keep), rest_seed)]
    else:
        rest = {i: s for i, s in strata.items() if i not in keep}
        shares = None  # the pilot: equal draws until the first checkpoint
        if checkpoint:
            pool = Counter(strata.values())
            left = Counter(rest.values())
            questions = allocation_questions(store, rubric, reviewer, strata, settings or AgreementSettings())
            shares = qo.allocation_shares(pool, left, questions)
        new_entries = list(qo.balanced_order(rest, rest_seed, shares))
    store.set_queue_order(reviewer, rubric_id, order, new_entries, keep=keep, allocated_with=checkpoint)
    return order
