"""Real judges' answers: an MT-Bench subset (tests/data/mtbench, from the authors of the alternative annotator
test) rated by three experts and six LLMs. The pairs are imported as pairwise items, the experts through
`import-ratings` and the LLMs as judges through `judge --backend replay`, every step the real CLI in a process of
its own; the report's figures must equal scikit-learn's and the krippendorff package's on the same labels."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from irrCAC.raw import CAC as RawCAC
from sklearn.metrics import accuracy_score, cohen_kappa_score

from judge_tui.cli.parser import main as cli

DATA = Path(__file__).parent.parent / "data" / "mtbench"
EXPERTS = ("author_0", "author_4", "expert_24")
JUDGES = ("gemini_flash", "gemini_pro", "gpt-4o", "gpt-4o-mini", "llama-31", "mistral-v03")
CATEGORIES = ("A", "B", "tie")

pytestmark = pytest.mark.slow


def run(*args: object) -> str:
    done = subprocess.run([sys.executable, "-m", "judge_tui", *map(str, args)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


def labels(path: Path, key: str) -> dict[str, str]:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return {row["item_id"]: (row["answer"][key] if "answer" in row else row[key]) for row in rows}


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The subset imported once; returns the database and each judge's rater id."""
    db = tmp_path_factory.mktemp("mtbench") / "mtbench.db"
    assert "48 added" in run("import", DATA / "items.jsonl", "--rubric", "pairwise", "--db", db)
    for expert in EXPERTS:
        run("import-ratings", DATA / f"expert.{expert}.jsonl", "--rater", expert, "--kind", "human", "--db", db)
    raters = {}
    for judge in JUDGES:
        said = run("judge", "--backend", "replay", "--replay", DATA / f"judge.{judge}.replay.jsonl",
                   "--model", judge, "--rubric", "pairwise", "--db", db)
        assert "48 done, 0 failed" in said, said
        raters[judge] = next(line.split()[-1] for line in said.splitlines() if line.startswith("rater: "))
    return db, raters


def report(db: Path, raters: str, out: Path) -> dict:
    assert cli(["report", "--db", str(db), "--rubric", "pairwise", "--raters", raters, "--format", "json",
                "-o", str(out)]) == 0
    return json.loads(out.read_text())


@pytest.mark.parametrize("judge", JUDGES)
def test_each_judge_against_each_expert_equals_scikit_learn(database, judge: str, tmp_path: Path) -> None:
    db, raters = database
    said = labels(DATA / f"judge.{judge}.replay.jsonl", "preference")
    for expert in EXPERTS:
        truth = labels(DATA / f"expert.{expert}.jsonl", "preference")
        both = sorted(truth)
        expected_accuracy = accuracy_score([truth[i] for i in both], [said[i] for i in both])
        expected_kappa = cohen_kappa_score([truth[i] for i in both], [said[i] for i in both], labels=CATEGORIES)
        figures = report(db, f"{expert},{raters[judge]}", tmp_path / f"{expert}.json")["dimensions"][0]
        assert figures["n"] == len(both)
        assert figures["accuracy"] == pytest.approx(expected_accuracy, abs=1e-12)
        assert figures["cohen_kappa"] == pytest.approx(expected_kappa, abs=1e-12)
        assert figures["confusion"]["labels"] == list(CATEGORIES)
        confusion = np.zeros((3, 3), dtype=int)
        for i in both:
            confusion[CATEGORIES.index(truth[i]), CATEGORIES.index(said[i])] += 1
        assert figures["confusion"]["counts"] == confusion.tolist()


def test_alpha_among_the_experts_equals_krippendorff(database, tmp_path: Path) -> None:
    db, raters = database
    items = [json.loads(line)["id"] for line in (DATA / "items.jsonl").read_text().splitlines()]
    matrix = np.full((len(EXPERTS), len(items)), np.nan)
    for row, expert in enumerate(EXPERTS):
        for item, label in labels(DATA / f"expert.{expert}.jsonl", "preference").items():
            matrix[row, items.index(item)] = CATEGORIES.index(label)
    expected = krippendorff.alpha(reliability_data=matrix, value_domain=[0, 1, 2], level_of_measurement="nominal")
    full = report(db, f"{'+'.join(EXPERTS)},{raters['gpt-4o']}", tmp_path / "team.json")
    humans = full["human_agreement"]
    assert humans["level"] == "nominal"
    assert humans["raters"] == list(EXPERTS)
    assert humans["dimensions"][0]["krippendorff_alpha"] == pytest.approx(expected, abs=1e-12)
    team = full["team"]["dimensions"][0]  # the team section: alpha, Fleiss' kappa and AC1, with intervals
    assert team["alpha_level"] == "nominal"
    assert team["alpha"] == pytest.approx(expected, abs=1e-12)
    raw = RawCAC(pd.DataFrame(matrix.T), digits=12, categories=[0.0, 1.0, 2.0])
    assert team["fleiss_kappa"] == pytest.approx(raw.fleiss()["est"]["coefficient_value"], abs=1e-9)
    assert team["ac1"] == pytest.approx(raw.gwet()["est"]["coefficient_value"], abs=1e-9)
    for name in ("alpha", "fleiss_kappa", "ac1"):
        interval = team["intervals"][name]
        assert interval["low"] < team[name] < interval["high"]


