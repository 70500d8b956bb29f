"""`judge-tui plan`: before a study, how many items to label for an 80% chance of deciding each target, every
target at once, and every target by the stop notice's rules valid at any time."""

from __future__ import annotations

import argparse
import json

from rich.table import Table

from judge_tui.formats.numbers import decimal_text, share_text
from judge_tui.formats.terminal import echo, print_table
from judge_tui.model.errors import UserError
from judge_tui.model.rubrics import RubricError, get_rubric
from judge_tui.model.settings import load_settings
from judge_tui.study.plan import (
    DEFAULT_LEVELS,
    Expected,
    TargetPlan,
    items_for_all,
    plan_study,
    to_dict,
)
from judge_tui.study.whole_study import RUNS, AtSize, plan_whole

# A chance at the planned items this far above the one asked for is said, and why.
MORE_THAN_ASKED = 0.05


def _count(plan: TargetPlan) -> str:
    if plan.items is None:
        return "no practical number"
    return f"{plan.items:,}"


def _of_each_class(plan: TargetPlan) -> str:
    """"70 PASS, 30 FAIL" (a PASS/FAIL plan), "20 each of 5 levels" or the levels one by one (graded)."""
    if not plan.classes:
        return "—"
    counts = [count for _, count in plan.classes]
    if plan.classes[0][0].startswith("level"):
        low, high = min(counts), max(counts)
        return f"{low:,}{'' if low == high else f'–{high:,}'} each of {len(counts)} levels"
    return ", ".join(f"{count:,} {name}" for name, count in plan.classes)


def run(args: argparse.Namespace) -> int:
    try:
        rubric = get_rubric(args.rubric) if args.rubric else None
    except RubricError as exc:
        raise UserError(str(exc)) from None
    levels = args.levels if args.levels is not None else len(rubric.scale.points) if rubric else DEFAULT_LEVELS
    expected = Expected(args.tpr, args.tnr, args.fail_share, args.kappa, args.weighted_kappa, args.pearson,
                        args.alignment, levels)
    settings = load_settings().agreement
    plans = plan_study(expected, settings, items=args.items, chance=args.chance, rubric=rubric)
    total, classes = items_for_all(plans, expected.fail_share)
    whole = plan_whole(plans, expected, settings, chance=args.chance, items_each=total, asked=args.items)
    if args.format == "json":
        found = to_dict(plans, expected, settings, args.items, args.chance)
        print(json.dumps({**found, "whole_study": whole.to_dict()}, indent=2, ensure_ascii=False))
        return 0
    percent = share_text(args.chance)
    chance = f"{'an' if percent.startswith(('8', '11', '18')) else 'a'} {percent} chance"
    table = Table(title=f"Items to label for {chance} of deciding each target "
                        f"({share_text(settings.confidence)} intervals)", title_justify="left")
    for header in ("Target", "Expected", "Items to label", "Chance", "Of each class"):
        table.add_column(header, justify="left" if header == "Target" else "right")
    if args.items is not None:
        table.add_column(f"Undecided at {args.items:,} items", justify="right")
    for p in plans:
        row = [p.goal, decimal_text(p.expected, 3), _count(p),
               "—" if p.chance_at_items is None else share_text(p.chance_at_items), _of_each_class(p)]
        if args.items is not None:
            row.append("—" if p.undecided_at is None else share_text(p.undecided_at))
        table.add_row(*row)
    print_table(table)
    if total is None:
        stuck = ", ".join(p.goal for p in plans if p.items is None)
        echo(f"{stuck}: the value you expect sits on or very near the target, so no practical number of items "
              "decides it; it is decided only if the judge turns out clearly above or below.")
    else:
        of = f" ({classes['PASS']:,} human PASS, {classes['FAIL']:,} human FAIL)" if classes else ""
        echo(f"Label {total:,} items{of} for {chance} of deciding each target on its own.")
        above = [p for p in plans if p.chance_at_items is not None and p.chance_at_items >= args.chance + MORE_THAN_ASKED]
        if above:
            echo(f"{', '.join(p.goal for p in above)}: the planned items give more than {chance} (the Chance "
                  "column), since a kappa interval needs 25 items or more and a share's chance rises and falls in "
                  "steps as items are added.")
    if whole.together is not None and whole.at_together is not None:
        echo(f"Every target at once: label {whole.together:,} items for {chance} that the report decides them all, "
              f"read once when rating ends (at that size each alone: {_alone(whole.at_together)}).")
    if whole.anytime is not None and whole.at_together is not None:
        echo(f"The stop notice decides while ratings come in, by rules valid at any time, which need more: label "
              f"{whole.anytime:,} items for {chance} that it finds every target decided by the last rating "
              f"(at {whole.together:,} items: {share_text(whole.at_together.anytime)}).")
    if whole.at_asked is not None:
        a = whole.at_asked
        echo(f"A study of {a.items:,} items decides each target alone: {_alone(a)}; every target at once "
              f"{share_text(a.together)}; the stop notice fires by its last rating in {share_text(a.anytime)}.")
    echo("Each expected value is taken as the judge's true one; if the judge is nearer a target than you "
          "expect, more items are needed. The figures for every target at once, the stop notice and each target "
          f"at a given size come from {RUNS:,} studies drawn from the expected values and decided by the report's "
          "own rules (within about 2 points).")
    return 0


def _alone(a: AtSize) -> str:
    """"TPR > 0.90 91%, TNR > 0.90 89%": the chance that each target is decided."""
    return ", ".join(f"{goal} {share_text(chance)}" for goal, chance in a.alone)
