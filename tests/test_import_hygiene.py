"""Nothing heavy on the rating screen's start-up path: the judge's SDK and the statistics load when used."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("anthropic", "httpx", "numpy", "krippendorff", "scipy", "sklearn", "pandas")


@pytest.mark.parametrize("module", ["judge_tui.tui.app", "judge_tui.cli.launch", "judge_tui.cli"])
def test_start_up_imports_nothing_heavy(module):
    code = (f"import sys, json, {module}; "
            f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == []


def test_numpy_still_imports_after_the_store():
    code = "import judge_tui.store, numpy; print(numpy.arange(3).sum())"
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "3"
