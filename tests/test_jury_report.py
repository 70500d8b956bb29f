"""The jury in `judge-tui report` as a user runs it: text, Markdown and JSON from a real process, --jury to name
the members, and a mistake in it said as a message."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, cohen_kappa_score

from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from tests.test_jury import JUDGES, binary_study

ROOT = Path(__file__).resolve().parents[1]


def _report(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "judge_tui", "report", "--db", str(db), "--rubric", "binary", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_the_report_shows_three_judges_the_jury_and_their_error_correlation(tmp_path: Path,
                                                                             rubrics: dict[str, Rubric]) -> None:
    db = tmp_path / "jury.db"
    with Store(db) as store:
        labels = binary_study(store, rubrics["binary"])
    done = _report(db, "--format", "json")
    assert done.returncode == 0, done.stderr
    jury = json.loads(done.stdout)["jury"]
    assert jury["members"] == list(JUDGES)
    assert jury["items"] == 120
    assert jury["rule"] == "majority"
    truth = labels["truth"]
    for judge in jury["judges"]:
        row = judge["dimensions"][0]
        assert row["alignment"] == pytest.approx(accuracy_score(truth, labels[judge["rater"]]))
        assert row["kappa"] == pytest.approx(cohen_kappa_score(truth, labels[judge["rater"]]))
        assert row["intervals"]["kappa"]["low"] < row["kappa"] < row["intervals"]["kappa"]["high"]
        assert judge["cost"]["calls"] == 0
        assert judge["cost"]["mean_seconds"] == 30.0
    majority = (np.stack([labels[j] for j in JUDGES]).sum(axis=0) >= 2).astype(float)
    assert jury["jury"]["dimensions"][0]["kappa"] == pytest.approx(cohen_kappa_score(truth, majority))
    assert jury["jury"]["intervals"]["alignment"]["method"] == "wilson"
    assert len(jury["error_correlation"]) == 3
    for pair in jury["error_correlation"]:
        a, b = (labels[j] != truth for j in pair["judges"])
        assert pair["excess"] == pytest.approx(np.mean(a & b) - np.mean(a) * np.mean(b))
        assert set(pair["intervals"]) == {"both_wrong", "independent", "excess"}
    assert jury["versus_best"]["verdict"] in ("no detectable difference", f"the jury beats {jury['versus_best']['best']}")

    text = _report(db)
    assert text.returncode == 0, text.stderr
    assert "Jury: 3 judges against the experts" in text.stdout
    assert "jury (majority of 3)" in text.stdout
    assert "Does the jury beat its best member" in text.stdout
    markdown = _report(db, "--format", "markdown")
    assert "## Jury: 3 judges against the experts" in markdown.stdout
    assert "| J1 & J2 | 120 |" in markdown.stdout

    two = _report(db, "--format", "json", "--jury", f"{JUDGES[0]}+{JUDGES[2]}")
    assert json.loads(two.stdout)["jury"]["members"] == [JUDGES[0], JUDGES[2]]
    wrong = _report(db, "--jury", f"{JUDGES[0]}+nobody")
    assert wrong.returncode == 1
    assert "Traceback" not in wrong.stderr
    assert "--jury: 'nobody' is not a judge rater of rubric 'binary'" in wrong.stderr
    # The help says judges are joined with +: a comma in their place is refused with the form to use.
    commas = _report(db, "--jury", f"{JUDGES[0]},{JUDGES[2]}")
    assert commas.returncode == 1
    assert "Traceback" not in commas.stderr
    assert commas.stdout == ""
    assert f"join the judges with +, not commas, e.g. --jury '{JUDGES[0]}+{JUDGES[2]}'" in commas.stderr
    helped = subprocess.run([sys.executable, "-m", "judge_tui", "report", "--help"], cwd=ROOT, capture_output=True,
                            text=True, timeout=300)
    assert "joined with +" in " ".join(helped.stdout.split())


def test_one_judge_makes_no_jury(tmp_path: Path, rubrics: dict[str, Rubric]) -> None:
    from judge_tui.analysis.full_report import build_full_report
    from judge_tui.analysis.jury import Jury
    from judge_tui.analysis.report_render.full import render_full

    with Store(tmp_path / "one.db") as store:
        binary_study(store, rubrics["binary"], n=20)
        store.conn.execute("DELETE FROM ratings WHERE rater_id IN (?, ?)", JUDGES[1:])
        full = build_full_report(store, rubrics["binary"])
    assert full.section(Jury) is None
    assert "jury" not in json.loads(render_full(full, "json"))


@pytest.mark.slow
def test_the_jury_leans_on_the_experts_raters_names(tmp_path: Path, rubrics: dict[str, Rubric]) -> None:
    """`--raters` names the human group for every section: the jury's reference is then that expert's labels
    alone, not the consensus of every expert."""
    from tests.team_fixtures import rate

    db = tmp_path / "jury.db"
    with Store(db) as store:
        labels = binary_study(store, rubrics["binary"])
        ids = [item.id for item in store.iter_items("binary")]
        rng = np.random.default_rng(3)
        cat = np.where(rng.random(len(ids)) < 0.7, labels["truth"], 1.0 - labels["truth"])
        rate(store, rubrics["binary"], "cat", "human", {i: {"label": float(c)} for i, c in zip(ids, cat, strict=True)})
    alone = _report(db, "--format", "json", "--raters", f"cat,{JUDGES[0]}")
    assert alone.returncode == 0, alone.stderr
    jury = json.loads(alone.stdout)["jury"]
    assert jury["reference"].endswith("consensus of 1 expert: cat")
    for judge in jury["judges"]:
        assert judge["dimensions"][0]["kappa"] == pytest.approx(cohen_kappa_score(cat, labels[judge["rater"]]))
    everyone = json.loads(_report(db, "--format", "json").stdout)["jury"]
    assert everyone["reference"].endswith("consensus of 3 experts: ann, bob, cat")
