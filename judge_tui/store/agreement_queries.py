"""What the agreement report and summary screen read: ratings as arrays, item properties, revision marks.

numpy is imported inside the methods that return arrays, so opening the store never loads it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from judge_tui.store.common import _json_path, compared_versions, now, where
from judge_tui.store.core import StoreCore


class AgreementQueries(StoreCore):
    # ------------------------------------------------------------------ agreement (report, summary screen)

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Read several queries from one consistent state of the database (a deferred read transaction)."""
        if self.conn.in_transaction:
            yield
            return
        self.conn.execute("BEGIN")
        try:
            yield
        finally:
            self.conn.rollback()

    def rubric_raters(self, rubric: str) -> list[dict[str, Any]]:
        """Raters who rated items of a rubric: id, kind, model, prompt_version, last_id.

        last_id (the rater's newest rating's row id, any rubric) orders raters by how recently they rated.
        Written with EXISTS rather than a GROUP BY over every rating: on 200k ratings 5 ms instead of 140 ms.
        """
        return self.query(
            "SELECT ra.id, ra.kind, ra.model, ra.prompt_version,"
            " (SELECT MAX(r.id) FROM ratings r WHERE r.rater_id = ra.id) AS last_id"
            " FROM raters ra WHERE EXISTS (SELECT 1 FROM ratings r JOIN items i ON i.id = r.item_id"
            " WHERE r.rater_id = ra.id AND i.rubric = ?) ORDER BY ra.kind, ra.id",
            [rubric],
        )

    def rubric_scores(self, rubric: str, dimensions: Sequence[str], split: str | None = None, *,
                      rater_id: str | None = None) -> RubricScores:
        """Every rating of a rubric's items (or one rater's), as parallel arrays, in one pass.

        Scores are read with json_extract in SQL: on 100k ratings of 5 dimensions this is about 1.5 times as
        fast as json.loads of each row in Python (see docs/benchmarks.md). Raters come as the rater table's
        row ids, named in `raters` (id, kind), so every column is a number and the rows make one array.
        """
        import numpy as np

        extract = "".join(", json_extract(r.scores, ?)" for _ in dimensions)
        sql = (
            f"SELECT t.rowid, i.rowid, r.repeat, r.rubric_version_id, r.overall{extract}"
            " FROM ratings r JOIN items i ON i.id = r.item_id JOIN raters t ON t.id = r.rater_id"
            " WHERE i.rubric = ?"
        )
        params: list[Any] = [_json_path(d) for d in dimensions] + [rubric]
        if rater_id is not None:
            sql += " AND r.rater_id = ?"
            params.append(rater_id)
        if split:
            sql += " AND i.split = ?"
            params.append(split)
        # In the order they were last written: among versions that ask the same, the rating written last wins.
        rows = self.conn.execute(sql + " ORDER BY r.updated_at, r.id", params).fetchall()
        table = np.array(rows, dtype=np.float64).reshape(len(rows), 5 + len(dimensions))
        raters = {key: (rater, kind) for key, rater, kind in self.conn.execute("SELECT rowid, id, kind FROM raters")}
        versions = table[:, 3].astype(np.int64)
        # Versions that ask the experts the same are one, numbered as the oldest of them (the view
        # current_ratings' rule: between them, the rating written last is the current one).
        for version_id, same in compared_versions(self.conn).items():
            if same != version_id:
                versions[versions == version_id] = same
        numbered = np.array(self.conn.execute("SELECT id, number FROM rubric_version_order ORDER BY id").fetchall(),
                            dtype=np.int64).reshape(-1, 2)
        at = np.clip(np.searchsorted(numbered[:, 0], versions), 0, max(len(numbered) - 1, 0))
        order = numbered[at, 1] if len(numbered) else np.zeros_like(versions)
        return RubricScores(
            dimensions=tuple(dimensions),
            raters=raters,
            rater_keys=table[:, 0].astype(np.int64),
            item_keys=table[:, 1].astype(np.int64),
            repeats=table[:, 2].astype(np.int64),
            versions=versions,
            version_order=order,
            overall=table[:, 4].copy(),
            scores=table[:, 5:].copy(),
        )

    def judgment_confidences(self, rubric: str, rater_id: str, source: str) -> tuple[Any, Any]:
        """(item keys, confidences) of a judge's current rating of each item of a rubric (its first run, as the
        view current_ratings says): the confidence named ``source`` its judgment stored
        (`details.confidence.<source>`: "stated", "logprob"), NaN where it has none or one outside 0 to 1."""
        import numpy as np

        path = f"$.confidence.{_json_path(source)[2:]}"
        rows = self.conn.execute(
            "SELECT i.rowid, CASE WHEN json_type(r.details, ?) IN ('real', 'integer') THEN json_extract(r.details, ?)"
            " END FROM current_ratings r JOIN items i ON i.id = r.item_id WHERE i.rubric = ? AND r.rater_id = ?"
            " ORDER BY i.rowid", [path, path, rubric, rater_id]).fetchall()
        keys = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        values = np.array([np.nan if r[1] is None else r[1] for r in rows], dtype=np.float64)
        with np.errstate(invalid="ignore"):
            values[(values < 0.0) | (values > 1.0)] = np.nan
        return keys, values

    def item_keys_in_order(self, rubric: str, split: str | None = None) -> tuple[Any, list[str]]:
        """(item keys, item ids) of a rubric's items (optionally one split) in the items' own order."""
        import numpy as np

        clause, params = where(("rubric = ?", rubric), ("split = ?", split))
        rows = self.conn.execute(f"SELECT rowid, id FROM items {clause} ORDER BY position", params).fetchall()
        return np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)), [r[1] for r in rows]

    def item_field_values(self, rubric: str, field: str, split: str | None = None) -> tuple[Any, list[Any]]:
        """(item keys, values) of one item property: id, task_type, split, or a field of the item.

        Item keys are the same as RubricScores.item_keys; keys come sorted.
        """
        import numpy as np

        if field in ("id", "task_type", "split"):
            column, params = f"i.{field}", []
        else:
            column, params = "json_extract(i.fields, ?)", [_json_path(field)]
        sql = f"SELECT i.rowid, {column} FROM items i WHERE i.rubric = ?"
        params.append(rubric)
        if split:
            sql += " AND i.split = ?"
            params.append(split)
        rows = self.conn.execute(sql + " ORDER BY i.rowid", params).fetchall()
        keys = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        return keys, [r[1] for r in rows]

    def item_field_lengths(self, rubric: str, field: str, split: str | None = None) -> tuple[Any, Any]:
        """(item keys, lengths) of one field of a rubric's items (optionally one split), keys sorted: a text's length
        in characters (a JSON object's or list's, of its JSON text), NaN where the item lacks the field or holds
        null. SQL counts the texts, so none is read into Python; a number or a truth value comes back as itself
        and is measured as Python writes it (1.5 as "1.5", true as "1")."""
        import numpy as np

        path = _json_path(field)
        sql = ("SELECT i.rowid,"
               " CASE WHEN json_type(i.fields, ?1) IN ('text', 'object', 'array') THEN length(json_extract(i.fields, ?1))"
               " END,"
               " CASE WHEN json_type(i.fields, ?1) IN ('integer', 'real', 'true', 'false') THEN json_extract(i.fields, ?1)"
               " END"
               " FROM items i WHERE i.rubric = ?2")
        params: list[Any] = [path, rubric]
        if split:
            sql += " AND i.split = ?3"
            params.append(split)
        rows = self.conn.execute(sql + " ORDER BY i.rowid", params).fetchall()
        keys = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        lengths = np.fromiter((r[1] if r[1] is not None else len(str(r[2])) if r[2] is not None else np.nan
                               for r in rows), dtype=np.float64, count=len(rows))
        return keys, lengths

    def item_fields_present(self, rubric: str, field: str) -> bool:
        """Whether any item of the rubric has this field (to tell a typo in --by from a missing value)."""
        return self.scalar(
            "SELECT 1 FROM items WHERE rubric = ? AND json_type(fields, ?) IS NOT NULL LIMIT 1",
            [rubric, _json_path(field)],
        ) is not None

    def mark_for_revision(self, item_id: str, rubric: str, note: str = "") -> None:
        """Record an item as a reason to revise the rubric (marking again replaces the note)."""
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO revision_marks (item_id, rubric, note, created_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (item_id, rubric) DO UPDATE SET note = excluded.note",
                [item_id, rubric, note, now()],
            )

    def unmark_for_revision(self, item_id: str, rubric: str) -> None:
        with self.transaction() as conn:
            conn.execute("DELETE FROM revision_marks WHERE item_id = ? AND rubric = ?", [item_id, rubric])

    def revision_marks(self, rubric: str) -> dict[str, str]:
        """Item id -> note of every item marked as a reason to revise this rubric."""
        return dict(self.conn.execute(
            "SELECT item_id, note FROM revision_marks WHERE rubric = ? ORDER BY created_at, item_id", [rubric]
        ).fetchall())


@dataclass(frozen=True)
class RubricScores:
    """Every rating of a rubric as parallel arrays (one row per rating); NaN marks a dimension left unscored."""

    dimensions: tuple[str, ...]
    raters: dict[int, tuple[str, str]]  # rater key -> (rater id, kind)
    rater_keys: Any  # int64 array: the rater's row id
    item_keys: Any  # int64 array: the item's row id (see item_field_values)
    repeats: Any  # int64 array
    versions: Any  # int64 array: rubric version id
    # int64 array: the version's number within its rubric (the view rubric_version_order), higher is newer
    version_order: Any
    overall: Any  # float array
    scores: Any  # float array, rows x dimensions
