"""Which definition of a rubric a database works with: its own recorded versions, or a rubric file before it has any.

The one place that decides it (see resolve_rubric), so every command and screen on one database rates, judges
and reports against the same definition.
"""

from __future__ import annotations

from dataclasses import dataclass
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
    warn_once,
)
from judge_tui.store import Store


@dataclass(frozen=True)
class StoredJudge:
    """The judge definition in force in a database: its prompt version, the rubric as the judge reads it (chosen
    examples, few-shot count and output extras included), that rubric's file text ("" when unknown) and the
    judge template's text."""

    prompt_version: str
    rubric: Rubric
    rubric_text: str
    template: str
    adopted_at: str  # when it was put in force


def stored_judge(store: Store, rubric_id: str) -> StoredJudge | None:
    """The judge definition this database keeps for a rubric, or None (the judge never ran here, or only an
    earlier release did, which kept no definition)."""
    row = store.judge_definition(rubric_id)
    found = row["definition"] if row is not None else None
    if not isinstance(found, dict) or not isinstance(found.get("template"), str):
        return None
    try:
        rubric = rubric_from_definition(found.get("rubric"), f"{store.path} (judge of rubric {rubric_id})")
    except RubricError:
        return None  # recorded by a later judge-tui: the rubric versions decide
    assert row is not None  # found is its definition
    return StoredJudge(str(row["prompt_version"]), rubric, str(found.get("rubric_text") or ""), found["template"],
                       str(row["adopted_at"] or ""))


def resolve_rubric(name_or_path: str, store: Store | None = None, *, notice: bool = True) -> Rubric:
    """The rubric a command works with: a file given by path, else the rubric of that id for this database.

    For an id the database comes first, and only the database: what the study chose stays with it, whatever
    another study or an edit does to the rubric files. Its definition is the judge's definition put in force
    last (on the judge screen, by its revert, by `rubric-change`), unless a rubric version was recorded after it
    (from a file given by path, or brought by a merge), which is then in force. A rubric file of that id (the rubrics folder, then built-in) is used
    only by a database that has no version of the rubric yet. A file in the user's rubrics folder that differs
    from the database's definition is named once, with the command that adopts it on purpose (`rubric-change`).
    Without a database, the files alone.
    """
    try:
        if store is None or is_rubric_path(name_or_path):
            return get_rubric(name_or_path)
        return _rubric_of_database(store, name_or_path, load_rubrics(), notice)
    except RubricError as exc:
        raise UserError(str(exc)) from None


def _rubric_of_database(store: Store, rubric_id: str, files: dict[str, tuple[Rubric, Path]],
                        notice: bool = True) -> Rubric:
    in_file, path = files.get(rubric_id, (None, None))
    newest = store.newest_rubric_version(rubric_id)
    if newest is None:
        if in_file is None:
            raise unknown_rubric(rubric_id, {*files, *store.recorded_rubric_ids()})
        return in_file
    judge = stored_judge(store, rubric_id)
    if judge is not None and judge.adopted_at >= str(newest["created_at"]):
        chosen = judge.rubric
    else:
        try:
            chosen = rubric_from_definition(newest["definition"], f"{store.path} (rubric {rubric_id})")
        except RubricError:
            if in_file is None:  # recorded by another judge-tui version and no file to fall back on
                raise
            return in_file
    if notice and in_file is not None and path is not None and path.parent != locations.prompts_dir():
        _name_a_changed_file(store, chosen, in_file, path, newest["number"])
    return chosen


def _name_a_changed_file(store: Store, chosen: Rubric, in_file: Rubric, path: Path, number: int) -> None:
    """Say once that the user's rubric file differs from what this database uses, and how to adopt it."""
    text = _changed_file_text(store, chosen, in_file, path, number)
    if text:
        warn_once(text)


def _changed_file_text(store: Store, chosen: Rubric, in_file: Rubric, path: Path, number: int) -> str:
    if in_file.judge_hash == chosen.judge_hash:
        return ""
    return (f"{path} differs from rubric {chosen.id} as {store.path} uses it (rubric version #{number}); this "
            f"database keeps its own. To use the file here on purpose: judge-tui rubric-change {chosen.id} "
            f"--reason TEXT --items ID,ID --db {store.path}")


def changed_file_notice(store: Store, rubric_id: str) -> str:
    """What resolve_rubric says on stderr of a rubric file in the user's folder that differs from what this
    database uses ("" when none does), for the app to show on its screen."""
    try:
        files = load_rubrics()
        in_file, path = files.get(rubric_id, (None, None))
        newest = store.newest_rubric_version(rubric_id)
        if in_file is None or path is None or newest is None or path.parent == locations.prompts_dir():
            return ""
        return _changed_file_text(store, _rubric_of_database(store, rubric_id, files, notice=False), in_file, path,
                                  newest["number"])
    except RubricError:
        return ""


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
            found[rubric_id] = _rubric_of_database(store, rubric_id, files, notice=False)
        except RubricError:
            continue
    return found
