"""Only the public API of Textual (and of any library): no `textual._` module, and no private name that is not our
own reached on an object, in the app, the tests or the benchmarks. A Textual release may change its private names
at any time; ruff's SLF rule cannot tell our private names from a library's, this test can."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(path for folder in ("judge_tui", "tests", "benchmarks") for path in (ROOT / folder).rglob("*.py"))


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _our_names(trees: dict[Path, ast.Module]) -> set[str]:
    """Every private name our own code defines: functions, classes, attributes it assigns, arguments, imports."""
    names: set[str] = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.alias):
                names.add(node.asname or node.name.split(".")[-1])
    return {name for name in names if _private(name)}


def _reached(tree: ast.Module) -> list[tuple[int, str]]:
    """Private names read on an object (`obj._name`, `self._name`: a name our code never defines is a base class's),
    or named to setattr/getattr(obj, "_name")."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr) and isinstance(node.ctx, ast.Load):
            found.append((node.lineno, node.attr))
        elif isinstance(node, ast.Call) and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str) and _private(node.args[1].value):
            function = node.func
            called = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")
            if called in ("setattr", "getattr", "delattr", "hasattr"):
                found.append((node.lineno, node.args[1].value))
    return found


def _imports_textual(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "textual" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "textual":
            return True
    return False


@pytest.fixture(scope="module")
def trees() -> dict[Path, ast.Module]:
    return {path: ast.parse(path.read_text(encoding="utf-8"), str(path)) for path in SOURCES}


def test_no_private_textual_module_is_imported(trees):
    offenders = []
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            offenders += [f"{path.relative_to(ROOT)}:{node.lineno} {module}" for module in modules
                          if module.startswith("textual") and any(_private(part) for part in module.split("."))]
    assert offenders == []


def test_no_private_name_is_imported_from_textual(trees):
    """`from textual.keys import _name` reaches a private name as surely as `module._name` does."""
    offenders = [f"{path.relative_to(ROOT)}:{node.lineno} {alias.name}" for path, tree in trees.items()
                 for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "textual"
                 for alias in node.names if _private(alias.name)]
    assert offenders == []


def test_no_private_name_of_a_library_is_reached_where_textual_is_used(trees):
    """In every module that uses Textual, each private name read on an object is one our code defines."""
    ours = _our_names(trees)
    offenders = [f"{path.relative_to(ROOT)}:{line} {name}" for path, tree in trees.items() if _imports_textual(tree)
                 for line, name in _reached(tree) if name not in ours]
    assert offenders == []


def test_the_check_finds_what_it_is_for():
    """The test above would fail on what the rating screen used to do."""
    used_to = ast.parse("cache = widget._styles_cache\nmonkeypatch.setattr(Screen, '_refresh_layout', f)\n"
                        "bar._layout_cache.clear()\nself._dirty_regions.clear()\nself._own = 1\n")
    assert sorted(name for _line, name in _reached(used_to)) == ["_dirty_regions", "_layout_cache", "_refresh_layout",
                                                                 "_styles_cache"]
    assert "_styles_cache" not in _our_names({Path("x.py"): ast.parse("self._kept = {}\ndef _draw(): pass\n")})
