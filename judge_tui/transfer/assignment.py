"""`judge-tui assign`: who rates which items, with a share rated by several experts for agreement.

A share of the plan's items (the overlap, 20% by default) goes to every expert, or to K of them with
--overlap-raters K; every other item to one expert. The plan balances each expert's items over the strata of
the items (task type, CEFR level and split, as far as the items carry them): item by item, within a stratum,
the expert holding the fewest of that stratum (then the fewest items) takes it, so every expert sees the same
mix. Ties, the overlap sample and the order of each queue come from random generators seeded with --seed and
the rubric, so the same items, experts and seed give the same plan.

Each expert's queue spreads the overlap items through the session (not bunched at the end), in one order
shared by all experts, so that an early stop still leaves items rated by several of them.

Re-assigning never moves rated work: an item an expert of the plan has rated stays with that expert (as an
overlap item when two or more have). Ratings by people outside the plan (labels a practitioner brought with
`import-ratings`, an expert no longer in the team) are one more rater on their items: those items are planned
like any other, so the plan's experts overlap with each other as asked and, on those items, with them too.
What the database does not hold yet (work on a laptop not merged back) cannot be known here.
"""

from __future__ import annotations

import math
import random
import uuid
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from judge_tui.formats.numbers import plural, share_text, word_for
from judge_tui.model.errors import UserError
from judge_tui.model.records import CONSENSUS_RATER, Item, reviewer_problem
from judge_tui.model.rubrics import Rubric
from judge_tui.store import CertificateTerms, Store, now
from judge_tui.transfer.splits import quotas

# The item properties a plan balances, when the rubric's items carry them.
BALANCE_FIELDS = ("task_type", "cefr_level", "split")
NONE = "(none)"


@dataclass(frozen=True)
class Options:
    rubric: str
    experts: tuple[str, ...]
    overlap: float = 0.2
    overlap_raters: int = 0  # 0: every expert
    per_expert: int | None = None
    seed: int = 0

    @property
    def raters_per_overlap_item(self) -> int:
        return self.overlap_raters or len(self.experts)


def parse_experts(text: str) -> tuple[str, ...]:
    """--experts ann,bob,cat: ids as the rating screen accepts them, each once."""
    experts = tuple(part.strip() for part in text.split(","))
    if not text.strip() or any(not e for e in experts):
        raise UserError(f"--experts {text!r}: give expert ids separated by commas, e.g. --experts ann,bob,cat")
    for expert in experts:
        problem = reviewer_problem(expert)
        if problem:
            raise UserError(f"--experts: {expert!r} cannot be an expert id: {problem}")
    repeated = sorted(e for e, n in Counter(experts).items() if n > 1)
    if repeated:
        raise UserError(f"--experts names {', '.join(repeated)} more than once; name each expert once")
    return experts


def check_options(options: Options) -> None:
    n = len(options.experts)
    if not math.isfinite(options.overlap) or not 0 <= options.overlap <= 1:
        raise UserError(f"--overlap must be a share between 0 and 1 (0.2 is 20% of the items), not {options.overlap}")
    if options.overlap > 0 and n < 2:
        raise UserError(f"an overlap needs at least two experts, and --experts names one ({options.experts[0]}); "
                        "add experts, or pass --overlap 0 to give every item to one expert")
    if options.overlap_raters:
        if options.overlap_raters < 2:
            raise UserError(f"--overlap-raters must be at least 2 (agreement needs two experts on an item), "
                            f"not {options.overlap_raters}")
        if options.overlap_raters > n:
            raise UserError(f"--overlap-raters {options.overlap_raters} is more than the {n} experts named in "
                            f"--experts; use at most {n}")
    if options.per_expert is not None and options.per_expert < 1:
        raise UserError(f"--per-expert must be at least 1, not {options.per_expert}")


@dataclass
class Assignment:
    options: Options
    balance: tuple[str, ...]
    queues: dict[str, list[tuple[str, bool]]]  # expert -> [(item, overlap)] in the order they rate them
    strata: dict[str, tuple[str, ...]]  # item -> its values of the balanced fields
    kept: dict[str, int] = field(default_factory=dict)  # expert -> rated items kept with them
    left_out: int = 0  # items not in the plan (--per-expert covers fewer than all)
    rated_by_others: dict[str, int] = field(default_factory=dict)  # rater outside the plan -> items they rated
    left_to_judge: int = 0  # items kept out of the plan: the judge is certified to decide them (assign --escalate)
    plan_id: str = ""
    number: int = 0

    @property
    def overlap_items(self) -> set[str]:
        return {item for queue in self.queues.values() for item, shared in queue if shared}

    @property
    def items(self) -> set[str]:
        return {item for queue in self.queues.values() for item, _shared in queue}

    def mix(self, expert: str) -> dict[str, dict[str, int]]:
        """Per balanced field, how many of the expert's items hold each value."""
        return {name: dict(sorted(Counter(self.strata[item][i] for item, _s in self.queues[expert]).items()))
                for i, name in enumerate(self.balance)}


