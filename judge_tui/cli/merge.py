"""`judge-tui merge`: other judge-tui databases or bundles into this one."""

from __future__ import annotations

import argparse

from judge_tui.cli.commands import open_store
from judge_tui.formats.terminal import echo
from judge_tui.model.errors import UserError
from judge_tui.store import StoreError
from judge_tui.transfer.merge import describe, merge_database, plural


def run_merge(args: argparse.Namespace) -> int:
    store = open_store(args)
    problems = 0
    try:
        for path in args.others:
            try:
                result = merge_database(store, path)
            except StoreError as exc:
                raise UserError(f"{exc}. Nothing was merged from it.") from None
            for line in describe(result):
                echo(line)
            problems += result.problems
    finally:
        store.close()
    if problems:
        print(f"{plural(problems, 'conflict')}: nothing of this database was changed for them; "
              "resolve them by hand if needed (the other file is untouched).")
    return 0
