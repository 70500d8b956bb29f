"""Nothing heavy on the rating screen's start-up path: the judge's SDK and the statistics load when used."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("anthropic", "openai", "httpx", "numpy", "krippendorff", "scipy", "sklearn", "pandas")


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


def test_sqlite_utils_loads_only_when_a_database_needs_a_migration(tmp_path):
    import sqlite_utils

    from judge_tui.store import migrations

    code = ("import sys; from judge_tui.store import Store; Store(sys.argv[1]).close(); "
            "print('sqlite_utils' in sys.modules)")

    def opened_with_sqlite_utils(db: Path) -> bool:
        done = subprocess.run([sys.executable, "-c", code, str(db)], cwd=REPO, capture_output=True, text=True,
                              check=True)
        return done.stdout.strip() == "True"

    assert opened_with_sqlite_utils(tmp_path / "new.db")  # a new file: sqlite-utils sets it up
    older = tmp_path / "older.db"  # as the judge-tui before the last migration left it
    before = sqlite_utils.Database(older)
    migrations.engine().apply(before, stop_before=migrations.names[-1])
    before.close()
    assert opened_with_sqlite_utils(older)  # upgraded by sqlite-utils
    assert not opened_with_sqlite_utils(older)  # up to date: one query on _sqlite_migrations, no sqlite-utils
