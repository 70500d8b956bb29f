"""Merging other judge-tui databases into this one (`judge-tui merge OTHER.db ...`).

Each expert rates on a laptop; the lead merges their database files into one. The rules:

* Rubric and prompt versions are matched by content hash; the other file's ids are remapped to ours.
* A prompt version's judge definition (the judge's rubric, rubric text and template) comes with it when new
  here, and fills ours when we hold the version without one. A merge never puts a judge in force: which
  definition the judge uses stays the lead's choice (the judge screen, `rubric-change`). A definition this
  judge-tui cannot read (a later release's) cannot be checked, so it is not taken, and the merge says so.
* Items are matched by id. The same id with the same content is one item. The same id with different
  content (or under another rubric) is reported: ours is kept and the other file's ratings of that item are
  skipped and listed, never attached to content the rater did not see.
* Raters are matched by id; the same id with another kind (human / judge / code) is reported and skipped.
* A rating is identified by item, rater, rubric version and repeat. If we hold it with the same content (scores,
  overall, verdict, notes and flag; not its source, the seconds it took or a judge's call record) it is left alone; with different content ours is
  kept and the pair is reported as a conflict. Nothing of ours is ever overwritten, so merging the same file
  twice changes nothing the second time.
* Judge results are ratings (their details keep the reasoning and parse information) and merge as such;
  the other machine's judge queue and cost log are its own and are not copied. Drafts (unsubmitted work) stay
  where they were made, except that an item skipped or flagged but not rated travels as just that mark (and
  the flag's reason), unless we hold a rating or a draft of it by that rater. A submitted item's flag is part
  of its rating. Revision marks are copied when we have none for that item.
* Assignment plans (`judge-tui assign`) are never edited once made, so a plan and its rows are copied when
  missing here (rows of items left out above stay out); the newest plan of a rubric is the one in force. A
  bundle of one expert's work carries no plan; a bundle made `--for` an expert carries the plans in force in
  which they have items, with their rows only.
* The judge's certificate in force and its marks (`assign --escalate`) belong to the database whose plan they
  were made with, the lead's: a merge never copies them, so no bundle carries them. When a merge brings a
  plan that becomes the plan in force here, ours no longer matches the experts' queues, and is withdrawn (as a
  plan made without `--escalate` withdraws it); `judge-tui merge` says so.
* Kept and reverted changes to the judge (the judge screen's record of why the judge changed) are copied when
  missing here, recognised by rubric, outcome, versions and time; bundles carry them too, like prompt versions.
* An expert's finished study (summary notes and when, per rubric, with their name) is taken when we have none
  for that expert and rubric or theirs is newer: the expert who finishes again has the last word.

* Every row read is checked first (transfer/validate.py, `refuse_bad_rows`), including what the rules above
  trust: content hashes and a judge definition's prompt version are computed again from the fields and
  definitions they hash, dates are read and none is in the future, no two rows share a key. One bad row
  refuses the whole file.

The other file is opened read-only and all writes happen in one transaction per file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge_tui.formats.numbers import plural, word_for
from judge_tui.judge.prompts import PromptError, parse_template, prompt_version
from judge_tui.model.errors import UserError
from judge_tui.model.queue_orders import ASSIGNED, ORDERS
from judge_tui.model.records import CONSENSUS_RATER, content_hash, rater_id_problem
from judge_tui.model.rubrics import (
    Rubric,
    RubricError,
    definition_hash,
    rubric_from_definition,
    rubric_from_text,
)
from judge_tui.store import (
    CALIBRATION_CHANGE_KEY,
    RATING_CONTENT,
    Finish,
    ForeignDatabase,
    MergeState,
    Store,
    StoreError,
    rating_content,
)
from judge_tui.transfer.validate import (
    check_id,
    stored_finish_problem,
    stored_hash_problem,
    stored_item_problem,
    stored_json,
    stored_mark_problem,
    stored_rater_problem,
    stored_rating_columns_problem,
    stored_rating_problem,
    stored_scores_problem,
    time_problem,
)


@dataclass(frozen=True)
class ItemDifference:
    item_id: str
    problem: str
    skipped_ratings: tuple[str, ...]  # rater ids whose ratings of this item were not merged


@dataclass(frozen=True)
class RatingConflict:
    item_id: str
    rater_id: str
    rubric_version_id: int  # ours
    repeat: int
    ours: dict[str, Any]
    theirs: dict[str, Any]


@dataclass(frozen=True)
class RaterConflict:
    rater_id: str
    our_kind: str
    their_kind: str
    skipped_ratings: int


@dataclass
class MergeResult:
    source: Path
    added: dict[str, int] = field(default_factory=lambda: dict.fromkeys(
        ("items", "raters", "rubric_versions", "prompt_versions", "judge_definitions", "ratings", "revision_marks",
         "set_aside", "assignment_plans", "assignments", "calibration_changes", "finishes"), 0))
    unchanged_ratings: int = 0
    item_differences: list[ItemDifference] = field(default_factory=list)
    rating_conflicts: list[RatingConflict] = field(default_factory=list)
    rater_conflicts: list[RaterConflict] = field(default_factory=list)
    split_differences: list[tuple[str, str | None, str | None]] = field(default_factory=list)  # id, ours, theirs
    withdrawn_certificates: list[str] = field(default_factory=list)  # rubrics whose certificate a new plan ended
    unread_definitions: list[str] = field(default_factory=list)  # prompt versions whose definition was not taken

    @property
    def changed(self) -> bool:
        return any(self.added.values())

    @property
    def problems(self) -> int:
        return len(self.item_differences) + len(self.rating_conflicts) + len(self.rater_conflicts)


def _same_content(store: Store, ours: tuple[str, str, str | None], theirs: dict[str, Any]) -> str | None:
    """None when the two items are the same; otherwise what differs."""
    rubric, digest, _split = ours
    if rubric != theirs["rubric"]:
        return f"is under rubric {rubric!r} here but {theirs['rubric']!r} there"
    if digest == theirs["content_hash"]:
        return None
    # Hashes can differ for the same fields if one side stored a hash made another way: compare the fields.
    fields = store.merged_item_fields(theirs["id"])
    if content_hash(json.loads(fields)) == content_hash(json.loads(theirs["fields"])):
        return None
    return "has different content in the two databases"


def _rating_summary(values: tuple[Any, ...]) -> dict[str, Any]:
    scores, overall, verdict, notes, flagged, flag_reason = values
    return {"scores": json.loads(scores), "overall": overall, "verdict": verdict, "notes": notes,
            "flagged": bool(flagged), "flag_reason": flag_reason}


def merge_database(store: Store, other_path: Path | str, *, only_raters: list[str] | None = None,
                   assignments: bool = False) -> MergeResult:
    """Bring another database's items, raters, versions, ratings, revision marks, assignment plans and kept or
    reverted judge changes into `store`.

    `only_raters` limits the merge to those raters' ratings and the items and versions they use (bundles); with
    `assignments` it also takes the plans in force in which they have items, their rows and those items.
    Raises StoreError if the other file cannot be read as a judge-tui database.
    """
    other_path = Path(other_path)
    if store.path.exists() and other_path.exists() and store.path.resolve() == other_path.resolve():
        raise StoreError(f"{other_path}: is this same database; nothing to merge")
    result = MergeResult(source=other_path)
    with ForeignDatabase(other_path) as other, store.transaction():
        refuse_bad_rows(store, other, only_raters, assignments)
        state = store.merge_state()
        version_map = _merge_rubric_versions(store, state, other, result)
        _merge_prompt_versions(store, state, other, version_map, result)
        _merge_calibration_changes(store, state, other, result)
        bad_items = _merge_items(store, state, other, only_raters, assignments, result)
        bad_raters = _merge_raters(store, state, other, only_raters, result)
        rated_items = _merge_ratings(store, state, other, only_raters, version_map, bad_items, bad_raters, result)
        _merge_revision_marks(store, state, other, rated_items if only_raters else None, bad_items, result)
        _merge_set_aside(store, state, other, only_raters, bad_items, bad_raters, result)
        _merge_finishes(store, state, other, only_raters, bad_raters, result)
        store.insert_merged_draws([row for row in other.rating_draws(only_raters)  # weights a balanced design
                                   if row["item_id"] in state.items and row["item_id"] not in bad_items
                                   and row["rater_id"] not in bad_raters])
        if assignments or not only_raters:
            _merge_assignments(store, state, other, only_raters, bad_items, result)
    return result


class MergeRefused(UserError):
    """Rows of the other database break the rules every row entering a database obeys: nothing was merged."""


SHOWN_PROBLEMS = 20


def refuse_bad_rows(store: Store, other: ForeignDatabase, only_raters: list[str] | None, assigned: bool) -> None:
    """Check every row the merge would read from `other` as an import checks a file's rows; raise MergeRefused
    naming each bad row (table, key, the rule it breaks) before anything is written.

    What a merge trusts is checked too: content hashes are computed again from what they hash, every date is
    read and none is in the future, and no two rows share what identifies them (a table edited by hand may
    have lost its UNIQUE rule)."""
    problems: list[str] = []
    refused_versions: set[Any] = set()
    rubrics = _rubric_versions_checked(other, problems, refused_versions)
    items: dict[str, tuple[str, dict[str, Any]]] = {}  # id -> (rubric, fields), of rows that passed
    refused_items: set[Any] = set()  # their ratings and marks are not listed again
    refused_raters: set[Any] = set()
    by_name: dict[str, Rubric | None] = {name: rubric for name, rubric in rubrics.values() if rubric is not None}
    seen: set[Any] = set()
    for row in other.items(only_raters, assigned=assigned):
        rubric = None
        if isinstance(row["rubric"], str):
            if row["rubric"] not in by_name:
                by_name[row["rubric"]] = _our_rubric(store, row["rubric"])
            rubric = by_name[row["rubric"]]
        problem = (_repeated(seen, row["id"], "id")
                   or (stored_item_problem(row, rubric) if rubric is not None else _item_shape(row))
                   or time_problem(row["created_at"], "created_at"))
        if problem:
            problems.append(f"items row {row['id']!r}: {problem}")
            refused_items.add(row["id"])
        else:
            items[row["id"]] = (row["rubric"], stored_json(row["fields"], "fields", dict))
    kinds: dict[str, str] = {}
    seen = set()
    for row in other.raters(only_raters):
        problem = _repeated(seen, row["id"], "id") or _stored_rater(row) or time_problem(row["created_at"],
                                                                                           "created_at")
        if problem:
            problems.append(f"raters row {row['id']!r}: {problem}")
            refused_raters.add(row["id"])
        else:
            kinds[row["id"]] = row["kind"]
    scores_checked: dict[tuple[Any, ...], str | None] = {}  # most ratings repeat a few score patterns
    seen = set()
    for row in other.ratings(only_raters):
        if (row["item_id"] in refused_items or row["rater_id"] in refused_raters
                or row["rubric_version_id"] in refused_versions):
            continue  # its item's, rater's or rubric version's own line says what is wrong
        key = (row["item_id"], row["rater_id"], row["rubric_version_id"], row["repeat"])
        problem = (_repeated(seen, key, "item, rater, rubric version and repeat")
                   or _rating_problem(store, row, rubrics, items, kinds, scores_checked)
                   or time_problem(row["created_at"], "created_at") or time_problem(row["updated_at"], "updated_at"))
        if problem:
            problems.append(f"ratings row (item {row['item_id']!r}, rater {row['rater_id']!r}, rubric version "
                            f"{row['rubric_version_id']!r}, repeat {row['repeat']!r}): {problem}")
    seen = set()
    for row in [*other.set_aside(only_raters), *other.unreadable_marks(only_raters)]:
        if row["item_id"] in refused_items or row["rater_id"] in refused_raters:
            continue
        problem = (_repeated(seen, (row["item_id"], row["rater_id"]), "item and rater") or stored_mark_problem(row)
                   or _known_rater(store, row["rater_id"], kinds) or time_problem(row["updated_at"], "updated_at"))
        if problem:
            problems.append(f"drafts row (item {row['item_id']!r}, rater {row['rater_id']!r}): {problem}")
    seen = set()
    for row in other.finishes(only_raters):
        if row["rater_id"] in refused_raters:
            continue
        problem = (_repeated(seen, (row["rater_id"], row["rubric"]), "rater and rubric")
                   or stored_finish_problem(row) or _known_rater(store, row["rater_id"], kinds))
        if problem:
            problems.append(f"study_finishes row (rater {row['rater_id']!r}, rubric {row['rubric']!r}): {problem}")
    seen = set()
    for row in other.rating_draws(only_raters):  # they weight a balanced order's figures
        if row["item_id"] in refused_items or row["rater_id"] in refused_raters:
            continue
        problem = (_repeated(seen, (row["item_id"], row["rater_id"]), "item and rater") or _draw_problem(row)
                   or time_problem(row["created_at"], "created_at"))
        if problem:
            problems.append(f"rating_draws row (item {row['item_id']!r}, rater {row['rater_id']!r}): {problem}")
    seen = set()
    for row in other.prompt_versions():
        problem = (_repeated(seen, row["prompt_version"], "prompt version")
                   or time_problem(row["created_at"], "created_at") or _judge_definition_problem(row, other.path))
        if problem:
            problems.append(f"prompt_versions row {row['prompt_version']!r}: {problem}")
    for row in other.calibration_changes():
        problem = time_problem(row["created_at"], "created_at")
        if problem:
            problems.append(f"calibration_changes row (rubric {row['rubric']!r}, {row['outcome']!r}): {problem}")
    for row in other.revision_marks():
        problem = time_problem(row["created_at"], "created_at")
        if problem:
            problems.append(f"revision_marks row (item {row['item_id']!r}, rubric {row['rubric']!r}): {problem}")
    if assigned or not only_raters:
        plans = other.assignment_plans(only_raters)
        seen = set()
        for row in plans:
            problem = _repeated(seen, row["id"], "id") or time_problem(row["created_at"], "created_at")
            if problem:
                problems.append(f"assignment_plans row {row['id']!r}: {problem}")
        seen = set()
        for row in other.assignments([p["id"] for p in plans], only_raters):
            problem = (_repeated(seen, (row["plan_id"], row["rater_id"], row["item_id"]), "plan, rater and item")
                       or rater_id_problem(row["rater_id"], "human"))
            if problem:
                problems.append(f"assignments row (plan {row['plan_id']!r}, rater {row['rater_id']!r}, item "
                                f"{row['item_id']!r}): {problem}")
    if problems:
        shown = "\n".join(f"  {p}" for p in problems[:SHOWN_PROBLEMS])
        more = f"\n  ... and {len(problems) - SHOWN_PROBLEMS} more" if len(problems) > SHOWN_PROBLEMS else ""
        raise MergeRefused(
            f"{other.path}: refused, nothing was merged from it: {plural(len(problems), 'row')} "
            f"{word_for(len(problems), 'breaks', 'break')} the rules "
            f"every rating and item in judge-tui obeys (edited by hand, or written by a faulty program?):\n"
            f"{shown}{more}\nCorrect or delete these rows in {other.path}, or ask for a fresh copy of it "
            "(judge-tui export --bundle), and merge again.")


def _repeated(seen: set[Any], key: Any, what: str) -> str | None:
    """A row whose key an earlier row of its table has (a table edited by hand can lose its UNIQUE rule); the
    key is noted as seen."""
    try:
        if key in seen:
            return f"duplicate: an earlier row of this table has the same {what} (no two rows may)"
        seen.add(key)
    except TypeError:  # a value SQLite holds that Python cannot hash: refused by the row's other checks
        pass
    return None


def _rubric_versions_checked(other: ForeignDatabase, problems: list[str],
                             refused: set[Any]) -> dict[int, tuple[str, Rubric | None]]:
    """Their rubric versions by id: the rubric's id and its definition (None when this judge-tui cannot read
    it, as a newer judge-tui's may be: its ratings are then checked for the shape every rating has). A
    definition it can read must have the content hash recorded with it. The ids of rows refused go in `refused`."""
    found: dict[int, tuple[str, Rubric | None]] = {}
    hashes: set[Any] = set()
    for row in other.rubric_versions():
        problem = (_repeated(hashes, row["content_hash"], "content_hash")
                   or time_problem(row["created_at"], "created_at"))
        if problem:
            problems.append(f"rubric_versions row {row['id']!r}: {problem}")
            refused.add(row["id"])
            continue
        try:
            definition = stored_json(row["definition"], "definition", dict)
        except ValueError as exc:
            problems.append(f"rubric_versions row {row['id']!r}: {exc}")
            refused.add(row["id"])
            continue
        try:
            rubric: Rubric | None = rubric_from_definition(definition, f"{other.path} (rubric {row['rubric']})")
        except RubricError:
            rubric = None
        if rubric is not None and rubric.id != row["rubric"]:
            problems.append(f"rubric_versions row {row['id']!r}: its definition is rubric {rubric.id!r}, not "
                            f"{row['rubric']!r}")
            refused.add(row["id"])
            continue
        # The hash of what the experts are asked, or one an earlier release recorded for the definition
        if rubric is not None and row["content_hash"] not in {rubric.content_hash, *rubric.earlier_hashes}:
            problems.append(f"rubric_versions row {row['id']!r}: content_hash {row['content_hash']!r} is not the "
                            f"hash of its definition ({rubric.content_hash!r}): the definition was changed after "
                            "it was stored")
            refused.add(row["id"])
            continue
        found[row["id"]] = (row["rubric"], rubric)
    return found


def _our_rubric(store: Store, rubric_id: str) -> Rubric | None:
    """Our newest definition of a rubric the other database has no readable version of (a bundle of marks)."""
    newest = store.newest_rubric_version(rubric_id)
    try:
        return rubric_from_definition(newest["definition"], str(store.path)) if newest else None
    except RubricError:
        return None


def _item_shape(row: dict[str, Any]) -> str | None:
    """An item of a rubric whose definition cannot be read here: an id and fields as every item has them."""
    if not isinstance(row["rubric"], str) or not row["rubric"]:
        return f"rubric {row['rubric']!r} is not a rubric id"
    try:
        check_id(row["id"])
        fields = stored_json(row["fields"], "fields", dict)
    except ValueError as exc:
        return str(exc)
    return stored_hash_problem(row, fields)


def _stored_rater(row: dict[str, Any]) -> str | None:
    if row["id"] == CONSENSUS_RATER and row["kind"] == "human":
        return None  # the reserved id travels between databases as adjudication made it (checked per rating)
    return stored_rater_problem(row)


def _draw_problem(row: dict[str, Any]) -> str | None:
    """How a first rating's item was drawn: a known queue order, with a seed and a position that are numbers."""
    if row["kind"] not in (*ORDERS, ASSIGNED):
        return f"kind must be one of {', '.join((*ORDERS, ASSIGNED))}, not {row['kind']!r}"
    for column in ("seed", "position"):
        if row[column] is not None and (not isinstance(row[column], int) or isinstance(row[column], bool)):
            return f"{column} must be a whole number, not {row[column]!r}"
    for column in ("stratum", "judge_rater"):
        if row[column] is not None and not isinstance(row[column], str):
            return f"{column} must be text, not {row[column]!r}"
    return None


