"""`judge-tui import` and `judge-tui import-ratings`: into the database, all or nothing."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from judge_tui.cli.bundle import run_import_bundle
from judge_tui.cli.commands import db_path, open_store
from judge_tui.formats.field_map import parse_mapping
from judge_tui.formats.terminal import echo
from judge_tui.model.errors import UserError
from judge_tui.store import Store
from judge_tui.transfer.importing import ImportResult, import_items, import_ratings


def _report(result: ImportResult) -> None:
    for line in result.warning_lines():  # they quote the file
        echo(line, sys.stderr)
    echo(result.summary())



@contextmanager
def _import_store(args: argparse.Namespace) -> Iterator[Store]:
    """The database to import into. One this command created is removed again if the import fails, so a
    mistyped --db leaves no empty database behind."""
    path = db_path(args)
    created = not path.exists()
    try:
        with open_store(args) as store:
            yield store
    except BaseException:
        if created:
            for leftover in (path, *(path.with_name(path.name + end) for end in ("-wal", "-shm", "-journal"))):
                leftover.unlink(missing_ok=True)
        raise



@contextmanager
def _out_of_memory(path: Path) -> Iterator[None]:
    """Memory that runs out while a file is read, checked or written: a message, never a traceback. The
    import's transaction has rolled back by then, so nothing was written."""
    try:
        yield
    except MemoryError:
        raise UserError(f"{path}: ran out of memory while importing it; nothing was imported. judge-tui holds a "
                        f"file's rows in memory to check them all before writing any: about the file's own size "
                        f"for JSON Lines and CSV, three times it for a JSON document. Split the file into smaller "
                        f"ones and import each, or import it where more memory is free") from None


def run_import(args: argparse.Namespace) -> int:
    if getattr(args, "bundle", None):
        return run_import_bundle(args)
    if args.file is None:
        raise UserError("name the file to import: judge-tui import FILE [--rubric NAME]")
    mapping = parse_mapping(args.map)
    with _out_of_memory(args.file), _import_store(args) as store:
        result = import_items(store, args.file, args.rubric, fmt=args.format, mapping=mapping, split=args.split)
    _report(result)
    return 0



def run_import_ratings(args: argparse.Namespace) -> int:
    with _out_of_memory(args.file), _import_store(args) as store:
        result = import_ratings(store, args.file, args.rater, args.kind, rubric=args.rubric, fmt=args.format,
                                model=args.model, mapping=parse_mapping(args.map))
    _report(result)
    return 0
