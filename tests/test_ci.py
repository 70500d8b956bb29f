""".ci/run: the README's test command verbatim (the fast set), then the slow tests, ruff, mypy (the package, then
the tests and benchmarks) and lint-imports, then the fast set on the lowest versions; a failing step fails the run.

The script runs in a copy of the checkout with stand-ins for python3 and the virtualenv's tools, which
record their calls and fail on demand, so the order and the exit status are checked without installing.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text(encoding="utf-8")
CONTRIBUTING = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
DEVELOPMENT = (REPO / "docs" / "development.md").read_text(encoding="utf-8")
CI = (REPO / ".ci" / "run").read_text(encoding="utf-8")

# Writes its name and arguments to the log; exits 3 when $FAIL names this call. A virtualenv's tool is named with
# its virtualenv (.venv/pip), so the two virtualenvs' calls are told apart.
STAND_IN = """#!/bin/sh
name="{name}"
case "$name" in */*) name="$(basename "$(dirname "$(dirname "$0")")")/$(basename "$0")" ;; esac
echo "$name $*" >> "$CI_LOG"
case "$name $*" in "$FAIL"*) exit 3 ;; esac
{extra}exit 0
"""
TOOLS = ("pip", "python", "ruff", "mypy", "lint-imports")
# `python3 -m venv DIR`: DIR/bin with the stand-ins.
MAKE_VENV = 'for dir; do :; done; mkdir -p "$dir/bin" && cp "$STAND_INS"/* "$dir/bin/"\n'


def _readme_test_command() -> str:
    [command] = re.findall(r"Run the tests:\n\n```bash\n(.*?)\n```", README)
    return command


def _write(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def _run_ci(tmp_path: Path, fail: str) -> tuple[int, list[str]]:
    checkout, bin_dir, stand_ins = tmp_path / "checkout", tmp_path / "bin", tmp_path / "stand-ins"
    for folder in (checkout / ".ci", bin_dir, stand_ins):
        folder.mkdir(parents=True)
    shutil.copy(REPO / ".ci" / "run", checkout / ".ci" / "run")
    _write(bin_dir / "python3", STAND_IN.format(name="python3", extra=MAKE_VENV))
    for tool in TOOLS:
        _write(stand_ins / tool, STAND_IN.format(name=f"venv/{tool}", extra=""))
    log = tmp_path / "calls.log"
    log.touch()
    env = {"PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin", "CI_LOG": str(log),
           "STAND_INS": str(stand_ins), "FAIL": fail}
    done = subprocess.run(["bash", str(checkout / ".ci" / "run")], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=60)
    return done.returncode, log.read_text().splitlines()


ALL_STEPS = [
    "python3 -m venv .venv",
    ".venv/pip install -q -e .[test]",
    ".venv/pip install -q --no-deps irrCAC==0.4.4",
    ".venv/python -m pytest -n 2 -q",
    ".venv/python -m pytest -n 2 -q -m slow",
    ".venv/ruff check .",
    ".venv/mypy judge_tui",
    ".venv/mypy tests benchmarks",
    ".venv/lint-imports ",
    "python3 -m venv .venv-lowest",
    ".venv/python .ci/lowest_constraints.py",
    ".venv-lowest/pip install -q -c .venv-lowest/constraints.txt -e .[test]",
    ".venv-lowest/pip install -q --no-deps irrCAC==0.4.4",
    ".venv-lowest/python -m pytest -n 2 -q",
]
LOWEST = ("python3 -m venv .venv-lowest && .venv/bin/python .ci/lowest_constraints.py > .venv-lowest/constraints.txt"
          " && .venv-lowest/bin/pip install -q -c .venv-lowest/constraints.txt -e '.[test]'"
          " && .venv-lowest/bin/pip install -q --no-deps irrCAC==0.4.4 && .venv-lowest/bin/python -m pytest -n 2 -q")


def test_ci_runs_the_readmes_test_command_verbatim_then_the_slow_tests_the_checks_and_the_lowest_versions() -> None:
    assert _ci_commands() == [_readme_test_command(), ".venv/bin/python -m pytest -n 2 -q -m slow",
                              ".venv/bin/ruff check .", ".venv/bin/mypy judge_tui",
                              ".venv/bin/mypy tests benchmarks", ".venv/bin/lint-imports", LOWEST]


def test_the_lowest_versions_are_the_lower_bounds_of_every_dependency() -> None:
    import tomllib

    done = subprocess.run([sys.executable, str(REPO / ".ci" / "lowest_constraints.py")], capture_output=True,
                          text=True, check=True)
    pins = dict(line.split("==") for line in done.stdout.splitlines())
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    named = [re.split(r"[<>=!~\[ ;,]", r, maxsplit=1)[0] for r in
             [*project["dependencies"], *project["optional-dependencies"]["test"]]]
    assert sorted(pins) == sorted(named)
    assert pins["textual"] == "8.2.7"  # 8.2.0-8.2.6 crash the rating screen (a private routine's arguments)


def _ci_commands() -> list[str]:
    return [line.strip("()") for line in CI.splitlines() if line and not line.startswith("#")][2:]


@pytest.mark.parametrize(("document", "section"), [(DEVELOPMENT, "## The checks CI runs"),
                                                   (CONTRIBUTING, "## The checks CI runs")])
def test_the_docs_list_exactly_the_checks_ci_runs(document: str, section: str) -> None:
    after = document.split(section + "\n", 1)[1]
    [listed] = re.findall(r"```bash\n(.*?)\n```", after, flags=re.DOTALL)[:1]
    assert listed.splitlines() == _ci_commands()


def test_ci_passes_when_every_step_passes(tmp_path: Path) -> None:
    assert _run_ci(tmp_path, fail="nothing") == (0, ALL_STEPS)


@pytest.mark.parametrize("failing", range(len(ALL_STEPS)))
def test_a_failing_step_stops_ci_and_fails_it(tmp_path: Path, failing: int) -> None:
    status, calls = _run_ci(tmp_path, fail=ALL_STEPS[failing])
    assert status != 0
    assert calls == ALL_STEPS[: failing + 1]
