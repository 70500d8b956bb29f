"""One version everywhere: `__version__`, the package's metadata (read from it), the newest release of the
changelog, and `judge-tui --version`."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from judge_tui import __version__

ROOT = Path(__file__).resolve().parent.parent
CHANGELOG = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
RELEASE = re.compile(r"^## (\d+)\.(\d+)\.(\d+) \((\d{4}-\d\d-\d\d)\)$", flags=re.MULTILINE)


def test_pyproject_takes_the_version_from_the_package() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in pyproject["project"]
    assert "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["hatch"]["version"]["path"] == "judge_tui/__init__.py"


def test_the_newest_release_of_the_changelog_is_the_version() -> None:
    [newest, *_] = RELEASE.findall(CHANGELOG)
    assert ".".join(newest[:3]) == __version__


def test_the_changelog_opens_with_unreleased_then_releases_newest_first() -> None:
    headings = re.findall(r"^## (.*)$", CHANGELOG, flags=re.MULTILINE)
    assert headings[0] == "Unreleased"
    releases = RELEASE.findall(CHANGELOG)
    assert len(releases) == len(headings) - 1, "every heading after Unreleased is `## X.Y.Z (YYYY-MM-DD)`"
    versions = [tuple(int(n) for n in r[:3]) for r in releases]
    dates = [r[3] for r in releases]
    assert versions == sorted(versions, reverse=True)
    assert len(set(versions)) == len(versions)
    assert dates == sorted(dates, reverse=True)


@pytest.mark.slow
def test_judge_tui_version_prints_it() -> None:
    done = subprocess.run([sys.executable, "-m", "judge_tui", "--version"], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.strip() == f"judge-tui {__version__}"
