"""On nominal categories two scores align only when they are the same category, in every figure: a version
comparison, an expert's self-agreement, the design-weighted figures, the judge screen's misaligned items, the
review template. The nine-category topic rubric stores neighbours 0.125 apart, inside the
default ±0.15, so a figure that measured the distance between positions would count maths against physics as
agreement. Each test runs on the ordered twin of the rubric too, where the same neighbours do align, so that
it can tell the two rules apart."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from judge_tui.analysis.compare import compare_versions
from judge_tui.analysis.design import weighted_figures
from judge_tui.analysis.drift import self_agreement
from judge_tui.analysis.scores import load, pair
from judge_tui.model.records import Item
from judge_tui.model.rubrics import Rubric, load_rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.store import Store
from judge_tui.tui.screens.calibrate_figures import standing
from tests.categories.topic_study import ok, write_topic_rubric
from tests.team_fixtures import rate

ITEMS = ("q0", "q1", "q2", "q3", "q4", "q5")
EXPERTS = {"q0": "maths", "q1": "physics", "q2": "art", "q3": "sport", "q4": "music", "q5": "history"}
# Three neighbours of the experts' category (0.125 away) and three the same.
NEIGHBOURS = {"q0": "maths", "q1": "chemistry", "q2": "art", "q3": "art", "q4": "music", "q5": "geography"}
V1, V2 = "judge:m:topic@aaaa1111", "judge:m:topic@bbbb2222"


def topic(tmp_path: Path, order: str) -> tuple[Path, Rubric]:
    home = tmp_path / "home"
    write_topic_rubric(home, order)
    return home, load_rubric(home / "rubrics" / "topic.rubric.toml")


def scores(rubric: Rubric, said: dict[str, str]) -> dict[str, dict[str, float]]:
    return {item: {"topic": rubric.scale.parse(name)} for item, name in said.items()}


def study(tmp_path: Path, order: str) -> tuple[Path, Path, Rubric]:
    """Two experts who agree, a judge under prompt aaaa1111 a neighbour off on three items, one under prompt
    bbbb2222 exact; ann re-rated every item, a neighbour off on three. Every item in the dev split."""
    home, rubric = topic(tmp_path, order)
    db = tmp_path / "topic.db"
    with Store(db) as store:
        store.add_items([Item(id=i, rubric="topic", split="dev", fields={"question": f"What is {i} about?"})
                         for i in ITEMS])
        rate(store, rubric, "ann", "human", scores(rubric, EXPERTS))
        rate(store, rubric, "bob", "human", scores(rubric, EXPERTS))
        rate(store, rubric, "ann", "human", scores(rubric, NEIGHBOURS), repeat=1)
        rate(store, rubric, V1, "judge", scores(rubric, NEIGHBOURS), prompt_version="aaaa1111")
        rate(store, rubric, V2, "judge", scores(rubric, EXPERTS), prompt_version="bbbb2222")
    return home, db, rubric


ALIGNED = {"nominal": 3 / 6, "ordered": 6 / 6}  # the neighbours: another category, or within ±0.15


@pytest.mark.parametrize("order", ["nominal", "ordered"])
def test_a_version_comparison_counts_only_the_same_category_as_aligned(tmp_path: Path, order: str) -> None:
    _home, db, rubric = study(tmp_path, order)
    with Store(db) as store:
        comparison = compare_versions(store, rubric, "aaaa", "bbbb")
    [dimension] = comparison.dimensions
    assert dimension.alignment == pytest.approx((ALIGNED[order], 1.0))
    assert comparison.alignment == pytest.approx((ALIGNED[order], 1.0))  # pooled over the judged dimensions
    if order == "nominal":  # three misses of six: the change has to be there to see
        assert comparison.alignment_change.value == pytest.approx(0.5)


@pytest.mark.parametrize("order", ["nominal", "ordered"])
def test_an_experts_self_agreement_counts_only_the_same_category_as_aligned(tmp_path: Path, order: str) -> None:
    _home, db, rubric = study(tmp_path, order)
    with Store(db) as store:
        [ann] = self_agreement(store, rubric)
    assert ann.rater_id == "ann"
    assert ann.pairs == 6
    assert ann.alignment == pytest.approx(ALIGNED[order])
    assert ann.by_dimension["topic"].alignment_rate == pytest.approx(ALIGNED[order])


@pytest.mark.parametrize("order", ["nominal", "ordered"])
def test_the_design_weighted_alignment_counts_only_the_same_category(tmp_path: Path, order: str) -> None:
    _home, db, rubric = study(tmp_path, order)
    with Store(db) as store:
        ratings = load(store, rubric)
        pairing = pair(ratings.first_runs("ann"), ratings.first_runs(V1))
    n = int(pairing.keys.size)
    found = {f.key: f.estimate for f in weighted_figures(rubric, pairing, np.zeros(n, dtype=int), np.ones(n),
                                                        {"0": n}, AgreementSettings())}
    assert found["alignment_rate"] == pytest.approx(ALIGNED[order])


@pytest.mark.parametrize("order", ["nominal", "ordered"])
def test_the_judge_screen_lists_a_neighbouring_category_as_misaligned_by_one_whole_gap(tmp_path: Path,
                                                                                       order: str) -> None:
    _home, db, rubric = study(tmp_path, order)
    with Store(db) as store:
        found = standing(store, rubric, prompt_version="aaaa1111", previous=None, split="dev")
    if order == "ordered":
        assert found.misaligned == ()
        return
    assert {(m.item_id, m.gap, m.differing) for m in found.misaligned} == {("q1", 1.0, 1), ("q3", 1.0, 1),
                                                                           ("q5", 1.0, 1)}
    assert "alignment in the same category" in found.figures[0]
    assert "±" not in found.figures[0]


@pytest.mark.slow
@pytest.mark.parametrize("order", ["nominal", "ordered"])
def test_the_review_template_says_same_category_and_counts_it(tmp_path: Path, order: str) -> None:
    home, db, _rubric = study(tmp_path, order)
    out = tmp_path / "review.md"
    ok(home, "export", "--format", "review-template", "--rubric", "topic", "--rater", "ann", "--judge", V1,
       "-o", out, "--db", db)
    text = out.read_text(encoding="utf-8")
    if order == "nominal":
        assert "agreement = every judged dimension in the same category" in text
        assert "Dimension agreements (in the same category) | 3/6" in text
        assert "±" not in text
        assert text.count("| no (0/1) |") == 3
    else:
        assert "within ±0.15 (agreement.tolerance in the settings" in text
        assert "Dimension agreements (within ±0.15) | 6/6" in text


def pairwise_db(tmp_path: Path, labels: dict[str, list[str]]) -> Path:
    """Pairs p1 and p2 of the built-in pairwise rubric, rated by each expert in ``labels``, through the CLI."""
    from judge_tui.cli import main

    items = tmp_path / "pairs.jsonl"
    items.write_text("".join(f'{{"id": "p{n}", "prompt": "Answer.", "response_a": "one", "response_b": "two"}}\n'
                             for n in (1, 2)))
    db = tmp_path / "pairs.db"
    assert main(["import", str(items), "--rubric", "pairwise", "--db", str(db)]) in (0, None)
    for rater, said in labels.items():
        ratings = tmp_path / f"{rater}.jsonl"
        ratings.write_text("".join(f'{{"item_id": "p{n}", "preference": "{label}"}}\n'
                                   for n, label in zip((1, 2), said, strict=True)))
        assert main(["import-ratings", str(ratings), "--rater", rater, "--kind", "human", "--db", str(db)]) in (0, None)
    return db


async def test_the_adjudication_screen_says_different_categories_not_a_tolerance(tmp_path: Path) -> None:
    from judge_tui.store.rubric_choice import resolve_rubric
    from judge_tui.tui.screens.adjudication import AdjudicationApp, AdjudicationScreen

    db = pairwise_db(tmp_path, {"ann": ["A", "B"], "bob": ["B", "tie"]})
    with Store(db) as store:
        app = AdjudicationApp(store, resolve_rubric("pairwise", store), "lead")
        async with app.run_test(size=(140, 40)) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, AdjudicationScreen)
            status = str(app.screen.query_one("#adj-status").render())
    assert "where experts name different categories" in status
    assert "±" not in status


def test_adjudicate_with_nothing_to_settle_says_so_in_categories(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from judge_tui.cli import main

    db = pairwise_db(tmp_path, {"ann": ["A", "B"], "bob": ["A", "B"]})
    capsys.readouterr()
    assert main(["adjudicate", "--db", str(db), "--reviewer", "lead", "--rubric", "pairwise"]) == 0
    said = capsys.readouterr().out
    assert "No pairwise items where experts name different categories: nothing to settle." in said
    assert "±" not in said


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_the_report_names_no_tolerance_on_nominal_categories(tmp_path: Path, fmt: str) -> None:
    home, db, _rubric = study(tmp_path, "nominal")
    said = ok(home, "report", "--db", db, "--raters", f"ann,{V1}", "--format", fmt)
    flat = " ".join(said.split())
    assert "alignment: same category" in flat
    assert "Dimension agreements (in the same category)" in flat
    assert "(3 of 6 judged scores in the same category)" in flat
    assert "±0.15" not in flat
