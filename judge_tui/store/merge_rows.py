"""Merging another judge-tui database into this one: what exists here, and writing copied rows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from judge_tui.store.common import _dumps, _loads, record_compared_versions
from judge_tui.store.items import ItemQueries


class MergeQueries(ItemQueries):
    # ------------------------------------------------------------------ merging (rows from another database)

    def merge_state(self) -> MergeState:
        """What this database already holds, keyed the way a merge matches rows."""
        state = MergeState()
        for rv_id, digest in self.conn.execute("SELECT id, content_hash FROM rubric_versions"):
            state.rubric_versions[digest] = rv_id
        for pv_id, version, defined in self.conn.execute(
                "SELECT id, prompt_version, definition IS NOT NULL FROM prompt_versions"):
            state.prompt_versions[version] = pv_id
            if defined:
                state.judge_definitions.add(version)
        for item_id, rubric, digest, split in self.conn.execute("SELECT id, rubric, content_hash, split FROM items"):
            state.items[item_id] = (rubric, digest, split)
        state.raters.update(self.conn.execute("SELECT id, kind FROM raters"))
        state.ratings.update(self.conn.execute("SELECT item_id, rater_id, rubric_version_id, repeat FROM ratings"))
        state.drafts.update(self.conn.execute("SELECT item_id, rater_id FROM drafts"))
        for item_id, rubric, note in self.conn.execute("SELECT item_id, rubric, note FROM revision_marks"):
            state.revision_marks[(item_id, rubric)] = note
        state.plans.update(r[0] for r in self.conn.execute("SELECT id FROM assignment_plans"))
        state.assignments.update(self.conn.execute("SELECT plan_id, rater_id, item_id FROM assignments"))
        state.calibration_changes.update(self.conn.execute(
            f"SELECT {', '.join(CALIBRATION_CHANGE_KEY)} FROM calibration_changes"))
        state.next_position = self._next_position()
        return state

    def merged_rating_content(self, key: tuple[str, str, int, int]) -> tuple[Any, ...]:
        """The rating_content() of our rating with this (item, rater, rubric version, repeat)."""
        row = self.conn.execute(
            f"SELECT {', '.join(RATING_CONTENT)} FROM ratings"
            " WHERE item_id = ? AND rater_id = ? AND rubric_version_id = ? AND repeat = ?", key).fetchone()
        return rating_content(row)

    def merged_item_fields(self, item_id: str) -> str:
        """Our item's fields as stored (JSON)."""
        return str(self.scalar("SELECT fields FROM items WHERE id = ?", [item_id]))

    def insert_merged(self, table: str, rows: Sequence[Mapping[str, Any]]) -> None:
        """Insert rows copied from another database, as they are (ids already remapped by the caller)."""
        if table not in _MERGED_TABLES:
            raise ValueError(f"{table!r} is not a table a merge writes")
        if not rows:
            return
        columns = list(rows[0])
        sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
        with self.transaction() as conn:
            conn.executemany(sql, [[row[c] for c in columns] for row in rows])

    def add_merged_definitions(self, definitions: Mapping[str, Mapping[str, Any]]) -> set[str]:
        """Give each prompt version held here without a judge definition the one another database brought
        (checked by the caller); returns the versions given one. None is put in force: that is the lead's choice
        (adopted_at stays as it was)."""
        given = set()
        with self.transaction() as conn:
            for version, definition in definitions.items():
                done = conn.execute("UPDATE prompt_versions SET definition = ? WHERE prompt_version = ?"
                                    " AND definition IS NULL", [_dumps(dict(definition)), version])
                if done.rowcount:
                    given.add(version)
        return given

    def insert_merged_draws(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Draw records copied from another database; an item's first draw here is kept."""
        with self.transaction() as conn:
            conn.executemany(
                "INSERT OR IGNORE INTO rating_draws (item_id, rater_id, rubric, kind, stratum, judge_rater, seed,"
                " position, created_at) VALUES (:item_id, :rater_id, :rubric, :kind, :stratum, :judge_rater, :seed,"
                " :position, :created_at)", rows)

    def insert_merged_rubric_version(self, row: Mapping[str, Any]) -> int:
        columns = [c for c in row if c != "id"]
        with self.transaction() as conn:
            cursor = conn.execute(
                f"INSERT INTO rubric_versions ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                [row[c] for c in columns],
            )
            record_compared_versions(conn)
            return int(cursor.lastrowid)  # type: ignore[arg-type]  # set by the INSERT just run


class MergeState:
    """This database's rows as a merge needs them: what exists, keyed by what makes two rows the same."""

    def __init__(self) -> None:
        self.rubric_versions: dict[str, int] = {}  # content hash -> id
        self.prompt_versions: dict[str, int] = {}  # prompt version -> id
        self.judge_definitions: set[str] = set()  # prompt versions that hold their judge definition
        self.items: dict[str, tuple[str, str, str | None]] = {}  # id -> (rubric, content hash, split)
        self.raters: dict[str, str] = {}  # id -> kind
        # Keys only, read from their index: a rating's content (MergeQueries.merged_rating_content) and an item's
        # fields (merged_item_fields) are read when the other database holds the same one. Reading and
        # re-encoding every row's JSON at each merge cost ~1 s per 50,000 ratings.
        self.ratings: set[tuple[str, str, int, int]] = set()  # (item, rater, rubric version, repeat)
        self.revision_marks: dict[tuple[str, str], str] = {}
        self.drafts: set[tuple[str, str]] = set()  # (item id, rater id)
        self.plans: set[str] = set()  # assignment plan ids
        self.assignments: set[tuple[str, str, str]] = set()  # (plan id, rater id, item id)
        self.calibration_changes: set[tuple[str, ...]] = set()  # CALIBRATION_CHANGE_KEY values
        self.next_position = 1


_MERGED_TABLES = {"items", "raters", "ratings", "revision_marks", "prompt_versions", "drafts", "assignment_plans",
                  "assignments", "calibration_changes"}

# What makes two records of a kept or reverted change to the judge the same record.
CALIBRATION_CHANGE_KEY = ("rubric", "outcome", "before_version", "after_version", "created_at")


# What makes two ratings the same rating: what the rater decided and wrote. Where it came from (source), how
# long it took (seconds) and the judge's call record (details: tokens, cost, latency) are not part of it, so
# the same judgment made on two laptops is one rating, not a conflict.
RATING_CONTENT = ("scores", "overall", "verdict", "notes", "flagged", "flag_reason")


def rating_content(row: Sequence[Any]) -> tuple[Any, ...]:
    """A rating's RATING_CONTENT values in a form two databases can compare (JSON re-encoded canonically)."""
    scores, overall, verdict, notes, flagged, flag_reason = row
    return (_dumps(_loads(scores, {})), overall, verdict, notes,
            int(flagged), flag_reason)