def _known_rater(store: Store, rater_id: str, kinds: dict[str, str]) -> str | None:
    if rater_id in kinds or store.rater(rater_id) is not None:
        return None
    return f"rater {rater_id!r} is not in the raters table of either database"


def _rating_problem(store: Store, row: dict[str, Any], rubrics: dict[int, tuple[str, Rubric | None]],
                    items: dict[str, tuple[str, dict[str, Any]]], kinds: dict[str, str],
                    scores_checked: dict[tuple[Any, ...], str | None]) -> str | None:
    if row["rubric_version_id"] not in rubrics:
        return f"rubric version {row['rubric_version_id']!r} is not in its rubric_versions table"
    rubric_id, rubric = rubrics[row["rubric_version_id"]]
    kind = kinds.get(row["rater_id"]) or (store.rater(row["rater_id"]) or {}).get("kind")
    if kind is None:
        return f"rater {row['rater_id']!r} is not in the raters table of either database"
    if row["item_id"] in items:
        item_rubric, fields = items[row["item_id"]]
    else:
        ours = store.item(row["item_id"]) if isinstance(row["item_id"], str) else None
        if ours is None:
            return f"item {row['item_id']!r} is not in the items table of either database"
        item_rubric, fields = ours.rubric, ours.fields
    if item_rubric != rubric_id:
        return f"item {row['item_id']!r} is under rubric {item_rubric!r}, the rating under {rubric_id!r}"
    if row["rater_id"] == CONSENSUS_RATER and not _adjudicated(row):
        return (f"rater {CONSENSUS_RATER!r} is reserved for the lead's adjudicated ratings, and this rating was "
                "not made by adjudication")
    if rubric is None:
        return _unreadable_rubric_rating(row)
    if any(d.method == "code" for d in rubric.dimensions):  # its scores depend on the item: no sharing
        return stored_rating_problem(row, rubric, kind, fields)
    key = (row["rubric_version_id"], kind, row["scores"], row["overall"], row["verdict"])
    if key not in scores_checked:
        scores_checked[key] = stored_scores_problem(rubric, kind, row["scores"], row["overall"], row["verdict"], {})
    return stored_rating_columns_problem(row) or scores_checked[key]


