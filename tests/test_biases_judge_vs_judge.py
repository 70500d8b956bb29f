"""`report --raters JUDGE_A,JUDGE_B`: two judges compared with each other. The human side names no expert, so the
judge's biases (leniency, length bias, weak groups) lean from every expert's consensus, for each judge named, and
the section says so in its heading, its text and its JSON (`reference_note`); with no expert in the database at
all the report says in one line why there are no biases instead of leaving the section out. Every step is the real
CLI in a process of its own on a real database file; the figures equal a hand computation and scipy's Spearman
rho."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.test_biases_raters import (
    ANN,
    BOB,
    DIMENSIONS,
    LENGTHS,
    RUBRIC,
    N,
    _run,
    expected_biases,
    found_biases,
)

JUDGE_A, JUDGE_B = "judge:a:essay@p1", "judge:b:essay@p1"
rng = np.random.default_rng(11)
# Judge A scores near Ann; judge B a step higher than Ann on many items, so the two lean differently.
A_SCORES = np.clip(ANN + rng.choice([-0.25, 0, 0, 0.25], size=(N, 2)), 0, 1)
B_SCORES = np.clip(ANN + rng.choice([0, 0.25, 0.25, 0.5], size=(N, 2)), 0, 1)


def _study(root: Path, raters: tuple[tuple[str, str, np.ndarray], ...]) -> tuple[Path, Path]:
    home, db = root / "home", root / "essay.db"
    (home / "rubrics").mkdir(parents=True)
    (home / "rubrics" / "essay.rubric.toml").write_text(RUBRIC, encoding="utf-8")
    items = root / "items.jsonl"
    items.write_text("".join(json.dumps({"id": f"e{n:02d}", "response": "w" * int(LENGTHS[n])}) + "\n"
                             for n in range(N)))
    _run(home, "import", items, "--rubric", "essay", "--db", db)
    for number, (rater, kind, scores) in enumerate(raters):
        rows = root / f"ratings-{number}.jsonl"
        rows.write_text("".join(json.dumps({"item_id": f"e{n:02d}", **dict(zip(DIMENSIONS, map(float, scores[n]),
                                                                              strict=True))}) + "\n"
                                for n in range(N)))
        _run(home, "import-ratings", rows, "--rater", rater, "--kind", kind, "--db", db)
    return home, db


@pytest.fixture(scope="module")
def study_dbs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return _study(tmp_path_factory.mktemp("judges"), (("ann", "human", ANN), ("bob", "human", BOB),
                                                      (JUDGE_A, "judge", A_SCORES), (JUDGE_B, "judge", B_SCORES)))


def _report(home: Path, db: Path, *args: str) -> str:
    return _run(home, "report", "--db", db, "--rubric", "essay", *args)


@pytest.mark.slow
def test_two_judges_compared_lean_from_every_expert_and_say_so(study_dbs: tuple[Path, Path]) -> None:
    home, db = study_dbs
    data = json.loads(_report(home, db, "--raters", f"{JUDGE_A},{JUDGE_B}", "--format", "json"))
    sections = {s["judge"]: s for s in data["judge_biases"]}
    assert list(sections) == [JUDGE_A, JUDGE_B]  # each judge named, the human side's first
    note = f"every expert, as --raters names none on the human side ({JUDGE_A})"
    for judge, scores in ((JUDGE_A, A_SCORES), (JUDGE_B, B_SCORES)):
        section = sections[judge]
        assert section["experts"] == ["ann", "bob"]
        assert "experts_left_out" not in section
        assert section["reference_note"] == note
        assert found_biases(section) == pytest.approx(expected_biases((ANN + BOB) / 2, scores), abs=1e-12)
    # Judge B's figures are those of the report that compares both experts with it, interval for interval.
    [named] = json.loads(_report(home, db, "--raters", f"ann+bob,{JUDGE_B}", "--format", "json"))["judge_biases"]
    assert {k: v for k, v in sections[JUDGE_B].items() if k != "reference_note"} == named
    assert sections[JUDGE_A]["leniency"] != sections[JUDGE_B]["leniency"]
    # The jury follows the same rule (team.names_no_expert): the two judges against every expert.
    assert data["jury"]["reference"] == "consensus of 2 experts: ann, bob"

    for fmt in ("text", "markdown"):
        out = " ".join(_report(home, db, "--raters", f"{JUDGE_A},{JUDGE_B}", "--format", fmt).split())
        for judge in (JUDGE_A, JUDGE_B):
            assert f"Judge biases: {judge} (against every expert)" in out, fmt
        assert f"Against the experts' consensus (ann, bob: {note}) on all items" in out, fmt


@pytest.mark.slow
def test_without_any_expert_the_report_says_why_there_are_no_biases(tmp_path: Path) -> None:
    home, db = _study(tmp_path, ((JUDGE_A, "judge", A_SCORES), (JUDGE_B, "judge", B_SCORES)))
    data = json.loads(_report(home, db, "--raters", f"{JUDGE_A},{JUDGE_B}", "--format", "json"))
    assert "judge_biases" not in data
    assert data["judge_biases_missing"].startswith("not measured: the biases lean from the experts' consensus, and "
                                                   "no expert rated the items compared")
    for fmt in ("text", "markdown"):
        out = " ".join(_report(home, db, "--raters", f"{JUDGE_A},{JUDGE_B}", "--format", fmt).split())
        assert ("Judge biases: not measured: the biases lean from the experts' consensus, and no expert rated the "
                "items compared") in out, fmt
