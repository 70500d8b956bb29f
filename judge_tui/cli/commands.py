"""Helpers every command shares (opening the database, resolving a rubric) and the smallest commands."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from judge_tui.model import locations
from judge_tui.model.errors import UserError
from judge_tui.model.rubrics import (
    RubricError,
    load_rubrics,
    take_warnings,
)
from judge_tui.model.textsafe import clean
from judge_tui.store import Store, StoreError
from judge_tui.store.core import BUSY_TIMEOUT


def db_path(args: argparse.Namespace) -> Path:
    return Path(args.db) if getattr(args, "db", None) else locations.default_db_path()


# Commands that add many rows check the whole file first: they must not build on a damaged database.
CHECKED_BEFORE_WRITING = {"import", "import-ratings", "split", "merge"}
# Commands that never write: the only ones that run on a read-only database.
ONLY_READING = {"report", "export", "history", "flags", "status", "failures", "certify"}


def _demo_hint(args: argparse.Namespace) -> str:
    """Where the demo's ratings are, for a user who rated the demo and now asks the study database for them."""
    demo = locations.demo_db_path()
    if getattr(args, "db", None) or not demo.is_file():
        return ""
    return f" Ratings made in the demo are in the demo's own database: add --db {demo}"


def open_store(args: argparse.Namespace, *, create: bool = True, opening_wait: float = BUSY_TIMEOUT) -> Store:
    """The database named by --db, $JUDGE_TUI_DB or the default location.

    Commands that only read (report, export, split, ...) pass create=False, so a mistyped path is an error
    rather than a new empty database; those in ONLY_READING open it read-only, so they never set up, upgrade
    the journal of, or otherwise change the file (an older judge-tui's database is the one exception: it is
    upgraded so that it can be read).
    """
    path = db_path(args)
    command = getattr(args, "command", None)
    if (not create or command in ONLY_READING) and not path.exists():
        raise UserError(f"{path}: no such database. Check the path, or import items first (judge-tui import)."
                        f"{_demo_hint(args)}")
    try:
        store = Store(path, only_reading=command in ONLY_READING, opening_wait=opening_wait)
    except StoreError as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        raise UserError(f"{path}: cannot open the database ({exc.strerror})") from None
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


def show_rubric_warnings() -> None:
    """What loading the rubric folders found wrong (a broken file left out, a built-in rubric replaced), on
    standard error: the model only collects it."""
    for text in take_warnings():
        print(f"judge-tui: warning: {clean(text)}", file=sys.stderr)


def write_output(text: str, destination: Path | None, what: str) -> None:
    """A command's output to -o FILE (saying so on standard error), or to standard output."""
    if destination is None:
        from judge_tui.formats.terminal import for_terminal

        print(for_terminal(text), end="" if text.endswith("\n") else "\n")  # notes and reasons are untrusted
        return
    try:
        destination.write_text(text, encoding="utf-8", newline="")
    except OSError as exc:
        raise UserError(f"{destination}: cannot write ({exc.strerror})") from None
    print(f"wrote {what} to {destination}", file=sys.stderr)


def output_format(fmt: str | None, destination: Path | None, by_suffix: dict[str, str], default: str) -> str:
    """--format if given, else the one the output file's name asks for (.csv, .md, ...), else the default."""
    if fmt:
        return fmt
    return by_suffix.get(destination.suffix.lower(), default) if destination is not None else default


def run_check(args: argparse.Namespace) -> int:
    """SQLite's full integrity check of the database (read-only; it reads every page, so it takes a while)."""
    import contextlib
    import sqlite3

    from judge_tui.store.core import check_header, check_schema, connect_read_only, writable
    from judge_tui.store.faults import describe_sqlite

    path = db_path(args)
    if not path.is_file():
        raise UserError(f"{path}: no such database")
    try:
        check_header(path)
        # Read-only, and immutable on read-only media or in a read-only folder, where SQLite cannot make the
        # -shm file a WAL database needs: a file SQLite cannot open there is not thereby damaged.
        conn = connect_read_only(path)
    except StoreError as exc:
        raise UserError(str(exc)) from None
    try:
        # Only a judge-tui database is vouched for: an empty file, another program's database or a newer
        # judge-tui's is named as such. What cannot even be read this far is left to the check below.
        with contextlib.suppress(sqlite3.DatabaseError):
            if not check_schema(conn, path):
                raise UserError(f"{path} holds no judge-tui database: it is empty (a new file, or one whose set-up "
                                "never finished), so there is nothing to check. Check the path")
        problems = [row[0] for row in conn.execute("PRAGMA integrity_check")]
    except StoreError as exc:
        raise UserError(f"{exc}; nothing was checked") from None
    except sqlite3.DatabaseError as exc:
        code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
        if code not in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):  # not damage: say what it is
            raise UserError(f"{describe_sqlite(exc, path)}; nothing was checked") from None
        problems = [str(exc)]  # damaged beyond what the check can walk
    finally:
        conn.close()
    if problems == ["ok"]:
        where = " (read-only: checked where it is, nothing written)" if not writable(path) else ""
        print(f"{path}: no damage found{where}")
        return 0
    print(f"{path} is damaged:")
    for problem in problems[:20]:
        print(f"  {problem}")
    if len(problems) > 20:
        print(f"  ... and {len(problems) - 20} more")
    print("Restore it from a backup, or rebuild it by merging the experts' databases or bundles into a new one.")
    return 1


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