def _adjudicated(row: dict[str, Any]) -> bool:
    try:
        return stored_json(row["details"], "details", dict).get("adjudicated") is True
    except ValueError:
        return False


def _unreadable_rubric_rating(row: dict[str, Any]) -> str | None:
    """A rating under a rubric this judge-tui cannot read: scores an object of numbers from 0 to 1."""
    try:
        scores = stored_json(row["scores"], "scores", dict)
    except ValueError as exc:
        return str(exc)
    for dim, value in scores.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            return f"{dim}: {value!r} is not a score from 0 to 1"
    return None


def _merge_rubric_versions(store: Store, state: MergeState, other: ForeignDatabase, result: MergeResult) -> dict[int, int]:
    version_map: dict[int, int] = {}
    for row in other.rubric_versions():
        ours = state.rubric_versions.get(row["content_hash"])
        if ours is None:  # a version an earlier release hashed with its examples: ours asks the same
            ours = state.rubric_versions.get(_asked_hash(row["definition"]))
        if ours is None:
            ours = store.insert_merged_rubric_version(row)
            state.rubric_versions[row["content_hash"]] = ours
            result.added["rubric_versions"] += 1
        version_map[row["id"]] = ours
    return version_map


def _asked_hash(definition: str) -> str:
    """The hash of what a recorded definition asks the experts (the judge's settings left out); "" unreadable."""
    try:
        return definition_hash(json.loads(definition))
    except (ValueError, TypeError):
        return ""


