"""The judge-validity page per judge and rubric version, on a study built with the real CLI: items imported,
three experts and two judges under rubric version #1, a rubric change (`rubric-change --file`), then the experts
again on fewer items and the judges again under #2, where judge-x is much worse. Each block must equal the
alternative annotator test and the pool estimate computed from that version's ratings alone, read from the
files that were imported (not from the database)."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from textual.app import App
from textual.widgets import Static

from judge_tui.analysis.report import build_report
from judge_tui.analysis.scores import load
from judge_tui.analysis.validity import validity_by_version
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats.alt_test import alternative_annotator_test
from judge_tui.stats.prediction_powered import verdict_stratified_rate
from judge_tui.store import Store
from judge_tui.store.rubric_choice import resolve_rubric
from judge_tui.tui.screens.summary import SummaryScreen
from tests.narrowing import present
from tests.team_fixtures import exercise_item, rate

ROOT = Path(__file__).resolve().parents[1]
EXPERTS = ("ann", "bob", "cat")
POOL = 200
RATED = {1: 60, 2: 40}  # items the experts rated under each rubric version (the first ones of the pool)
FLIP = {"judge-x": {1: 0.08, 2: 0.35}, "judge-y": {1: 0.1, 2: 0.1}}
JUDGED = {"judge-x": {1: POOL, 2: POOL}, "judge-y": {1: 8, 2: POOL}}  # judge-y tried #1 on 8 items only


@dataclass
class Study:
    db: Path
    home: Path
    labels: dict[tuple[str, int], np.ndarray]  # (rater, version number) -> PASS (1.0) / FAIL (0.0), item by item


def _cli(home: Path, *args: object) -> str:
    done = subprocess.run([sys.executable, "-m", "judge_tui", *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, "JUDGE_TUI_HOME": str(home), "COLUMNS": "80"}, timeout=300, cwd=ROOT)
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def versioned_study(tmp_path_factory: pytest.TempPathFactory) -> Study:
    home = tmp_path_factory.mktemp("versions")
    db = home / "study.db"
    rng = np.random.default_rng(2028)
    truth = rng.random(POOL) < 0.65
    items = [{"id": f"P{n:03d}", "query": f"q {n}", "criterion": "vegan", "response": f"r {n}"}
             for n in range(1, POOL + 1)]
    _cli(home, "import", _jsonl(home / "items.jsonl", items), "--rubric", "binary", "--db", db)
    labels: dict[tuple[str, int], np.ndarray] = {}

    def rate(rater: str, kind: str, version: int, n: int, flip: float) -> None:
        values = np.where(rng.random(n) < flip, ~truth[:n], truth[:n]).astype(float)
        labels[(rater, version)] = values
        rows = [{"item_id": f"P{i + 1:03d}", "scores": {"label": v}} for i, v in enumerate(values.tolist())]
        _cli(home, "import-ratings", _jsonl(home / f"{rater}-{version}.jsonl", rows), "--rater", rater, "--kind",
             kind, "--db", db)

    for version in (1, 2):
        if version == 2:  # a rubric change recorded with its reason: every command now works under #2
            changed = home / "binary.rubric.toml"
            changed.write_text((ROOT / "prompts" / "binary.rubric.toml").read_text(encoding="utf-8")
                               .replace('version = "1"', 'version = "2"')
                               .replace("If you are unsure, choose FAIL", "If unsure, choose FAIL"), encoding="utf-8")
            _cli(home, "rubric-change", "binary", "--file", changed, "--reason", "shorter", "--items", "P001",
                 "--db", db)
        for expert in EXPERTS:
            rate(expert, "human", version, RATED[version], 0.1)
        for judge, flips in FLIP.items():
            rate(judge, "judge", version, JUDGED[judge][version], flips[version])
    return Study(db, home, labels)


def _report(versioned_study: Study, *args: str) -> str:
    return _cli(versioned_study.home, "report", "--db", versioned_study.db, "--raters", "ann+bob+cat,judge-x", *args)


def _expected(versioned_study: Study, judge: str, version: int) -> tuple[Any, Any, float]:
    """The alternative annotator test, the pool's pass rate and κ from the version's imported labels alone."""
    n = RATED[version]
    experts = np.vstack([versioned_study.labels[(e, version)] for e in EXPERTS])
    judged = versioned_study.labels[(judge, version)]
    test = alternative_annotator_test(experts, judged[:n], EXPERTS, scoring="accuracy", epsilon=0.2, q=0.05)
    pool = verdict_stratified_rate(experts.mean(axis=0), judged[:n], judged[n:], confidence=0.95)
    majority = (experts.mean(axis=0) > 0.5).astype(int)
    return test, pool, float(cohen_kappa_score(majority, judged[:n].astype(int)))


@pytest.mark.slow  # the study is built with the real CLI, a dozen subprocesses
def test_each_block_equals_the_figures_of_its_versions_ratings_alone(versioned_study: Study) -> None:
    page = json.loads(_report(versioned_study, "--format", "json"))["judge_validity"]
    blocks = {(b["judge"], b["rubric_version"]): b for b in page["judges"]}
    # The judge of the comparison first, newest version first, then the other judge; judge-y's #1 (8 items,
    # below the test's 30 per expert) is one line, not a block.
    assert [(b["judge"], b["rubric_version"]) for b in page["judges"]] == [("judge-x", 2), ("judge-x", 1),
                                                                          ("judge-y", 2)]
    assert [b["newest_version"] for b in page["judges"]] == [True, False, True]
    for (judge, version), block in blocks.items():
        test, pool, kappa = _expected(versioned_study, judge, version)
        [alt] = block["alt_test"]
        assert alt["winning_rate"] == pytest.approx(test.winning_rate, abs=1e-12), (judge, version)
        assert alt["advantage_probability"] == pytest.approx(test.advantage_probability, abs=1e-12)
        assert [e["p_value"] for e in alt["experts"]] == pytest.approx([c.p_value for c in test.compared],
                                                                      abs=1e-12)
        assert [e["items"] for e in alt["experts"]] == [RATED[version]] * 3
        [rate] = block["pool"]
        assert rate["key"] == "pass_rate"
        assert rate["labelled"] == RATED[version]
        assert rate["unlabelled"] == POOL - RATED[version]
        assert rate["estimate"] == pytest.approx(pool.estimate, abs=1e-12)
        assert rate["standard_error"] == pytest.approx(pool.standard_error, abs=1e-12)
        assert (rate["interval"]["low"], rate["interval"]["high"]) == pytest.approx(
            (pool.interval.low, pool.interval.high), abs=1e-12)
        targets = {t["key"]: t for t in block["targets"]}
        assert targets["kappa:label"]["estimate"] == pytest.approx(kappa, abs=1e-12)
        assert targets["kappa:label"]["n"] == RATED[version]
        assert block["rubric_version_label"] == str(version)
    # The versions differ, so the blocks do: the same judge passes under #1 and fails under #2.
    assert blocks[("judge-x", 1)]["alt_test"][0]["passed"] is True
    assert blocks[("judge-x", 2)]["alt_test"][0]["passed"] is False
    [line] = page["too_few_ratings"]
    assert (line["judge"], line["rubric_version"], line["judged"], line["compared"]) == ("judge-y", 1, 8, 8)
    assert line["reason"].startswith("too few to test replacing an expert (8 per expert, needs 30)")


@pytest.mark.slow  # the study is built with the real CLI, a dozen subprocesses
def test_the_report_keys_before_the_page_still_describe_the_current_ratings(versioned_study: Study) -> None:
    """The top-level keys stay the comparison of each rater's current rating (the newest version they rated each
    item in): 60 items here, the experts' #2 ratings on 40 and their #1 ratings on 20 more; `judges[0]` of the
    page is judge-x under #2 alone, on 40."""
    data = json.loads(_report(versioned_study, "--format", "json"))
    assert data["counts"]["compared"] == 60
    assert data["judge_validity"]["judges"][0]["targets"][0]["n"] == 40


