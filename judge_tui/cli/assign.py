"""`judge-tui assign`: plan who rates which items, with an overlap for agreement, and print the plan."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace

from judge_tui.analysis.certify import REPEATS, certify_judge
from judge_tui.cli.certify import certification_lines, print_lines
from judge_tui.cli.commands import open_store
from judge_tui.cli.raters import parse_members
from judge_tui.formats.terminal import echo
from judge_tui.model.errors import UserError
from judge_tui.model.records import DEFAULT_LEVEL
from judge_tui.model.settings import load_settings
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
    if not args.escalate and (args.alpha, args.delta, args.judge, args.jury, args.confidence) != (None,) * 5:
        raise UserError("--alpha, --delta, --judge, --jury and --confidence are the judge's certificate: they go with "
                        "--escalate")
    if args.judge and args.jury:
        raise UserError("--judge and --jury: certify one judge (its repeats) or one jury, not both")
    with open_store(args, create=False) as store:
        rubric = resolve_rubric(args.rubric, store)
        found = None
        if args.escalate:  # the judge's certificate first: a mistake there leaves the plan in force as it was
            members = parse_members(args.jury, store, rubric.id) if args.jury else ()
            found = certify_judge(store, rubric, load_settings().agreement, alpha=_or_default(args.alpha),
                                  delta=_or_default(args.delta), judge=args.judge, members=members,
                                  source=args.confidence or REPEATS)
        plan = assign(store, rubric, replace(options, rubric=rubric.id), left_to_judge=found.decided if found else (),
                      certificate=found.terms() if found else None)
        summary = plan_summary(plan)
    if found is not None:
        summary["certificate"] = found.to_json()
    if args.format == "json":
        print(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        echo(format_summary(summary))
        if found is not None:
            print_lines(certification_lines(found))
    return 0


def _or_default(level: float | None) -> float:
    return DEFAULT_LEVEL if level is None else level
