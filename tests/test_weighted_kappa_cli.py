"""Weighted kappa's interval through the real command line: `judge-tui import`, `import-ratings` and `report
--format json` in subprocesses on a real database, from the bundled five-point CIS demo (25 items)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as scipy_stats
from sklearn.metrics import cohen_kappa_score

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
POINTS = [0.0, 0.25, 0.5, 0.75, 1.0]
pytestmark = pytest.mark.slow


def cli(cwd: Path, *args: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "JUDGE_TUI_HOME": str(cwd / "home"), "PYTHONPATH": str(ROOT)}
    env.pop("JUDGE_TUI_DB", None)
    done = subprocess.run([sys.executable, "-m", "judge_tui", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    return done


def _ratings(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _report(tmp_path: Path, experts: list[dict]) -> dict:
    db = tmp_path / "study.db"
    expert_file = tmp_path / "expert.jsonl"
    expert_file.write_text("".join(json.dumps(r) + "\n" for r in experts), encoding="utf-8")
    cli(tmp_path, "import", DATA / "cis.jsonl", "--db", db)
    cli(tmp_path, "import-ratings", expert_file, "--rater", "ann", "--kind", "human", "--db", db)
    cli(tmp_path, "import-ratings", DATA / "cis.judge-demo.ratings.jsonl", "--rater", "judge:m:cis@1", "--kind",
        "judge", "--db", db)
    return json.loads(cli(tmp_path, "report", "--db", db, "--format", "json").stdout)


def _jackknife_interval(expert: list[int], judge: list[int]) -> tuple[float, float]:
    """The definition, item by item with scikit-learn: the jackknife standard error of the leave-one-out
    quadratic kappas, and sqrt(1 - κ) ± t(n - 1)·SE / (2·sqrt(1 - κ)) back to kappa."""
    a, b, n = np.array(expert), np.array(judge), len(expert)
    kappa = cohen_kappa_score(a, b, labels=list(range(5)), weights="quadratic")
    left_out = np.array([cohen_kappa_score(np.delete(a, i), np.delete(b, i), labels=list(range(5)),
                                           weights="quadratic") for i in range(n)])
    se = np.sqrt((n - 1) / n * ((left_out - left_out.mean()) ** 2).sum())
    root = np.sqrt(1 - kappa)
    half = scipy_stats.t.ppf(0.975, n - 1) * se / (2 * root)
    return 1 - (root + half) ** 2, 1 - max(0.0, root - half) ** 2


def test_25_items_give_each_dimension_the_jackknife_interval_by_its_definition(tmp_path):
    experts = _ratings(DATA / "cis.expert-demo.ratings.jsonl")
    judges = {r["item_id"]: r["scores"] for r in _ratings(DATA / "cis.judge-demo.ratings.jsonl")}
    data = _report(tmp_path, experts)
    for row in data["dimensions"]:
        name = row["dimension"]
        expert = [POINTS.index(r["scores"][name]) for r in experts]
        judge = [POINTS.index(judges[r["item_id"]][name]) for r in experts]
        assert row["n"] == 25
        assert row["weighted_kappa"] == pytest.approx(
            cohen_kappa_score(expert, judge, labels=list(range(5)), weights="quadratic"), abs=1e-12)
        interval = row["intervals"]["weighted_kappa"]
        assert interval["method"] == "jackknife (root-disagreement, t)"
        low, high = _jackknife_interval(expert, judge)
        assert interval["low"] == pytest.approx(low, abs=1e-9)
        assert interval["high"] == pytest.approx(high, abs=1e-9)


def test_24_items_keep_weighted_kappa_but_say_too_few_items_for_its_interval(tmp_path):
    experts = _ratings(DATA / "cis.expert-demo.ratings.jsonl")[:24]
    data = _report(tmp_path, experts)
    for row in data["dimensions"]:
        assert row["n"] == 24
        assert row["weighted_kappa"] is not None
        assert row["intervals"]["weighted_kappa"] is None
        assert row["undefined"]["weighted_kappa_interval"].startswith(
            "too few items for a kappa interval: 24 rated by both, 25 needed")
