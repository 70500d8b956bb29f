"""A scale's kind has one home, Scale in model/rubrics.py: no other module of judge_tui branches on a kind's
name. The rest of the code asks the scale (its points, labels, keys, words, jury rule, answers), so a new kind of
scale is written in that one class."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

import judge_tui
from judge_tui.model.rubrics import Scale

PACKAGE = Path(judge_tui.__file__).parent
HOME = PACKAGE / "model" / "rubrics.py"
KINDS = frozenset(typing.get_args(typing.get_type_hints(Scale)["kind"]))


def _reads_kind(node: ast.expr) -> bool:
    """`scale.kind`, `self.scale.kind`, or a name it was copied into (`kind`, `scale_kind`)."""
    return (isinstance(node, ast.Attribute) and node.attr == "kind") or (
        isinstance(node, ast.Name) and node.id.endswith("kind"))


def _names_a_kind(node: ast.AST) -> bool:
    """A kind's name, alone or among others (`"integers"`, `("pass_fail", "integers")`)."""
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_names_a_kind(element) for element in node.elts)
    return isinstance(node, ast.Constant) and node.value in KINDS


def _by_kind(node: ast.AST) -> bool:
    """A table keyed by kinds' names, looked up by a kind: `{"categories": ...}.get(scale.kind, ...)` or `[...]`."""
    if isinstance(node, ast.Subscript):
        table, keys = node.value, [node.slice]
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        table, keys = node.func.value, node.args[:1]
    else:
        return False
    return (isinstance(table, ast.Dict) and any(key is not None and _names_a_kind(key) for key in table.keys)
            and any(_reads_kind(key) for key in keys))


def _branches_on_kind(node: ast.AST) -> bool:
    if isinstance(node, ast.Compare):
        sides = [node.left, *node.comparators]
        return any(_reads_kind(side) for side in sides) and any(_names_a_kind(side) for side in sides)
    if isinstance(node, ast.Match) and _reads_kind(node.subject):
        return any(isinstance(pattern, ast.MatchValue) and _names_a_kind(pattern.value)
                   for case in node.cases for pattern in ast.walk(case.pattern))
    return _by_kind(node)


def branches_on_kinds(root: Path, home: Path) -> list[str]:
    """Where a module under ``root`` other than ``home`` compares a scale's kind with a kind's name, matches it
    against one, or looks it up in a table keyed by kinds."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path == home:
            continue
        lines = sorted(node.lineno for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                       if isinstance(node, ast.expr | ast.stmt) and _branches_on_kind(node))
        found += [f"{path.relative_to(root.parent)}:{line}" for line in lines]
    return found


def test_only_the_scale_branches_on_its_kind():
    assert {"quarter", "pass_fail", "categories", "integers"} <= KINDS  # read from the Literal of Scale.kind
    assert branches_on_kinds(PACKAGE, HOME) == []


def test_a_branch_on_the_kind_is_found(tmp_path):
    """Each way the screens branched on the kind before the scale answered for it is found, and what only names a
    kind (a report printing it, a scale made of one, an action or a field of the same word) is not."""
    package = tmp_path / "judge_tui"
    package.mkdir()
    (package / "branches.py").write_text(
        "if scale.kind == 'categories': pass\n"
        "if self.scale.kind in ('pass_fail', 'integers'): pass\n"
        "words = {'categories': 'c', 'integers': 'n'}.get(self.scale.kind, 'p')\n"
        "words = {'integers': 'n'}[rubric.scale.kind]\n"
        "kind = scale.kind\n"
        "if 'quarter' != kind: pass\n"
        "match scale.kind:\n"
        "    case 'three_point' | 'quarter': pass\n", encoding="utf-8")
    (package / "names.py").write_text(
        "print(f'scale {rubric.scale.kind}')\n"
        "row = {'scale': rubric.scale.kind, 'categories': []}\n"
        "quarter = Scale(kind='quarter')\n"
        "if action == 'pass_fail': pass\n"
        "if field.kind == 'code': pass\n", encoding="utf-8")
    found = branches_on_kinds(package, package / "rubrics.py")
    assert found == [f"judge_tui/branches.py:{line}" for line in (1, 2, 3, 4, 6, 7)]
