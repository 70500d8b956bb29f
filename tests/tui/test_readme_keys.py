"""The README's key table names every binding of the rating screen, so the two cannot drift apart."""

from __future__ import annotations

from pathlib import Path

from judge_tui.tui.keys import BINDING_IDS

README = Path(__file__).resolve().parents[2] / "README.md"


def test_every_binding_id_is_in_the_readme_keys_table():
    text = README.read_text(encoding="utf-8")
    table = text[text.index("| keys | does | binding id |"):]
    table = table[: table.index("\n\n")]
    rows = [row.split("|") for row in table.splitlines()[2:]]  # after the header and the rule
    named = {name.strip(" `") for cells in rows for name in cells[3].split(",")}
    if "`score-0` … `score-4`" in table:
        named |= {f"score-{n}" for n in range(5)}
    assert set(BINDING_IDS) <= named, sorted(set(BINDING_IDS) - named)
