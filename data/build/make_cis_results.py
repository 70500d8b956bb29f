#!/usr/bin/env python3
"""Rebuild data/cis.jsonl from the submissions in data/build/cis/.

Every submission folder (B001, B002, ...) holds:

    meta.json        task_type, rationale, and the outcome its tests should have ("expect": "pass" or "fail")
    source.py        the submitted code; the tests import it as `solution`
    test_source.py   the submitted tests: pytest functions, or a plain script of asserts

The script runs each submission's tests for real, in a scratch directory, and stores what they printed in
the item's test_results, so code that passes really passes and buggy code really fails. Timings and scratch
paths are removed from the output so that the file only changes when a submission does.

    python data/build/make_cis_results.py           # rewrite data/cis.jsonl
    python data/build/make_cis_results.py --check   # exit 1 if data/cis.jsonl is out of date
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

BUILD_DIR = Path(__file__).resolve().parent
SUBMISSIONS_DIR = BUILD_DIR / "cis"
TASKS_FILE = SUBMISSIONS_DIR / "tasks.json"
OUTPUT_FILE = BUILD_DIR.parent / "cis.jsonl"

REQUIRED_META = ("task_type", "rationale", "expect")
TIMEOUT_SECONDS = 60

# "3 passed in 0.04s" -> "3 passed"; pytest sometimes adds "(0:01:02)" after long runs.
_DURATION = re.compile(r" in \d+(?:\.\d+)?s(?: \([0-9:]+\))?")
_PYTEST_STYLE = re.compile(r"^\s*def test_", re.MULTILINE)
# Object reprs carry memory addresses that change on every run.
_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]+")


class BuildError(Exception):
    """A problem with the submission files that the maintainer has to fix."""


@dataclass
class Submission:
    id: str
    task_type: str
    rationale: str
    expect: str
    source_code: str
    test_code: str


@dataclass
class RunResult:
    output: str
    passed: bool


def load_tasks() -> dict[str, str]:
    try:
        return json.loads(TASKS_FILE.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise BuildError(f"cannot read task statements from {TASKS_FILE}: {exc}") from exc


def load_submission(folder: Path, tasks: dict[str, str]) -> Submission:
    def read(name: str) -> str:
        path = folder / name
        if not path.is_file():
            raise BuildError(f"{folder.name}: missing {name} (expected at {path})")
        return path.read_text(encoding="utf-8")

    try:
        meta = json.loads(read("meta.json"))
    except json.JSONDecodeError as exc:
        raise BuildError(f"{folder.name}/meta.json is not valid JSON: {exc}") from exc
    missing = [key for key in REQUIRED_META if key not in meta]
    if missing:
        raise BuildError(f"{folder.name}/meta.json lacks {', '.join(missing)}")
    if meta["task_type"] not in tasks:
        known = ", ".join(sorted(tasks))
        raise BuildError(f"{folder.name}: unknown task_type {meta['task_type']!r}; use one of: {known}")
    if meta["expect"] not in ("pass", "fail"):
        raise BuildError(f"{folder.name}: expect must be 'pass' or 'fail', not {meta['expect']!r}")
    return Submission(
        id=folder.name,
        task_type=meta["task_type"],
        rationale=meta["rationale"],
        expect=meta["expect"],
        source_code=read("source.py"),
        test_code=read("test_source.py"),
    )


def load_submissions() -> list[Submission]:
    tasks = load_tasks()
    folders = sorted(p for p in SUBMISSIONS_DIR.iterdir() if p.is_dir() and re.fullmatch(r"B\d{3}", p.name))
    if not folders:
        raise BuildError(f"no submission folders (B001, ...) found in {SUBMISSIONS_DIR}")
    return [load_submission(folder, tasks) for folder in folders]


def _test_environment() -> dict[str, str]:
    # CI=true (set on CI machines) makes pytest print untruncated summaries, so it goes too.
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PYTEST_", "PYTHON")) and key not in ("CI", "BUILD_NUMBER")}
    env.update(
        PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",  # installed plugins must not change the output
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONHASHSEED="0",
        COLUMNS="80",  # pytest sizes its separator lines to the terminal
        PY_COLORS="0",
    )
    return env


def _normalise(text: str, scratch: str) -> str:
    text = text.replace(scratch + os.sep, "").replace(scratch, ".")
    text = _ADDRESS.sub("at 0x...", text)
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    if lines:
        lines[-1] = _DURATION.sub("", lines[-1])
    return "\n".join(lines)


def run_tests(submission: Submission) -> RunResult:
    """Run the submission's tests in a fresh directory and return their cleaned-up output."""
    with tempfile.TemporaryDirectory(prefix="cis-") as scratch:
        scratch = os.path.realpath(scratch)
        Path(scratch, "solution.py").write_text(submission.source_code, encoding="utf-8")
        Path(scratch, "test_solution.py").write_text(submission.test_code, encoding="utf-8")
        if _PYTEST_STYLE.search(submission.test_code):
            shown = "python -m pytest -q --tb=short test_solution.py"
            command = [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "--tb=short",
                "-p",
                "no:cacheprovider",
                "test_solution.py",
            ]
        else:
            shown = "python test_solution.py"
            command = [sys.executable, "test_solution.py"]
        try:
            done = subprocess.run(
                command,
                check=False,
                cwd=scratch,
                env=_test_environment(),
                capture_output=True,
                text=True,
                timeout=TIMEOUT_SECONDS,
            )
        except subprocess.TimeoutExpired as exc:
            raise BuildError(f"{submission.id}: tests still running after {TIMEOUT_SECONDS} s") from exc
        output = _normalise(done.stdout + done.stderr, scratch)
    if "No module named pytest" in output:
        raise BuildError(
            f"pytest is not installed for {sys.executable}; run this script with the project venv"
        )
    parts = [f"$ {shown}", output, f"(exit status {done.returncode})"]
    return RunResult(output="\n".join(part for part in parts if part), passed=done.returncode == 0)