@pytest.mark.slow  # the study is built with the real CLI, a dozen subprocesses
def test_the_text_report_names_each_blocks_version(versioned_study: Study) -> None:
    text = _report(versioned_study)
    lines = text.splitlines()
    with Store(versioned_study.db) as store:
        made = {v["number"]: v["created_at"][:10] for v in store.rubric_versions("binary")}
    assert lines[0] == f"What the judge may be used for: judge judge-x (binary #2, {made[2]})"
    first = text.index(f"judge judge-x (binary #2, {made[2]})")
    second = text.index(f"judge judge-x (binary #1, {made[1]})")
    third = text.index(f"judge judge-y (binary #2, {made[2]})")
    line = text.index(f"Judge judge-y (binary #1, {made[1]}): 8 of its 8 items rated by the experts")
    assert first < second < third < line < text.index("Agreement:")
    assert "Each block from the ratings made under its rubric version alone" in text
    assert max(len(line) for line in lines[: lines.index("Agreement: Binary criterion (PASS/FAIL) (binary, scale "
                                                         "pass_fail)")]) <= 80
    markdown = _report(versioned_study, "--format", "markdown")
    assert markdown.startswith(f"# What the judge may be used for: judge judge-x (binary #2, {made[2]})")
    assert f"- Judge judge-y (binary #1, {made[1]}): 8 of its 8 items" in markdown