def _merge_prompt_versions(
    store: Store, state: MergeState, other: ForeignDatabase, version_map: dict[int, int], result: MergeResult
) -> None:
    """New prompt versions, and the judge definitions of those new here or held here without one; never in force
    here (adopted_at stays NULL)."""
    new = []
    definitions: dict[str, dict[str, Any]] = {}
    for row in other.prompt_versions():
        if row["prompt_version"] not in state.judge_definitions:
            definition = _judge_definition(row, other.path)  # refuse_bad_rows refused what it raises on
            if definition is not None:
                definitions[row["prompt_version"]] = definition
            elif row["definition"] is not None:
                result.unread_definitions.append(row["prompt_version"])
        if row["prompt_version"] in state.prompt_versions:
            continue
        new.append({**row, "rubric_version_id": version_map.get(row["rubric_version_id"]), "definition": None})
        state.prompt_versions[row["prompt_version"]] = -1
    store.insert_merged("prompt_versions", new)
    given = store.add_merged_definitions(definitions)
    state.judge_definitions.update(given)
    result.added["prompt_versions"] += len(new)
    result.added["judge_definitions"] += len(given - {row["prompt_version"] for row in new})


def _judge_definition(row: dict[str, Any], path: Path) -> dict[str, Any] | None:
    """A prompt_versions row's judge definition, checked as the judge reads it: its rubric and template must make
    the row's prompt version again (the judge's own rule, `prompt_version`), and be of the row's rubric. None when
    it has none, or when this judge-tui cannot read its rubric or template (a later release's), so cannot check
    it. Raises ValueError saying what is wrong with it."""
    if row["definition"] is None:
        return None
    definition: dict[str, Any] = stored_json(row["definition"], "definition", dict)
    parts = (definition.get("rubric"), definition.get("rubric_text"), definition.get("template"))
    if not isinstance(parts[0], dict) or not isinstance(parts[1], str) or not isinstance(parts[2], str):
        raise ValueError("definition must be a JSON object with the judge's rubric (an object), its rubric_text "
                         "and template (text)")
    where = f"{path} (judge of prompt version {row['prompt_version']})"
    try:
        rubric = rubric_from_definition(parts[0], where)
        template = parse_template(parts[2], Path(where))
    except (RubricError, PromptError, ValueError, TypeError):  # front matter of types it does not expect, too
        return None
    if rubric.id != row["rubric"]:
        raise ValueError(f"its definition is the judge of rubric {rubric.id!r}, not {row['rubric']!r}")
    made = prompt_version(rubric, template)
    if made != row["prompt_version"]:
        raise ValueError(f"its definition makes prompt version {made!r}, not {row['prompt_version']!r}: the "
                         "definition was changed after it was stored")
    if parts[1]:  # the text the judge screen edits and rubric-export writes: the file of that same rubric
        try:
            same = rubric_from_text(parts[1], Path(where)).judge_hash == rubric.judge_hash
        except RubricError:
            same = False
        if not same:
            raise ValueError("its definition's rubric_text is not the text of its rubric: the definition was "
                             "changed after it was stored")
    return definition


