"""What nominal categories cannot have is refused where the user asks for it, through the real CLI: a weighted
mean over nominal dimensions (when the rubric is loaded), and a weighted kappa or Pearson r target (when the
study is planned); each error says what is wrong, where, and what to do."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

TWO_NOMINAL_DIMENSIONS = """
id = "tone"
name = "Tone"
version = "1"
description = "The tone and register of a reply."
{overall}

[scale]
kind = "categories"
order = "{order}"
categories = ["warm", "neutral", "curt"]

[[fields]]
name = "reply"
label = "Reply"

[[dimensions]]
id = "tone"
name = "Tone"
measures = "The reply's tone."

[[dimensions]]
id = "register"
name = "Register"
measures = "How formal the reply is."
"""


def judge_tui(home: Path, *args: object) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "JUDGE_TUI_DB"}
    return subprocess.run([sys.executable, "-m", "judge_tui", *map(str, args)], capture_output=True, text=True,
                          timeout=120, env={**env, "JUDGE_TUI_HOME": str(home)}, stdin=subprocess.DEVNULL)


def rubric_file(tmp_path: Path, order: str, overall: str = "") -> Path:
    path = tmp_path / "tone.rubric.toml"
    path.write_text(TWO_NOMINAL_DIMENSIONS.format(order=order, overall=overall), encoding="utf-8")
    return path


@pytest.mark.parametrize("overall", ["", 'overall = "weighted_mean"'])
def test_a_weighted_mean_over_nominal_dimensions_is_refused_when_the_rubric_is_loaded(tmp_path: Path,
                                                                                      overall: str) -> None:
    path = rubric_file(tmp_path, "nominal", overall)
    items = tmp_path / "replies.jsonl"
    items.write_text(json.dumps({"id": "r1", "reply": "Fine."}) + "\n", encoding="utf-8")
    for args in (("rubrics", "--rubric", path), ("import", items, "--rubric", path, "--db", tmp_path / "t.db")):
        done = judge_tui(tmp_path / "home", *args)
        assert done.returncode == 1
        assert "Traceback" not in done.stderr
        said = " ".join(done.stderr.split())
        assert f"{path}: invalid rubric" in said  # which file
        assert 'overall = "weighted_mean"' in said
        assert 'scale.order = "nominal"' in said  # where in it, and why
        assert 'declare scale.order = "ordered"' in said
        assert "a rubric of its own" in said  # what to do
    assert not (tmp_path / "t.db").exists()  # refused before anything was written


def test_the_same_rubric_with_ordered_categories_loads(tmp_path: Path) -> None:
    done = judge_tui(tmp_path / "home", "rubrics", "--rubric", rubric_file(tmp_path, "ordered"))
    assert done.returncode == 0, done.stderr


def test_one_nominal_dimension_is_told_to_use_its_label(tmp_path: Path) -> None:
    path = tmp_path / "one.rubric.toml"
    text = TWO_NOMINAL_DIMENSIONS.format(order="nominal", overall="")
    path.write_text(text[: text.index("[[dimensions]]\nid = \"register\"")], encoding="utf-8")
    done = judge_tui(tmp_path / "home", "rubrics", "--rubric", path)
    assert done.returncode == 1
    assert 'Write overall = "label"' in " ".join(done.stderr.split())


@pytest.mark.parametrize(("options", "named"), [
    (("--weighted-kappa", "0.7"), "--weighted-kappa"),
    (("--pearson", "0.8"), "--pearson"),
    (("--kappa", "0.7", "--weighted-kappa", "0.7", "--pearson", "0.8"), "--weighted-kappa and --pearson"),
])
def test_plan_refuses_a_target_that_needs_an_order_on_a_nominal_rubric(tmp_path: Path, options: tuple[str, ...],
                                                                      named: str) -> None:
    done = judge_tui(tmp_path / "home", "plan", "--rubric", "pairwise", *options)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stdout == ""
    said = " ".join(done.stderr.split())
    assert said.startswith(f"judge-tui: {named}: rubric 'pairwise' has nominal categories (A, B, tie)")
    assert "plan --kappa (Cohen's) or --alignment" in said


def test_plan_on_a_nominal_rubric_plans_kappa_over_its_categories(tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = judge_tui(home, "plan", "--rubric", "pairwise", "--kappa", "0.7", "--format", "json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["expected"]["levels"] == 3  # the rubric's three categories, not the default five
    same = json.loads(judge_tui(home, "plan", "--kappa", "0.7", "--levels", "3", "--format", "json").stdout)
    assert found["targets"] == same["targets"]
    # An ordered rubric keeps every target
    assert judge_tui(home, "plan", "--rubric", "cis", "--pearson", "0.8").returncode == 0


def test_plan_names_an_unknown_rubric(tmp_path: Path) -> None:
    done = judge_tui(tmp_path / "home", "plan", "--rubric", "nope", "--kappa", "0.7")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "unknown rubric 'nope'" in done.stderr
