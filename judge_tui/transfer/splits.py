"""`judge-tui split`: assign items to train / dev / test, stratified on the human label.

Strata are the verdict of each item's latest human rating (PASS / FAIL for a binary rubric); a rubric
without verdicts (cis's graded scores) is stratified on that rating's overall score instead, below the
middle of the scale or not, so that low and high scores reach every split. Items nobody has rated form a
stratum of their own. Within a stratum the ids are sorted and shuffled with a random
generator seeded from --seed, the rubric and the stratum, so the same database and seed give the same
split. Items already shown to a judge as few-shot examples stay in train, and items that have a split (set at
import or by an earlier split) keep it unless --reassign, so that a judge tuned on dev is never tested on what
it was tuned on; both count toward their split's share, and only items without a split are placed.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field

from judge_tui.formats.numbers import plural, short_text, word_for
from judge_tui.model.errors import UserError
from judge_tui.model.records import SPLITS
from judge_tui.store import Store

UNLABELLED = "(no label)"
MIDDLE = 0.5  # of the 0-1 scale every score is stored on
BY_VERDICT = "the verdict of each item's latest human rating"
BY_OVERALL = (f"the overall score of each item's latest human rating, below {short_text(MIDDLE)} or not "
              f"(the rubric gives no verdict)")


def quotas(total: int, weights: list[float]) -> list[int]:
    """Whole counts for total items in these proportions (largest remainder; ties go to the earlier split)."""
    weight_sum = sum(weights)
    if total == 0 or weight_sum <= 0:
        return [0] * len(weights)
    exact = [total * w / weight_sum for w in weights]
    counts = [math.floor(x) for x in exact]
    # Fractions rounded before comparing, so float noise (4 x 0.40 = 1.6000000000000001) cannot break a tie.
    order = sorted(range(len(weights)), key=lambda i: (-round(exact[i] - counts[i], 9), i))
    for i in order[: total - sum(counts)]:
        counts[i] += 1
    return counts


def check_proportions(train: float, dev: float, test: float) -> None:
    for name, value in (("--train", train), ("--dev", dev), ("--test", test)):
        if not math.isfinite(value) or value < 0 or value > 1:
            raise UserError(f"{name} must be a share between 0 and 1, not {value}")
    if not math.isclose(train + dev + test, 1.0, abs_tol=1e-6):
        raise UserError(f"--train, --dev and --test must add up to 1; they add up to {short_text(train + dev + test)}")


@dataclass
class SplitPlan:
    rubric: str
    assignment: dict[str, str] = field(default_factory=dict)
    counts: dict[str, dict[str, int]] = field(default_factory=dict)  # stratum -> split -> count
    pinned: int = 0  # few-shot examples kept in train
    chosen: int = 0  # of them, those chosen as examples (the rest the judge picked itself)
    kept: int = 0  # items keeping the split they were imported with
    moved_to_train: list[str] = field(default_factory=list)
    stratified_on: str = BY_VERDICT


def plan_split(
    ids: list[str], labels: dict[str, str], few_shot: set[str], *, seed: int, rubric: str,
    proportions: tuple[float, float, float], kept: Mapping[str, str] | None = None,
) -> SplitPlan:
    """The split of these items: pure, so it can be checked without a database.

    Few-shot examples stay in train, and items in `kept` ({id: split}) keep their split; both count toward
    their split's share, and the other items fill what is left (in proportion, where a split is overfull).
    """
    plan = SplitPlan(rubric=rubric)
    fixed = {i: s for i, s in (kept or {}).items() if i not in few_shot} | dict.fromkeys(few_shot, "train")
    strata: dict[str, list[str]] = {}
    for item_id in sorted(ids):
        strata.setdefault(labels.get(item_id, UNLABELLED), []).append(item_id)
    for stratum, members in sorted(strata.items()):
        free = [i for i in members if i not in fixed]
        random.Random(f"{seed}/{rubric}/{stratum}").shuffle(free)
        targets = quotas(len(members), list(proportions))
        taken = [sum(fixed.get(i) == s for i in members) for s in SPLITS]
        places = [max(0, target - n) for target, n in zip(targets, taken, strict=True)]
        if sum(places) != len(free):  # a split is overfull with fixed items: the rest share the other splits
            places = quotas(len(free), [w if t > n else 0.0 for w, t, n in zip(proportions, targets, taken,
                                                                                 strict=True)])
        order = [s for s, n in zip(SPLITS, places, strict=True) for _ in range(n)]
        plan.assignment.update({i: fixed[i] for i in members if i in fixed})
        plan.assignment.update(zip(free, order, strict=True))
        plan.counts[stratum] = {s: sum(plan.assignment[i] == s for i in members) for s in SPLITS}
        plan.pinned += sum(i in few_shot for i in members)
        plan.kept += sum(i in fixed and i not in few_shot for i in members)
    return plan


def human_strata(store: Store, rubric: str) -> tuple[dict[str, str], str]:
    """{item id: stratum} from the experts' latest ratings, and what the strata are: verdicts where the
    ratings have them, else overall scores on either side of the middle of the scale."""
    verdicts = store.latest_human_verdicts(rubric)
    if verdicts:
        return verdicts, BY_VERDICT
    overalls = store.latest_human_overalls(rubric)
    if not overalls:
        return {}, BY_VERDICT
    middle = short_text(MIDDLE)
    return ({item_id: f"overall below {middle}" if overall < MIDDLE else f"overall {middle} or more"
             for item_id, overall in overalls.items()}, BY_OVERALL)


def split_rubric(store: Store, rubric: str, *, seed: int, proportions: tuple[float, float, float],
                 reassign: bool = False) -> SplitPlan:
    """Plan and store the split of one rubric's items (keeping the splits items have, unless reassign)."""
    ids = store.item_ids(rubric)
    few_shot = store.few_shot_used_ids(rubric)
    before = {item.id: item.split for item in store.items_by_id(few_shot).values()}
    kept = {} if reassign else store.current_splits(rubric)
    labels, stratified_on = human_strata(store, rubric)
    plan = plan_split(ids, labels, few_shot, seed=seed, rubric=rubric, proportions=proportions, kept=kept)
    plan.stratified_on = stratified_on
    plan.moved_to_train = sorted(i for i, split in before.items() if split not in (None, "train"))
    plan.chosen = len(few_shot & store.chosen_example_ids(rubric))
    store.set_splits({i: s for i, s in plan.assignment.items() if kept.get(i) != s})
    return plan


