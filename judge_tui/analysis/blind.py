"""The blind rule, in one place: over which items a viewer may see other raters' scores, notes and figures.

A reviewer (whoever opens the rating screen) sees only items they have submitted. A lead (`judge-tui
adjudicate`, `judge-tui calibrate`, `judge-tui rate --lead`) sees every item, unless they have rated items of this rubric themselves:
then they are an expert too, and see only those.

Screens a reviewer can reach read other raters' ratings only through here: `visible_items` for figures over
many items, `BlindReader` for one item's ratings (the rating screen's reveal, the disagreement browser's sides).
`tests/test_blind_home.py` fails if one of them asks the store for them directly.
"""

from __future__ import annotations

from judge_tui.model.records import Rating
from judge_tui.store import Store


def visible_items(store: Store, rubric_id: str, viewer: str, *, lead: bool = False) -> set[str] | None:
    """The ids of the items whose figures this viewer may see; None means every item."""
    submitted = store.rated_item_ids(viewer, rubric_id)
    if lead and not submitted:
        return None
    return submitted


class BlindReader:
    """One viewer's reads of ratings item by item, other raters' held back on items the viewer may not see."""

    def __init__(self, store: Store, rubric_id: str, viewer: str, *, lead: bool = False) -> None:
        self.store, self.rubric_id, self.viewer, self.lead = store, rubric_id, viewer, lead

    def may_see(self, item_id: str, *, submitted: bool | None = None) -> bool:
        """Whether the viewer may see others' opinions of this item. submitted: what the rating screen knows of
        the viewer's own work on it (a rating still waiting to be written counts; an item reopened for a blind
        re-check does not), None to ask the store."""
        if submitted is not None:
            return submitted
        if self.store.has_rated(item_id, self.viewer):
            return True
        return self.lead and not self.store.count_ratings(self.viewer, self.rubric_id)

    def others(self, item_id: str, *, submitted: bool | None = None) -> list[Rating]:
        """Other raters' current ratings of the item, one each; none while the viewer may not see them."""
        if not self.may_see(item_id, submitted=submitted):
            return []
        return [r for r in self.store.ratings_for_item(item_id, current=True) if r.rater_id != self.viewer]

    def rating(self, item_id: str, rater_id: str) -> Rating | None:
        """A rater's current rating of the item: the viewer's own always, another's only where the viewer may
        see it (None otherwise, as for an item that rater has not rated)."""
        if rater_id != self.viewer and not self.may_see(item_id):
            return None
        return self.store.rating(item_id, rater_id)
