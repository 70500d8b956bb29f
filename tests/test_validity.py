"""The judge-validity page on a real database: three experts and a judge over 60 shared items, the judge alone
on 240 more. The alternative annotator test is checked against the authors' procedure written out with scipy and
statsmodels; the pool estimate against the same arrays read straight from the ratings."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from judge_tui.analysis.full_report import TheJudge, build_full_report
from judge_tui.analysis.report import Group, build_report
from judge_tui.analysis.report_render.validity import render_text
from judge_tui.analysis.scores import load
from judge_tui.analysis.validity import judge_validity
from judge_tui.cli import main
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats.agreement import Undefined
from judge_tui.stats.alt_test import ONE_EXPERT
from judge_tui.store import Store
from tests.narrowing import present
from tests.team_fixtures import binary_item, exercise_item, rate

DIMS = ("difficulty_match", "instruction_clarity", "learning_objective_alignment")
EXPERTS = ("ann", "bob", "cat")
JUDGE = "judge-v1"
SHARED, POOL = 60, 300


def _truth(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.choice([0.0, 0.5, 1.0], size=(n, len(DIMS)), p=[0.2, 0.3, 0.5])


def _noisy(rng: np.random.Generator, truth: np.ndarray, flip: float) -> np.ndarray:
    other = rng.choice([0.0, 0.5, 1.0], size=truth.shape)
    return np.where(rng.random(truth.shape) < flip, other, truth)


@pytest.fixture
def study_db(tmp_path: Path, rubrics) -> Path:
    rubric = rubrics["exercise-quality"]
    rng = np.random.default_rng(28)
    truth = _truth(rng, POOL)
    path = tmp_path / "study.db"
    with Store(path) as store:
        store.ensure_rubric_version(rubric)
        store.add_items([exercise_item(n) for n in range(1, POOL + 1)])
        for expert in EXPERTS:
            mine = _noisy(rng, truth[:SHARED], 0.3)
            rate(store, rubric, expert, "human",
                 {f"E{n + 1:02d}": dict(zip(DIMS, row, strict=True)) for n, row in enumerate(mine)})
        judged = _noisy(rng, truth, 0.25)
        rate(store, rubric, JUDGE, "judge",
             {f"E{n + 1:02d}": dict(zip(DIMS, row, strict=True)) for n, row in enumerate(judged)})
        with store.transaction() as conn:  # the page names the version's date: a fixed one for the snapshots
            conn.execute("UPDATE rubric_versions SET created_at = '2026-01-01T00:00:00.000+00:00'")
    return path


def _page(db: Path, rubrics, judge_only: bool = True):
    rubric = rubrics["exercise-quality"]
    with Store(db) as store:
        ratings = load(store, rubric)
        report = build_report(store, rubric, ratings=ratings, judge_only=judge_only)
        return judge_validity(store, report, ratings, AgreementSettings(), judge_only=judge_only), store


def _authors_procedure(experts: dict[str, dict[str, float]], judge: dict[str, float], epsilon: float
                       ) -> tuple[float, float]:
    """The procedure as the paper states it, on dictionaries: negative RMSE, ties to both, scipy's t-test,
    statsmodels' Benjamini-Yekutieli."""
    p_values, advantages = [], []
    for left_out, mine in experts.items():
        wins_judge, wins_expert = [], []
        for item, value in mine.items():
            rest = [other[item] for name, other in experts.items() if name != left_out and item in other]
            if not rest or item not in judge:
                continue
            expert_score = -np.sqrt(np.mean([(value - r) ** 2 for r in rest]))
            judge_score = -np.sqrt(np.mean([(judge[item] - r) ** 2 for r in rest]))
            wins_judge.append(judge_score >= expert_score)
            wins_expert.append(expert_score >= judge_score)
        differences = np.array(wins_expert, dtype=float) - np.array(wins_judge, dtype=float)
        p_values.append(stats.ttest_1samp(differences, epsilon, alternative="less").pvalue)
        advantages.append(float(np.mean(wins_judge)))
    rejected = multipletests(p_values, alpha=0.05, method="fdr_by")[0]
    return float(np.mean(rejected)), float(np.mean(advantages))


