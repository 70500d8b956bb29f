"""`judge-tui plan`: before a study, how many items to label for an 80% chance of deciding each target."""

from __future__ import annotations

import argparse
import json

from rich.table import Table

from judge_tui.analysis.figure_format import decimal_text, share_text
from judge_tui.analysis.study_plan import (
    DEFAULT_LEVELS,
    Expected,
    TargetPlan,
    items_for_all,
    plan_study,
    to_dict,
)
from judge_tui.formats.terminal import print_table
from judge_tui.model.errors import UserError
from judge_tui.model.rubrics import RubricError, get_rubric
from judge_tui.model.settings import load_settings


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
    if args.format == "json":
        print(json.dumps(to_dict(plans, expected, settings, args.items, args.chance), indent=2, ensure_ascii=False))
        return 0
    percent = share_text(args.chance)
    chance = f"{'an' if percent.startswith(('8', '11', '18')) else 'a'} {percent} chance"
    table = Table(title=f"Items to label for {chance} of deciding each target "
                        f"({share_text(settings.confidence)} intervals)", title_justify="left")
    for header in ("Target", "Expected", "Items to label", "Of each class"):
        table.add_column(header, justify="left" if header == "Target" else "right")
    if args.items is not None:
        table.add_column(f"Undecided at {args.items:,} items", justify="right")
    for p in plans:
        row = [p.goal, decimal_text(p.expected, 3), _count(p), _of_each_class(p)]
        if args.items is not None:
            row.append("—" if p.undecided_at is None else share_text(p.undecided_at))
        table.add_row(*row)
    print_table(table)
    total, classes = items_for_all(plans, expected.fail_share)
    if total is None:
        stuck = ", ".join(p.goal for p in plans if p.items is None)
        print(f"{stuck}: the value you expect sits on or very near the target, so no practical number of items "
              "decides it; it is decided only if the judge turns out clearly above or below.")
    else:
        of = f" ({classes['PASS']:,} human PASS, {classes['FAIL']:,} human FAIL)" if classes else ""
        print(f"Label {total:,} items{of} for {chance} of deciding each target on its own.")
    print("Each expected value is taken as the judge's true one; if the judge is nearer a target than you "
          "expect, more items are needed.")
    return 0
