"""`judge-tui split`: stratified, seeded train / dev / test splits of one rubric's items or of all."""

from __future__ import annotations

import argparse
import sys

from judge_tui.cli.commands import open_store
from judge_tui.formats.terminal import echo
from judge_tui.model.errors import UserError
from judge_tui.store.rubric_choice import resolve_rubric
from judge_tui.transfer.splits import check_proportions, format_plan, split_rubric


def run_split(args: argparse.Namespace) -> int:

    proportions = (args.train, args.dev, args.test)
    check_proportions(*proportions)
    with open_store(args, create=False) as store:
        rubric_ids = [resolve_rubric(args.rubric, store).id] if args.rubric else [r for r, _n in store.rubrics_in_use()]
        if not rubric_ids or (args.rubric and not store.count_items(rubric=rubric_ids[0])):
            raise UserError("no items to split; import some first (judge-tui import FILE)")
        with store.transaction():
            plans = [split_rubric(store, r, seed=args.seed, proportions=proportions, reassign=args.reassign)
                     for r in rubric_ids]
    for plan in plans:
        echo(format_plan(plan))  # strata are item field values
        if plan.moved_to_train:
            echo(f"warning: few-shot examples {', '.join(plan.moved_to_train)} were outside train; "
                 f"put back in train (results measured on them are not a fair test)", sys.stderr)
    return 0
