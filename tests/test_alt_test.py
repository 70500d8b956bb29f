"""The alternative annotator test against its authors' published figures and against scipy's t-test."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from judge_tui.stats.agreement import Undefined
from judge_tui.stats.alt_test import alternative_annotator_test, benjamini_yekutieli
from judge_tui.stats.intervals import t_cdf

DATA = Path(__file__).parent / "data" / "alt_test"

# What the authors' notebook (nitaytech/AltTest, alt_test_example.ipynb, commit 18428b1) prints for these data
# sets: (winning rate, advantage probability), both to two decimals, at their ε (MT-Bench 0.2 with accuracy,
# CEBaB stars 0.1 with negative RMSE), q = 0.05, 2 experts per item and 30 items per expert.
PRINTED = {
    ("mtbench", "accuracy", 0.2): {
        "gemini_flash": (0.00, 0.72), "gemini_pro": (0.00, 0.76), "gpt-4o": (0.00, 0.77),
        "llama-31": (0.00, 0.69), "gpt-4o-mini": (0.00, 0.74), "mistral-v03": (0.00, 0.68),
    },
    ("cebab_stars", "neg_rmse", 0.1): {
        "gemini_flash": (0.60, 0.82), "gemini_pro": (0.80, 0.87), "gpt-4o": (0.90, 0.90),
        "llama-31": (0.60, 0.85), "gpt-4o-mini": (0.90, 0.89), "mistral-v03": (0.50, 0.83),
    },
}


def _arrays(humans: dict[str, dict[str, object]], llm: dict[str, object]) -> tuple[np.ndarray, np.ndarray]:
    """The published dictionaries as experts x items and judge arrays, categories coded as numbers."""
    items = sorted(set().union(*humans.values()) | set(llm))
    column = {item: i for i, item in enumerate(items)}
    values = sorted({str(v) for anns in humans.values() for v in anns.values()} | {str(v) for v in llm.values()})
    numeric = all(isinstance(v, int | float) for anns in humans.values() for v in anns.values())

    def code(value: object) -> float:
        return float(value) if numeric else float(values.index(str(value)))  # type: ignore[arg-type]  # numeric: an int or a float

    experts = np.full((len(humans), len(items)), np.nan)
    for row, anns in enumerate(humans.values()):
        for item, value in anns.items():
            experts[row, column[item]] = code(value)
    judge = np.full(len(items), np.nan)
    for item, value in llm.items():
        judge[column[item]] = code(value)
    return experts, judge


@pytest.mark.parametrize("case", sorted(PRINTED), ids=lambda c: c[0])
def test_equals_the_authors_printed_figures(case: tuple[str, str, float]) -> None:
    name, scoring, epsilon = case
    data = json.loads((DATA / f"{name}.json").read_text())
    for llm_name, (printed_rate, printed_advantage) in PRINTED[case].items():
        experts, judge = _arrays(data["humans"], data["llms"][llm_name])
        result = alternative_annotator_test(experts, judge, list(data["humans"]), scoring=scoring,  # type: ignore[arg-type]  # a case's scoring is one of the two names
                                            epsilon=epsilon)
        assert isinstance(result.winning_rate, float)
        assert isinstance(result.advantage_probability, float)
        assert f"{result.winning_rate:.2f}" == f"{printed_rate:.2f}", llm_name
        assert f"{result.advantage_probability:.2f}" == f"{printed_advantage:.2f}", llm_name
        assert result.passed is (result.winning_rate >= 0.5)


def test_each_p_value_is_scipys_one_sided_t_test() -> None:
    """The per-expert p-value is scipy's ttest_1samp(differences, ε, alternative='less')."""
    data = json.loads((DATA / "mtbench.json").read_text())
    experts, judge = _arrays(data["humans"], data["llms"]["gpt-4o"])
    result = alternative_annotator_test(experts, judge, list(data["humans"]), scoring="accuracy", epsilon=0.2)
    for row, comparison in enumerate(result.compared):
        others = np.delete(experts, row, axis=0)
        mine = ~np.isnan(experts[row]) & (np.sum(~np.isnan(experts), axis=0) >= 2)
        expert_hits = np.nansum(others[:, mine] == experts[row, mine], axis=0)
        judge_hits = np.nansum(others[:, mine] == judge[mine], axis=0)
        differences = (expert_hits >= judge_hits).astype(float) - (judge_hits >= expert_hits)
        reference = stats.ttest_1samp(differences, 0.2, alternative="less").pvalue
        assert comparison.items == int(mine.sum())
        assert comparison.p_value == pytest.approx(reference, rel=1e-10, abs=1e-300)


def test_benjamini_yekutieli_matches_statsmodels() -> None:
    from statsmodels.stats import multitest
    rng = np.random.default_rng(3)
    for m in (1, 2, 3, 7, 20):
        for _ in range(50):
            p = rng.uniform(0, 0.1, m) ** rng.uniform(0.5, 3)
            expected = multitest.multipletests(p, alpha=0.05, method="fdr_by")[0]
            assert benjamini_yekutieli(p, 0.05).tolist() == expected.tolist()