def _judge_definition_problem(row: dict[str, Any], path: Path) -> str | None:
    try:
        _judge_definition(row, path)
    except ValueError as exc:
        return str(exc)
    return None


def _merge_calibration_changes(store: Store, state: MergeState, other: ForeignDatabase, result: MergeResult) -> None:
    new = []
    for row in other.calibration_changes():
        key = tuple(row[c] for c in CALIBRATION_CHANGE_KEY)
        if key not in state.calibration_changes:
            new.append(row)
            state.calibration_changes.add(key)
    store.insert_merged("calibration_changes", new)
    result.added["calibration_changes"] += len(new)


def _merge_items(
    store: Store, state: MergeState, other: ForeignDatabase, only_raters: list[str] | None, assigned: bool,
    result: MergeResult,
) -> dict[str, str]:
    """Copy new items; returns the ids whose content differs (with the problem)."""
    bad: dict[str, str] = {}
    new = []
    for row in other.items(only_raters, assigned=assigned):
        ours = state.items.get(row["id"])
        if ours is None:
            new.append({**row, "position": state.next_position})
            state.next_position += 1
            state.items[row["id"]] = (row["rubric"], row["content_hash"], row["split"])
            continue
        problem = _same_content(store, ours, row)
        if problem:
            bad[row["id"]] = problem
        elif row["split"] != ours[2] and row["split"] and ours[2]:
            result.split_differences.append((row["id"], ours[2], row["split"]))
    store.insert_merged("items", new)
    result.added["items"] = len(new)
    return bad