def _half_up(value: float) -> int:
    return math.floor(value + 0.5 + 1e-9)


def _interleaved(groups: Mapping[tuple[str, ...], list[str]]) -> list[str]:
    """Items of several strata in one order where each stratum is spread evenly (a stratum of a third of the
    items takes about every third place)."""
    placed = [((k + 0.5) / len(members), stratum, item)
              for stratum, members in groups.items() for k, item in enumerate(members)]
    return [item for _place, _stratum, item in sorted(placed)]


def _sample(ids: Sequence[str], count: int, strata: Mapping[str, tuple[str, ...]], key: str) -> list[str]:
    """`count` of these items, each stratum in proportion to its size, shuffled within it; in interleaved order."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for item in ids:
        groups.setdefault(strata[item], []).append(item)
    ordered = sorted(groups)
    taken: dict[tuple[str, ...], list[str]] = {}
    for stratum, quota in zip(ordered, quotas(min(count, len(ids)), [len(groups[s]) for s in ordered]), strict=True):
        members = sorted(groups[stratum])
        random.Random(f"{key}/{'/'.join(stratum)}").shuffle(members)
        if quota:
            taken[stratum] = members[:quota]
    return _interleaved(taken)


def _spread(singles: list[str], shared: list[str]) -> list[tuple[str, bool]]:
    """One queue with the shared items at even intervals among the single ones."""
    total = len(singles) + len(shared)
    slots = {math.floor((j + 0.5) * total / len(shared)): item for j, item in enumerate(shared)} if shared else {}
    rest = iter(singles)
    return [(slots[k], True) if k in slots else (next(rest), False) for k in range(total)]


def plan_assignment(
    items: Sequence[tuple[str, tuple[str, ...]]], options: Options, *, balance: tuple[str, ...] = (),
    rated: Mapping[str, set[str]] | None = None,
) -> Assignment:
    """The plan for these items ((id, stratum) in import order): pure, so it can be checked without a database.

    `rated` ({item: human raters who rated it}) is the work the plan keeps where it is.
    """
    check_options(options)
    experts, k = options.experts, options.raters_per_overlap_item
    key = f"{options.seed}/{options.rubric}"
    strata = dict(items)
    rated = rated or {}
    kept: dict[str, set[str]] = {}  # item -> experts of the plan who rated it
    eligible: list[str] = []
    rated_by_others: Counter[str] = Counter()
    for item_id, _stratum in items:
        raters = rated.get(item_id, set())
        ours = raters & set(experts)
        rated_by_others.update(raters - ours)
        eligible.append(item_id)
        if ours:
            kept[item_id] = ours
    if not eligible:
        raise UserError(f"no item of rubric {options.rubric!r} to assign")
    total = len(eligible)
    if options.per_expert is None:
        covered = total
        slots = None
    else:
        # n experts x N items hold the single items once and the overlap items k times: the overlap is its share
        # of the C items that fill those slots, and the single items fill the slots the overlap leaves, so every
        # expert gets N items (where the pool has them).
        slots = len(experts) * options.per_expert
        covered = min(total, max(len(kept), math.floor(slots / (1 + options.overlap * (k - 1)))))
    already_shared = [i for i in eligible if len(kept.get(i, ())) >= 2]
    wanted = _half_up(options.overlap * (covered if slots is None or covered == total
                                         else slots / (1 + options.overlap * (k - 1))))
    if options.overlap > 0 and wanted == 0:
        raise UserError(
            f"a {share_text(options.overlap)} overlap of the {covered} items this plan covers is less than one item: "
            + (f"--per-expert {options.per_expert} is too small for the overlap; give each expert at least "
               f"{math.ceil((1 + options.overlap * (k - 1)) / (2 * options.overlap * len(experts)))} items"
               if options.per_expert is not None and covered < total else
               "raise --overlap, or pass --overlap 0"))
    shared_count = max(wanted, len(already_shared))
    unrated = [i for i in eligible if i not in kept]
    once = [i for i in eligible if len(kept.get(i, ())) == 1]
    shared = already_shared + _sample(unrated, shared_count - len(already_shared), strata, f"{key}/overlap")
    if len(shared) < shared_count:  # not enough unrated items: items one expert rated gain raters
        shared += _sample(once, shared_count - len(shared), strata, f"{key}/overlap-rated")
    shared_set = set(shared)
    singles_rated = [i for i in once if i not in shared_set]
    free = [i for i in unrated if i not in shared_set]
    if slots is None:
        room = covered - len(shared) - len(singles_rated)
    else:  # the slots the overlap and the rated single items leave
        room = slots - sum(max(k, len(kept.get(i, ()))) for i in shared) - len(singles_rated)
    room = max(0, room)
    singles = _sample(free, min(room, len(free)), strata, f"{key}/single")

    rank = {e: r for r, e in enumerate(random.Random(f"{key}/experts").sample(list(experts), len(experts)))}
    load = dict.fromkeys(experts, 0)
    shared_load = dict.fromkeys(experts, 0)
    in_stratum: Counter[tuple[str, tuple[str, ...]]] = Counter()
    holders: dict[str, set[str]] = {}

    def give(expert: str, item_id: str) -> None:
        holders.setdefault(item_id, set()).add(expert)
        load[expert] += 1
        shared_load[expert] += item_id in shared_set
        in_stratum[(expert, strata[item_id])] += 1

    for item_id in eligible:
        for expert in sorted(kept.get(item_id, ())):
            if item_id in shared_set or item_id in singles_rated:
                give(expert, item_id)
    for item_id in shared:
        others = [e for e in experts if e not in holders.get(item_id, set())]
        others.sort(key=lambda e: (in_stratum[(e, strata[item_id])], shared_load[e], load[e], rank[e]))
        for expert in others[: max(0, k - len(holders.get(item_id, ())))]:
            give(expert, item_id)
    for item_id in singles:
        give(min(experts, key=lambda e: (in_stratum[(e, strata[item_id])], load[e], rank[e])), item_id)

    queues: dict[str, list[tuple[str, bool]]] = {}
    position_in_import = {item_id: n for n, (item_id, _s) in enumerate(items)}
    for expert in experts:
        mine = {i for i, who in holders.items() if expert in who}
        done = sorted((i for i in mine if expert in kept.get(i, ())), key=position_in_import.__getitem__)
        queues[expert] = [(i, i in shared_set) for i in done] + _spread(
            [i for i in singles if i in mine and i not in done],
            [i for i in shared if i in mine and i not in done])
    return Assignment(options, balance, queues, {i: strata[i] for i in eligible},
                      kept={e: sum(e in who for who in kept.values()) for e in experts},
                      left_out=total - len(shared) - len(singles_rated) - len(singles),
                      rated_by_others=dict(sorted(rated_by_others.items())))


def balance_fields(store: Store, rubric: Rubric) -> tuple[str, ...]:
    """The balanced fields the rubric's items carry (task type, CEFR level, split)."""
    present = []
    for name in BALANCE_FIELDS:
        if name in ("task_type", "split"):
            if store.item_column_present(rubric.id, name) or (
                    name == "task_type" and rubric.task_type_field
                    and store.item_fields_present(rubric.id, rubric.task_type_field)):
                present.append(name)
        elif store.item_fields_present(rubric.id, name):
            present.append(name)
    return tuple(present)


