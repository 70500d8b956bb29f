"""`judge-tui flags`: every flagged item, with who flagged it, the reason and where the item stands."""

from __future__ import annotations

import argparse

from judge_tui.analysis.report_render.flags import FORMAT_BY_SUFFIX, flags_table, render
from judge_tui.cli.commands import open_store, output_format, write_output
from judge_tui.formats.numbers import plural
from judge_tui.formats.terminal import print_table
from judge_tui.model.errors import UserError
from judge_tui.store.rubric_choice import resolve_rubric


def run(args: argparse.Namespace) -> int:
    """`judge-tui flags`: every flagged item, with who flagged it, the reason and where the item stands."""
    fmt = output_format(args.format, args.output, FORMAT_BY_SUFFIX, "text")
    with open_store(args, create=False) as store:
        rubric = resolve_rubric(args.rubric, store).id if args.rubric else None
        if args.rater and store.rater(args.rater) is None:
            raters = ", ".join(r["id"] for r in store.raters("human")) or "none"
            raise UserError(f"--rater {args.rater!r}: no such rater in {store.path} (experts here: {raters})")
        flags = store.flags(rubric, args.rater, args.split)
    if fmt == "text" and args.output is None:
        if flags:
            print_table(flags_table(flags))
        else:
            print("No item is flagged.")
        return 0
    write_output(render(flags, fmt), args.output, plural(len(flags), "flag"))
    return 0
