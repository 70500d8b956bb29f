"""Faults of the machine made real: a tiny disk that fills up, read-only media, a damaged database file.

Disks are tmpfs mounts, so these tests need root (they are skipped otherwise); everything else runs anywhere.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def run(*args: object, home: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """judge-tui as a real subprocess, its standard input closed."""
    env = {**os.environ, "JUDGE_TUI_HOME": str(home), "PYTHONPATH": str(REPO)}
    env.pop("JUDGE_TUI_DB", None)
    return subprocess.run([sys.executable, "-m", "judge_tui", *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=timeout, stdin=subprocess.DEVNULL, cwd=REPO)


def write_items(path: Path, count: int, *, prefix: str = "P", size: int = 300) -> Path:
    """A JSONL file of `count` binary-rubric items."""
    with path.open("w") as f:
        for n in range(count):
            f.write(json.dumps({"id": f"{prefix}{n}", "query": "q" * size, "criterion": "c",
                                "response": f"response {n} " + "r" * size}) + "\n")
    return path


def _mount(folder: Path, size: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip("needs root to mount a small file system")


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """disk("2m") -> a folder on a new file system of that size; remount(folder, "ro") makes it read-only."""
    mounted: list[Path] = []

    def make(size: str) -> Path:
        folder = tmp_path / f"disk{len(mounted)}"
        _mount(folder, size)
        mounted.append(folder)
        return folder

    yield make
    for folder in reversed(mounted):
        subprocess.run(["umount", "-l", str(folder)], check=False)


def remount(folder: Path, mode: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{mode}", str(folder)], check=True)


def no_traceback(proc: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "Error:" not in proc.stderr.split("judge-tui:")[0], proc.stderr
