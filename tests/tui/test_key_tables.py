"""The key tables judge-tui keeps itself rather than reading Textual's private ones: the keys a terminal sends as
another key, and the name and arguments of our binding actions. Each is checked against what a real Textual app
does with them."""

from __future__ import annotations

import inspect
import string

import pytest
from textual import events
from textual.app import App
from textual.binding import Binding

from judge_tui.tui.keys import (
    CATEGORY_BINDINGS,
    EXPLAIN_BINDINGS,
    NAMED_KEYS,
    RATING_BINDINGS,
    SENT_AS,
    action_parts,
    key_problem,
)
from judge_tui.tui.screens.rating import RatingScreen

ALL_BINDINGS = (*RATING_BINDINGS, *CATEGORY_BINDINGS, *EXPLAIN_BINDINGS)


def test_every_key_textual_receives_under_another_name_is_known_as_sent_as_that_key():
    """Textual's key event lists the names a key also arrives under (tab: ctrl+i): each is in our table, pointing
    back at that key, and our table names no alias Textual does not."""
    received = sorted(NAMED_KEYS | set(SENT_AS.values()) | {"ctrl+at"})
    aliases = {alias: key for key in received for alias in events.Key(key, None).aliases if alias != key}
    # Ctrl+space sends NUL, which Textual's key parser names ctrl+@ (no alias): its alias list files ctrl+space
    # under ctrl+at, a name the parser never gives, so a binding of either would never run.
    assert aliases.pop("ctrl+space") == "ctrl+at"
    assert SENT_AS["ctrl+space"] == "ctrl+@"
    assert events.Key("ctrl+@", None).aliases == ["ctrl+@"]
    assert key_problem("ctrl+@") is None
    assert aliases == {alias: key for alias, key in SENT_AS.items() if alias != "ctrl+space"}
    for alias, key in SENT_AS.items():
        assert key_problem(alias) == f"{alias!r} reaches the app as {key!r} in a terminal: bind {key!r} instead"


@pytest.mark.parametrize(("action", "parts"), [
    ("submit", ("submit", ())),
    ("score(3)", ("score", (3,))),
    ("move(-1)", ("move", (-1,))),
    ("pass_fail('PASS')", ("pass_fail", ("PASS",))),
    ("scroll_item('scroll_page_down')", ("scroll_item", ("scroll_page_down",))),
    ("explain('score-0')", ("explain", ("score-0",))),
    ("app.quit", ("quit", ())),
    ("record(1, 'a, b', 2.5)", ("record", (1, "a, b", 2.5))),
])
def test_an_action_string_is_read_as_its_name_and_arguments(action, parts):
    assert action_parts(action) == parts


@pytest.mark.parametrize("binding", ALL_BINDINGS, ids=lambda b: f"{b.id}:{b.action}")
def test_every_binding_names_an_action_of_the_screen_that_takes_its_arguments(binding):
    name, arguments = action_parts(binding.action)
    owner = App if binding.action.startswith("app.") else RatingScreen
    method = getattr(owner, f"action_{name}")
    inspect.signature(method).bind(None, *arguments)  # raises TypeError when the arguments do not fit


WITH_ARGUMENTS = [b for b in ALL_BINDINGS if action_parts(b.action)[1]]
KEYS = [*string.ascii_lowercase, *string.digits, *(f"f{n}" for n in range(1, 13))]


class ActionRecorder(App[None]):
    BINDINGS = [Binding(key, b.action.replace(action_parts(b.action)[0], "record", 1))
                for key, b in zip(KEYS, WITH_ARGUMENTS, strict=False)]

    def __init__(self) -> None:
        super().__init__()
        self.received: list[tuple[object, ...]] = []

    def action_record(self, *arguments: object) -> None:
        self.received.append(arguments)


@pytest.mark.slow
async def test_textual_calls_each_action_with_the_arguments_we_read_from_it():
    """Each binding's action, renamed to one that records its arguments, run by Textual itself."""
    assert len(WITH_ARGUMENTS) <= len(KEYS)  # a key each
    app = ActionRecorder()
    async with app.run_test() as pilot:
        await pilot.press(*KEYS[:len(WITH_ARGUMENTS)])
        await pilot.pause()
    assert app.received == [action_parts(b.action)[1] for b in WITH_ARGUMENTS]
