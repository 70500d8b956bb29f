"""A finished study: an expert's name, summary notes and finishing time for one rubric.

The name is the raters row's display_name (one per expert); the notes and the time are per rubric
(study_finishes), since an expert may take part in several studies.
"""

from __future__ import annotations

from dataclasses import dataclass

from judge_tui.store.core import StoreCore


@dataclass(frozen=True)
class Finish:
    rater_id: str
    rubric: str
    summary_notes: str
    finished_at: str  # ISO 8601 in UTC ("2026-01-15T14:30:00Z"); "" when not known


class FinishQueries(StoreCore):
    # ------------------------------------------------------------------ finishing a study

    def finish(self, rater_id: str, rubric: str) -> Finish | None:
        row = self.conn.execute(
            "SELECT rater_id, rubric, summary_notes, finished_at FROM study_finishes WHERE rater_id = ? AND rubric = ?",
            [rater_id, rubric]).fetchone()
        return Finish(*row) if row else None

    def save_finish(self, finish: Finish, *, name: str | None = None) -> None:
        """Keep the finish (replacing an earlier one of the same expert and rubric); with name, the expert's
        name too."""
        with self.transaction() as conn:
            if name is not None:
                conn.execute("UPDATE raters SET display_name = ? WHERE id = ?", [name, finish.rater_id])
            conn.execute(
                "INSERT INTO study_finishes (rater_id, rubric, summary_notes, finished_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (rater_id, rubric) DO UPDATE SET summary_notes = excluded.summary_notes,"
                " finished_at = excluded.finished_at",
                [finish.rater_id, finish.rubric, finish.summary_notes, finish.finished_at])

    def finishes(self) -> list[Finish]:
        rows = self.conn.execute(
            "SELECT rater_id, rubric, summary_notes, finished_at FROM study_finishes ORDER BY rater_id, rubric")
        return [Finish(*row) for row in rows]
