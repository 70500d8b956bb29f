"""`report --raters` and the judge's biases: the experts the biases lean from are the report's human group, as in
the judge comparison above them, and the section says which experts it leaves out. Two experts who score apart,
a judge, every step the real CLI in a process of its own on a real database file; the figures equal a hand
computation and scipy's Spearman rho on the experts named."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

JUDGE = "judge:m:essay@p1"
RUBRIC = """
id = "essay"
name = "Essay"
version = "1"
description = "Two qualities of a short answer."

[scale]
kind = "quarter"

[[fields]]
name = "response"
label = "Response"

[[dimensions]]
id = "clarity"
name = "Clarity"
measures = "How clear the answer is."

[[dimensions]]
id = "accuracy"
name = "Accuracy"
measures = "How accurate the answer is."
"""
DIMENSIONS = ("clarity", "accuracy")
N = 24
rng = np.random.default_rng(5)
# Scores on the quarter scale (0, 0.25, ..., 1), items x dimensions. Ann scores near the judge; Bob a step or two
# lower than Ann on most items, so the judge leans towards Bob's scores far more than towards Ann's.
ANN = rng.integers(1, 5, size=(N, 2)) / 4
BOB = np.clip(ANN - rng.integers(0, 3, size=(N, 2)) / 4, 0, 1)
JUDGE_SCORES = np.clip(ANN + rng.choice([-0.25, 0, 0, 0.25], size=(N, 2)), 0, 1)
LENGTHS = rng.integers(20, 400, size=N)


def _run(home: Path, *args: object) -> str:
    env = {k: v for k, v in os.environ.items() if k != "JUDGE_TUI_DB"}
    done = subprocess.run([sys.executable, "-m", "judge_tui", *map(str, args)], capture_output=True, text=True,
                          timeout=120, env={**env, "JUDGE_TUI_HOME": str(home)})
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def study_dbs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("raters")
    home, db = root / "home", root / "essay.db"
    (home / "rubrics").mkdir(parents=True)
    (home / "rubrics" / "essay.rubric.toml").write_text(RUBRIC, encoding="utf-8")
    items = root / "items.jsonl"
    items.write_text("".join(json.dumps({"id": f"e{n:02d}", "response": "w" * int(LENGTHS[n])}) + "\n"
                             for n in range(N)))
    _run(home, "import", items, "--rubric", "essay", "--db", db)
    for rater, kind, scores in (("ann", "human", ANN), ("bob", "human", BOB), (JUDGE, "judge", JUDGE_SCORES)):
        rows = root / f"{kind}-{rater[:3]}.jsonl"
        rows.write_text("".join(json.dumps({"item_id": f"e{n:02d}", **dict(zip(DIMENSIONS, map(float, scores[n]),
                                                                              strict=True))}) + "\n"
                                for n in range(N)))
        _run(home, "import-ratings", rows, "--rater", rater, "--kind", kind, "--db", db)
    return home, db


def _biases(home: Path, db: Path, *raters: str) -> dict:
    data = json.loads(_run(home, "report", "--db", db, "--rubric", "essay", "--format", "json", *raters))
    [section] = data["judge_biases"]
    return section


def expected_biases(reference: np.ndarray, judge: np.ndarray = JUDGE_SCORES) -> dict[str, float]:
    """Leniency per dimension and overall (each item's mean over the dimensions), and Spearman's rho of the
    response's length against that overall residual, by hand and scipy."""
    diff = judge - reference
    residual = diff.mean(axis=1)
    return {**{d: float(diff[:, i].mean()) for i, d in enumerate(DIMENSIONS)}, "overall": float(residual.mean()),
            "rho": float(stats.spearmanr(LENGTHS, residual).statistic)}


def found_biases(section: dict) -> dict[str, float]:
    return {**{le["key"]: le["mean_difference"] for le in section["leniency"]},
            "rho": section["length_bias"]["spearman_rho"]}


@pytest.mark.slow
@pytest.mark.parametrize(("named", "reference", "left_out"), [
    ("ann", ANN, "bob"),
    ("bob", BOB, "ann"),
])
def test_the_biases_lean_from_the_experts_raters_names(study_dbs: tuple[Path, Path], named: str,
                                                       reference: np.ndarray, left_out: str) -> None:
    home, db = study_dbs
    section = _biases(home, db, "--raters", f"{named},{JUDGE}")
    assert section["experts"] == [named]
    assert section["experts_left_out"] == [left_out]
    assert found_biases(section) == pytest.approx(expected_biases(reference), abs=1e-12)
    text = " ".join(_run(home, "report", "--db", db, "--rubric", "essay", "--raters", f"{named},{JUDGE}").split())
    assert f"Against the experts' consensus (the human group compared: {named}; {left_out} left out)" in text
    markdown = _run(home, "report", "--db", db, "--rubric", "essay", "--raters", f"{named},{JUDGE}",
                    "--format", "markdown")
    assert f"(the human group compared: {named}; {left_out} left out)" in " ".join(markdown.split())


@pytest.mark.slow
def test_naming_both_experts_or_none_leans_from_their_mean(study_dbs: tuple[Path, Path]) -> None:
    home, db = study_dbs
    default = _biases(home, db)
    assert default["experts"] == ["ann", "bob"]
    assert "experts_left_out" not in default
    assert found_biases(default) == pytest.approx(expected_biases((ANN + BOB) / 2), abs=1e-12)
    assert _biases(home, db, "--raters", f"ann+bob,{JUDGE}") == default
    # The two experts differ: which one is named changes the figures.
    assert found_biases(_biases(home, db, "--raters", f"ann,{JUDGE}"))["overall"] < default["leniency"][-1]["mean_difference"]
