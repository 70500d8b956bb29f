"""Another judge-tui database, read-only, as the source of a merge or a bundle."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from judge_tui.store.assignments import CURRENT_PLAN
from judge_tui.store.common import StoreError
from judge_tui.store.core import connect_read_only
from judge_tui.store.flags import SET_ASIDE


class ForeignDatabase:
    """Another judge-tui database, opened read-only (SQLite URI mode=ro) so a merge can never change it.

    On read-only media (an expert's USB stick) it is opened as immutable, as nothing can change it there.
    """

    REQUIRED = ("items", "raters", "ratings", "rubric_versions")

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise StoreError(f"{path}: no such file")
        try:
            self.conn = connect_read_only(self.path)
            self.tables = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path}: cannot read as a judge-tui database ({exc})") from None
        missing = [t for t in self.REQUIRED if t not in self.tables]
        if missing:
            self.conn.close()
            raise StoreError(f"{path}: not a judge-tui database (no {', '.join(missing)} table)")

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> ForeignDatabase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        try:
            cursor = self.conn.execute(sql, params)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot read ({exc})") from None
        names = [d[0] for d in cursor.description or ()]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    @staticmethod
    def _rater_filter(only_raters: Sequence[str] | None, column: str) -> tuple[str, list[Any]]:
        if not only_raters:
            return "", []
        return f" WHERE {column} IN ({','.join('?' * len(only_raters))})", list(only_raters)

    def meta(self, key: str) -> str | None:
        if "meta" not in self.tables:
            return None
        rows = self._rows("SELECT value FROM meta WHERE key = ?", [key])
        return rows[0]["value"] if rows else None

    def rubric_versions(self) -> list[dict[str, Any]]:
        return self._rows("SELECT id, rubric, version, content_hash, definition, reason, motivating_items,"
                          " created_at FROM rubric_versions ORDER BY id")

    def prompt_versions(self) -> list[dict[str, Any]]:
        """Judge prompt versions with their judge definitions (None where a version has none: always in a
        database from before they were kept). When the other side put one in force is its own, not read."""
        if "prompt_versions" not in self.tables:
            return []
        definition = "definition" if "definition" in self._columns("prompt_versions") else "NULL AS definition"
        return self._rows("SELECT rubric, prompt_version, rubric_version_id, template, reason, motivating_items,"
                          f" created_at, {definition} FROM prompt_versions ORDER BY id")

    def calibration_changes(self) -> list[dict[str, Any]]:
        """Kept and reverted changes to the judge (a database from before their table has none to give)."""
        if "calibration_changes" not in self.tables:
            return []
        return self._rows("SELECT rubric, outcome, before_version, after_version, reason, motivating_items,"
                          " created_at FROM calibration_changes ORDER BY created_at, id")

    def _columns(self, table: str) -> set[str]:
        return {row["name"] for row in self._rows(f"PRAGMA table_info({table})")}

    def items(self, only_raters: Sequence[str] | None = None, *, assigned: bool = False) -> list[dict[str, Any]]:
        """Items; with only_raters, those these raters rated, skipped or flagged (and with assigned, those
        assigned to them in the plans in force)."""
        where, params = self._rater_filter(only_raters, "rater_id")
        restrict = ""
        if only_raters:
            restrict = f" WHERE id IN (SELECT item_id FROM ratings{where})"
            copies = 1
            if "drafts" in self.tables:
                restrict += f" OR id IN (SELECT item_id FROM drafts{where} AND (skipped = 1 OR flagged = 1))"
                copies = 2
            params = params * copies
            if assigned and "assignments" in self.tables:
                of_raters, rater_params = self._rater_filter(only_raters, "a.rater_id")
                restrict += (" OR id IN (SELECT a.item_id FROM assignments a JOIN assignment_plans p ON"
                             f" p.id = a.plan_id{of_raters} AND {CURRENT_PLAN})")
                params += rater_params
        return self._rows("SELECT id, rubric, task_type, fields, split, content_hash, position, source,"
                          f" few_shot_used, created_at FROM items{restrict} ORDER BY position", params)

    def raters(self, only_raters: Sequence[str] | None = None) -> list[dict[str, Any]]:
        where, params = self._rater_filter(only_raters, "id")
        return self._rows("SELECT id, kind, model, prompt_version, display_name, created_at FROM raters"
                          f"{where} ORDER BY id", params)

    def finishes(self, only_raters: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Finished studies (summary notes and when); an older database keeps an imported form's in meta."""
        where, params = self._rater_filter(only_raters, "rater_id")
        if "study_finishes" in self.tables:
            return self._rows(f"SELECT rater_id, rubric, summary_notes, finished_at FROM study_finishes{where}"
                              " ORDER BY rater_id, rubric", params)
        found: dict[tuple[str, str], dict[str, Any]] = {}
        for row in self._rows("SELECT key, value FROM meta WHERE key LIKE 'summary_notes:%'"
                              " OR key LIKE 'completion_date:%'") if "meta" in self.tables else []:
            what, _, rest = str(row["key"]).partition(":")
            rater_id, _, rubric = rest.rpartition(":")
            if only_raters and rater_id not in only_raters:
                continue
            entry = found.setdefault((rater_id, rubric), {"rater_id": rater_id, "rubric": rubric,
                                                          "summary_notes": "", "finished_at": ""})
            entry["summary_notes" if what == "summary_notes" else "finished_at"] = row["value"] or ""
        return [found[key] for key in sorted(found)]

    def ratings(self, only_raters: Sequence[str] | None = None) -> list[dict[str, Any]]:
        where, params = self._rater_filter(only_raters, "rater_id")
        flags = "flagged, flag_reason"
        if "flagged" not in self._columns("ratings"):
            # A database from before flags moved onto ratings: a submitted item's flag is in its draft.
            flags = ("COALESCE((SELECT d.flagged FROM drafts d WHERE d.item_id = r.item_id AND d.rater_id = r.rater_id"
                     " AND r.repeat = 0), 0) AS flagged, COALESCE((SELECT d.flag_reason FROM drafts d WHERE"
                     " d.item_id = r.item_id AND d.rater_id = r.rater_id AND d.flagged = 1 AND r.repeat = 0), '')"
                     " AS flag_reason") if "drafts" in self.tables else "0 AS flagged, '' AS flag_reason"
        return self._rows("SELECT item_id, rater_id, rubric_version_id, repeat, scores, overall, verdict, notes,"
                          f" seconds, source, details, created_at, updated_at, {flags} FROM ratings r{where}"
                          " ORDER BY id", params)

    def rating_draws(self, only_raters: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """How each first rating's item was drawn (queue orders), if the database records it."""
        if "rating_draws" not in self.tables:
            return []
        where, params = self._rater_filter(only_raters, "rater_id")
        return self._rows("SELECT item_id, rater_id, rubric, kind, stratum, judge_rater, seed, position, created_at"
                          f" FROM rating_draws{where} ORDER BY created_at, rowid", params)

    def set_aside(self, only_raters: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Drafts of items skipped or flagged but not rated: just those marks (unsubmitted scores stay here)."""
        if "drafts" not in self.tables:
            return []
        where, params = self._rater_filter(only_raters, "d.rater_id")
        where = (where + " AND " if where else " WHERE ") + SET_ASIDE
        return self._rows("SELECT d.item_id, d.rater_id, d.skipped, d.flagged, d.flag_reason, d.updated_at"
                          f" FROM drafts d{where} ORDER BY d.item_id, d.rater_id", params)

    def unreadable_marks(self, only_raters: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Drafts whose skip or flag is neither 0 nor 1 (a hand edit): set_aside cannot tell whether they mark
        their item, so they are read for the merge to refuse rather than pass over."""
        if "drafts" not in self.tables:
            return []
        where, params = self._rater_filter(only_raters, "d.rater_id")
        where = (where + " AND " if where else " WHERE ") + ("(COALESCE(d.skipped, -1) NOT IN (0, 1)"
                                                              " OR COALESCE(d.flagged, -1) NOT IN (0, 1))")
        return self._rows("SELECT d.item_id, d.rater_id, d.skipped, d.flagged, d.flag_reason, d.updated_at"
                          f" FROM drafts d{where} ORDER BY d.item_id, d.rater_id", params)

    def assignment_plans(self, only_raters: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Assignment plans; with only_raters, the plans in force in which these raters have items."""
        if "assignment_plans" not in self.tables:
            return []
        where, params = self._rater_filter(only_raters, "a.rater_id")
        restrict = ""
        if only_raters:
            restrict = f" WHERE {CURRENT_PLAN} AND id IN (SELECT a.plan_id FROM assignments a{where})"
        return self._rows("SELECT id, rubric, experts, overlap, overlap_raters, per_expert, seed, balance, created_at"
                          f" FROM assignment_plans p{restrict} ORDER BY created_at, id", params)

    def assignments(self, plan_ids: Sequence[str], only_raters: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """The rows of these plans (of these raters only, if given)."""
        if "assignments" not in self.tables or not plan_ids:
            return []
        where, params = self._rater_filter(only_raters, "rater_id")
        where = (where + " AND " if where else " WHERE ") + f"plan_id IN ({','.join('?' * len(plan_ids))})"
        return self._rows("SELECT plan_id, rater_id, item_id, position, overlap FROM assignments"
                          f"{where} ORDER BY plan_id, rater_id, position", [*params, *plan_ids])

    def revision_marks(self, only_items: set[str] | None = None) -> list[dict[str, Any]]:
        if "revision_marks" not in self.tables:
            return []
        rows = self._rows("SELECT item_id, rubric, note, created_at FROM revision_marks ORDER BY id")
        return rows if only_items is None else [r for r in rows if r["item_id"] in only_items]
