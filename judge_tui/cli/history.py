"""`judge-tui rubric-change` and `judge-tui history`: record a rubric version with its reason; list every version."""

from __future__ import annotations

import argparse
from pathlib import Path

from judge_tui.cli.commands import open_store
from judge_tui.formats.terminal import echo
from judge_tui.judge.history import history_lines, parse_items, record_rubric_change
from judge_tui.model.errors import UserError
from judge_tui.model.rubrics import RubricError, load_rubric
from judge_tui.store.rubric_choice import resolve_rubric


def run_rubric_change(args: argparse.Namespace) -> int:
    """Record a rubric version in this database only: other databases keep theirs, and no file is copied."""
    items = parse_items(args.items)
    with open_store(args, create=False) as store:
        if args.file:
            try:
                rubric = load_rubric(Path(args.file))
            except RubricError as exc:
                raise UserError(str(exc)) from None
            if rubric.id != args.rubric:
                raise UserError(f"{args.file} defines rubric {rubric.id!r}, not {args.rubric!r}")
        else:
            rubric = resolve_rubric(args.rubric, store)
        version_id = record_rubric_change(store, rubric, args.reason, items)
        number = next(v["number"] for v in store.rubric_versions(rubric.id) if v["id"] == version_id)
    print(f"recorded rubric {rubric.id} version #{number} (hash {rubric.content_hash}) in {store.path}; "
          f"motivated by {', '.join(items)}.")
    if args.file:
        print(f"Every command on {store.path} uses this definition from now on; other databases keep their own "
              f"version of {rubric.id}.")
    return 0



def run_history(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        for line in history_lines(store, getattr(args, "rubric", None)):
            echo(line)
    return 0
