"""`judge-tui export`: ratings (and items skipped or flagged without one) to a file or to stdout; --bundle for a bundle."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from judge_tui.cli.bundle import run_export_bundle
from judge_tui.cli.commands import open_store, output_format
from judge_tui.formats.terminal import safe_stdout
from judge_tui.transfer.exporting import FORMAT_BY_SUFFIX, export, export_to_file


def run_export(args: argparse.Namespace) -> int:
    if getattr(args, "bundle", False):
        return run_export_bundle(args)
    args.format = output_format(args.format, args.output, FORMAT_BY_SUFFIX, "jsonl")
    with open_store(args, create=False) as store:
        if args.output is None:
            export(store, args.format, safe_stdout(), rubric=args.rubric, rater=args.rater, judge=args.judge)
            return 0
        written = export_to_file(store, args.format, Path(args.output), rubric=args.rubric, rater=args.rater,
                                 judge=args.judge)
    print(f"wrote {written.describe(args.format)} to {args.output} ({args.format})", file=sys.stderr)
    return 0
