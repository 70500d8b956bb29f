"""What importing, exporting and splitting read beyond the plain item and rating queries."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from judge_tui.model.records import Item
from judge_tui.store.common import _loads
from judge_tui.store.items import ItemQueries


class ImportExportQueries(ItemQueries):
    # ------------------------------------------------------------------ import, export and splits

    def item_states(self, ids: Iterable[str]) -> dict[str, tuple[str, str]]:
        """{id: (rubric, content hash)} for those of these ids that exist."""
        return {id_: (rubric, digest) for id_, rubric, digest in self.rows_for_ids(
            "SELECT id, rubric, content_hash FROM items WHERE id IN ({ids})", ids)}

    def items_by_id(self, ids: Iterable[str]) -> dict[str, Item]:
        return {row[0]: self._item(row) for row in self.rows_for_ids(
            f"SELECT {self._ITEM_COLUMNS} FROM items WHERE id IN ({{ids}})", ids)}

    def item_ids(self, rubric: str) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT id FROM items WHERE rubric = ? ORDER BY id", [rubric])]

    def rating_keys(self, rater_id: str, rubric_version_id: int) -> set[tuple[str, int]]:
        """(item id, repeat) of this rater's ratings under one rubric version."""
        return set(self.conn.execute(
            "SELECT item_id, repeat FROM ratings WHERE rater_id = ? AND rubric_version_id = ?",
            [rater_id, rubric_version_id]).fetchall())

    def rubric_definition(self, rubric_version_id: int) -> dict[str, Any] | None:
        """The rubric exactly as it was when this version was recorded."""
        text = self.scalar("SELECT definition FROM rubric_versions WHERE id = ?", [rubric_version_id])
        definition: dict[str, Any] | None = _loads(text, None)
        return definition

    def latest_human_verdicts(self, rubric: str) -> dict[str, str]:
        """{item id: verdict} from the most recently updated human rating of each item that has a verdict."""
        rows = self.conn.execute(
            "SELECT r.item_id, r.verdict FROM ratings r JOIN items i ON i.id = r.item_id"
            " JOIN raters t ON t.id = r.rater_id"
            " WHERE i.rubric = ? AND t.kind = 'human' AND r.verdict IS NOT NULL"
            " ORDER BY r.updated_at, r.id", [rubric])
        return dict(rows.fetchall())  # later rows overwrite earlier ones: the latest wins

    def latest_human_overalls(self, rubric: str) -> dict[str, float]:
        """{item id: overall score} from the most recently updated human rating of each item that has one."""
        rows = self.conn.execute(
            "SELECT r.item_id, r.overall FROM ratings r JOIN items i ON i.id = r.item_id"
            " JOIN raters t ON t.id = r.rater_id"
            " WHERE i.rubric = ? AND t.kind = 'human' AND r.overall IS NOT NULL"
            " ORDER BY r.updated_at, r.id", [rubric])
        return dict(rows.fetchall())  # the latest wins, as above
