"""The key tables name every binding of the rating screen, so the keys and their documentation cannot drift apart:
docs/rating.md lists each key with its binding id, and the README's card lists the same keys."""

from __future__ import annotations

from pathlib import Path

from judge_tui.tui.keys import ADJUDICATION_BINDINGS, CATEGORY_BINDINGS, RATING_BINDING_IDS, RATING_BINDINGS
from judge_tui.tui.screen_keys import OTHER_SCREENS

ROOT = Path(__file__).resolve().parents[2]


def _table(path: Path, header: str) -> list[list[str]]:
    text = path.read_text(encoding="utf-8")
    table = text[text.index(header):]
    table = table[: table.index("\n\n")]
    return [row.split("|")[1:-1] for row in table.splitlines()[2:]]  # after the header and the rule


def test_every_binding_id_is_in_the_keys_table_of_the_rating_guide():
    table = _table(ROOT / "docs" / "rating.md", "| keys | does | binding id |")
    named = {name.strip(" `") for cells in table for name in cells[2].split(",")}
    if any("`score-0` … `score-4`" in cells[2] for cells in table):
        named |= {f"score-{n}" for n in range(5)}
    if any("`score-5` … `score-9`" in cells[2] for cells in table):  # a scale of categories' keys 5 to 9
        named |= {f"score-{n}" for n in range(5, 10)}
    rating = {b.id or "" for b in (*RATING_BINDINGS, *CATEGORY_BINDINGS)}
    assert rating <= named, sorted(rating - named)


def test_every_binding_id_of_the_other_screens_is_in_their_keys_table():
    table = _table(ROOT / "docs" / "rating.md", "| screen | keys | does | binding id |")
    named = {(cells[0].strip(), name.strip(" `")) for cells in table for name in cells[3].split(",")}
    bound = {(screen, b.id or "") for screen, keys in OTHER_SCREENS.items() for b in keys.bindings}
    bound |= {("adjudication screen", b.id or "") for b in ADJUDICATION_BINDINGS if b.id not in RATING_BINDING_IDS}
    assert named == bound, sorted(named ^ bound)


def test_the_readme_card_lists_the_keys_of_the_rating_guide():
    guide = [cells[0].strip() for cells in _table(ROOT / "docs" / "rating.md", "| keys | does | binding id |")]
    card = [cells[0].strip() for cells in _table(ROOT / "README.md", "| keys | does |\n")]
    assert card == guide