def test_the_experts_as_one_side_are_their_majority(database, tmp_path: Path) -> None:
    """Several experts on unordered categories are their most frequent category, pairs they split left out: the
    mean of A (first) and tie (last) would otherwise read as B."""
    db, raters = database
    votes: dict[str, list[str]] = {}
    for expert in EXPERTS:
        for item, label in labels(DATA / f"expert.{expert}.jsonl", "preference").items():
            votes.setdefault(item, []).append(label)
    majority = {}
    for item, said in votes.items():
        counts = sorted(((said.count(c), c) for c in set(said)), reverse=True)
        if len(counts) == 1 or counts[0][0] > counts[1][0]:
            majority[item] = counts[0][1]
    judged = labels(DATA / "judge.gpt-4o.replay.jsonl", "preference")
    both = sorted(majority)
    full = report(db, f"{'+'.join(EXPERTS)},{raters['gpt-4o']}", tmp_path / "group.json")
    figures = full["dimensions"][0]
    assert figures["n"] == len(both) < len(votes)
    assert figures["accuracy"] == pytest.approx(accuracy_score([majority[i] for i in both],
                                                               [judged[i] for i in both]), abs=1e-12)
    assert figures["cohen_kappa"] == pytest.approx(cohen_kappa_score([majority[i] for i in both],
                                                                     [judged[i] for i in both]), abs=1e-12)


def test_the_jury_of_the_six_judges_and_their_errors_together_equal_a_count_by_hand(database, tmp_path: Path) -> None:
    """The report's jury on real judges: its majority (a split vote left out and counted), its accuracy and
    kappa against the experts' majority (scikit-learn), and for each pair of judges how often both are wrong
    beside what independence would give, all counted here from the files."""
    db, raters = database
    votes: dict[str, list[str]] = {}
    for expert in EXPERTS:
        for item, label in labels(DATA / f"expert.{expert}.jsonl", "preference").items():
            votes.setdefault(item, []).append(label)

    def majority(said: list[str]) -> str | None:
        counts = sorted(((said.count(c), c) for c in set(said)), reverse=True)
        return counts[0][1] if len(counts) == 1 or counts[0][0] > counts[1][0] else None

    reference = {item: m for item, said in votes.items() if (m := majority(said)) is not None}
    said = {judge: labels(DATA / f"judge.{judge}.replay.jsonl", "preference") for judge in JUDGES}
    items = sorted(reference)
    jury = {item: majority([said[judge][item] for judge in JUDGES]) for item in items}
    decided = [item for item in items if jury[item] is not None]

    full = report(db, f"{'+'.join(EXPERTS)},{raters['gpt-4o']}", tmp_path / "jury.json")["jury"]
    assert sorted(full["members"]) == sorted(raters.values())
    assert full["items"] == len(items)
    assert full["ties"]["preference"] == len(items) - len(decided)
    [figures] = full["jury"]["dimensions"]
    truth, verdicts = [reference[i] for i in decided], [jury[i] for i in decided]
    assert figures["n"] == len(decided)
    assert figures["alignment"] == pytest.approx(accuracy_score(truth, verdicts), abs=1e-12)
    assert figures["kappa"] == pytest.approx(cohen_kappa_score(truth, verdicts), abs=1e-12)
    by_rater = {rater: judge for judge, rater in raters.items()}
    assert len(full["error_correlation"]) == len(JUDGES) * (len(JUDGES) - 1) // 2
    for pair in full["error_correlation"]:
        first, second = (np.array([said[by_rater[r]][i] != reference[i] for i in items]) for r in pair["judges"])
        assert pair["items"] == len(items)
        assert pair["first_errors"] == pytest.approx(first.mean(), abs=1e-12)
        assert pair["second_errors"] == pytest.approx(second.mean(), abs=1e-12)
        assert pair["both_wrong"] == pytest.approx((first & second).mean(), abs=1e-12)
        assert pair["independent"] == pytest.approx(first.mean() * second.mean(), abs=1e-12)
        assert pair["excess"] == pytest.approx((first & second).mean() - first.mean() * second.mean(), abs=1e-12)


def test_the_team_section_names_the_majority_as_the_consensus_of_nominal_categories(database) -> None:
    db, raters = database
    text = run("report", "--db", db, "--rubric", "pairwise", "--raters", f"{'+'.join(EXPERTS)},{raters['gpt-4o']}")
    team = text[text.index("Team: agreement among experts"):]
    assert "Consensus = adjudicated category, else the experts' majority category (ties left out)." in team
    assert "experts' mean" not in team