class Host(App[None]):
    def __init__(self, store: Store, reviewer: str, lead: bool) -> None:
        super().__init__()
        self.store, self.reviewer, self.lead = store, reviewer, lead

    def on_mount(self) -> None:
        self.push_screen(SummaryScreen(self.store, resolve_rubric("binary", self.store), self.reviewer,
                                       agreement=AgreementSettings(), lead=self.lead))


async def _summary(versioned_study: Study, reviewer: str, lead: bool) -> list[str]:
    with Store(versioned_study.db) as store:
        app = Host(store, reviewer, lead)
        async with app.run_test(size=(80, 24)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            return [str(w.render()) for w in app.screen.query("#summary-body Static").results(Static)]


@pytest.mark.slow  # the study is built with the real CLI, a dozen subprocesses
async def test_the_leads_summary_has_a_block_per_version_without_the_pool(versioned_study: Study) -> None:
    [text, *_] = await _summary(versioned_study, "lead", lead=True)
    assert text.startswith("What the judge may be used for: judge judge-y")
    assert text.index("judge judge-y (binary #2,") < text.index("Judge judge-y (binary #1,")
    assert "PPI++" not in text
    assert "Pool estimate: in `judge-tui report`" in text
    assert max(len(line) for line in text.splitlines()) <= 76


@pytest.mark.slow  # the study is built with the real CLI, a dozen subprocesses
async def test_an_experts_summary_still_has_no_page(versioned_study: Study) -> None:
    text = "\n".join(await _summary(versioned_study, "ann", lead=False))
    assert text
    assert "What the judge may be used for" not in text
    assert "binary #1" not in text


DIMS_V1 = ("difficulty_match", "instruction_clarity", "learning_objective_alignment")


def test_an_earlier_version_is_read_under_its_own_dimensions(tmp_path: Path, rubrics) -> None:
    """#2 renamed a dimension (instruction_clarity -> clarity): #1's block reads #1's scores under #1's
    dimensions, so its figures are those of #1's ratings, not "not tested" for a dimension #1 never had."""
    first = rubrics["exercise-quality"]
    renamed = [dataclasses.replace(d, id="clarity") if d.id == "instruction_clarity" else d for d in first.dimensions]
    second = dataclasses.replace(first, dimensions=renamed)
    rng = np.random.default_rng(5)
    truth = rng.choice([0.0, 0.5, 1.0], size=(60, 3))
    sheets: dict[tuple[str, int], np.ndarray] = {}
    with Store(tmp_path / "renamed.db") as store:
        store.add_items([exercise_item(n) for n in range(1, 61)])
        for rubric, n, number in ((first, 60, 1), (second, 40, 2)):
            dims = [d.id for d in rubric.dimensions if d.method == "judged"]
            for rater, kind, flip in (("ann", "human", 0.2), ("bob", "human", 0.2), ("cat", "human", 0.2),
                                      ("judge-z", "judge", 0.2 if number == 1 else 0.6)):
                scores = np.where(rng.random((n, 3)) < flip, rng.choice([0.0, 0.5, 1.0], size=(n, 3)), truth[:n])
                sheets[(rater, number)] = scores
                rate(store, rubric, rater, kind,
                     {f"E{i + 1:02d}": dict(zip(dims, row, strict=True)) for i, row in enumerate(scores.tolist())})
        in_force = resolve_rubric("exercise-quality", store)
        assert "clarity" in in_force.dimension_ids
        ratings = load(store, in_force)
        page = validity_by_version(store, build_report(store, in_force, ratings=ratings), ratings,
                                   AgreementSettings())
    by_number = {present(b.rubric_version): b for b in page.judges}
    assert sorted(by_number) == [1, 2]
    assert [r.key for r in by_number[1].replacement] == [*DIMS_V1, "overall"]
    assert [r.key for r in by_number[2].replacement] == ["difficulty_match", "clarity",
                                                         "learning_objective_alignment", "overall"]
    for number, block in by_number.items():
        for column, row in enumerate(block.replacement[:3]):
            experts = np.vstack([sheets[(e, number)][:, column] for e in ("ann", "bob", "cat")])
            expected = alternative_annotator_test(experts, sheets[("judge-z", number)][:, column],
                                                  ("ann", "bob", "cat"), scoring="neg_rmse", epsilon=0.2, q=0.05)
            assert row.test.winning_rate == expected.winning_rate, (number, row.key)
            assert row.test.advantage_probability == pytest.approx(expected.advantage_probability, abs=1e-12)