def _stratum(item: Item, rubric: Rubric, balance: tuple[str, ...]) -> tuple[str, ...]:
    values = []
    for name in balance:
        if name == "task_type":
            value = item.task_type or rubric.task_type_of(item.fields)
        elif name == "split":
            value = item.split
        else:
            value = item.fields.get(name)
        values.append(NONE if value in (None, "") else str(value))
    return tuple(values)


def _later_than(stamp: str, earlier: str | None) -> str:
    """Now, or a millisecond after the newest plan if the clock has not moved on, so the new plan is the newest."""
    if earlier is None or stamp > earlier:
        return stamp
    return (datetime.fromisoformat(earlier) + timedelta(milliseconds=1)).isoformat(timespec="milliseconds")


def assign(store: Store, rubric: Rubric, options: Options, *, left_to_judge: Collection[str] = (),
           certificate: CertificateTerms | None = None) -> Assignment:
    """Plan the assignment of the rubric's items and store it as the plan in force. ``left_to_judge``: items
    kept out of the plan because the judge is certified to decide them (`analysis.certify`); the experts' queues
    then hold only the items it leaves to them. ``certificate``: its terms, recorded with the plan and those
    items marked as decided by the judge; without one, an earlier certificate and its marks are removed (every
    item is the experts' again)."""
    if not store.count_items(rubric.id):
        raise UserError(f"no items of rubric {rubric.id!r} in {store.path}; import some first "
                        f"(judge-tui import FILE --rubric {rubric.id})")
    balance = balance_fields(store, rubric)
    every = [(item.id, _stratum(item, rubric, balance)) for item in store.iter_items(rubric.id)]
    items = [(item_id, stratum) for item_id, stratum in every if item_id not in left_to_judge]
    with store.transaction():
        rated = {item: raters - {CONSENSUS_RATER} for item, raters in store.experts_by_item(rubric.id).items()}
        plan = plan_assignment(items, options, balance=balance, rated={i: r for i, r in rated.items() if r})
        current = store.current_plan(rubric.id)
        plan.plan_id = uuid.uuid4().hex[:16]
        plan.left_to_judge = len(every) - len(items)
        created = _later_than(now(), current["created_at"] if current else None)
        store.save_assignment(
            {"id": plan.plan_id, "rubric": rubric.id, "experts": options.experts, "overlap": options.overlap,
             "overlap_raters": options.raters_per_overlap_item, "per_expert": options.per_expert,
             "seed": options.seed, "balance": balance,
             "created_at": created},
            [(expert, item, position, shared) for expert, queue in plan.queues.items()
             for position, (item, shared) in enumerate(queue, start=1)])
        plan.number = (current["number"] + 1) if current else 1
        store.record_certificate(
            rubric.id, replace(certificate, plan_id=plan.plan_id, created_at=created) if certificate else None,
            left_to_judge if certificate else ())
    return plan