def test_winning_rate_and_advantage_equal_the_authors_procedure(study_db: Path, rubrics) -> None:
    page, _ = _page(study_db, rubrics)
    rubric = rubrics["exercise-quality"]
    [judge] = page.judges
    assert judge.judge == JUDGE
    assert judge.experts == EXPERTS
    with Store(study_db) as store:
        ratings = load(store, rubric)
        runs = {e: ratings.first_runs(e) for e in (*EXPERTS, JUDGE)}
    for column, row in enumerate(judge.replacement):
        assert row.key == ([*DIMS, "overall"])[column]
        index = -1 if row.key == "overall" else rubric.dimension_ids.index(row.key)
        as_dict = {r: {f"E{int(k):02d}": float(v) for k, v in zip(s.keys, s.column(index), strict=True)}
                   for r, s in runs.items()}
        judge_dict = as_dict.pop(JUDGE)
        rate_, advantage = _authors_procedure(as_dict, judge_dict, 0.2)
        assert row.test.winning_rate == pytest.approx(rate_, abs=1e-12), row.key
        assert row.test.advantage_probability == pytest.approx(advantage, abs=1e-12), row.key
        assert [c.items for c in row.test.compared] == [SHARED] * 3


def test_the_pool_estimate_corrects_the_judge_over_every_judged_item(study_db: Path, rubrics) -> None:
    page, _ = _page(study_db, rubrics)
    [judge] = page.judges
    assert [p.key for p in judge.pool] == [*DIMS, "overall"]
    for p in judge.pool:
        e = p.estimate
        assert not isinstance(e, type(None))
        assert e.labelled == SHARED
        assert e.unlabelled == POOL - SHARED
        assert e.interval.low < e.estimate < e.interval.high
    assert judge.pool_note is not None
    assert "not recorded" in judge.pool_note  # ratings saved without a draw
    assert any("may estimate the pool's" in u for u in judge.uses)


def test_the_summary_screens_page_leaves_out_the_pool(study_db: Path, rubrics) -> None:
    """Under the blind rule nothing computed on items no expert rated reaches a screen an expert can open."""
    page, _ = _page(study_db, rubrics, judge_only=False)
    assert page.judges[0].pool == ()
    assert "Pool estimate: in `judge-tui report`" in render_text(page)


def test_the_page_fits_80_by_24(study_db: Path, rubrics) -> None:
    page, _ = _page(study_db, rubrics)
    lines = render_text(page).splitlines()
    # The page ends where the comparison with the experts' own agreement begins (then what would settle the rest).
    end = next((n for n, line in enumerate(lines) if line.startswith(("  Compared with", "  To settle"))), len(lines))
    page_lines = lines[:end]
    assert len(page_lines) <= 24, "\n".join(page_lines)
    assert max(map(len, lines)) <= 80


def _binary_page(path: Path, rubric, experts: tuple[str, ...], items: int, seed: int):
    """The validity page of a PASS/FAIL study: these experts and the judge label every item, each 15% off."""
    rng = np.random.default_rng(seed)
    with Store(path) as store:
        store.ensure_rubric_version(rubric)
        store.add_items([binary_item(n) for n in range(1, items + 1)])
        truth = rng.random(items) < 0.7
        for rater, kind in (*((e, "human") for e in experts), (JUDGE, "judge")):
            labels = np.where(rng.random(items) < 0.15, ~truth, truth)
            rate(store, rubric, rater, kind, {f"P{n + 1:02d}": {"label": float(v)} for n, v in enumerate(labels)})
    with Store(path) as store:
        ratings = load(store, rubric)
        report = build_report(store, rubric, ratings=ratings)
        return judge_validity(store, report, ratings, AgreementSettings())


def test_too_little_overlap_says_what_to_do(tmp_path: Path, rubrics) -> None:
    """3 experts x 25 items is below the authors' 30 per expert: no verdict, and `judge-tui assign` to fix it."""
    page = _binary_page(tmp_path / "small.db", rubrics["binary"], EXPERTS, 25, seed=3)
    [judge] = page.judges
    assert all(r.test.passed is None for r in judge.replacement)
    text = render_text(page)
    assert "not tested: at most 25 shared items, needs 30" in text
    assert "judge-tui assign" in text
def test_one_expert_is_told_the_test_needs_a_second_one(tmp_path: Path, rubrics) -> None:
    """With one expert there is no one to compare the judge with: the page says a second expert is needed, not
    "at most 0 shared items" (which reads as if rating more items alone would do)."""
    page = _binary_page(tmp_path / "alone.db", rubrics["binary"], EXPERTS[:1], 40, seed=4)
    [judge] = page.judges
    assert all(r.test.passed is None for r in judge.replacement)
    assert all(r.test.winning_rate == Undefined(ONE_EXPERT) for r in judge.replacement)
    text = " ".join(render_text(page, width=200).split())
    assert "Replace an expert? not tested: needs two or more experts rating the same items (one has rated)" in text
    assert "not tested, one expert only" in text
    assert "shared items" not in text