def _merge_raters(
    store: Store, state: MergeState, other: ForeignDatabase, only_raters: list[str] | None, result: MergeResult
) -> dict[str, str]:
    bad: dict[str, str] = {}
    new = []
    for row in other.raters(only_raters):
        kind = state.raters.get(row["id"])
        if kind is None:
            new.append(row)
            state.raters[row["id"]] = row["kind"]
        elif kind != row["kind"]:
            bad[row["id"]] = row["kind"]
    store.insert_merged("raters", new)
    result.added["raters"] = len(new)
    return bad


def _merge_ratings(
    store: Store, state: MergeState, other: ForeignDatabase, only_raters: list[str] | None,
    version_map: dict[int, int], bad_items: dict[str, str], bad_raters: dict[str, str], result: MergeResult,
) -> set[str]:
    new = []
    skipped_by_item: dict[str, set[str]] = {item_id: set() for item_id in bad_items}
    skipped_by_rater: dict[str, int] = dict.fromkeys(bad_raters, 0)
    rated: set[str] = set()
    added: dict[tuple[str, str, int, int], dict[str, Any]] = {}
    for row in other.ratings(only_raters):
        item_id, rater_id = row["item_id"], row["rater_id"]
        rated.add(item_id)
        if item_id in bad_items:
            skipped_by_item[item_id].add(rater_id)
            continue
        if rater_id in bad_raters:
            skipped_by_rater[rater_id] += 1
            continue
        key = (item_id, rater_id, version_map[row["rubric_version_id"]], row["repeat"])
        if key not in state.ratings:
            new.append({**row, "rubric_version_id": key[2]})
            state.ratings.add(key)
            added[key] = row
            continue
        theirs = rating_content([row[c] for c in RATING_CONTENT])
        ours = (rating_content([added[key][c] for c in RATING_CONTENT]) if key in added  # not written yet
                else store.merged_rating_content(key))
        if ours == theirs:
            result.unchanged_ratings += 1
        else:
            result.rating_conflicts.append(RatingConflict(
                item_id, rater_id, key[2], key[3], _rating_summary(ours), _rating_summary(theirs)))
    store.insert_merged("ratings", new)
    store.drop_marks_of_rated({(row["item_id"], row["rater_id"]) for row in new if not row["repeat"]})
    result.added["ratings"] = len(new)
    result.item_differences.extend(
        ItemDifference(item_id, problem, tuple(sorted(skipped_by_item[item_id])))
        for item_id, problem in sorted(bad_items.items())
    )
    result.rater_conflicts.extend(
        RaterConflict(rater_id, state.raters[rater_id], kind, skipped_by_rater[rater_id])
        for rater_id, kind in sorted(bad_raters.items())
    )
    return rated


