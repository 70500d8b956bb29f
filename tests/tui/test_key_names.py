"""A printable character's key name, as Textual names the key event it sends: what a keymap's "!" and
"exclamation_mark" are both normalised to. Checked against the key events of a real Textual app."""

from __future__ import annotations

import string

import pytest
from textual import events
from textual.app import App

from judge_tui.tui.keys import character_key, key_problem, normalise_key

CHARACTERS = [c for c in string.printable if not c.isspace()] + ["é"]


class KeyRecorder(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.keys: list[tuple[str, str | None]] = []

    def on_key(self, event: events.Key) -> None:
        self.keys.append((event.key, event.character))


@pytest.mark.slow
async def test_every_printable_character_gets_the_name_textual_gives_its_key():
    app = KeyRecorder()
    async with app.run_test() as pilot:
        for character in CHARACTERS:
            await pilot.press(character)
        await pilot.pause()
    assert [character for _key, character in app.keys] == CHARACTERS
    assert [key for key, _character in app.keys] == [character_key(c) for c in CHARACTERS]


def test_a_character_and_its_name_are_one_key():
    assert normalise_key("!") == normalise_key("exclamation_mark") == "exclamation_mark"
    assert normalise_key("[") == "left_square_bracket"
    assert normalise_key("+") == "plus"
    assert normalise_key("a") == "a"
    assert normalise_key("ctrl+s") == "ctrl+s"
    assert normalise_key("é") == "é"  # a letter is its own name
    assert key_problem("exclamation_mark") is None
    assert key_problem("left_square_bracket") is None
