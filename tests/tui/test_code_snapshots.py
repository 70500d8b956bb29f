"""Screenshots of a long submission (150 lines of 70–90 characters) with the rubric beside it and folded into
a line (toggle-rubric), at 80×24 and 120×40, and read unwrapped and scrolled sideways (toggle-wrap).
Regenerate after an intended change with `pytest tests/tui/test_code_snapshots.py --snapshot-update`."""

from __future__ import annotations

import pytest

from tests.tui.test_code_reading import code_app, code_lines  # noqa: F401 - code_app is a fixture

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])


@SIZES
@pytest.mark.parametrize("keys", [[], ["z"]], ids=["rubric-beside", "rubric-folded"])
def test_long_submission(snap_compare, code_app, size, keys):  # noqa: F811
    assert snap_compare(code_app(code_lines(150, 70, 90)), press=[*keys, "3", "j", "j"], terminal_size=size)


@SIZES
def test_long_submission_unwrapped_and_scrolled_right(snap_compare, code_app, size):  # noqa: F811
    assert snap_compare(code_app(code_lines(150, 70, 90)), press=["z", "w", "l"], terminal_size=size)