def _merge_revision_marks(
    store: Store, state: MergeState, other: ForeignDatabase, only_items: set[str] | None,
    bad_items: dict[str, str], result: MergeResult,
) -> None:
    new = []
    for row in other.revision_marks(only_items):
        key = (row["item_id"], row["rubric"])
        if row["item_id"] in bad_items or key in state.revision_marks:
            continue
        new.append(row)
        state.revision_marks[key] = row["note"]
    store.insert_merged("revision_marks", new)
    result.added["revision_marks"] = len(new)


def _merge_set_aside(
    store: Store, state: MergeState, other: ForeignDatabase, only_raters: list[str] | None,
    bad_items: dict[str, str], bad_raters: dict[str, str], result: MergeResult,
) -> None:
    """Items the other side skipped or flagged without rating them, as draft rows holding only those marks."""
    set_aside = other.set_aside(only_raters)
    rated = {(key[0], key[1]) for key in state.ratings if key[3] == 0} if set_aside else set()
    new = []
    for row in set_aside:
        key = (row["item_id"], row["rater_id"])
        if row["item_id"] in bad_items or row["rater_id"] in bad_raters or key in rated or key in state.drafts:
            continue
        new.append({**row, "scores": "{}", "notes": "", "seconds": 0})
        state.drafts.add(key)
    store.insert_merged("drafts", new)
    result.added["set_aside"] = len(new)


def _merge_finishes(
    store: Store, state: MergeState, other: ForeignDatabase, only_raters: list[str] | None,
    bad_raters: dict[str, str], result: MergeResult,
) -> None:
    """An expert's finished study (name, summary notes, when): taken when we have none, or theirs is newer (the
    expert finished again, with other notes)."""
    names = {row["id"]: row["display_name"] for row in other.raters(only_raters)}
    for row in other.finishes(only_raters):
        rater_id = row["rater_id"]
        if rater_id in bad_raters or rater_id not in state.raters:
            continue
        ours = store.finish(rater_id, row["rubric"])
        if ours is not None and ours.finished_at >= row["finished_at"]:
            continue
        store.save_finish(Finish(rater_id, row["rubric"], row["summary_notes"], row["finished_at"]),
                          name=names.get(rater_id) or None)
        result.added["finishes"] += 1


