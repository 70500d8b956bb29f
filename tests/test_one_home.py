"""The alignment tolerance and the band bounds have one home, AgreementSettings in model/settings.py: no other
module of judge_tui defines them again, by value or by name, and no object of a report keeps a copy of a setting."""

import ast
import contextlib
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
            if isinstance(node, ast.ClassDef):
                fields = {n.target.id for n in node.body
                          if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
                if len(fields & {*BOUNDS, *FORMER_NAMES}) >= 3:
                    found.append(f"{where}:{node.lineno}: class {node.name} holds band bounds")
    return found


def test_the_tolerance_and_the_bounds_live_in_agreement_settings_alone():
    assert second_homes(PACKAGE, HOME) == []


def test_a_second_copy_is_found(tmp_path):
    """The scan finds each way a copy came back before: a class of bounds, a bare default, an alias, a keyword,
    the default made a parameter's (rather than the caller's settings passed down)."""
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
    assert len(found) == 9, found


# What a report or `judge-tui status` holds, from its top object down through the types of its fields.
REPORT_TOPS = ("FullReport", "StudyStatus")
# The settings' names, and ε, the alternative annotator test's name for alt_test_epsilon.
SETTING_NAMES = tuple(f.name for f in dataclasses.fields(AgreementSettings)) + ("epsilon",)


def _names_in(node: ast.expr) -> set[str]:
    """Every name an annotation (or an alias's value) mentions, quoted ones included."""
    found: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            found.add(n.id)
        elif isinstance(n, ast.Attribute):
            found.add(n.attr)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str):
            with contextlib.suppress(SyntaxError):  # a Literal's value, not a name
                found |= _names_in(ast.parse(n.value, mode="eval").body)
    return found


def copied_settings(packages: list[Path]) -> list[str]:
    """The float fields named after a setting (a tolerance, a confidence, ε) in the classes a report or the study's
    status is made of, found from REPORT_TOPS through the names in each field's annotation: such an object carries
    the settings instead, as Report does."""
    fields: dict[str, list[tuple[str, dict[str, ast.expr]]]] = {}
    aliases: dict[str, list[ast.expr]] = {}  # Section = (Report | ...)
    for package in packages:
        for path in sorted(package.rglob("*.py")):
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                if isinstance(node, ast.ClassDef):
                    fields.setdefault(node.name, []).append((path.name, {
                        n.target.id: n.annotation for n in node.body
                        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}))
                elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    aliases.setdefault(node.targets[0].id, []).append(node.value)
    found, seen, todo = [], set(), list(REPORT_TOPS)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for value in aliases.get(name, []):
            todo += _names_in(value)
        for module, annotated in fields.get(name, []):
            for field, annotation in annotated.items():
                mentioned = _names_in(annotation)
                if field in SETTING_NAMES and "float" in mentioned:
                    found.append(f"{module}: {name}.{field}")
                todo += mentioned
    return sorted(found)


def test_no_object_of_a_report_keeps_a_copy_of_a_setting():
    assert copied_settings([PACKAGE / "analysis", PACKAGE / "study"]) == []


def test_a_copied_setting_is_found_in_an_object_the_report_reaches(tmp_path):
    package = tmp_path / "analysis"
    package.mkdir()
    (package / "model.py").write_text(
        "from dataclasses import dataclass\n"
        "@dataclass(frozen=True)\n"
        "class Jury:\n"
        "    confidence: float\n"
        "@dataclass(frozen=True)\n"
        "class Page:\n"
        "    epsilon: 'float | None'\n"
        "    settings: AgreementSettings\n"
        "@dataclass(frozen=True)\n"
        "class Unreached:\n"
        "    tolerance: float\n"
        "Section = Jury | Page\n"
        "@dataclass(frozen=True)\n"
        "class FullReport:\n"
        "    sections: tuple[Section, ...]\n", encoding="utf-8")
    assert copied_settings([package]) == ["model.py: Jury.confidence", "model.py: Page.epsilon"]
