"""The keys of the lead's and the reviewer's other screens: the judge screen, the agreement summary, the
disagreement browser and its revision-note dialog. Every binding has a stable id, so settings.keymap remaps it as it
remaps the rating screen's; keys.py checks a keymap against each screen's bindings."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding
from textual.containers import ScrollableContainer
from textual.widgets import DataTable, Input

CALIBRATION_BINDINGS: list[Binding] = [
    Binding("j", "judge_split", "Judge", id="cal-judge",
            tooltip="Judge the dev items the prompt in force has not judged yet, in the background"),
    Binding("e", "edit('rubric')", "Rubric", id="cal-edit-rubric",
            tooltip="Edit the rubric (anchors, guidance, guards) in $VISUAL/$EDITOR or the in-app editor"),
    Binding("t", "edit('template')", "Prompt", id="cal-edit-template",
            tooltip="Edit the judge prompt template"),
    Binding("x", "promote", "Example", id="cal-promote",
            tooltip="Make a train-split item, with the expert's rating, a few-shot example"),
    Binding("K", "keep", "Keep", id="cal-keep", tooltip="Keep the change under trial"),
    Binding("R", "revert", "Revert", id="cal-revert",
            tooltip="Revert the change under trial: the files as they were, the revert recorded"),
    Binding("a", "certificate_levels", "α δ", id="cal-levels",
            tooltip="Change the α and δ of the judge's certificate: which items it may decide alone"),
    Binding("i", "switch('cal-items')", "Items", id="cal-items",
            tooltip="The misaligned dev items, worst first (the same key again, or Overview, goes back)"),
    Binding("v", "switch('cal-validity')", "Validity", id="cal-validity-key",
            tooltip="What the judge in force may be used for (the same key again, or Overview, goes back)"),
    Binding("o", "switch('cal-overview')", "Overview", id="cal-overview-key", show=False),
    Binding("escape,q", "close", "Back", id="cal-close"),
]

SUMMARY_BINDINGS: list[Binding] = [
    Binding("d", "disagreements", "Disagreements", id="open-disagreements",
            tooltip="The items where you and the judge disagree most"),
    Binding("r", "refresh", "Refresh", id="refresh-summary", tooltip="Compute the figures again"),
    Binding("escape,q", "close", "Back", id="close-summary"),
]

DISAGREEMENT_BINDINGS: list[Binding] = [
    # Before the list's own Enter (hidden), which would otherwise hide this one from the key bar.
    Binding("enter", "open_item", "Open item", id="open-item", tooltip="Read the highlighted item in full",
            priority=True),
    Binding("m", "mark", "Mark for revision", id="mark-revision"),
    Binding("u", "unmark", "Unmark", id="unmark-revision"),
    Binding("escape,q", "close", "Back", id="close-disagreements"),
]

REVISION_NOTE_BINDINGS: list[Binding] = [Binding("escape", "cancel", "Cancel", id="cancel-revision-note")]


def _widget_keys(*widgets: type) -> frozenset[str]:
    """The keys these widgets bind themselves (their classes' BINDINGS, inherited ones too)."""
    return frozenset(key.strip() for widget in widgets for cls in widget.__mro__
                     for b in Binding.make_bindings(cls.__dict__.get("BINDINGS", ())) for key in b.key.split(","))


@dataclass(frozen=True)
class ScreenKeys:
    """One screen's bindings, and the keys its focused widgets take before a binding of the screen sees them (a
    remapped key there would never act, unless the binding has priority)."""

    bindings: list[Binding]
    taken: frozenset[str]
    why_taken: str
    typed: bool = False  # a text field has focus: every printable character is typed into it


_SCROLLING = _widget_keys(ScrollableContainer)
_LISTS = _SCROLLING | _widget_keys(DataTable)
# The rating screen's are in keys.py.
OTHER_SCREENS: dict[str, ScreenKeys] = {
    "judge screen": ScreenKeys(CALIBRATION_BINDINGS, _LISTS, "scrolls the page or moves in the list of items"),
    "agreement summary": ScreenKeys(SUMMARY_BINDINGS, _SCROLLING, "scrolls the page"),
    "disagreement browser": ScreenKeys(DISAGREEMENT_BINDINGS, _LISTS, "moves in the list of items"),
    "revision-note dialog": ScreenKeys(REVISION_NOTE_BINDINGS, _widget_keys(Input), "edits the note", typed=True),
}
