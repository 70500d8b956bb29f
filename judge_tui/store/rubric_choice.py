"""Which definition of a rubric a database works with: its own recorded versions, or a rubric file.

The one place that decides it (see resolve_rubric), so every command and screen on one database rates, judges
and reports against the same definition.
"""

from __future__ import annotations

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
from judge_tui.store import Store


def resolve_rubric(name_or_path: str, store: Store | None = None) -> Rubric:
    """The rubric a command works with: a file given by path, else the rubric of that id for this database.

    For an id the database comes first: its newest recorded version of the rubric, which is how a rubric
    imported from a file, or changed with `rubric-change --file`, stays with its database. The rubric file of
    that id (rubrics folder, then built-in) is used instead when the database has no version of it, or when
    the file in the user's rubrics folder was changed after the database's newest version and holds a
    definition the database has never recorded (an edit made since, which the judge asks a reason for) or an
    earlier version of it (a change reverted: that version is in force again). A
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
    if in_file is not None and edited:
        # Edited since: a new definition (the judge asks for the change's reason), or an earlier version
        # written back (a change reverted), which is the one in force again.
        return in_file
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