def test_report_json_carries_the_page_and_text_opens_with_it(study_db: Path, capsys) -> None:
    assert main(["report", "--db", str(study_db), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    page = data["judge_validity"]
    assert page["epsilon"] == 0.2
    assert page["judges"][0]["judge"] == JUDGE
    assert {r["key"] for r in page["judges"][0]["alt_test"]} == {*DIMS, "overall"}
    assert "summary" in data
    assert "dimensions" in data  # every key the report had stays
    assert main(["report", "--db", str(study_db)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("What the judge may be used for: judge judge-v1")


def test_full_report_builds_the_page_once(study_db: Path, rubrics) -> None:
    with Store(study_db) as store:
        full = build_full_report(store, rubrics["exercise-quality"])
    the_judge = present(full.section(TheJudge))
    assert present(the_judge.validity).judges[0].judge == JUDGE


@pytest.mark.slow
def test_the_first_screen_of_report_at_80_by_24_is_the_validity_page(study_db: Path) -> None:
    """`judge-tui report` on a real 80-column terminal: its first 24 lines are the page, whole."""
    from tests.test_report_width import _on_a_terminal

    shown = _on_a_terminal(["report", "--db", str(study_db)], 80).splitlines()
    first = shown[:24]
    assert first[0].startswith("What the judge may be used for: judge judge-v1")
    assert any(line.startswith("  Target ") for line in first)
    assert any(line.startswith("  Replace an expert?") for line in first)
    assert any(line.startswith("  mean overall score") for line in first)
    assert all(len(line) <= 80 for line in shown)


@pytest.mark.slow
def test_report_with_columns_80_keeps_the_page_within_80(study_db: Path) -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "COLUMNS": "80"}
    done = subprocess.run([sys.executable, "-m", "judge_tui", "report", "--db", str(study_db)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    end = next(n for n, line in enumerate(lines) if line.startswith(("  Compared with", "  To settle")))
    assert end <= 24
    assert lines[0].startswith("What the judge may be used for")
    assert max(len(line) for line in lines[:end]) <= 80


@pytest.mark.slow
def test_the_report_has_a_block_for_every_judge_the_judge_of_the_comparison_first(study_db: Path, rubrics) -> None:
    """A second judge (an older prompt, on the shared items and 40 more): its own block after the first, against
    the same experts, each named with its rubric version; one version only, so no line about versions."""
    import subprocess
    import sys

    rubric = rubrics["exercise-quality"]
    rng = np.random.default_rng(3)
    with Store(study_db) as store:
        rate(store, rubric, "judge-v0", "judge",
             {f"E{n + 1:02d}": dict(zip(DIMS, row, strict=True))
              for n, row in enumerate(_noisy(rng, _truth(rng, SHARED + 40), 0.5))})
    done = subprocess.run([sys.executable, "-m", "judge_tui", "report", "--db", str(study_db), "--format", "json"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    judges = json.loads(done.stdout)["judge_validity"]["judges"]
    assert [j["judge"] for j in judges] == [JUDGE, "judge-v0"]
    assert judges[1]["experts"] == list(EXPERTS)
    assert [p["labelled"] for p in judges[1]["pool"]] == [SHARED] * 4
    assert [p["unlabelled"] for p in judges[1]["pool"]] == [40] * 4
    with Store(study_db) as store:
        ratings = load(store, rubric)
        alone = build_report(store, rubric, judge=Group("judge", ("judge-v0",)), ratings=ratings)
        expected = judge_validity(store, alone, ratings, AgreementSettings())
    assert [r["winning_rate"] for r in judges[1]["alt_test"]] == [r.test.winning_rate for r in expected.judges[0]
                                                                  .replacement]
    text = subprocess.run([sys.executable, "-m", "judge_tui", "report", "--db", str(study_db)],
                          capture_output=True, text=True, timeout=300, env={**__import__("os").environ,
                                                                             "COLUMNS": "80"}).stdout
    assert text.startswith("What the judge may be used for: judge judge-v1")
    assert text.index("judge judge-v0") > text.index("judge judge-v1")
    assert "(exercise-quality #1, 2026-01-01)" in text.splitlines()[0]
    assert "judge judge-v0 (exercise-quality #1, 2026-01-01)" in text
    assert "rubric version alone" not in text


def test_the_page_offers_a_pool_figure_only_where_the_judge_narrows_it() -> None:
    """A judge that passes every item adds nothing to the experts' pass rate: the page says to use the experts
    alone for it, and offers the figure a judge that tracks the experts narrows."""
    from judge_tui.analysis.validity import PoolFigure, _pool_uses, offers_pool
    from judge_tui.stats.prediction_powered import verdict_stratified_rate

    labels = np.array([1.0] * 20 + [0.0] * 10)
    tracks = verdict_stratified_rate(labels, labels, np.array([1.0] * 200 + [0.0] * 100))
    passes_all = verdict_stratified_rate(labels, np.ones(30), np.ones(300))
    assert offers_pool(tracks)
    assert not offers_pool(passes_all)
    said = _pool_uses([PoolFigure("a", "clarity", tracks), PoolFigure("pass_rate", "pass rate", passes_all)])
    assert said == ["may estimate the pool's clarity, corrected by the experts",
                    "for the pool's pass rate, use the experts alone: the judge's ratings do not narrow the interval"]
    assert _pool_uses([PoolFigure("pass_rate", "pass rate", tracks)]) == [
        "may estimate the pool's pass rate, corrected by the experts' ratings"]


def _intervals(node, path: str = ""):
    """Every {low, high} in a JSON tree, with where it is."""
    if isinstance(node, dict):
        if "low" in node and "high" in node:
            yield path, node
        for key, value in node.items():
            yield from _intervals(value, f"{path}.{key}")
    elif isinstance(node, list):
        for n, value in enumerate(node):
            yield from _intervals(value, f"{path}[{n}]")


@pytest.mark.parametrize("rubric_id", ["binary", "exercise-quality"])
def test_no_pool_figure_leaves_its_scale_with_three_rated_items(tmp_path: Path, rubrics, capsys, rubric_id: str
                                                                ) -> None:
    """Three rated items: the t interval with one degree of freedom ran to "0.86 [-1.75, 3.48]". Every pool
    estimate and interval of the JSON report, and the text, stay within the scale's 0-1."""
    rubric = rubrics[rubric_id]
    rng = np.random.default_rng(9)
    path = tmp_path / "few.db"
    make = binary_item if rubric_id == "binary" else exercise_item
    ids = [make(n).id for n in range(1, 31)]
    with Store(path) as store:
        store.ensure_rubric_version(rubric)
        store.add_items([make(n) for n in range(1, 31)])
        points = (0.0, 1.0) if rubric_id == "binary" else (0.0, 0.5, 1.0)
        for rater, kind, items in (("ann", "human", ids[:3]), (JUDGE, "judge", ids)):
            rate(store, rubric, rater, kind,
                 {i: {d: float(rng.choice(points)) for d in rubric.dimension_ids if d in (*DIMS, "label")}
                  for i in items})
    assert main(["report", "--db", str(path), "--rubric", rubric_id, "--format", "json"]) == 0
    pool = [p for block in json.loads(capsys.readouterr().out)["judge_validity"]["judges"] for p in block["pool"]]
    assert pool
    assert all(p["estimate"] is not None for p in pool)
    for p in pool:
        assert 0.0 <= p["estimate"] <= 1.0
        assert 0.0 <= p["experts_only"] <= 1.0
        for where, interval in _intervals(p):
            assert 0.0 <= interval["low"] <= interval["high"] <= 1.0, (p["key"], where, interval)
        assert p["interval"]["low"] <= p["estimate"] <= p["interval"]["high"]
    assert main(["report", "--db", str(path), "--rubric", rubric_id]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith("  Pool ("))
    rows = lines[start + 1 : start + 1 + len(pool)]
    numbers = [float(x) for row in rows for x in re.findall(r"-?\d+\.\d+", row)]
    assert len(numbers) >= 4 * len(pool), rows
    assert all(0.0 <= x <= 1.0 for x in numbers), rows


def test_a_pool_row_made_otherwise_than_the_heading_says_names_its_method() -> None:
    """A PASS/FAIL rubric of several dimensions: each dimension's pass rate split by verdict, the overall score
    (their weighted mean, not a verdict) by PPI++; the row says so, in text and Markdown."""
    from judge_tui.analysis.report_render.validity import render_markdown
    from judge_tui.analysis.validity import JudgeValidity, PoolFigure, ValidityPage
    from judge_tui.stats.prediction_powered import prediction_powered_mean, verdict_stratified_rate

    labels = np.array([1.0] * 20 + [0.0] * 10)
    judged = np.array([1.0] * 200 + [0.0] * 100)
    pool = (PoolFigure("a", "clarity", verdict_stratified_rate(labels, labels, judged)),
            PoolFigure("pass_rate", "pass rate", prediction_powered_mean(labels * 0.5, labels * 0.5, judged * 0.5)))
    block = JudgeValidity("j", None, ("ann",), (), (), pool, None, (), ())
    page = ValidityPage("binary", AgreementSettings(alt_test_epsilon=0.2, confidence=0.95), 0.05, (block,), True)
    text = render_text(page)
    assert "Pool (by verdict, 30 rated + 300 judge only)" in text
    assert "\n  clarity " in text
    assert "\n  pass rate (PPI++) " in text
    assert "| Pool figure (by verdict) |" in render_markdown(page)
    assert "| pass rate (PPI++) |" in render_markdown(page)
