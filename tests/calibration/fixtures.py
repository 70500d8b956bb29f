"""A binary study ready for the calibration loop: train / dev / test items, two experts, a first judge."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

from judge_tui.model.records import Item
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from tests.team_fixtures import rate

HERE = Path(__file__).parent
JUDGE_CMD = f"{shlex.quote(sys.executable)} {shlex.quote(str(HERE / 'fake_judge.py'))}"
MODEL = "cmd-fake"
SPLITS = {"train": range(1, 5), "dev": range(5, 17), "test": range(17, 21)}


def has_honey(n: int) -> bool:
    return n % 2 == 0


def items() -> list[Item]:
    out = []
    for split, numbers in SPLITS.items():
        for n in numbers:
            response = f"oat porridge with {'honey' if has_honey(n) else 'maple syrup'}, serving {n}"
            out.append(Item(id=f"P{n:02d}", rubric="binary", split=split,
                            fields={"query": f"a vegan breakfast {n}", "criterion": "the breakfast is vegan",
                                    "response": response}))
    return out


def build_study(path: Path, rubric: Rubric) -> Path:
    """Two experts rate every item (honey FAILs); the items of the test split too, so a leak would show."""
    with Store(path) as store:
        store.add_items(items())
        truth = {f"P{n:02d}": {"label": 0.0 if has_honey(n) else 1.0}
                 for numbers in SPLITS.values() for n in numbers}
        rate(store, rubric, "alice", "human", truth, notes="honey is not vegan")
        rate(store, rubric, "bob", "human", truth)
        store.mark_for_revision("P06", "binary", "honey passed")
    return path


def judge_dev(path: Path, split: str = "dev") -> None:
    """The first judge, as a user runs it: the judge command with the local program."""
    done = subprocess.run(
        [sys.executable, "-m", "judge_tui", "judge", "--rubric", "binary", "--split", split, "--backend", "command",
         "--cmd", JUDGE_CMD, "--model", MODEL, "--db", str(path)],
        capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr + done.stdout
