"""Print a pip constraints file pinning every dependency of pyproject.toml (the test extra included) to its lower
bound, so CI can run the tests on the oldest versions the project says it works with."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

LOWER = re.compile(r"^\s*([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?\s*(?:>=|==)\s*([^,;\s]+)")


def constraints(pyproject: Path) -> list[str]:
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    requirements = [*project["dependencies"], *project["optional-dependencies"]["test"]]
    pins = []
    for requirement in requirements:
        match = LOWER.match(requirement)
        if match is None:
            raise SystemExit(f"{pyproject}: {requirement!r} has no lower bound (>= or ==): give it one")
        pins.append(f"{match.group(1)}=={match.group(2)}")
    return pins


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent
    print("\n".join(constraints(root / "pyproject.toml")))
