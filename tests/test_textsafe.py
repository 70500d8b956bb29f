from judge_tui.model.textsafe import clean


def test_escape_sequences_and_controls_are_removed():
    nasty = "a\x1b[31mred\x1b[0m b\x1b]0;title\x07 c \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ d\x00\x07\x9b2J e\x85f"
    # colour codes, a title change, a hyperlink, NUL, BEL, an 8-bit CSI and NEL all go; the text stays
    assert clean(nasty) == "ared b c link d ef"


def test_newline_tab_and_markup_are_kept():
    text = "[bold]x[/] [@click=app.quit]y[/]\n\tz"
    assert clean(text) == text
    assert clean("a\r\nb") == "a\nb"


def test_invisible_format_characters_are_shown():
    # Trojan Source: a right-to-left override and an isolate make code read differently from what it is.
    assert clean("if access\u202e } \u2066admin") == "if access<U+202E> } <U+2066>admin"
    assert clean("a\u200bb\u200dc\ufeffd") == "a<U+200B>b<U+200D>c<U+FEFF>d"
    assert clean("👨\u200d👩 ❤\ufe0f") == "👨<U+200D>👩 ❤<U+FE0F>"
    assert clean("plain text, ü and 中文 and emoji 🙂 stay") == "plain text, ü and 中文 and emoji 🙂 stay"


def test_shown_invisible_characters_turn_back_into_themselves():
    from judge_tui.model.textsafe import restore_invisible, show_invisible

    text = "❤\ufe0f a\u200bb \u202eevil \U000e0041 <U+0041> <U+110000> <U+202e>"
    shown = show_invisible(text)
    assert shown == "❤<U+FE0F> a<U+200B>b <U+202E>evil <U+E0041> <U+0041> <U+110000> <U+202e>"
    assert restore_invisible(shown) == text  # only codes of invisible characters, as show_invisible writes them
