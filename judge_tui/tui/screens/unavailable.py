"""Why a figures screen (the summary, the disagreements) has nothing to show yet, and what to do."""

from __future__ import annotations

from judge_tui.model.rubrics import Rubric


def judge_missing(rubric: Rubric) -> str:
    return (f"The judge has not rated any item of {rubric.id} yet, so there is nothing to compare. Run "
            f"`judge-tui judge --rubric {rubric.id}` (with an API key set, the app also judges in the background).")


def not_yet_submitted(rubric: Rubric) -> str:
    return (f"You have not submitted any {rubric.id} item yet. Figures appear here over the items you submit, "
            "never over items you have still to rate. Escape goes back.")


def unjudged_submissions(rubric: Rubric) -> str:
    return (f"None of the items you submitted has been rated by the judge yet (only submitted items are compared, "
            f"so nothing is revealed before you rate). Rate more, or run `judge-tui judge --rubric {rubric.id}`.")
