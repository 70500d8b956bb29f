from judge_tui.textsafe import clean


def test_escape_sequences_and_controls_are_removed():
    nasty = "a\x1b[31mred\x1b[0m b\x1b]0;title\x07 c \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ d\x00\x07\x9b2J e\x85f"
    # colour codes, a title change, a hyperlink, NUL, BEL, an 8-bit CSI and NEL all go; the text stays
    assert clean(nasty) == "ared b c link d ef"


def test_newline_tab_and_markup_are_kept():
    text = "[bold]x[/] [@click=app.quit]y[/]\n\tz"
    assert clean(text) == text
    assert clean("a\r\nb") == "a\nb"
