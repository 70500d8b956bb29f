"""Whether a scale is nominal, and whether two scores agree, each have one home: Scale.nominal (with
Scale.alignment_tolerance) in model/rubrics.py, and scores.agreeing / scores.score_gaps in analysis/scores.py.
No other module of judge_tui works either out for itself: a second copy is how nominal categories came to be
measured by the distance between their stored positions in four places at once."""

from __future__ import annotations

import ast
from pathlib import Path

import judge_tui

PACKAGE = Path(judge_tui.__file__).parent
NOMINAL_HOME = "model/rubrics.py"
AGREEMENT_HOMES = ("analysis/scores.py", "stats/agreement.py")  # the rule, and the arithmetic it calls


def _names(node: ast.AST) -> set[str]:
    """Every name and attribute a node reads."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}


def _strings(node: ast.AST) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def _is_distance(node: ast.AST) -> bool:
    """abs(a - b) or np.abs(a - b): the distance between two scores."""
    return (isinstance(node, ast.Call) and isinstance(node.args[0] if node.args else None, ast.BinOp)
            and isinstance(node.args[0].op, ast.Sub)  # type: ignore[attr-defined]  # args[0] is a BinOp here
            and ((isinstance(node.func, ast.Name) and node.func.id == "abs")
                 or (isinstance(node.func, ast.Attribute) and node.func.attr == "abs")))


def second_homes(root: Path) -> list[str]:
    """Where a module under ``root`` decides nominal-ness or agreement itself."""
    found = []
    for path in sorted(root.rglob("*.py")):
        where = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            line = f"{where}:{getattr(node, 'lineno', '?')}"
            if where != NOMINAL_HOME:
                if isinstance(node, ast.BoolOp) and "categories" in _strings(node) and "ordered" in _names(node):
                    found.append(f"{line}: categories and not ordered, worked out again (Scale.nominal)")
                if (isinstance(node, ast.Compare) and "order" in _names(node)
                        and _strings(node) & {"nominal", "ordered"}):
                    found.append(f"{line}: the scale's order read again (Scale.nominal)")
            if where not in AGREEMENT_HOMES:
                if isinstance(node, ast.Name | ast.Attribute) and (
                        getattr(node, "id", None) or getattr(node, "attr", None)) in ("within_tolerance",
                                                                                       "ALIGNMENT_EPSILON"):
                    found.append(f"{line}: alignment computed around scores.agreeing")
                if isinstance(node, ast.Compare) and any(_is_distance(side) for side in (node.left, *node.comparators)) \
                        and any("tolerance" in name for name in _names(node)):  # the agreement tolerance,
                    # in lower case: a module's own constant (validate.py's STATED_OVERALL_TOLERANCE) is another rule
                    found.append(f"{line}: a distance held against the tolerance (scores.agreeing)")
    return found


def test_nominal_and_agreement_each_have_one_home():
    assert second_homes(PACKAGE) == []


def test_a_second_copy_is_found(tmp_path):
    """Each shape a copy took before: the nominal test written out, a distance against the tolerance (plain and
    numpy), the epsilon and within_tolerance used directly."""
    package = tmp_path / "judge_tui"
    (package / "analysis").mkdir(parents=True)
    (package / "analysis" / "copy.py").write_text(
        "import numpy as np\n"
        "from judge_tui.stats import agreement as ag\n"
        "def nominal(scale):\n"
        "    return scale.kind == 'categories' and not scale.ordered\n"
        "def nominal_again(scale):\n"
        "    return scale.order == 'nominal'\n"
        "def differ(a, b, tolerance):\n"
        "    return abs(a - b) > tolerance + 1e-9\n"
        "def differ_all(a, b, tolerance):\n"
        "    return np.abs(a - b) > tolerance + ag.ALIGNMENT_EPSILON\n"
        "def agree(a, b, tolerance):\n"
        "    return ag.within_tolerance(a, b, tolerance)\n", encoding="utf-8")
    found = second_homes(package)
    assert len(found) == 6, found
