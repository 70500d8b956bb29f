"""Shared fixtures. Every test runs with its own judge-tui home, so nothing touches a user's real data."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge_tui.model.rubrics import Rubric, load_rubrics
from judge_tui.store import Store


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run `async def` tests (Pilot needs a running event loop) without an extra plugin: the one async style."""
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    names = inspect.signature(pyfuncitem.obj).parameters  # the test's own arguments
    asyncio.run(pyfuncitem.obj(**{name: pyfuncitem.funcargs[name] for name in names}))
    return True


@pytest.fixture(autouse=True)
def hermetic_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("judge-tui-home")
    monkeypatch.setenv("JUDGE_TUI_HOME", str(home))
    monkeypatch.delenv("JUDGE_TUI_DB", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return home


@pytest.fixture(scope="session")
def rubrics() -> dict[str, Rubric]:
    return {rubric_id: rubric for rubric_id, (rubric, _path) in load_rubrics().items()}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "test.db") as s:
        yield s
