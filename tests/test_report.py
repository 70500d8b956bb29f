"""`judge-tui report` end to end: ratings files into a real database, the command's JSON against the
reference implementations (scikit-learn, scipy, krippendorff) to 1e-9, the schema, Markdown and errors."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score, confusion_matrix

from judge_tui.cli import main
from judge_tui.store import Store
from tests.agreement_data import binary_items, exercise_items, load_ratings, ratings_file
from tests.narrowing import present

TOL = 1e-9
HUMAN, HUMAN2, JUDGE = "EXP001", "EXP002", "judge:test-model:exercise-quality@1"


def report_json(db: Path, *extra: str, capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["report", "--db", str(db), "--format", "json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def reference_figures(h: np.ndarray, j: np.ndarray, points: tuple[float, ...]) -> dict[str, float]:
    """Every per-dimension figure computed by the reference libraries."""
    codes = {p: i for i, p in enumerate(points)}
    snap = np.asarray(points)
    hc = np.array([codes[p] for p in snap[np.abs(h[:, None] - snap).argmin(axis=1)]])
    jc = np.array([codes[p] for p in snap[np.abs(j[:, None] - snap).argmin(axis=1)]])
    labels = list(range(len(points)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "n": len(h),
            "alignment_rate": float(np.mean(np.abs(h - j) <= 0.15 + 1e-9)),
            "cohen_kappa": cohen_kappa_score(hc, jc, labels=labels),
            "weighted_kappa": cohen_kappa_score(hc, jc, labels=labels, weights="quadratic"),
            "pearson_r": stats.pearsonr(h, j).statistic,
            "spearman_rho": stats.spearmanr(h, j).statistic,
            "kendall_tau": stats.kendalltau(h, j).statistic,
            "mean_difference": float(np.mean(j - h)),
            "confusion": confusion_matrix(hc, jc, labels=labels).tolist(),
        }


def assert_row_matches(row: dict, ref: dict) -> None:
    assert row["n"] == ref["n"]
    for name, value in ref.items():
        if name == "confusion":
            assert row["confusion"]["counts"] == value
        elif name != "n":
            assert row[name] is not None, (row["dimension"], name, row["undefined"])
            assert abs(row[name] - value) <= TOL, (row["dimension"], name, row[name], value)


@pytest.fixture
def exercise_db(tmp_path: Path, rubrics) -> tuple[Path, dict, dict]:
    rubric = rubrics["exercise-quality"]
    items = exercise_items(60, rubric)
    db = tmp_path / "eq.db"
    with Store(db) as store:
        store.ensure_rubric_version(rubric)
        store.add_items(items)
        human = ratings_file(tmp_path / "human.jsonl", rubric, items, seed=1)
        judge = ratings_file(tmp_path / "judge.jsonl", rubric, items[:50], seed=2, base=human, kind="judge")
        load_ratings(store, rubric, tmp_path / "human.jsonl", HUMAN, "human")
        load_ratings(store, rubric, tmp_path / "judge.jsonl", JUDGE, "judge")
    return db, human, judge


def test_report_json_matches_reference_libraries(exercise_db, rubrics, capsys):
    db, human, judge = exercise_db
    rubric = rubrics["exercise-quality"]
    data = report_json(db, capsys=capsys)
    both = sorted(set(human) & set(judge))
    assert data["counts"] == {"items": 60, "rated_by_human": 60, "rated_by_judge": 50, "compared": 50,
                              "judge_only": 0}
    rows = {r["dimension"]: r for r in data["dimensions"]}
    for dim in rubric.judged_dimensions:
        h = np.array([human[i][dim.id] for i in both])
        j = np.array([judge[i][dim.id] for i in both])
        assert_row_matches(rows[dim.id], reference_figures(h, j, rubric.scale.points))
    # The code dimension agrees perfectly: both sides take it from the checker.
    assert rows["structural_validity"]["alignment_rate"] == 1.0
    # Overall: the rubric's weighted mean, compared as a continuous score.
    h = np.array([rubric.overall_score(human[i]) for i in both])
    j = np.array([rubric.overall_score(judge[i]) for i in both])
    overall = data["overall"]
    assert abs(overall["pearson_r"] - stats.pearsonr(h, j).statistic) <= TOL
    assert abs(overall["spearman_rho"] - stats.spearmanr(h, j).statistic) <= TOL
    assert abs(overall["kendall_tau"] - stats.kendalltau(h, j).statistic) <= TOL
    assert abs(overall["alignment_rate"] - np.mean(np.abs(h - j) <= 0.15 + 1e-9)) <= TOL
    assert overall["cohen_kappa"] is None
    assert "cohen_kappa" in overall["undefined"]
    # Summary: agreements over the three judged dimensions only, as in the review template.
    judged = [rows[d.id] for d in rubric.judged_dimensions]
    agreements = sum(round(r["alignment_rate"] * r["n"]) for r in judged)
    assert data["summary"]["dimension_agreements"] == agreements
    assert data["summary"]["dimension_pairs"] == 150
    rates = {r["dimension"]: r["alignment_rate"] for r in judged}
    assert data["summary"]["lowest_alignment_dimension"] == min(rates, key=rates.__getitem__)
    assert data["summary"]["highest_alignment_dimension"] == max(rates, key=rates.__getitem__)


def test_breakdown_by_cefr_level_matches_subsets(exercise_db, rubrics, capsys):
    db, human, judge = exercise_db
    rubric = rubrics["exercise-quality"]
    data = report_json(db, "--by", "cefr_level", capsys=capsys)
    (breakdown,) = data["breakdowns"]
    assert breakdown["by"] == "cefr_level"
    assert [g["value"] for g in breakdown["groups"]] == ["A2", "B1", "B2", "C1"]
    with Store(db) as store:
        level = {i: present(store.item(i)).fields["cefr_level"] for i in judge}
    for group in breakdown["groups"]:
        ids = sorted(i for i in judge if level[i] == group["value"])
        rows = {r["dimension"]: r for r in group["dimensions"]}
        dim = "difficulty_match"
        h = np.array([human[i][dim] for i in ids])
        j = np.array([judge[i][dim] for i in ids])
        assert_row_matches(rows[dim], reference_figures(h, j, rubric.scale.points))


def test_split_filter_and_continuous_judge_scores(tmp_path, rubrics, capsys):
    rubric = rubrics["reasoning-trace"]
    from judge_tui.model.records import Item

    items = [Item(id=f"T{i:03d}", rubric=rubric.id, fields={"question": "q", "response": f"r{i}",
                                                            "reference_answer": "a"}, split=("dev", "test")[i % 2])
             for i in range(80)]
    db = tmp_path / "rt.db"
    with Store(db) as store:
        store.add_items(items)
        human = ratings_file(tmp_path / "h.jsonl", rubric, items, seed=5)
        judge = ratings_file(tmp_path / "j.jsonl", rubric, items, seed=6, base=human, continuous=True, kind="judge")
        load_ratings(store, rubric, tmp_path / "h.jsonl", HUMAN, "human")
        load_ratings(store, rubric, tmp_path / "j.jsonl", "judge:x", "judge")
    data = report_json(db, "--split", "test", "--rubric", "reasoning-trace", capsys=capsys)
    ids = [it.id for it in items if it.split == "test"]
    assert data["split"] == "test"
    assert data["counts"]["compared"] == 40
    snapped = 0
    for row in data["dimensions"]:
        h = np.array([human[i][row["dimension"]] for i in ids])
        j = np.array([judge[i][row["dimension"]] for i in ids])
        assert_row_matches(row, reference_figures(h, j, rubric.scale.points))
        snapped += row["snapped"]["judge"]
    assert snapped > 0
    assert any(v["topic"] == "snapped" for v in data["verdict"])


def test_human_group_mean_self_agreement_and_alpha(exercise_db, rubrics, tmp_path, capsys):
    db, human, judge = exercise_db
    rubric = rubrics["exercise-quality"]
    with Store(db) as store:
        items = list(store.iter_items("exercise-quality"))
        second = ratings_file(tmp_path / "h2.jsonl", rubric, items, seed=7, base=human, noise=0.5)
        load_ratings(store, rubric, tmp_path / "h2.jsonl", HUMAN2, "human")
        again = ratings_file(tmp_path / "j1.jsonl", rubric, items[:30], seed=8, base=judge, noise=0.2, kind="judge")
        load_ratings(store, rubric, tmp_path / "j1.jsonl", JUDGE, "judge", repeat=1)
    data = report_json(db, capsys=capsys)
    assert data["raters"]["human"]["ids"] == [HUMAN, HUMAN2]
    both = sorted(judge)
    dim = "instruction_clarity"
    row = next(r for r in data["dimensions"] if r["dimension"] == dim)
    mean = np.array([(human[i][dim] + second[i][dim]) / 2 for i in both])
    j = np.array([judge[i][dim] for i in both])
    assert abs(row["pearson_r"] - stats.pearsonr(mean, j).statistic) <= TOL
    assert abs(row["alignment_rate"] - np.mean(np.abs(mean - j) <= 0.15 + 1e-9)) <= TOL
    # Means of 0.25 / 0.75 fall between the points: snapped and counted.
    assert row["snapped"]["human"] == int(np.sum(np.isin(mean, (0.25, 0.75))))
    # Judge against itself: repeat 0 and repeat 1 on the 30 items judged twice.
    (self_agreement,) = data["self_agreement"]
    assert self_agreement["rater"] == JUDGE
    assert self_agreement["items"] == 30
    self_row = next(r for r in self_agreement["dimensions"] if r["dimension"] == dim)
    ids = sorted(again)
    a, b = np.array([judge[i][dim] for i in ids]), np.array([again[i][dim] for i in ids])
    assert abs(self_row["alignment_rate"] - np.mean(np.abs(a - b) <= 0.15 + 1e-9)) <= TOL
    codes = {0.0: 0, 0.5: 1, 1.0: 2}
    reference = cohen_kappa_score([codes[x] for x in a], [codes[x] for x in b], labels=[0, 1, 2])
    assert abs(self_row["cohen_kappa"] - reference) <= TOL
    # Two humans: Krippendorff's alpha (ordinal) over all 60 items.
    alpha_row = next(r for r in data["human_agreement"]["dimensions"] if r["dimension"] == dim)
    ids = sorted(human)
    matrix = np.array([[human[i][dim] for i in ids], [second[i][dim] for i in ids]])
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal", value_domain=[0, 0.5, 1])
    assert abs(alpha_row["krippendorff_alpha"] - expected) <= TOL
    # --raters picks single raters out of the groups.
    data = report_json(db, "--raters", f"{HUMAN2},{JUDGE}", capsys=capsys)
    assert data["raters"]["human"]["ids"] == [HUMAN2]
    assert data["human_agreement"] is None


def test_binary_rates_corrected_pass_rate_and_test_split_verdict(tmp_path, rubrics, capsys):
    rubric = rubrics["binary"]
    items = binary_items(240)
    db = tmp_path / "bin.db"
    with Store(db) as store:
        store.add_items(items)
        human = ratings_file(tmp_path / "h.jsonl", rubric, items[:150], seed=11)
        judge = ratings_file(tmp_path / "j.jsonl", rubric, items, seed=12, kind="judge",
                             base={**human, **{i.id: {"label": 1.0} for i in items[150:]}}, noise=0.08)
        load_ratings(store, rubric, tmp_path / "h.jsonl", HUMAN, "human")
        load_ratings(store, rubric, tmp_path / "j.jsonl", "judge:b", "judge")
    data = report_json(db, capsys=capsys)
    row = data["dimensions"][0]
    both = [i.id for i in items[:150]]
    h = np.array([human[i]["label"] for i in both])
    j = np.array([judge[i]["label"] for i in both])
    tpr = np.sum((h == 1) & (j == 1)) / np.sum(h == 1)
    tnr = np.sum((h == 0) & (j == 0)) / np.sum(h == 0)
    assert abs(row["tpr"] - tpr) <= TOL
    assert abs(row["tnr"] - tnr) <= TOL
    assert abs(row["accuracy"] - np.mean(h == j)) <= TOL
    assert_row_matches(row, {k: v for k, v in reference_figures(h, j, (0.0, 1.0)).items()
                             if k not in ("spearman_rho", "kendall_tau", "pearson_r")})
    observed = np.mean([judge[i.id]["label"] for i in items[150:]])
    corrected = row["corrected_pass_rate"]
    assert corrected["n_judge_only"] == 90
    assert abs(corrected["observed_pass_rate"] - observed) <= TOL
    # TPR and TNR of the correction come from the test split's labelled items only, as judgy takes them.
    tested = [i.id for i in items[:150] if i.split == "test"]
    ht, jt = np.array([human[i]["label"] for i in tested]), np.array([judge[i]["label"] for i in tested])
    tpr_t, tnr_t = np.sum((ht == 1) & (jt == 1)) / np.sum(ht == 1), np.sum((ht == 0) & (jt == 0)) / np.sum(ht == 0)
    assert abs(corrected["value"] - np.clip((observed + tnr_t - 1) / (tpr_t + tnr_t - 1), 0, 1)) <= TOL
    assert corrected["tpr_tnr_from"] == "test split"
    assert corrected["n_labelled"] == len(tested)
    assert corrected["ci_low"] <= corrected["value"] <= corrected["ci_high"]
    assert report_json(db, capsys=capsys)["dimensions"][0]["corrected_pass_rate"] == corrected  # same every run
    # The TPR/TNR target is judged on the test split, and the verdict says so.
    finding = next(v for v in data["verdict"] if v["topic"] == "tpr_tnr")
    test = [i.id for i in items[:150] if i.split == "test"]
    ht, jt = np.array([human[i]["label"] for i in test]), np.array([judge[i]["label"] for i in test])
    assert finding["scope"] == "test split"
    assert f"On the test split ({len(test)} items)" in finding["text"]
    assert f"TPR {np.sum((ht == 1) & (jt == 1)) / np.sum(ht == 1):.3f}" in finding["text"]


def test_json_schema_is_stable(exercise_db, capsys):
    db, _, _ = exercise_db
    data = report_json(db, "--by", "split", capsys=capsys)
    # Keys are only ever added: the original keys keep their order, the new ones come after them.
    assert _in_order(list(data), ["schema_version", "rubric", "split", "raters", "thresholds", "counts", "summary",
                                  "dimensions", "overall", "verdict", "breakdowns", "self_agreement",
                                  "human_agreement", "flagged_items"])
    assert {"confidence", "decide_on", "plan", "ties"} <= set(data)
    assert data["judge_comparison"] is None
    assert data["schema_version"] == 1
    row_keys = ["dimension", "name", "method", "n", "alignment_rate", "cohen_kappa", "weighted_kappa", "pearson_r",
                "spearman_rho", "kendall_tau", "mean_difference", "tpr", "tnr", "accuracy", "corrected_pass_rate",
                "confusion", "snapped", "alignment_band", "kappa_band", "undefined"]
    for row in [*data["dimensions"], data["overall"], *data["breakdowns"][0]["groups"][0]["dimensions"]]:
        assert list(row)[:len(row_keys)] == row_keys
        assert {"ac1", "ac2", "pabak", "prevalence", "bias_index", "baseline_accuracy", "intervals"} <= set(row)
        assert list(row["corrected_pass_rate"])[:6] == ["value", "ci_low", "ci_high", "confidence",
                                                        "observed_pass_rate", "n_judge_only"]
        # Every null figure says why.
        for name in ("alignment_rate", "cohen_kappa", "weighted_kappa", "pearson_r", "tpr", "tnr"):
            assert (row[name] is None) == (name in row["undefined"])
    assert list(data["summary"])[:8] == ["cases_reviewed", "items", "dimension_agreements", "dimension_pairs",
                                         "alignment_rate", "lowest_alignment_dimension",
                                         "highest_alignment_dimension", "undefined"]
    assert data["dimensions"][1]["tpr"] is None
    assert data["dimensions"][1]["undefined"]["tpr"].startswith("only PASS/FAIL")
    assert list(data["verdict"][0])[:5] == ["topic", "status", "meets_target", "scope", "text"]


def _in_order(keys: list[str], expected: list[str]) -> bool:
    """Whether ``expected`` appears in ``keys`` in this order (other keys may sit between them)."""
    found = iter(keys)
    return all(any(k == e for k in found) for e in expected)


def test_markdown_mirrors_the_summary_metrics_table(tmp_path, rubrics, capsys):
    rubric = rubrics["exercise-quality"]
    items = exercise_items(12, rubric)
    db = tmp_path / "twelve.db"
    with Store(db) as store:
        store.add_items(items)
        human = ratings_file(tmp_path / "h.jsonl", rubric, items, seed=3)
        ratings_file(tmp_path / "j.jsonl", rubric, items, seed=4, base=human, noise=0.2, kind="judge")
        load_ratings(store, rubric, tmp_path / "h.jsonl", HUMAN, "human")
        load_ratings(store, rubric, tmp_path / "j.jsonl", JUDGE, "judge")
    assert main(["report", "--db", str(db), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert main(["report", "--db", str(db), "--format", "markdown"]) == 0
    text = capsys.readouterr().out
    s = data["summary"]
    rates = {r["dimension"]: r["alignment_rate"] for r in data["dimensions"]}
    lines = [
        "| Metric | Value |",
        "| Total cases reviewed | 12/12 |",
        f"| Dimension agreements (within ±0.15) | {s['dimension_agreements']}/36 |",
        f"| Overall alignment rate | {s['alignment_rate']:.1%} [{s['intervals']['alignment_rate']['low'] * 100:.0f}, "
        f"{s['intervals']['alignment_rate']['high'] * 100:.0f}] |",
        f"| Dimension with lowest alignment | {s['lowest_alignment_dimension']} "
        f"({rates[s['lowest_alignment_dimension']]:.1%}) |",
        f"| Dimension with highest alignment | {s['highest_alignment_dimension']} "
        f"({rates[s['highest_alignment_dimension']]:.1%}) |",
    ]
    for line in lines:
        assert line in text
    assert "## Per dimension" in text
    assert "| difficulty_match | 12 |" in text


def test_thresholds_come_from_settings(exercise_db, hermetic_home, capsys):
    db, _, _ = exercise_db
    default = report_json(db, capsys=capsys)
    rate = default["summary"]["alignment_rate"]
    (hermetic_home / "settings.json").write_text(json.dumps(
        {"agreement": {"alignment_well_calibrated": round(rate - 0.01, 4), "alignment_minor_drift": 0.05,
                       "alignment_significant_drift": 0.01, "pearson_target": 0.95, "decide_on": "point"}}))
    custom = report_json(db, capsys=capsys)
    assert custom["thresholds"]["alignment"]["well_calibrated"] == round(rate - 0.01, 4)
    assert custom["verdict"][0]["status"] == "ok"
    assert "well calibrated" in custom["verdict"][0]["text"]
    pearson = next(v for v in custom["verdict"] if v["topic"] == "pearson")
    assert "target ≥ 0.95" in pearson["text"]


def test_text_format_shows_untrusted_values_as_plain_text(tmp_path, rubrics, capsys):
    rubric = rubrics["exercise-quality"]
    items = exercise_items(8, rubric)
    items = [type(i)(**{**i.__dict__, "fields": {**i.fields, "focus": "[bold red]x|y\x1b]0;pwned\x07"}})
             for i in items]
    db = tmp_path / "evil.db"
    with Store(db) as store:
        store.add_items(items)
        human = ratings_file(tmp_path / "h.jsonl", rubric, items, seed=3)
        ratings_file(tmp_path / "j.jsonl", rubric, items, seed=4, base=human, kind="judge")
        load_ratings(store, rubric, tmp_path / "h.jsonl", "[red]EXP", "human")
        load_ratings(store, rubric, tmp_path / "j.jsonl", JUDGE, "judge")
    assert main(["report", "--db", str(db), "--by", "focus"]) == 0
    text = capsys.readouterr().out
    assert "[bold red]x|y" in text
    assert "[red]EXP" in text
    assert "\x1b" not in text
    assert main(["report", "--db", str(db), "--by", "focus", "--format", "markdown"]) == 0
    assert "[bold red]x\\|y |" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        ("empty", [], "no items yet"),
        ("no-judge", [], "no judge ratings yet"),
        ("full", ["--by", "colour"], "no item of rubric 'exercise-quality' has that field"),
        ("full", ["--raters", "EXP001,nobody"], "no ratings of rubric 'exercise-quality' by 'nobody'"),
        ("full", ["--raters", "EXP001"], "give two groups"),
        ("full", ["--compare", "7", "8"], "no judge ratings of rubric 'exercise-quality' under prompt version"),
    ],
)
def test_clear_messages_instead_of_tracebacks(tmp_path, rubrics, capsys, setup, args, message):
    rubric = rubrics["exercise-quality"]
    db = tmp_path / "x.db"
    with Store(db) as store:
        if setup != "empty":
            items = exercise_items(6, rubric)
            store.add_items(items)
            ratings_file(tmp_path / "h.jsonl", rubric, items, seed=1)
            load_ratings(store, rubric, tmp_path / "h.jsonl", HUMAN, "human")
        if setup == "full":
            load_ratings(store, rubric, tmp_path / "h.jsonl", JUDGE, "judge")
    assert main(["report", "--db", str(db), *args]) == 1
    err = capsys.readouterr().err
    assert err.startswith("judge-tui: ")
    assert message in err
    assert "Traceback" not in err


def test_compare_two_prompt_versions(exercise_db, rubrics, tmp_path, capsys):
    db, human, _ = exercise_db
    rubric = rubrics["exercise-quality"]
    with Store(db) as store:
        items = list(store.iter_items("exercise-quality"))
        ratings_file(tmp_path / "v2.jsonl", rubric, items, seed=9, base=human, noise=0.05, kind="judge")
        version = store.ensure_rubric_version(rubric)
        store.ensure_rater("judge:v2", "judge", model="m", prompt_version="2")
        from judge_tui.model.records import Rating

        store.save_ratings(Rating(item_id=r["item"], rater_id="judge:v2", rubric_version_id=version,
                                  scores=r["scores"], overall=rubric.overall_score(r["scores"]))
                           for r in map(json.loads, (tmp_path / "v2.jsonl").read_text().splitlines()))
    data = report_json(db, "--compare", "1", "2", capsys=capsys)["version_comparison"]
    assert data["v1"]["judge"] == JUDGE
    assert data["v2"]["judge"] == "judge:v2"
    assert data["alignment"]["v2"] > data["alignment"]["v1"]
    assert main(["report", "--db", str(db), "--compare", "1", "2"]) == 0
    assert "Version comparison: 1 -> 2" in capsys.readouterr().out


def test_output_file(exercise_db, tmp_path, capsys):
    db, _, _ = exercise_db
    target = tmp_path / "report.md"
    assert main(["report", "--db", str(db), "--format", "markdown", "-o", str(target)]) == 0
    assert capsys.readouterr().out == ""
    written = target.read_text()
    assert written.startswith("# What the judge may be used for: judge judge:test-model:exercise-quality@1")
    assert "\nThe judge is judge:test-model:exercise-quality@1 (it rated most items" in written  # and how chosen
    assert "\n# Agreement report: Exercise quality" in written


@pytest.mark.parametrize("rubric_id", ["exercise-quality", "cis", "reasoning-trace"])
def test_import_ratings_then_report_matches_references(tmp_path, rubrics, capsys, rubric_id):
    """The whole path a study lead takes: import items, a human file and a judge file, then report."""
    from judge_tui.model import locations

    rubric = rubrics[rubric_id]
    data_dir = locations.data_dir()
    db = str(tmp_path / "demo.db")
    human_file = data_dir / f"{rubric_id}.expert-demo.ratings.jsonl"
    judge_file = data_dir / f"{rubric_id}.judge-demo.ratings.jsonl"
    assert main(["import", "--db", db, str(data_dir / f"{rubric_id}.jsonl"), "--rubric", rubric_id]) == 0
    assert main(["import-ratings", "--db", db, str(human_file), "--rater", HUMAN, "--kind", "human"]) == 0
    assert main(["import-ratings", "--db", db, str(judge_file), "--rater", "judge:demo", "--kind", "judge"]) == 0
    capsys.readouterr()
    data = report_json(Path(db), "--rubric", rubric_id, capsys=capsys)

    def scores(path: Path) -> dict[str, dict[str, float]]:
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        return {r["item_id"]: r["scores"] for r in rows}

    human, judge = scores(human_file), scores(judge_file)
    ids = sorted(set(human) & set(judge))
    assert data["counts"]["compared"] == len(ids)
    rows = {r["dimension"]: r for r in data["dimensions"]}
    for dim in rubric.judged_dimensions:
        h = np.array([float(human[i][dim.id]) for i in ids])
        j = np.array([float(judge[i][dim.id]) for i in ids])
        assert_row_matches(rows[dim.id], reference_figures(h, j, rubric.scale.points))


def test_without_judge_versions_the_judge_is_the_one_that_covers_the_rubric_and_is_named(exercise_db, rubrics, tmp_path, capsys):
    db, human, _ = exercise_db  # JUDGE rated 50 of the 60 items
    rubric = rubrics["exercise-quality"]
    with Store(db) as store:
        items = list(store.iter_items("exercise-quality"))[:2]
        ratings_file(tmp_path / "newer.jsonl", rubric, items, seed=5, base=human, kind="judge")
        load_ratings(store, rubric, tmp_path / "newer.jsonl", "judge:newer:exercise-quality@2", "judge")
    # no judge version is recorded, and the newer judge has rated 2 items: the report compares with the one
    # that rated 50, and says so in its first lines and its JSON
    data = report_json(db, capsys=capsys)
    assert data["raters"]["judge"]["ids"] == [JUDGE]
    assert data["judge"]["rater"] == JUDGE
    assert data["judge"]["items"] == 50
    assert data["judge"]["other_judges"] == [{"rater": "judge:newer:exercise-quality@2", "items": 2,
                                              "version": None}]
    assert main(["report", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"What the judge may be used for: judge {JUDGE}")  # its page's heading names it
    said = " ".join(out.split("\nThe judge is ")[1].split("\n\n")[0].split())  # before the body, wrapped at 80
    assert said.startswith(f"{JUDGE} (it rated most items; no judge version is recorded); it rated 50 items. Other "
                           "judges (items): judge:newer:exercise-quality@2 (2). Compare another with --judge RATER")


def test_a_plan_that_asks_for_more_items_than_are_left_says_so(tmp_path, hermetic_home, capsys):
    data = Path(__file__).parent.parent / "data"
    db = tmp_path / "left.db"
    expert = tmp_path / "ann.jsonl"
    lines = (data / "cis.expert-demo.ratings.jsonl").read_text(encoding="utf-8").splitlines()
    expert.write_text("\n".join(lines[:12]) + "\n", encoding="utf-8")  # 12 of the 25 items rated
    assert main(["import", str(data / "cis.jsonl"), "--db", str(db)]) == 0
    for path, rater, kind in ((expert, "ann", "human"), (data / "cis.judge-demo.ratings.jsonl", "judge-v1", "judge")):
        assert main(["import-ratings", str(path), "--rater", rater, "--kind", kind, "--rubric", "cis",
                     "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["report", "--db", str(db), "--format", "json"]) == 0
    plans = {p["target"]: p for p in json.loads(capsys.readouterr().out)["plan"]}
    beyond = [p for p in plans.values() if p["more_items"] is not None and p["more_items"] > 13]
    assert beyond, plans  # some target needs more than the 13 unrated items
    for plan in beyond:
        assert plan["text"].endswith("and only 13 are left unrated: rating them all is unlikely to settle it without new "
                                     "items"), plan["text"]
    for plan in plans.values():
        if plan["more_items"] is not None and plan["more_items"] <= 13:
            assert "left unrated" not in plan["text"]
