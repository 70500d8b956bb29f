"""Items, notes and reasons full of markup and escape sequences are shown exactly as written."""

from __future__ import annotations

import pytest

from judge_tui.model.records import Item
from judge_tui.tui.screens.rating import RatingScreen
from judge_tui.tui.widgets.status_line import StatusLine
from tests.tui.screen_text import screen_lines, screen_text, widget_text

MARKUP = "[bold]loud[/bold] a stray [/] then [@click=app.quit]quit[/] and [link=https://evil.example]x[/link]"
ESCAPES = "\x1b]0;pwned title\x07\x1b[31mred\x1b[0m bell\x07 nul\x00 csi\x9b2J"


def add_hostile_item(store, rubrics) -> None:
    fields = {"query": MARKUP, "criterion": "[red]criterion[/red]", "response": f"{ESCAPES}\nline2 {MARKUP}"}
    store.ensure_rubric_version(rubrics["binary"])
    store.add_items([Item(id="[b]X[/]", rubric="binary", fields=fields)])


@pytest.mark.slow
async def test_markup_and_escapes_are_literal(make_app, filled_store, rubrics):
    add_hostile_item(filled_store, rubrics)
    app = make_app("binary")
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        await pilot.press("right", "right")
        assert app.screen.session.state.item.id == "[b]X[/]"
        await pilot.press("n", *"note [/] [@click=app.quit]q", "escape", "!", *"why [bold]", "enter")
        await pilot.pause()
        shown = screen_text(app)
        everything = widget_text(app)
        assert "[bold]loud[/bold] a stray [/] then [@click=app.quit]quit[/]" in shown
        assert "[link=https://evil.example]x[/link]" in shown
        assert "[b]X[/]" in shown
        assert "[red]criterion[/red]" in shown
        assert "red bell nul csi" in shown  # the visible text stays, the sequences are gone
        assert "red bell nul csi\nline2" in everything
        assert "\x1b" not in everything
        assert "\x07" not in everything
        assert "\x9b" not in everything
        assert "pwned" not in shown  # an OSC title change is dropped whole
        assert "note [/] [@click=app.quit]q" in shown
        assert "⚑ flagged: why [bold]" in shown
        row, line = next((y, line) for y, line in enumerate(shown.splitlines()) if "[@click=app.quit]quit" in line)
        await pilot.click(offset=(line.index("[@click=app.quit]quit") + 3, row))  # on the written link
        assert app.is_running
        assert isinstance(app.screen, RatingScreen)
    draft = filled_store.draft("[b]X[/]", "EXP001")
    assert draft.notes == "note [/] [@click=app.quit]q"
    assert draft.flag_reason == "why [bold]"


async def test_notify_with_user_data_is_literal(make_app, filled_store, rubrics, saved_mark_stays):
    add_hostile_item(filled_store, rubrics)
    app = make_app("binary")
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        await pilot.press("right", "right", "p", "enter")  # "[b]X[/] saved: ..." is a notification
        await pilot.pause()
        assert "[b]X[/] saved" in screen_text(app)


async def test_notices_never_carry_escape_sequences(make_app, filled_store, rubrics, saved_mark_stays):
    """An item id with a title-changing OSC and colour codes: the status line's "saved" mark and a notice
    (the flag removed) show the id without them."""
    filled_store.add_items([Item(id="Z\x1b]0;pwned\x07\x1b[31m9", rubric="binary", fields={"query": "q", "response": "r"})])
    app = make_app("binary")
    notices: list[str] = []
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        while app.screen.session.state.item.id != "Z\x1b]0;pwned\x07\x1b[31m9":
            await pilot.press("right")
        app.screen.session.set_flag(True, "why")
        await pilot.press("!")  # unflags: "Flag removed from Z9"
        await pilot.press("p", "enter")
        await pilot.pause()
        notices = list(app.notices)  # what the toasts were given
        status = str(app.screen.query_one(StatusLine).render())
        assert "✓ Z9 saved: overall PASS" in screen_text(app)
    assert any(n.startswith("Flag removed from Z9") for n in notices)
    assert not any("\x1b" in n or "\x07" in n for n in [*notices, status])


