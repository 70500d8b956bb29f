"""The agreement report's JSON, Markdown and text, pinned from a fixed database of three experts, an adjudicated
consensus, blind re-ratings, two judge prompt versions with repeats, and a flag: byte for byte, except a figure
written at full precision, which another machine may compute a last bit apart (`tests/pinned.py`)."""

from __future__ import annotations

import math
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from judge_tui.cli import main
from judge_tui.store import Store
from tests.pinned import assert_as_pinned
from tests.team_fixtures import exercise_item, rate

PINNED = Path(__file__).parent / "fixtures" / "reports"
DIMS = ("difficulty_match", "instruction_clarity", "learning_objective_alignment")
SHEETS = {
    "ann": [(1, 1, 1), (0.5, 1, 1), (0, 0.5, 1), (1, 0.5, 0.5), (0.5, 0.5, 0), (1, 1, 0.5), (1, 1, 1), (0, 0, 0)],
    "bob": [(1, 1, 1), (0.5, 0.5, 1), (0, 0.5, 1), (1, 1, 0.5), (0.5, 0, 0), (1, 1, 0.5), (0.5, 1, 1), (0, 0.5, 0)],
    "cat": [(1, 0.5, 1), (0.5, 1, 1), (0.5, 0.5, 1), (1, 0.5, 0.5), (0.5, 0.5, 0), (0.5, 1, 0.5), (1, 1, 0.5)],
}
JUDGE = "judge:m:exercise-quality@"
P1 = [(1, 1, 1)] * 8
P2 = [(1, 1, 1), (0.5, 1, 1), (0, 0.5, 1), (1, 0.5, 0.5), (0.5, 0.5, 0), (1, 1, 0.5), (1, 0.5, 1), (0, 0, 0.5)]
P2_REPEATS = {1: [(1, 1, 1), (0.5, 0.5, 1), (0, 0.5, 1), (1, 0.5, 0.5), (0.5, 0.5, 0.5), (1, 1, 0.5)],
              2: [(1, 1, 0.5), (0.5, 1, 1), (0, 0.5, 1), (1, 0.5, 0.5)]}
REPORTS = {  # file name -> report arguments
    "team.json": ("--format", "json"),
    "team.md": ("--format", "markdown"),
    "team_by_split.json": ("--format", "json", "--by", "split"),
    "team_by_split.md": ("--format", "markdown", "--by", "split"),
    "team_test_split.md": ("--format", "markdown", "--split", "test"),
    "experts_vs_p1.md": ("--format", "markdown", "--raters", f"ann+bob,{JUDGE}p1"),
    "compare.json": ("--format", "json", "--compare", "p1", "p2", "--split", "test"),
    "compare.md": ("--format", "markdown", "--compare", "p1", "p2", "--split", "test"),
    "team.txt": ("--format", "text"),  # to a pipe: every table at its full width
    "compare.txt": ("--format", "text", "--compare", "p1", "p2", "--split", "test"),
    "jury.txt": ("--format", "text", "--jury", f"{JUDGE}p1+{JUDGE}p2"),
}


def _scores(rows) -> dict[str, dict[str, float]]:
    return {f"E{n:02d}": dict(zip(DIMS, row, strict=True)) for n, row in enumerate(rows, start=1)}


@pytest.fixture
def team_db(tmp_path: Path, rubrics) -> Path:
    rubric = rubrics["exercise-quality"]
    path = tmp_path / "team.db"
    with Store(path) as store:
        store.ensure_rubric_version(rubric)
        store.add_items([exercise_item(n, "B1" if n % 2 else "B2") for n in range(1, 9)])
        with store.transaction() as conn:
            conn.execute("UPDATE items SET split = CASE WHEN rowid % 2 = 0 THEN 'dev' ELSE 'test' END")
        for expert, rows in SHEETS.items():
            rate(store, rubric, expert, "human", _scores(rows), notes="n")
        rate(store, rubric, "ann", "human", _scores([(0.5, 1, 1), (0.5, 1, 1), (0, 0.5, 0)]), repeat=1)
        rate(store, rubric, "consensus", "human", {"E02": dict(zip(DIMS, (0.5, 1, 1), strict=True))})
        rate(store, rubric, f"{JUDGE}p1", "judge", _scores(P1), prompt_version="p1")
        rate(store, rubric, f"{JUDGE}p2", "judge", _scores(P2), prompt_version="p2")
        for repeat, rows in P2_REPEATS.items():
            rate(store, rubric, f"{JUDGE}p2", "judge", _scores(rows), repeat=repeat, prompt_version="p2")
        with store.transaction() as conn:
            conn.execute("UPDATE ratings SET flagged = 1, flag_reason = 'unclear | blank',"
                         " updated_at = '2026-01-01T00:00:00' WHERE rater_id = 'bob' AND item_id = 'E03'"
                         " AND repeat = 0")
            # The version's date is on the validity page: a fixed one keeps the pinned files the same every day.
            conn.execute("UPDATE rubric_versions SET created_at = '2026-01-01T00:00:00.000+00:00'")
    return path