def _merge_assignments(
    store: Store, state: MergeState, other: ForeignDatabase, only_raters: list[str] | None,
    bad_items: dict[str, str], result: MergeResult,
) -> None:
    plans = other.assignment_plans(only_raters)
    new_plans = [row for row in plans if row["id"] not in state.plans]
    store.insert_merged("assignment_plans", new_plans)
    state.plans.update(row["id"] for row in new_plans)
    result.added["assignment_plans"] = len(new_plans)
    new = []
    for row in other.assignments([p["id"] for p in plans], only_raters):
        key = (row["plan_id"], row["rater_id"], row["item_id"])
        if key in state.assignments or row["item_id"] in bad_items or row["item_id"] not in state.items:
            continue
        new.append(row)
        state.assignments.add(key)
    store.insert_merged("assignments", new)
    result.added["assignments"] = len(new)
    for rubric in sorted({row["rubric"] for row in new_plans}):
        terms, plan = store.certificate_in_force(rubric), store.current_plan(rubric)
        if terms is not None and (plan is None or plan["id"] != terms.plan_id):  # made with a plan no longer in force
            store.record_certificate(rubric, None, ())
            result.withdrawn_certificates.append(rubric)


# --------------------------------------------------------------------------- the command


def _shown(rating: dict[str, Any], other: dict[str, Any]) -> str:
    """A conflicting rating's scores, and its flag where the two differ in that."""
    text = json.dumps(rating["scores"], sort_keys=True)
    if (rating["flagged"], rating["flag_reason"]) != (other["flagged"], other["flag_reason"]):
        text += f" flagged ({rating['flag_reason'] or 'no reason'})" if rating["flagged"] else " not flagged"
    return text


def describe(result: MergeResult) -> list[str]:
    """The lines `judge-tui merge` prints for one file: what came in, then every problem, one per line."""
    a = result.added
    if result.changed:
        head = (f"{result.source}: added {plural(a['ratings'], 'rating')}, {plural(a['items'], 'item')}, "
                f"{plural(a['raters'], 'rater')}, {plural(a['rubric_versions'], 'rubric version')}")
        if a["prompt_versions"]:
            head += f", {plural(a['prompt_versions'], 'prompt version')}"
        if a["judge_definitions"]:
            head += f", the judge definition of {plural(a['judge_definitions'], 'prompt version')} already here"
        if a["revision_marks"]:
            head += f", {plural(a['revision_marks'], 'revision mark')}"
        if a["calibration_changes"]:
            head += f", {plural(a['calibration_changes'], 'kept or reverted judge change')}"
        if a["set_aside"]:
            head += f", {plural(a['set_aside'], 'skipped or flagged item')} not yet rated"
        if a["finishes"]:
            head += f", {plural(a['finishes'], 'finished study', 'finished studies')}"
        if a["assignment_plans"] or a["assignments"]:
            head += (f", {plural(a['assignment_plans'], 'assignment plan')} ({plural(a['assignments'], 'assigned item')}"
                     " across experts)")
    else:
        head = f"{result.source}: nothing new"
    lines = [head + f" ({plural(result.unchanged_ratings, 'rating')} already here)."]
    for diff in result.item_differences:
        skipped = f"; skipped their ratings by {', '.join(diff.skipped_ratings)}" if diff.skipped_ratings else ""
        lines.append(f"  CONFLICT item {diff.item_id} {diff.problem}: kept ours{skipped}.")
    for c in result.rating_conflicts:
        lines.append(
            f"  CONFLICT rating of {c.item_id} by {c.rater_id} (rubric version {c.rubric_version_id}, repeat "
            f"{c.repeat}) differs: kept ours {_shown(c.ours, c.theirs)}, theirs {_shown(c.theirs, c.ours)}."
        )
    for r in result.rater_conflicts:
        lines.append(f"  CONFLICT rater {r.rater_id} is a {r.our_kind} rater here but a {r.their_kind} rater "
                     f"there: skipped {plural(r.skipped_ratings, 'rating')}.")
    for item_id, ours, theirs in result.split_differences:
        lines.append(f"  note: item {item_id} is in split {ours} here and {theirs} there; kept {ours}.")
    for version in result.unread_definitions:
        lines.append(f"  note: the judge definition of prompt version {version} is not one this judge-tui can read "
                     "(a later release's?), so it was not checked nor taken: that version is here without it, as "
                     "from a database of an earlier release.")
    for rubric in result.withdrawn_certificates:
        lines.append(f"  note: the plan in force for rubric {rubric} is now theirs, so the judge's certificate made "
                     f"with ours is withdrawn: every item is the experts' to rate until `judge-tui assign --rubric "
                     f"{rubric} --escalate` plans again.")
    return lines
