"""Only the public API of Textual (and of any library): no `textual._` module, no Textual module outside its
documented API reference, and no private name that is not our own reached on an object, in the app, the tests or
the benchmarks. A Textual release may change its private names and undocumented modules at any time; ruff's SLF
rule cannot tell our private names from a library's, this test can."""

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


# Textual's documented modules: those with a page in its API reference (docs/api/, in mkdocs-nav.yml), named as
# the page names them (dom_node.md documents textual.dom, fuzzy_matcher.md textual.fuzzy,
# system_commands_source.md textual.system_commands).
DOCUMENTED_MODULES = frozenset({
    "textual.app", "textual.await_complete", "textual.await_remove", "textual.binding", "textual.cache",
    "textual.color", "textual.command", "textual.constants", "textual.containers", "textual.compose",
    "textual.content", "textual.coordinate", "textual.dom", "textual.events", "textual.errors", "textual.filter",
    "textual.fuzzy", "textual.geometry", "textual.getters", "textual.highlight", "textual.layout", "textual.lazy",
    "textual.logging", "textual.map_geometry", "textual.markup", "textual.message_pump", "textual.message",
    "textual.pilot", "textual.reactive", "textual.screen", "textual.scrollbar", "textual.scroll_view",
    "textual.signal", "textual.strip", "textual.style", "textual.suggester", "textual.system_commands",
    "textual.timer", "textual.types", "textual.validation", "textual.walk", "textual.widget", "textual.worker",
    "textual.worker_manager",
    "textual.css.query",  # the page api/query.md documents textual.css.query
    "textual.widgets",  # its widgets, each with a page in docs/widgets/
    # Widget modules whose public classes a widget's page documents (textual.widgets.option_list.Option).
    "textual.widgets.button", "textual.widgets.data_table", "textual.widgets.markdown",
    "textual.widgets.option_list", "textual.widgets.rule", "textual.widgets.select",
    "textual.widgets.selection_list", "textual.widgets.text_area", "textual.widgets.tree",
})
# The renderables page documents textual.renderables' modules one by one.
DOCUMENTED_PACKAGES = ("textual.renderables.",)
# `from textual import ...`: the documented modules, the decorators with a page of their own (on.md, work.md) and
# log (logger.md documents the package `textual` itself, for it).
DOCUMENTED_FROM_TEXTUAL = frozenset({name.removeprefix("textual.") for name in DOCUMENTED_MODULES
                                     if name.count(".") == 1} | {"on", "work", "log"})
# Names used from a module without a page of its own, each with why.
DOCUMENTED_ELSEWHERE = {
    # The type of the `options` argument of the documented Content.render_strips; Textual exports it from no
    # documented module (textual.content's __all__ leaves it out).
    ("textual.visual", "RenderOptions"),
}


def _undocumented_textual_imports(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, module or module.name) for each import of Textual outside its documented API."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names
                      if a.name.split(".")[0] == "textual" and a.name != "textual" and not _documented(a.name)]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "textual":
            module = node.module or ""
            if module == "textual":
                found += [(node.lineno, f"textual.{a.name}") for a in node.names
                          if a.name not in DOCUMENTED_FROM_TEXTUAL]
            elif not _documented(module):
                found += [(node.lineno, f"{module}.{a.name}") for a in node.names
                          if (module, a.name) not in DOCUMENTED_ELSEWHERE]
    return found


def _documented(module: str) -> bool:
    return module in DOCUMENTED_MODULES or module.startswith(DOCUMENTED_PACKAGES)


@pytest.fixture(scope="module")
def trees() -> dict[Path, ast.Module]:
    return {path: ast.parse(path.read_text(encoding="utf-8"), str(path)) for path in SOURCES}


@pytest.mark.slow
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


def test_only_textual_s_documented_modules_are_imported(trees):
    offenders = [f"{path.relative_to(ROOT)}:{line} {name}" for path, tree in trees.items()
                 for line, name in _undocumented_textual_imports(tree)]
    assert offenders == []


def test_the_documented_modules_check_finds_what_it_is_for():
    """What the app used to import, refused; what it imports now, accepted."""
    used_to = ast.parse("from textual.actions import parse\nfrom textual.keys import Keys\n"
                        "from textual import events, messages\nfrom textual.visual import Visual, visualize\n"
                        "from textual.notifications import SeverityLevel\nimport textual.messages\n")
    assert [name for _line, name in _undocumented_textual_imports(used_to)] == [
        "textual.actions.parse", "textual.keys.Keys", "textual.messages", "textual.visual.Visual",
        "textual.visual.visualize", "textual.notifications.SeverityLevel", "textual.messages"]
    now = ast.parse("from textual import events, on, work\nfrom textual.content import Content\n"
                    "from textual.widgets.option_list import Option\nfrom textual.css.query import NoMatches\n"
                    "from textual.renderables.bar import Bar\nfrom textual.visual import RenderOptions\n")
    assert _undocumented_textual_imports(now) == []


@pytest.mark.slow
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
