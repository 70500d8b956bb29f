"""`judge-tui status`: each expert's progress and time, each judge's queue and cost."""

from __future__ import annotations

import argparse
import json

from judge_tui.cli.commands import open_store
from judge_tui.formats.terminal import print_table
from judge_tui.model.settings import load_settings
from judge_tui.store.rubric_choice import resolve_rubric
from judge_tui.study.status import status_tables, study_status


def run(args: argparse.Namespace) -> int:
    with open_store(args, create=False) as store:
        rubric = resolve_rubric(args.rubric, store).id if args.rubric else None
        status = study_status(store, rubric, settings=load_settings().agreement)
    if args.format == "json":
        print(json.dumps(status.to_json(), indent=2, ensure_ascii=False))
        return 0
    if not status.rubrics:
        print("No items yet: import some with `judge-tui import FILE --rubric ID`.")
        return 0
    for table in status_tables(status):
        print_table(table)
    return 0