def format_plan(plan: SplitPlan) -> str:
    width = max([len("stratum"), *(len(s) for s in plan.counts)])
    lines = [f"rubric {plan.rubric}: {len(plan.assignment)} items",
             f"  strata: {plan.stratified_on}; {UNLABELLED}: not rated by an expert yet",
             f"  {'stratum'.ljust(width)}  {'train':>6} {'dev':>6} {'test':>6} {'total':>6}"]
    totals = dict.fromkeys(SPLITS, 0)
    for stratum, counts in plan.counts.items():
        for s in SPLITS:
            totals[s] += counts[s]
        lines.append(f"  {stratum.ljust(width)}  " + " ".join(f"{counts[s]:>6}" for s in SPLITS)
                     + f" {sum(counts.values()):>6}")
    lines.append(f"  {'all'.ljust(width)}  " + " ".join(f"{totals[s]:>6}" for s in SPLITS)
                 + f" {sum(totals.values()):>6}")
    if plan.pinned:
        lines.append(f"  {few_shot_line(plan.pinned, plan.chosen)}")
    if plan.kept:
        lines.append(f"  {plural(plan.kept, 'item')} kept the split {word_for(plan.kept, 'it', 'they')} had"
                     " (--reassign splits every item afresh)")
    return "\n".join(lines)


def few_shot_line(shown: int, chosen: int) -> str:
    """The items shown to a judge as few-shot examples, by who chose them, e.g. "4 few-shot examples kept in
    train: 1 chosen and 3 picked by the judge itself"."""
    picked = shown - chosen
    parts = ([f"{chosen} chosen"] if chosen else []) + ([f"{picked} picked by the judge itself"] if picked else [])
    return f"{plural(shown, 'few-shot example')} kept in train: {' and '.join(parts)}"
