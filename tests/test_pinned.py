"""The comparison of pinned outputs: a figure a last bit apart passes, a change to the format fails."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from tests.pinned import differences, same_figure

REPORTS = Path(__file__).parent / "fixtures" / "reports"
EXPORTS = Path(__file__).parent / "fixtures" / "exports"
PINNED_FILES = sorted([*REPORTS.glob("*.*"), *EXPORTS.glob("*.*")])
_FULL = re.compile(r"-?\d+\.\d{12,}(?:[eE][-+]?\d+)?")


def _nudged(text: str, direction: float) -> tuple[str, int]:
    """``text`` with every full-precision figure moved by one unit in its last place, as another CPU may write it."""
    count = 0

    def nudge(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return repr(math.nextafter(float(match.group()), direction))

    return _FULL.sub(nudge, text), count


@pytest.mark.parametrize("path", PINNED_FILES, ids=lambda p: p.name)
def test_every_pinned_file_passes_with_its_figures_a_last_bit_apart(path: Path):
    text = path.read_text(encoding="utf-8")
    for direction in (math.inf, -math.inf):
        nudged, count = _nudged(text, direction)
        assert nudged != text or count == 0
        assert differences(nudged, text) == []


def test_the_pinned_json_reports_hold_full_precision_figures():
    """So the last-bit test above moves real figures, not none."""
    assert _nudged((REPORTS / "team.json").read_text(encoding="utf-8"), math.inf)[1] > 100


@pytest.mark.parametrize(("written", "pinned"), [
    ("-0.48007619256184075", "-0.4800761925618408"),  # the same interval bound, computed on an AMD EPYC
    ("0.94", "0.9400000000000001"),  # a weighted mean summed with compensation (Python 3.12)
    ("1.3877787807814457e-17", "0.0"),  # a difference that is zero in exact arithmetic
])
def test_a_last_bit_difference_is_the_same_figure(written: str, pinned: str):
    assert same_figure(written, pinned)
    assert differences(f'{{"low": {written}, "n": 8}}\n', f'{{"low": {pinned}, "n": 8}}\n') == []


@pytest.mark.parametrize(("written", "pinned"), [
    ("-0.4801", "-0.4800761925618408"),  # full precision rounded to four places
    ("-0.48007619", "-0.4800761925618408"),  # or to eight
    ("-0.4800771925618408", "-0.4800761925618408"),  # a figure that moved
    ("0.48", "0.480"),  # a figure for people written with another number of places
    ("0.48", "0.49"),  # or another value
    ("1", "1.0"),  # a float written as an integer
    ("0.0", "1.3877787807814457e-12"),  # a difference that is not zero
])
def test_a_changed_figure_is_a_difference(written: str, pinned: str):
    assert differences(f"| kappa | {written} |\n", f"| kappa | {pinned} |\n") == [
        f"line 1: {written!r} where {pinned!r} was pinned"]


def test_every_change_to_a_pinned_file_around_its_figures_is_a_difference():
    pinned = (REPORTS / "team.json").read_text(encoding="utf-8")
    nudged, _count = _nudged(pinned, math.inf)
    renamed = nudged.replace('"low"', '"lower"', 1)
    assert differences(renamed, pinned)[0].startswith("line ")
    assert differences(nudged.replace(": ", ":", 1), pinned)  # a space
    assert differences(nudged.replace("\n", "\r\n", 1), pinned)  # a line ending
    assert differences(nudged + "\n", pinned)  # a line more
    assert differences(nudged[:-2], pinned)  # a line less
    text = (REPORTS / "team.txt").read_text(encoding="utf-8")
    assert differences(text.replace("│", "|", 1), text)  # a table's border


def test_a_difference_names_its_line():
    pinned = "a 1\nb 0.5\nc 0.25\n"
    assert differences("a 1\nb 0.5\nc 0.26\n", pinned) == ["line 3: '0.26' where '0.25' was pinned"]
    assert differences("a 1\nb 0.5\nd 0.25\n", pinned) == ["line 3: '\\nd ' where '\\nc ' was pinned"]
