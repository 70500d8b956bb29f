"""Make untrusted text (items, notes, model output) safe to show in a terminal.

Markup is handled by always rendering such text as plain Text/Content; this module removes what would
reach the terminal itself (escape sequences and other control characters) and shows what a terminal would
hide: invisible format characters such as zero-width spaces and joiners, the bidirectional overrides and
isolates that make code read differently from what it is ("Trojan Source"), and variation selectors. Each is
shown as ``<U+202E>``, so the text on screen is exactly what is stored, and its width on screen is the width
the layout measured (terminals disagree with each other on the width of these characters).
"""

from __future__ import annotations

import re

# ESC-introduced sequences (CSI, OSC with BEL or ST terminator, and two-character escapes), then any
# remaining C0/C1 control character except newline and tab.
_ESCAPE_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI ... final byte
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC ... BEL or ST
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC ... ST
    r"|\x1b[@-Z\\-_]"  # other two-character escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
    r"|\x9d[^\x07\x9c]*(?:\x07|\x9c)?"  # 8-bit OSC
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Unicode's format characters (category Cf), variation selectors, and the line and paragraph separators.
_INVISIBLE = re.compile(
    "[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u2028-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufe00-\ufe0f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f\U000e0100-\U000e01ef]"
)


_SHOWN = re.compile(r"<U\+([0-9A-F]{4,6})>")


def _visible(match: re.Match[str]) -> str:
    return f"<U+{ord(match.group()):04X}>"


def show_invisible(text: str) -> str:
    """The text with invisible format characters as ``<U+XXXX>`` (and nothing else changed)."""
    return _INVISIBLE.sub(_visible, text)


def _invisible_again(match: re.Match[str]) -> str:
    character = chr(int(match.group(1), 16)) if int(match.group(1), 16) <= 0x10FFFF else ""
    return character if character and _INVISIBLE.fullmatch(character) else match.group()


def restore_invisible(text: str) -> str:
    """The reverse of show_invisible: each ``<U+XXXX>`` of an invisible character becomes the character."""
    return _SHOWN.sub(_invisible_again, text)


def invisible_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, shown as) of each invisible character in the text, last first (for editing in place)."""
    return [(m.start(), m.end(), _visible(m)) for m in reversed(list(_INVISIBLE.finditer(text)))]


def clean(text: str) -> str:
    """The text without terminal escape sequences or control characters (newline and tab are kept), with
    invisible format characters shown as ``<U+XXXX>``."""
    if not text:
        return ""
    text = text.replace("\r\n", "\n")
    return show_invisible(_CONTROL.sub("", _ESCAPE_SEQUENCE.sub("", text)))
