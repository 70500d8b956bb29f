"""One expert's work as a single file: `judge-tui export --bundle -o FILE` and `judge-tui import --bundle FILE`.

A bundle is a judge-tui database (same schema) holding one rater's submitted ratings (every repeat,
drift re-ratings included, each with its flag and reason), the items they rated, skipped or flagged, the rubric
and prompt versions those ratings use, the revision marks of those items and the record of kept and reverted
changes to the judge. Unsubmitted scores and notes stay
on the machine they were made on; an item skipped or flagged but not rated travels as a draft row holding only
that mark and the flag's reason. The bundle is written with
the merge code (so it obeys the merge rules), marked with `bundle_of` in its meta table, switched out of WAL
so it is one self-contained file, and moved into place only when complete. Importing a bundle is a merge.

A bundle made for an expert (`export --bundle --for ann`, on the lead's machine) also holds the plans in force
in which ann has items (`judge-tui assign`), her rows of them and her assigned items, so that on her laptop the
rating screen serves her queue. It never holds another rater's ratings: the blind rule travels with it.
"""

from __future__ import annotations

import os
from pathlib import Path

from judge_tui.model.errors import UserError
from judge_tui.model.records import CONSENSUS_RATER
from judge_tui.store import ForeignDatabase, Store, StoreError, now
from judge_tui.transfer.merge import MergeResult, merge_database

BUNDLE_META = "bundle_of"
REVIEWER_META_KEY = "reviewer_id"  # where the rating app remembers who is rating (judge_tui.tui.app)


def export_bundle(store: Store, rater_id: str, output: Path, *, assignment: bool = False) -> MergeResult:
    """Write `rater_id`'s work to `output` (replacing an older bundle there, never any other file); with
    assignment, also their assignment and its items (a bundle made for the expert)."""
    if assignment:
        if not store.assignments_in_force(rater_id):
            raise UserError(f"{rater_id!r} has no assignment in {store.path}: plan one with `judge-tui assign "
                            f"--rubric ID --experts {rater_id},...`{_assigned_list(store)}")
    elif store.rater(rater_id) is None:
        raise UserError(f"no rater {rater_id!r} in {store.path}; raters here: {_human_list(store)}")
    if output.exists():
        _check_replaceable(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(output.name + ".partial")
    partial.unlink(missing_ok=True)
    try:
        with Store(partial) as bundle:
            result = merge_database(bundle, store.path, only_raters=[rater_id], assignments=assignment)
            bundle.set_meta(BUNDLE_META, rater_id)
            bundle.set_meta("bundle_created_at", now())
            # The file's name, never its folder: a bundle travels, and a path tells whose machine it came from.
            bundle.set_meta("bundle_source", store.path.name)
            bundle.conn.execute("PRAGMA journal_mode=DELETE")
    except BaseException:
        for leftover in (partial, *(partial.with_name(partial.name + end) for end in ("-wal", "-shm"))):
            leftover.unlink(missing_ok=True)
        raise
    os.replace(partial, output)
    return result


def _check_replaceable(output: Path) -> None:
    try:
        with ForeignDatabase(output) as existing:
            is_bundle = existing.meta(BUNDLE_META) is not None
    except StoreError:
        is_bundle = False
    if not is_bundle:
        raise UserError(f"{output} already exists and is not a judge-tui bundle; choose another file name")


def bundle_rater(path: Path) -> str:
    """Whose work a bundle holds; a UserError if the file is not a bundle."""
    try:
        with ForeignDatabase(path) as bundle:
            rater = bundle.meta(BUNDLE_META)
    except StoreError as exc:
        raise UserError(f"{exc}. Is it a file made by `judge-tui export --bundle`?") from None
    if rater is None:
        raise UserError(f"{path} is a judge-tui database but not a bundle; merge a whole database with "
                        f"`judge-tui merge {path}`")
    return rater


def import_bundle(store: Store, path: Path) -> MergeResult:
    """Merge a bundle. One made for an expert, imported where nobody is remembered as the reviewer yet (their
    laptop), also makes them the reviewer, so that `judge-tui` opens on their queue."""
    rater = bundle_rater(path)
    try:
        result = merge_database(store, path)
    except StoreError as exc:
        raise UserError(str(exc)) from None
    if result.added["assignments"] and store.get_meta(REVIEWER_META_KEY) is None:
        store.set_meta(REVIEWER_META_KEY, rater)
    return result


def _assigned_list(store: Store) -> str:
    experts = sorted({e for rubric, _n in store.rubrics_in_use() for e in (store.current_plan(rubric) or {}).get(
        "experts", ())})
    return f" (experts with an assignment here: {', '.join(experts)})" if experts else ""


def _human_list(store: Store) -> str:
    return ", ".join(r["id"] for r in store.raters("human")) or "none"


def choose_rater(store: Store, requested: str | None) -> str:
    """The rater to bundle: the one asked for, else the remembered reviewer, else the database's only expert."""
    if requested:
        return requested
    remembered = store.get_meta(REVIEWER_META_KEY)
    if remembered:
        return remembered
    humans = [r["id"] for r in store.raters("human") if r["id"] != CONSENSUS_RATER]
    if len(humans) == 1:
        return str(humans[0])
    raise UserError(f"which expert's work should the bundle hold? Pass --rater ID (experts here: "
                    f"{', '.join(humans) or 'none'})")
