"""`judge-tui assign`: plan who rates which items, with an overlap for agreement, and print the plan."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace

from judge_tui.cli.commands import open_store
from judge_tui.formats.terminal import echo
from judge_tui.store.rubric_choice import resolve_rubric
from judge_tui.transfer.assignment import (
    Options,
    assign,
    check_options,
    format_summary,
    parse_experts,
    plan_summary,
)


def run(args: argparse.Namespace) -> int:
    options = Options(rubric=args.rubric, experts=parse_experts(args.experts), overlap=args.overlap,
                      overlap_raters=args.overlap_raters, per_expert=args.per_expert, seed=args.seed)
    check_options(options)  # before opening anything: a mistyped option changes nothing
    with open_store(args, create=False) as store:
        rubric = resolve_rubric(args.rubric, store)
        summary = plan_summary(assign(store, rubric, replace(options, rubric=rubric.id)))
    if args.format == "json":
        print(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        echo(format_summary(summary))
    return 0