# --------------------------------------------------------------------------- what the command prints


def plan_summary(plan: Assignment) -> dict[str, Any]:
    o = plan.options
    return {
        "rubric": o.rubric, "plan": plan.plan_id, "number": plan.number, "seed": o.seed,
        "overlap": o.overlap, "overlap_raters": o.raters_per_overlap_item, "per_expert": o.per_expert,
        "items_in_plan": len(plan.items), "overlap_items": len(plan.overlap_items),
        "left_out": plan.left_out, "left_to_judge": plan.left_to_judge, "rated_by_others": plan.rated_by_others, "balanced_by": list(plan.balance),
        "experts": [{"expert": e, "items": len(q), "overlap_items": sum(s for _i, s in q),
                     "kept_rated": plan.kept.get(e, 0), "mix": plan.mix(e)} for e, q in plan.queues.items()],
    }


def format_summary(summary: dict[str, Any]) -> str:
    who = ("every expert" if summary["overlap_raters"] == len(summary["experts"])
           else f"{summary['overlap_raters']} experts each")
    lines = [f"rubric {summary['rubric']}: assignment plan {summary['number']} (seed {summary['seed']}): "
             f"{summary['items_in_plan']} items, {summary['overlap_items']} of them rated by {who} "
             f"({share_text(summary['overlap'])} overlap), the rest by one expert each."]
    width = max(len("expert"), *(len(e["expert"]) for e in summary["experts"]))
    lines.append(f"  {'expert'.ljust(width)}  {'items':>6} {'overlap':>7} {'kept':>5}  mix")
    for e in summary["experts"]:
        mix = "; ".join(", ".join(f"{value} {n}" for value, n in values.items())
                        for values in e["mix"].values()) or "—"
        lines.append(f"  {e['expert'].ljust(width)}  {e['items']:>6} {e['overlap_items']:>7} {e['kept_rated']:>5}  "
                     f"{mix}")
    if summary["balanced_by"]:
        lines.append(f"  balanced by {', '.join(summary['balanced_by'])}")
    kept = sum(e["kept_rated"] for e in summary["experts"])
    if kept:
        lines.append(f"  kept: {plural(kept, 'rated item')} {word_for(kept, 'stays', 'stay')} with the experts who"
                     f" rated {word_for(kept, 'it', 'them')} (kept column); work not merged into this database yet is"
                     " not known here")
    if summary["rated_by_others"]:
        others = ", ".join(f"{rater} ({n} items)" for rater, n in summary["rated_by_others"].items())
        lines.append(f"  also rated by raters outside --experts: {others}; the plan's experts are compared "
                     "with them on those items too")
    if summary["left_to_judge"]:
        lines.append(f"  left to the judge: {plural(summary['left_to_judge'], 'item')} it is certified to decide,"
                     " kept out of the experts' queues")
    if summary["left_out"]:
        lines.append(f"  left out: {plural(summary['left_out'], 'item')} beyond --per-expert {summary['per_expert']}")
    lines.append("  Give each expert their bundle: judge-tui export --bundle --for EXPERT -o EXPERT.bundle.db")
    return "\n".join(lines)
