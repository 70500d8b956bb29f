"""Make untrusted text (items, notes, model output) safe to show in a terminal.

Markup is handled by always rendering such text as plain Text/Content; this module removes what would
reach the terminal itself: escape sequences and other control characters.
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


def clean(text: str) -> str:
    """The text without terminal escape sequences or control characters (newline and tab are kept)."""
    if not text:
        return ""
    text = text.replace("\r\n", "\n")
    return _CONTROL.sub("", _ESCAPE_SEQUENCE.sub("", text))
