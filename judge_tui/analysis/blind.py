"""The blind rule, in one place: over which items a viewer may see other raters' scores, notes and figures.

A reviewer (whoever opens the rating screen) sees only items they have submitted. A lead (`judge-tui
adjudicate`, `judge-tui calibrate`, `judge-tui rate --lead`) sees every item, unless they have rated items of this rubric themselves:
then they are an expert too, and see only those.
"""

from __future__ import annotations

from judge_tui.store import Store


def visible_items(store: Store, rubric_id: str, viewer: str, *, lead: bool = False) -> set[str] | None:
    """The ids of the items whose figures this viewer may see; None means every item."""
    submitted = store.rated_item_ids(viewer, rubric_id)
    if lead and not submitted:
        return None
    return submitted
