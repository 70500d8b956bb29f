"""Every path judge-tui reads or writes, in one place.

Environment variables override each default, so tests and scripts never touch a user's real data:
JUDGE_TUI_DB (the database file), JUDGE_TUI_HOME (folder for the database, the demo's database, settings
and user rubrics).
"""

from __future__ import annotations

import os
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]  # judge_tui/, above model/


def _bundled(name: str) -> Path:
    """Folder shipped with judge-tui: the source tree's top level, or the copy inside an installed wheel."""
    source_tree = _PACKAGE.parent / name
    if source_tree.is_dir() and (_PACKAGE.parent / "pyproject.toml").is_file():
        return source_tree
    return _PACKAGE / "_bundled" / name


def prompts_dir() -> Path:
    """Bundled rubric definitions and judge prompt templates."""
    return _bundled("prompts")


def data_dir() -> Path:
    """Bundled demo datasets."""
    return _bundled("data")


def home_dir() -> Path:
    """The user's judge-tui folder (database, settings, extra rubrics)."""
    override = os.environ.get("JUDGE_TUI_HOME")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_data_path

    return user_data_path("judge-tui", appauthor=False)


def default_db_path() -> Path:
    override = os.environ.get("JUDGE_TUI_DB")
    if override:
        return Path(override).expanduser()
    return home_dir() / "judge-tui.db"


def demo_db_path() -> Path:
    """The bundled demo's own database, apart from the user's study (`judge-tui demo`)."""
    return home_dir() / "demo.db"


def user_rubrics_dir() -> Path:
    """Drop a rubric file here to add it to the built-in ones."""
    return home_dir() / "rubrics"


def settings_path() -> Path:
    return home_dir() / "settings.json"