async def test_invisible_and_bidi_characters_are_visible_and_keep_the_layout(make_app, filled_store, rubrics):
    hidden = "if access\u202e } \u2066admin\u2069 " + "👨\u200d👩\u200d👧" * 3 + " \u200b\ufe0f" * 10
    filled_store.ensure_rubric_version(rubrics["binary"])
    filled_store.add_items([Item(id="BIDI", rubric="binary", fields={"query": hidden, "criterion": "c",
                                                                     "response": hidden * 4})])
    app = make_app("binary")
    async with app.run_test(size=(80, 24)) as pilot:
        rubric_x = app.screen.query_one("#rubric").region.x
        while app.screen.session.state.item.id != "BIDI":
            await pilot.press("right")
        await pilot.pause()
        shown = screen_text(app)
        assert "<U+202E>" in shown
        assert "<U+2066>" in shown
        assert "\u202e" not in widget_text(app)
        assert "\u200d" not in widget_text(app)
        assert app.screen.query_one("#rubric").region.x == rubric_x  # the rubric panel stays where it was


async def test_trojan_source_in_code_fields_is_shown_as_stored(make_app, filled_store, rubrics):
    # The "Trojan Source" early return: on a terminal that honours the overrides it reads as a comment.
    trojan = ('def is_admin(user):\n    access = "user"\n'
              '    if access != "user\u202e \u2066# check if admin\u2069 \u2066":\n        return True\n')
    filled_store.add_items([Item(id="TROJAN", rubric="cis", fields={
        "task_type": "Auth", "task": "t", "rationale": "r", "source_code": trojan,
        "test_code": "assert is_admin('x') is False\u2067\n", "test_results": "ok\u202e"})])
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        while app.screen.session.state.item.id != "TROJAN":
            await pilot.press("right")
        await pilot.pause()
        code = widget_text(app)
        assert 'if access != "user<U+202E> <U+2066># check if admin<U+2069> <U+2066>":' in code
        assert "<U+2067>" in code
        assert not any(c in code for c in "\u202e\u2066\u2067\u2069")
async def test_a_typed_emoji_and_invisible_characters_in_the_note_keep_its_box_in_line(make_app, filled_store):
    from textual import events

    from judge_tui.model.textsafe import show_invisible
    from judge_tui.tui.widgets.notes_editor import NotesEditor

    typed = "love ❤\ufe0f, zero\u200bwidth, 👨\u200d👩\u200d👧, \u202eevil"
    app = make_app("cis")
    async with app.run_test(size=(80, 24)) as pilot:
        notes = app.screen.query_one(NotesEditor)
        await pilot.press("n")
        app.post_message(events.Paste(typed))  # a paste, or an emoji typed through an input method
        await pilot.pause()
        await pilot.press("!", "escape")
        # Stored exactly as typed; shown with each invisible character as its code, as everywhere else.
        assert filled_store.draft("B001", "EXP001").notes == typed + "!"
        assert notes.text == "love ❤<U+FE0F>, zero<U+200B>width, 👨<U+200D>👩<U+200D>👧, <U+202E>evil!"
        on_screen = "".join(screen_lines(app))
        assert show_invisible(on_screen) == on_screen  # nothing whose width terminals disagree on
        await pilot.press("n", "end", "backspace", "escape")  # editing goes on as usual
        assert filled_store.draft("B001", "EXP001").notes == typed
    app = make_app("cis")
    async with app.run_test(size=(80, 24)) as pilot:
        assert app.screen.query_one(NotesEditor).text.endswith("<U+202E>evil")
        assert app.screen.session.state.edit.notes == typed
