"""`judge-tui export --bundle` and `judge-tui import --bundle`: one expert's work as a single file."""

from __future__ import annotations

import argparse
import sqlite3
from pathlib import Path

from judge_tui.cli.commands import open_store
from judge_tui.formats.numbers import plural, word_for
from judge_tui.formats.terminal import echo
from judge_tui.model.errors import UserError
from judge_tui.store import StoreError
from judge_tui.transfer.bundle import (
    REVIEWER_META_KEY,
    bundle_rater,
    choose_rater,
    export_bundle,
    import_bundle,
)
from judge_tui.transfer.merge import describe


def run_export_bundle(args: argparse.Namespace) -> int:
    if not args.output:
        raise UserError("a bundle is a database file: give its name with -o FILE (e.g. -o ann.bundle.db)")
    expert = getattr(args, "for_expert", None)
    if expert and getattr(args, "rater", None) and args.rater != expert:
        raise UserError(f"--for {expert} and --rater {args.rater} name two experts; a bundle holds one's work")
    with open_store(args, create=False) as store:
        rater = expert or choose_rater(store, getattr(args, "rater", None))
        try:
            result = export_bundle(store, rater, Path(args.output), assignment=bool(expert))
        except (StoreError, sqlite3.DatabaseError, OSError) as exc:
            raise UserError(f"{args.output}: cannot write the bundle ({exc})") from None
        queues = store.assignments_in_force(rater) if expert else {}
    marks = result.added["set_aside"]
    also = f", and {marks} skipped or flagged {word_for(marks, 'item')} not yet rated" if marks else ""
    if expert:
        shown = "; ".join(f"{plural(n, 'item')} of {rubric} ({overlap} shared with other experts)"
                          for rubric, (n, overlap) in queues.items())
        echo(f"wrote {args.output} for {rater}: their assignment, {shown}; {plural(result.added['items'], 'item')} "
             f"and {plural(result.added['ratings'], 'rating')} of theirs{also}.")
        echo(f"On their machine: judge-tui import --bundle {args.output}, then judge-tui rate --reviewer {rater}")
        return 0
    echo(f"wrote {args.output}: {plural(result.added['ratings'], 'rating')} of {plural(result.added['items'], 'item')}"
         f" by {rater}{also}.")
    return 0



def run_import_bundle(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        result = import_bundle(store, Path(args.bundle))
        for line in describe(result):
            echo(line)
        if result.added["assignments"]:
            expert = bundle_rater(Path(args.bundle))
            for rubric, (n, overlap) in store.assignments_in_force(expert).items():
                echo(f"{expert}'s assignment: {plural(n, 'item')} of {rubric} ({overlap} shared with other experts). "
                     f"Rate them with: judge-tui rate --reviewer {expert} --rubric {rubric}")
            if store.get_meta(REVIEWER_META_KEY) == expert:
                echo(f"This database now rates as {expert}: `judge-tui rate` opens their queue.")
    return 0
