"""Helpers every command shares (opening the database, resolving a rubric) and the smallest commands."""

from __future__ import annotations

import argparse
from pathlib import Path

from judge_tui.model import locations
from judge_tui.model.errors import UserError
from judge_tui.model.rubrics import (
    Rubric,
    RubricError,
    get_rubric,
    is_rubric_path,
    load_rubrics,
    rubric_from_definition,
    unknown_rubric,
)
from judge_tui.store import Store, StoreError


def db_path(args: argparse.Namespace) -> Path:
    return Path(args.db) if getattr(args, "db", None) else locations.default_db_path()


# Commands that add many rows check the whole file first: they must not build on a damaged database.
CHECKED_BEFORE_WRITING = {"import", "import-ratings", "split", "merge"}
# Commands that never write: the only ones that run on a read-only database.
ONLY_READING = {"report", "export", "history", "flags", "status", "failures"}


def open_store(args: argparse.Namespace, *, create: bool = True) -> Store:
    """The database named by --db, $JUDGE_TUI_DB or the default location.

    Commands that only read (report, export, split, ...) pass create=False, so a mistyped path is an error
    rather than a new empty database.
    """
    path = db_path(args)
    if not create and not path.exists():
        raise UserError(f"{path}: no such database. Check the path, or import items first (judge-tui import).")
    try:
        store = Store(path)
    except StoreError as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        raise UserError(f"{path}: cannot open the database ({exc.strerror})") from None
    command = getattr(args, "command", None)
    if store.read_only and command not in ONLY_READING:
        store.close()
        from judge_tui.store.faults import READ_ONLY

        raise UserError(READ_ONLY.format(db=path))
    if command in CHECKED_BEFORE_WRITING:
        problem = store.damage()
        if problem:
            store.close()
            from judge_tui.store.faults import DAMAGED

            raise UserError(DAMAGED.format(db=path, error=problem))
    return store


def write_output(text: str, destination: Path | None) -> None:
    """A command's output to -o FILE, or to standard output."""
    if destination is None:
        from judge_tui.formats.terminal import for_terminal

        print(for_terminal(text), end="" if text.endswith("\n") else "\n")  # notes and reasons are untrusted
        return
    try:
        destination.write_text(text, encoding="utf-8", newline="")
    except OSError as exc:
        raise UserError(f"{destination}: cannot write ({exc.strerror})") from None


def output_format(fmt: str | None, destination: Path | None, by_suffix: dict[str, str], default: str) -> str:
    """--format if given, else the one the output file's name asks for (.csv, .md, ...), else the default."""
    if fmt:
        return fmt
    return by_suffix.get(destination.suffix.lower(), default) if destination is not None else default


def run_check(args: argparse.Namespace) -> int:
    """SQLite's full integrity check of the database (read-only; it reads every page, so it takes a while)."""
    import sqlite3

    from judge_tui.store.core import check_header, read_only_uri

    path = db_path(args)
    if not path.is_file():
        raise UserError(f"{path}: no such database")
    try:
        check_header(path)
    except StoreError as exc:
        raise UserError(str(exc)) from None
    conn = sqlite3.connect(read_only_uri(path), uri=True)
    try:
        problems = [row[0] for row in conn.execute("PRAGMA integrity_check")]
    except sqlite3.DatabaseError as exc:  # damaged beyond what the check can walk
        problems = [str(exc)]
    finally:
        conn.close()
    if problems == ["ok"]:
        print(f"{path}: no damage found")
        return 0
    print(f"{path} is damaged:")
    for problem in problems[:20]:
        print(f"  {problem}")
    if len(problems) > 20:
        print(f"  ... and {len(problems) - 20} more")
    print("Restore it from a backup, or rebuild it by merging the experts' databases or bundles into a new one.")
    return 1


def resolve_rubric(name_or_path: str, store: Store | None = None) -> Rubric:
    """The rubric a command works with: a file given by path, else the rubric of that id for this database.

    For an id the database comes first: its newest recorded version of the rubric, which is how a rubric
    imported from a file, or changed with `rubric-change --file`, stays with its database. The rubric file of
    that id (rubrics folder, then built-in) is used instead when the database has no version of it, or when
    the file in the user's rubrics folder was changed after the database's newest version and holds a
    definition the database has never recorded: an edit made since, which the judge asks a reason for. A
    built-in rubric that a newer judge-tui ships reaches new databases only: the user made no change to give a
    reason for. Without a database, the files alone.
    """
    try:
        if store is None or is_rubric_path(name_or_path):
            return get_rubric(name_or_path)
        return _rubric_of_database(store, name_or_path, load_rubrics())
    except RubricError as exc:
        raise UserError(str(exc)) from None


def _rubric_of_database(store: Store, rubric_id: str, files: dict[str, tuple[Rubric, Path]]) -> Rubric:
    in_file, path = files.get(rubric_id, (None, None))
    newest = store.newest_rubric_version(rubric_id)
    if newest is None:
        if in_file is None:
            raise unknown_rubric(rubric_id, {*files, *store.recorded_rubric_ids()})
        return in_file
    edited = path is not None and path.parent != locations.prompts_dir() and _changed_after(path, newest["created_at"])
    if in_file is not None and edited and store.rubric_version_by_hash(in_file.content_hash) is None:
        return in_file  # edited since: the judge asks for the change's reason
    try:
        return rubric_from_definition(newest["definition"], f"{store.path} (rubric {rubric_id})")
    except RubricError:
        if in_file is None:  # recorded by another judge-tui version and no file to fall back on
            raise
        return in_file


def _changed_after(path: Path, stamp: str) -> bool:
    """Whether the file was last written after the moment `stamp` (an ISO date with its time zone)."""
    from datetime import UTC, datetime

    try:
        return datetime.fromtimestamp(path.stat().st_mtime, UTC) > datetime.fromisoformat(stamp)
    except (OSError, ValueError):
        return True  # unknown: take the file, as a new edit


def available_rubrics(store: Store | None = None) -> dict[str, Rubric]:
    """Every rubric usable by id: the rubric files', and with a database its own, chosen as resolve_rubric does.

    A recorded definition this version of judge-tui cannot read, with no file of its id, is left out.
    """
    files = load_rubrics()
    if store is None:
        return {rubric_id: rubric for rubric_id, (rubric, _path) in files.items()}
    found = {}
    for rubric_id in sorted({*files, *store.recorded_rubric_ids()}):
        try:
            found[rubric_id] = _rubric_of_database(store, rubric_id, files)
        except RubricError:
            continue
    return found


def list_rubrics(args: argparse.Namespace) -> int:
    try:
        found = load_rubrics(args.rubric_files)
    except RubricError as exc:
        raise UserError(str(exc)) from None
    from rich.table import Table

    from judge_tui.formats.terminal import add_id_column, cell, print_table

    table = Table(title="Rubrics", title_justify="left")
    add_id_column(table, "id", keep_whole=found)
    add_id_column(table, "name")
    add_id_column(table, "version")
    add_id_column(table, "scale")
    add_id_column(table, "dimensions")
    add_id_column(table, "file")
    for rubric_id, (rubric, path) in sorted(found.items()):
        table.add_row(
            cell(rubric_id), cell(rubric.name), cell(rubric.version), cell(rubric.scale.kind),
            cell(", ".join(d.id + (" (code)" if d.method == "code" else "") for d in rubric.dimensions)),
            cell(path),
        )
    print_table(table)
    print(f"Add a rubric: put a *.rubric.toml file in {locations.user_rubrics_dir()} or pass --rubric PATH.")
    return 0
