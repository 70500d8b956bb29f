"""Why a figures screen (the summary, the disagreements) has nothing to show yet, and what to do."""

from __future__ import annotations

from judge_tui.model.rubrics import Rubric


def judge_missing(rubric: Rubric, *, team_share: bool = False) -> str:
    """`team_share`: the reviewer rates a share of a team's plan, whose judging the lead's database does."""
    if team_share:
        return (f"The judge has not rated any item of {rubric.id} here: in a team's plan the lead runs the judge "
                "once for everyone, and compares your ratings with it when your work is merged (judge-tui export "
                "--bundle).")
    return (f"The judge has not rated any item of {rubric.id} yet, so there is nothing to compare. Run "
            f"`judge-tui judge --rubric {rubric.id}` (with an API key set, the app also judges in the background).")


def not_yet_submitted(rubric: Rubric) -> str:
    return (f"You have not submitted any {rubric.id} item yet. Figures appear here over the items you submit, "
            "never over items you have still to rate. Escape goes back.")


def lead_not_rated(rubric: Rubric, judge_screen_key: str, items_key: str) -> str:
    return (f"This list is your own ratings against the judge's, and you have rated no {rubric.id} item. The experts' "
            f"disagreements with the judge are on the judge screen: {judge_screen_key} on the rating screen, then "
            f"{items_key} for its items. Escape goes back.")


def unjudged_submissions(rubric: Rubric) -> str:
    return (f"None of the items you submitted has been rated by the judge yet (only submitted items are compared, "
            f"so nothing is revealed before you rate). Rate more, or run `judge-tui judge --rubric {rubric.id}`.")