def build_lines(submissions: list[Submission]) -> list[str]:
    tasks = load_tasks()
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(run_tests, submissions))
    surprises = [
        f"{sub.id}: tests {'passed' if res.passed else 'failed'} but meta.json expects {sub.expect}"
        for sub, res in zip(submissions, results, strict=True)
        if res.passed != (sub.expect == "pass")
    ]
    if surprises:
        raise BuildError("unexpected test outcomes:\n  " + "\n  ".join(surprises))
    lines = []
    for sub, res in zip(submissions, results, strict=True):
        item = {
            "id": sub.id,
            "task_type": sub.task_type,
            "task": tasks[sub.task_type],
            "rationale": sub.rationale,
            "source_code": sub.source_code,
            "test_code": sub.test_code,
            "test_results": res.output,
        }
        lines.append(json.dumps(item, ensure_ascii=False))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Run the CIS demo submissions' tests and rebuild data/cis.jsonl."
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="do not write; exit 1 if data/cis.jsonl differs from a fresh build",
    )
    args = parser.parse_args(argv)
    try:
        lines = build_lines(load_submissions())
    except BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    fresh = "\n".join(lines) + "\n"
    if args.check:
        current = OUTPUT_FILE.read_text(encoding="utf-8") if OUTPUT_FILE.exists() else ""
        if current == fresh:
            print(f"{OUTPUT_FILE.name} is up to date ({len(lines)} submissions)")
            return 0
        old = {json.loads(line)["id"]: line for line in current.splitlines() if line.strip()}
        stale = [json.loads(line)["id"] for line in lines if old.get(json.loads(line)["id"]) != line]
        print(
            f"{OUTPUT_FILE.name} is out of date for: {', '.join(stale) or 'line order or extra lines'}; "
            f"run python {Path(__file__).relative_to(BUILD_DIR.parent.parent)}",
            file=sys.stderr,
        )
        return 1
    OUTPUT_FILE.write_text(fresh, encoding="utf-8")
    print(f"wrote {len(lines)} submissions to {OUTPUT_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
