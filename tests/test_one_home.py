"""The alignment tolerance and the band bounds have one home, AgreementSettings in model/settings.py: no other
module of judge_tui defines them again, by value or by name, and the code that reads the settings is handed them
whole, never a setting copied into a float of a field or a parameter."""

import ast
import dataclasses
from pathlib import Path

import judge_tui
from judge_tui.model.settings import DEFAULT_TOLERANCE, AgreementSettings

PACKAGE = Path(judge_tui.__file__).parent
HOME = PACKAGE / "model" / "settings.py"
# The bounds of the bands (every number AgreementSettings holds but the tolerance, the confidence and how to decide)
BOUNDS = tuple(f.name for f in dataclasses.fields(AgreementSettings)
               if f.name not in ("tolerance", "confidence", "decide_on"))
# Names a copy of a bound went by before it had one home.
FORMER_NAMES = ("binary_target",)


def _bound_to(node: ast.AST) -> list[tuple[str, ast.expr | None]]:
    """The (name, value) pairs a node binds: assignments, dataclass fields, keyword arguments, parameter defaults."""
    if isinstance(node, ast.Assign):
        return [(t.id if isinstance(t, ast.Name) else t.attr, node.value)
                for t in node.targets if isinstance(t, ast.Name | ast.Attribute)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name | ast.Attribute):
        name = node.target.id if isinstance(node.target, ast.Name) else node.target.attr
        return [(name, node.value)]
    if isinstance(node, ast.keyword) and node.arg:
        return [(node.arg, node.value)]
    if isinstance(node, ast.arguments):
        positional = [*node.posonlyargs, *node.args]
        pairs = list(zip(positional[len(positional) - len(node.defaults):], node.defaults, strict=True))
        pairs += [(a, d) for a, d in zip(node.kwonlyargs, node.kw_defaults, strict=True) if d is not None]
        return [(a.arg, d) for a, d in pairs]
    return []


def _number(node: ast.expr | None) -> float | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return float(node.value)
    return None


def _copies_tolerance(value: ast.expr | None) -> bool:
    """The default written again, given a second name (an alias), or made a parameter's default: a tolerance
    is always the one the settings hold, passed down."""
    return _number(value) == DEFAULT_TOLERANCE or (isinstance(value, ast.Name) and "TOLERANCE" in value.id)


def second_homes(root: Path, home: Path) -> list[str]:
    """Where a module under ``root`` other than ``home`` writes the tolerance or a band bound itself."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path == home:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = path.relative_to(root.parent)
        for node in ast.walk(tree):
            for name, value in _bound_to(node):
                number = _number(value)
                if "tolerance" in name.lower() and _copies_tolerance(value):
                    found.append(f"{where}:{getattr(node, 'lineno', getattr(value, 'lineno', '?'))}: {name}")
                if name in FORMER_NAMES or (name in BOUNDS and number is not None):
                    found.append(f"{where}:{getattr(node, 'lineno', getattr(value, 'lineno', '?'))}: {name}")
    return found


def test_the_tolerance_and_the_bounds_live_in_agreement_settings_alone():
    assert second_homes(PACKAGE, HOME) == []


def test_a_second_copy_is_found(tmp_path):
    """The scan finds each way a copy came back before: a class of bounds (field by field), a bare default, an
    alias, a keyword, the default made a parameter's (rather than the caller's settings passed down)."""
    package = tmp_path / "judge_tui"
    package.mkdir()
    (package / "copy.py").write_text(
        "from dataclasses import dataclass\n"
        "TOLERANCE = DEFAULT_TOLERANCE\n"
        "@dataclass\n"
        "class Thresholds:\n"
        "    alignment_well_calibrated: float = 0.80\n"
        "    kappa_substantial: float = 0.61\n"
        "    binary_target: float = 0.90\n"
        "def rate(a, b, tolerance: float = 0.15): ...\n"
        "def later(a, tolerance=TOLERANCE): ...\n"
        "def passed(a, tolerance=DEFAULT_TOLERANCE): ...\n"
        "settings = make(pearson_target=0.70)\n", encoding="utf-8")
    found = second_homes(package, package / "settings.py")
    assert len(found) == 8, found


# The packages that carry the settings, and within them the modules that take a setting as a plain number on
# purpose, as stats/ does (their callers read it from the settings). judge/ is left out: a judgment's confidence
# is the judge's answer, not a setting.
CARRIERS = ("analysis", "study", "transfer", "tui", "cli")
EXPLICIT_NUMBERS = {
    "analysis/scores.py": "the agreement rule (agreeing, AlignedPair.compare) at the tolerance it is given",
    "analysis/pair_intervals.py": "intervals of aligned scores at the confidence they are given",
    "analysis/uncertainty.py": "a row's intervals at the confidence they are given",
    "analysis/row_figures.py": "the figure table's intervals, which uncertainty.py calls at the confidence it is given",
}
# The settings' names, and ε, the alternative annotator test's name for alt_test_epsilon.
SETTING_NAMES = tuple(f.name for f in dataclasses.fields(AgreementSettings)) + ("epsilon",)


def copied_settings(root: Path) -> list[str]:
    """The fields and parameters named after a setting (a tolerance, a confidence, ε) that hold a float, in the
    packages under ``root`` that carry the settings, outside EXPLICIT_NUMBERS: there the settings go instead."""
    found = []
    for path in sorted(p for package in CARRIERS for p in (root / package).rglob("*.py")):
        where = path.relative_to(root).as_posix()
        if where in EXPLICIT_NUMBERS:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            named: list[tuple[str, ast.expr | None]]
            if isinstance(node, ast.ClassDef):
                named = [(n.target.id, n.annotation) for n in node.body
                         if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)]
            elif isinstance(node, ast.arguments):
                named = [(a.arg, a.annotation) for a in (*node.posonlyargs, *node.args, *node.kwonlyargs)]
            else:
                continue
            found += [f"{where}:{annotation.lineno}: {name}" for name, annotation in named
                      if name in SETTING_NAMES and annotation is not None and "float" in ast.unparse(annotation)]
    return found


def test_the_settings_travel_whole():
    assert copied_settings(PACKAGE) == []


def test_a_copied_setting_is_found_in_a_field_or_a_parameter(tmp_path):
    (tmp_path / "analysis").mkdir()
    (tmp_path / "analysis" / "model.py").write_text(
        "class Jury:\n"
        "    confidence: float\n"
        "    epsilon: 'float | None'\n"
        "    source: str\n"
        "def decide(checks, settings: AgreementSettings, tolerance: float): ...\n", encoding="utf-8")
    (tmp_path / "analysis" / "scores.py").write_text("def agreeing(a, b, tolerance: float): ...\n", encoding="utf-8")
    assert copied_settings(tmp_path) == ["analysis/model.py:2: confidence", "analysis/model.py:3: epsilon",
                                         "analysis/model.py:5: tolerance"]