def test_a_judge_that_always_agrees_passes_and_one_that_never_does_fails() -> None:
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 2, 60).astype(float)
    experts = np.vstack([np.where(rng.random(60) < 0.85, truth, 1 - truth) for _ in range(3)])
    good = alternative_annotator_test(experts, truth, ["a", "b", "c"], scoring="accuracy")
    bad = alternative_annotator_test(experts, 1 - truth, ["a", "b", "c"], scoring="accuracy")
    assert good.passed is True
    assert good.winning_rate == 1.0
    assert bad.passed is False
    assert bad.winning_rate == 0.0


def test_too_little_overlap_is_undefined_with_the_numbers() -> None:
    """3 experts x 25 shared items is below the authors' 30 items per expert: no verdict, and why."""
    rng = np.random.default_rng(1)
    experts = rng.integers(1, 6, (3, 25)).astype(float)
    result = alternative_annotator_test(experts, experts[0], ["a", "b", "c"], scoring="neg_rmse")
    assert result.passed is None
    assert isinstance(result.winning_rate, Undefined)
    assert result.too_few_items == (("a", 25), ("b", 25), ("c", 25))
    assert "30" in result.winning_rate.reason
    assert "25" in result.winning_rate.reason


def test_items_with_one_expert_are_dropped() -> None:
    experts = np.array([[1.0] * 40 + [np.nan] * 10, [1.0] * 40 + [2.0] * 10])
    judge = np.ones(50)
    result = alternative_annotator_test(experts, judge, ["a", "b"], scoring="accuracy")
    assert result.items_used == 40
    assert result.items_dropped == 10
    assert [c.items for c in result.compared] == [40, 40]


@pytest.mark.parametrize("df", [1, 2, 5, 29, 119, 700])
def test_t_distribution_is_scipys(df: int) -> None:
    for t in (-40.0, -5.0, -1.3, -0.01, 0.0, 0.2, 3.1, 40.0, float("inf"), float("-inf")):
        assert t_cdf(t, df) == pytest.approx(stats.t.cdf(t, df), rel=1e-11, abs=1e-300)


def test_no_spread_follows_scipys_infinite_statistic() -> None:
    """Every item a tie (differences all 0 < ε): scipy's statistic is -inf, its p-value 0, and the expert loses."""
    experts = np.ones((3, 40))
    result = alternative_annotator_test(experts, np.ones(40), ["a", "b", "c"], scoring="accuracy", epsilon=0.1)
    assert [c.p_value for c in result.compared] == [0.0, 0.0, 0.0]
    assert result.winning_rate == 1.0
    assert result.advantage_probability == 1.0


def test_the_report_on_a_database_of_the_published_annotations_gives_the_printed_figures(tmp_path: Path) -> None:
    """The authors' MT-Bench annotations (3 experts, 120 pairs) imported as pairwise items with the real CLI, each
    LLM as a judge: `report --format json` gives, on its validity page, the winning rate and advantage probability
    the authors' notebook prints (accuracy on a scale of categories, ε 0.2 by default)."""
    from judge_tui.cli import main

    data = json.loads((DATA / "mtbench.json").read_text())
    name = {"model_a": "A", "model_b": "B", "tie": "tie"}
    ids = sorted(set().union(*data["humans"].values()))
    db, items = tmp_path / "mtbench.db", tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps({"id": i, "prompt": f"pair {i}", "response_a": "first",
                                         "response_b": "second"}) + "\n" for i in ids))
    assert main(["import", str(items), "--rubric", "pairwise", "--db", str(db)]) in (0, None)

    def ratings(rater: str, kind: str, labels: dict[str, str]) -> None:
        path = tmp_path / f"{rater.replace(':', '_')}.jsonl"
        path.write_text("".join(json.dumps({"item_id": i, "preference": name[v]}) + "\n"
                                for i, v in labels.items() if i in ids))
        assert main(["import-ratings", str(path), "--rater", rater, "--kind", kind, "--db", str(db)]) in (0, None)

    for expert, labels in data["humans"].items():
        ratings(expert, "human", labels)
    experts = "+".join(data["humans"])
    for llm, (printed_rate, printed_advantage) in PRINTED[("mtbench", "accuracy", 0.2)].items():
        ratings(f"judge:{llm}", "judge", data["llms"][llm])
        out = tmp_path / f"{llm}.json"
        assert main(["report", "--db", str(db), "--raters", f"{experts},judge:{llm}", "--format", "json",
                     "-o", str(out)]) in (0, None)
        page = json.loads(out.read_text())["judge_validity"]["judges"]
        mine = next(j for j in page if j["judge"] == f"judge:{llm}")
        found = next(a for a in mine["alt_test"] if a["key"] == "preference")
        assert found["scoring"] == "accuracy"
        assert (f"{found['winning_rate']:.2f}", f"{found['advantage_probability']:.2f}") == (
            f"{printed_rate:.2f}", f"{printed_advantage:.2f}"), llm
