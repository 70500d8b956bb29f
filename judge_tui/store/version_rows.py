"""Rubric versions and judge prompt versions, with the reasons they were made."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from judge_tui.store.common import _dumps, _loads, compared_versions, now, record_compared_versions
from judge_tui.store.core import StoreCore

TRIAL_META = "calibration.trial:{rubric}"  # the judge screen's change under trial (judge/calibration.py)

# A rubric's versions are numbered 1, 2, ... in the order they were made (the view rubric_version_order, which
# also says which is newest); history, exports and messages all use this number. Merged versions keep their
# date, so two databases number the same versions alike.
_NUMBERED = (
    "SELECT v.id, v.rubric, v.version, v.content_hash, v.reason, v.motivating_items, v.created_at, o.number"
    " FROM rubric_versions v JOIN rubric_version_order o ON o.id = v.id"
)


class VersionQueries(StoreCore):
    # ------------------------------------------------------------------ rubric versions

    def ensure_rubric_version(self, rubric: Any, reason: str = "", motivating_items: Sequence[str] = ()) -> int:
        """The id of this exact rubric definition, recording it the first time it is seen."""
        existing = self.scalar("SELECT id FROM rubric_versions WHERE content_hash = ?", [rubric.content_hash])
        if existing is not None:
            return int(existing)
        with self.transaction() as conn:
            # Looked up again under the write lock: another process may have recorded it since.
            existing = self.scalar("SELECT id FROM rubric_versions WHERE content_hash = ?", [rubric.content_hash])
            if existing is not None:
                return int(existing)
            cursor = conn.execute(
                "INSERT INTO rubric_versions (rubric, version, content_hash, definition, reason, motivating_items,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    rubric.id,
                    rubric.version,
                    rubric.content_hash,
                    _dumps(rubric.definition()),
                    reason,
                    _dumps(list(motivating_items)),
                    now(),
                ],
            )
            record_compared_versions(conn)
            return int(cursor.lastrowid)  # type: ignore[arg-type]  # set by the INSERT just run

    def rubric_versions(self, rubric_id: str | None = None) -> list[dict[str, Any]]:
        """Recorded versions, oldest first per rubric, each with its number within its rubric (1, 2, ...)."""
        where, params = ("WHERE rubric = ?", [rubric_id]) if rubric_id else ("", [])
        rows = self.query(f"SELECT * FROM ({_NUMBERED}) {where} ORDER BY rubric, number", params)
        for row in rows:
            row["motivating_items"] = _loads(row["motivating_items"], [])
        return rows

    def recorded_rubric_ids(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT DISTINCT rubric FROM rubric_versions ORDER BY 1")]

    def newest_rubric_version(self, rubric_id: str) -> dict[str, Any] | None:
        """The rubric's newest recorded version: its definition, number and when it was made (merges keep that
        date)."""
        rows = self.query("SELECT v.definition, v.created_at, o.number FROM rubric_versions v JOIN rubric_version_order o"
                          " ON o.id = v.id WHERE v.rubric = ? ORDER BY o.number DESC LIMIT 1", [rubric_id])
        if not rows:
            return None
        rows[0]["definition"] = _loads(rows[0]["definition"], None)
        return rows[0]

    def compared_rubric_versions(self) -> dict[int, int]:
        """Each rubric version's id -> the id its ratings are compared under (see compared_versions)."""
        return compared_versions(self.conn)

    def rubric_version_ids(self, rubric_id: str) -> list[int]:
        return [r[0] for r in self.conn.execute("SELECT id FROM rubric_versions WHERE rubric = ?", [rubric_id])]

    # ------------------------------------------------------------------ versions (reasons for changes)

    def set_rubric_version_reason(self, version_id: int, reason: str, motivating_items: Sequence[str]) -> None:
        with self.transaction() as conn:
            conn.execute("UPDATE rubric_versions SET reason = ?, motivating_items = ? WHERE id = ?",
                         [reason, _dumps(list(motivating_items)), version_id])

    def rubric_version_by_hash(self, digest: str) -> dict[str, Any] | None:
        return self._one_rubric_version("content_hash", digest)

    def rubric_version(self, version_id: int) -> dict[str, Any] | None:
        return self._one_rubric_version("id", version_id)

    def _one_rubric_version(self, column: str, value: object) -> dict[str, Any] | None:
        rows = self.query(f"SELECT * FROM ({_NUMBERED}) WHERE {column} = ?", [value])
        if not rows:
            return None
        rows[0]["motivating_items"] = _loads(rows[0]["motivating_items"], [])
        return rows[0]

    def record_prompt_version(
        self, rubric_id: str, prompt_version: str, rubric_version_id: int | None, template: str = "",
        reason: str = "", motivating_items: Sequence[str] = (), definition: Mapping[str, Any] | None = None,
    ) -> int:
        """The id of a judge prompt version, recorded the first time; a reason given later fills an empty one.

        With its ``definition`` (the judge's rubric, rubric text and template) it is put in force when first
        recorded, or when a version recorded without one gets it."""
        with self.transaction() as conn:
            # Read under the write lock: two judges starting together both find it new, and only one may add it.
            row = conn.execute(
                "SELECT id, reason, definition FROM prompt_versions WHERE prompt_version = ?", [prompt_version]
            ).fetchone()
            if row is not None:
                if reason and not row[1]:
                    conn.execute("UPDATE prompt_versions SET reason = ?, motivating_items = ? WHERE id = ?",
                                 [reason, _dumps(list(motivating_items)), row[0]])
                if definition is not None and row[2] is None:
                    conn.execute("UPDATE prompt_versions SET definition = ?, adopted_at = ? WHERE id = ?",
                                 [_dumps(dict(definition)), now(), row[0]])
                return int(row[0])
            cursor = conn.execute(
                "INSERT INTO prompt_versions (rubric, prompt_version, rubric_version_id, template, reason,"
                " motivating_items, created_at, definition, adopted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [rubric_id, prompt_version, rubric_version_id, template, reason, _dumps(list(motivating_items)),
                 now(), None if definition is None else _dumps(dict(definition)),
                 None if definition is None else now()],
            )
            return int(cursor.lastrowid)  # type: ignore[arg-type]  # set by the INSERT just run

    def adopt_prompt_version(self, prompt_version: str) -> bool:
        """Put a recorded judge definition in force again (a revert, a change tried again); False when that
        version holds no definition."""
        with self.transaction() as conn:
            done = conn.execute("UPDATE prompt_versions SET adopted_at = ? WHERE prompt_version = ?"
                                " AND definition IS NOT NULL", [now(), prompt_version])
            return done.rowcount > 0

    def judge_definition(self, rubric_id: str) -> dict[str, Any] | None:
        """The judge definition in force for a rubric in this database: the one put in force last (None before
        the judge's definition was first kept here). A definition a merge brought is not in force until put in
        force here."""
        rows = self.query("SELECT prompt_version, rubric_version_id, definition, adopted_at FROM prompt_versions"
                          " WHERE rubric = ? AND definition IS NOT NULL AND adopted_at IS NOT NULL"
                          " ORDER BY adopted_at DESC, id DESC LIMIT 1", [rubric_id])
        if not rows:
            return None
        rows[0]["definition"] = _loads(rows[0]["definition"], None)
        return rows[0]

    def chosen_example_ids(self, rubric_id: str) -> set[str]:
        """Items chosen as the judge's few-shot examples (`[[examples]]`) in any recorded definition of the
        rubric's judge, in force or not, or of the rubric (where an earlier release recorded them)."""
        return {row[0] for row in self.conn.execute(
            "SELECT json_extract(e.value, '$.item') FROM prompt_versions p, json_each(p.definition, '$.rubric.examples') e"
            " WHERE p.rubric = ? AND json_valid(p.definition)"
            " UNION SELECT json_extract(e.value, '$.item') FROM rubric_versions v, json_each(v.definition, '$.examples') e"
            " WHERE v.rubric = ? AND json_valid(v.definition)", [rubric_id, rubric_id]) if row[0] is not None}

    def prompt_versions(self, rubric_id: str | None = None) -> list[dict[str, Any]]:
        where, params = ("WHERE rubric = ?", [rubric_id]) if rubric_id else ("", [])
        rows = self.query(
            f"SELECT id, rubric, prompt_version, rubric_version_id, template, reason, motivating_items, created_at"
            f" FROM prompt_versions {where} ORDER BY id", params,
        )
        for row in rows:
            row["motivating_items"] = _loads(row["motivating_items"], [])
        return rows

    def rating_counts_by_version(self, rubric_id: str | None = None) -> dict[tuple[int, str], int]:
        """(rubric version id, rater kind) -> number of ratings."""
        where, params = ("WHERE v.rubric = ?", [rubric_id]) if rubric_id else ("", [])
        rows = self.conn.execute(
            f"SELECT r.rubric_version_id, t.kind, COUNT(*) FROM ratings r JOIN raters t ON t.id = r.rater_id"
            f" JOIN rubric_versions v ON v.id = r.rubric_version_id {where} GROUP BY 1, 2", params,
        )
        return {(version, kind): count for version, kind, count in rows}

    def judge_raters_with_prompt(self, rubric_id: str) -> list[dict[str, Any]]:
        """Judge raters of a rubric's items with their prompt version and how many of those items' ratings each has."""
        return self.query(
            "SELECT t.id, t.model, t.prompt_version, i.rubric, COUNT(r.id) AS ratings FROM raters t"
            " JOIN ratings r ON r.rater_id = t.id JOIN items i ON i.id = r.item_id"
            " WHERE t.kind = 'judge' AND i.rubric = ? GROUP BY t.id ORDER BY t.created_at, t.id", [rubric_id]
        )

    def judge_raters_on_version(self, rubric_version_id: int) -> list[str]:
        return [r[0] for r in self.conn.execute(
            "SELECT DISTINCT r.rater_id FROM ratings r JOIN raters t ON t.id = r.rater_id"
            " WHERE t.kind = 'judge' AND r.rubric_version_id = ? ORDER BY 1", [rubric_version_id])]

    # ------------------------------------------------------------------ kept and reverted changes to the judge

    def record_calibration_change(self, rubric_id: str, outcome: str, before: str, after: str, reason: str,
                                  motivating_items: Sequence[str]) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO calibration_changes (rubric, outcome, before_version, after_version, reason,"
                " motivating_items, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [rubric_id, outcome, before, after, reason, _dumps(list(motivating_items)), now()])

    def prompt_version_under_trial(self, rubric_id: str) -> str | None:
        """The prompt version the judge screen is trying now and has neither kept nor reverted (None: none)."""
        raw = self.get_meta(TRIAL_META.format(rubric=rubric_id))
        try:
            after = _loads(raw, {})["after"] if raw else None
        except (ValueError, TypeError, KeyError):
            return None
        return after if isinstance(after, str) else None

    def calibration_changes(self, rubric_id: str | None = None) -> list[dict[str, Any]]:
        """Kept and reverted changes to a rubric's judge (every rubric's without one), oldest first."""
        where, params = ("WHERE rubric = ?", [rubric_id]) if rubric_id else ("", [])
        rows = self.query("SELECT rubric, outcome, before_version, after_version, reason, motivating_items, created_at"
                          f" FROM calibration_changes {where} ORDER BY created_at, id", params)
        for row in rows:
            row["motivating_items"] = _loads(row["motivating_items"], [])
        return rows
