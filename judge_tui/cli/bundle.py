"""`judge-tui export --bundle` and `judge-tui import --bundle`: one expert's work as a single file."""

from __future__ import annotations

import argparse
import sqlite3
from pathlib import Path

from judge_tui.cli.commands import open_store
from judge_tui.formats.terminal import echo
from judge_tui.model.errors import UserError
from judge_tui.store import StoreError
from judge_tui.transfer.bundle import choose_rater, export_bundle, import_bundle
from judge_tui.transfer.merge import describe


def run_export_bundle(args: argparse.Namespace) -> int:
    if not args.output:
        raise UserError("a bundle is a database file: give its name with -o FILE (e.g. -o ann.bundle.db)")
    with open_store(args) as store:
        rater = choose_rater(store, getattr(args, "rater", None))
        try:
            result = export_bundle(store, rater, Path(args.output))
        except (StoreError, sqlite3.DatabaseError, OSError) as exc:
            raise UserError(f"{args.output}: cannot write the bundle ({exc})") from None
    marks = result.added["set_aside"]
    also = f", and {marks} skipped or flagged item{'s' if marks != 1 else ''} not yet rated" if marks else ""
    echo(f"wrote {args.output}: {result.added['ratings']} ratings of {result.added['items']} items by {rater}"
         f"{also}.")
    return 0



def run_import_bundle(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        result = import_bundle(store, Path(args.bundle))
    for line in describe(result):
        echo(line)
    return 0