def _report(capsys, db: Path, *args: str) -> bytes:
    capsys.readouterr()
    assert main(["report", "--db", str(db), *args]) == 0
    return capsys.readouterr().out.encode("utf-8")


def test_every_report_is_written_as_pinned(team_db: Path, hermetic_home: Path, capsys):
    for name, args in REPORTS.items():
        written = _report(capsys, team_db, *args)
        if os.environ.get("JUDGE_TUI_PIN_REPORTS"):  # rewrite the pinned files (a deliberate format change)
            (PINNED / name).write_bytes(written)
        assert_as_pinned(written, (PINNED / name).read_bytes(), name)


@pytest.mark.slow
def test_the_report_is_the_same_in_every_process(team_db: Path, hermetic_home: Path):
    """Nothing in it depends on the order of a set (Python orders strings differently in every process)."""
    outputs = set()
    for seed in ("1", "2", "3"):
        done = subprocess.run([sys.executable, "-m", "judge_tui", "report", "--db", str(team_db), "--format",
                               "markdown"], capture_output=True, env={**os.environ, "PYTHONHASHSEED": seed},
                              timeout=60, check=True)
        outputs.add(done.stdout)
    assert len(outputs) == 1


@pytest.mark.slow
@pytest.mark.parametrize("kernel", ["Prescott", "Sandybridge"])
def test_the_reports_are_as_pinned_with_another_cpus_arithmetic(team_db: Path, hermetic_home: Path, kernel: str):
    """OpenBLAS run with another CPU's kernels sums in another order: with Prescott's, a Pearson interval's bound
    is -0.48007619256184075 where this machine writes -0.4800761925618408, as on an AMD EPYC. The pinned files
    hold all the same (where numpy is built on another BLAS the variable changes nothing, and they hold too)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("these are x86-64 kernels of OpenBLAS")
    for name in ("team.json", "team_by_split.json", "team.md"):
        done = subprocess.run([sys.executable, "-m", "judge_tui", "report", "--db", str(team_db), *REPORTS[name]],
                              capture_output=True, timeout=120, check=True,
                              env={**os.environ, "OPENBLAS_CORETYPE": kernel, "JUDGE_TUI_HOME": str(hermetic_home)})
        assert_as_pinned(done.stdout, (PINNED / name).read_bytes(), name)


# The verdict's words, status and the floats the text report rounds are what the intervals change on purpose;
# every other key and value of the JSON report stays as it was before the intervals were added.
_CHANGED_ON_PURPOSE = {"text", "status"}


def _only_added(old, new, path="") -> list[str]:
    """Where ``new`` drops or changes something of ``old`` (keys may be added, values must stay)."""
    if isinstance(old, dict):
        if not isinstance(new, dict):
            return [path]
        problems = []
        for key, value in old.items():
            if key not in new:
                problems.append(f"{path}.{key} removed")
            elif key in _CHANGED_ON_PURPOSE and path.split("[")[0].endswith("verdict"):
                continue
            elif key == "meets_target" and path.endswith("_band"):
                # Follows the decision now (None while undecided); the point estimate's reading moved to
                # point_meets_target, beside it.
                if new.get("point_meets_target") != value:
                    problems.append(f"{path}.point_meets_target: {value!r} -> {new.get('point_meets_target')!r}")
            else:
                problems += _only_added(value, new[key], f"{path}.{key}")
        return problems
    if isinstance(old, list):
        if not isinstance(new, list) or len(new) < len(old):
            return [f"{path} shortened"]
        return [p for i, (a, b) in enumerate(zip(old, new, strict=False)) for p in _only_added(a, b, f"{path}[{i}]")]
    if isinstance(old, float) and isinstance(new, float):
        # Sums may differ in the last bit; the team section wrote 4 decimals and now writes full precision.
        same = math.isclose(old, new, rel_tol=1e-12, abs_tol=1e-15) or old == round(new, 4)
        return [] if same else [f"{path}: {old!r} -> {new!r}"]
    return [] if old == new else [f"{path}: {old!r} -> {new!r}"]


@pytest.mark.parametrize("name", ["team.json", "team_by_split.json"])
def test_the_json_report_only_adds_keys_to_what_it_wrote_before(name):
    import json

    old = json.loads((PINNED / "before_intervals" / name).read_text(encoding="utf-8"))
    new = json.loads((PINNED / name).read_text(encoding="utf-8"))
    old_verdict = [{k: v for k, v in f.items() if k not in _CHANGED_ON_PURPOSE} for f in old.pop("verdict")]
    new_verdict = [{k: v for k, v in f.items() if k in old_verdict[0]} for f in new.pop("verdict")]
    remaining = iter(new_verdict)  # every old finding is still there, in order (new ones may sit between)
    for finding in old_verdict:
        assert any(f["topic"] == finding["topic"] and f["scope"] == finding["scope"] for f in remaining), finding
    assert _only_added(old, new) == []
