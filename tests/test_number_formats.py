"""Numbers are written for people in one place, formats/numbers.py: no ad-hoc float format elsewhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from judge_tui.formats.numbers import decimal_text, plural, share_text, short_text, word_for

ROOT = Path(__file__).resolve().parent.parent / "judge_tui"
HOME = "formats/numbers.py"
# A float format spec in an f-string or str.format field ({x:.2f}, {x:,.1f}, {x:+.0f}, {x:.0%}, {x:g}, {x:.4g},
# {x:.2e}) or a printf-style one ("%.2f").
FLOAT_SPEC = re.compile(r"\{[^{}\n]*:[-+ ]?\d*,?(?:\.\d+)?[efg%]\}|%[-+ ]?\d*\.\d+[fe]\b")
# Where a float format may stay, with how many and why.
ALLOWED = {
    # Below formats/ in the import layers (pyproject.toml), or beside it (store/), so they cannot use it.
    "model/rubrics.py": (2, "a scale point's label, in the rubric model"),
    "model/queue_orders.py": (1, "a band's name, in the pure queue-order model"),
    "model/plain_data.py": (2, "a range in a settings error, in the settings model"),
    "stats/agreement.py": (1, "why a corrected pass rate is undefined, in the statistics"),
    "stats/intervals.py": (3, "why an interval is undefined, in the statistics"),
    "store/faults.py": (1, "seconds of the busy timeout, in the store's fault messages"),
    # Not figures.
    "tui/app.py": (2, "a timestamp and the CPU time so far, which the start-up benchmark reads"),
    "judge/batch_limits.py": (2, "request sizes in megabytes"),
}


def _specs() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted(ROOT.rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if name != HOME:
            found.update({name: specs} if (specs := FLOAT_SPEC.findall(path.read_text())) else {})
    return found


def test_numbers_are_formatted_only_by_the_number_formatter():
    found = _specs()
    ad_hoc = {name: specs for name, specs in found.items() if len(specs) != ALLOWED.get(name, (0, ""))[0]}
    assert ad_hoc == {}, "write numbers with judge_tui.formats.numbers (share_text, decimal_text, short_text)"


@pytest.mark.parametrize("text", ['f"{rate:.1%}"', 'f"{x:+.0f}"', 'f"{cost:,.4f}"', 'f"{t:g}"', '"%.2f" % x',
                                  'f"{self.level:.4g}"', 'f"{d[\'alpha\']:.2f}"'])
def test_the_check_sees_each_kind_of_format(text: str):
    assert FLOAT_SPEC.search(text)


@pytest.mark.parametrize("text", ['f"{n:,}"', 'f"{name:>8}"', 'f"{when:%Y-%m-%d}"', "f\"{n} items\""])
def test_the_check_leaves_other_formats_alone(text: str):
    assert not FLOAT_SPEC.search(text)


@pytest.mark.parametrize("value", [0.0, 0.9, 0.123456, -0.004, 1234.5678, 0.15, 2.0, 1e-7])
def test_the_formatters_write_what_the_format_specs_wrote(value: float):
    assert share_text(value) == f"{value:.0%}"
    assert share_text(value, 1) == f"{value:.1%}"
    assert short_text(value) == f"{value:g}"
    assert short_text(value, 4) == f"{value:.4g}"
    for digits in (0, 1, 2, 3, 4):
        assert decimal_text(value, digits) == f"{value:.{digits}f}"
        assert decimal_text(value, digits, signed=True) == f"{value:+.{digits}f}"
        assert decimal_text(value, digits, grouped=True) == f"{value:,.{digits}f}"


@pytest.mark.parametrize(("written", "expected"), [
    (plural(1, "flag"), "1 flag"),
    (plural(0, "flag"), "0 flags"),
    (plural(2, "flag"), "2 flags"),
    (plural(1000, "call", grouped=True), "1,000 calls"),
    (plural(1000, "call"), "1000 calls"),
    (plural(1, "finished study", "finished studies"), "1 finished study"),
    (plural(2, "finished study", "finished studies"), "2 finished studies"),
    (word_for(1, "was", "were"), "was"),
    (word_for(0, "was", "were"), "were"),
])
def test_a_count_takes_the_singular_only_when_it_is_one(written: str, expected: str):
    assert written == expected
