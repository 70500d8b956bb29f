"""`judge-tui merge`: other judge-tui databases or bundles into this one."""

from __future__ import annotations

import argparse

from judge_tui.cli.commands import open_store
from judge_tui.formats.numbers import plural
from judge_tui.formats.terminal import echo
from judge_tui.model.errors import UserError
from judge_tui.store import StoreError
from judge_tui.transfer.merge import MergeRefused, MergeResult, describe, merge_database


def run_merge(args: argparse.Namespace) -> int:
    """Every file named, in one transaction: a file that cannot be merged leaves this database as it was."""
    store = open_store(args)
    results: list[MergeResult] = []
    several = len(args.others) > 1
    others = " (nor from the other files named: a merge takes all of them or none)" if several else ""
    try:
        with store.transaction():
            for path in args.others:
                try:
                    results.append(merge_database(store, path))
                except StoreError as exc:
                    raise UserError(f"{exc}. Nothing was merged from it{others}.") from None
                except MergeRefused as exc:
                    if several:
                        raise MergeRefused(f"{exc}\nNothing was merged from the other files named either: a merge "
                                           "takes all of them or none.") from None
                    raise
    finally:
        store.close()
    problems = 0
    for result in results:
        for line in describe(result):
            echo(line)
        problems += result.problems
    if problems:
        print(f"{plural(problems, 'conflict')}: nothing of this database was changed for them; "
              "resolve them by hand if needed (the other file is untouched).")
    return 0
