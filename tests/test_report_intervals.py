"""Intervals, decisions and the plan through the real report: a real database, the real `judge-tui report`
command, its JSON compared with reference implementations (statsmodels, scipy, irrCAC, judgy) on the same pairs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.proportion import proportion_confint

from judge_tui.cli import main
from judge_tui.model.records import Item, Rating
from judge_tui.model.settings import AgreementSettings
from judge_tui.store import Store
from tests.agreement_data import exercise_items, load_ratings, ratings_file
from tests.kappa_reference import jeffreys_kappa_quantiles
from tests.pearson_reference import jackknife_fisher_z

TOL = 1e-9
SETTINGS = AgreementSettings()
HUMAN, JUDGE = "EXP001", "judge:test-model:binary@1"


def report_json(db: Path, *extra: str, capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["report", "--db", str(db), "--format", "json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def report_text(db: Path, *extra: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["report", "--db", str(db), *extra]) == 0
    return capsys.readouterr().out


def binary_db(path: Path, rubric, labels: list[tuple[float, float]], *, splits: Sequence[str | None] | None = None,
              judge_only: Sequence[tuple[float, str | None]] = (), humans: dict[str, list[float]] | None = None) -> Path:
    """A PASS/FAIL database: (human, judge) labels per item, optional splits, items only the judge labelled."""
    n = len(labels)
    splits = splits or ["test"] * n
    items = [Item(id=f"T{i:03d}", rubric="binary", fields={"query": f"q{i}", "criterion": "c", "response": f"r{i}"},
                  split=splits[i]) for i in range(n)]
    items += [Item(id=f"U{i:03d}", rubric="binary", fields={"query": f"u{i}", "criterion": "c", "response": f"u{i}"},
                   split=s) for i, (_, s) in enumerate(judge_only)]
    with Store(path) as store:
        store.add_items(items)
        version = store.ensure_rubric_version(rubric)
        store.ensure_rater(JUDGE, "judge", model="test-model", prompt_version="1")
        sides = humans or {HUMAN: [h for h, _ in labels]}
        ratings = []
        for rater, values in sides.items():
            store.ensure_rater(rater, "human")
            ratings += [_rating(rubric, version, items[i].id, rater, v) for i, v in enumerate(values) if v is not None]
        ratings += [_rating(rubric, version, items[i].id, JUDGE, j) for i, (_, j) in enumerate(labels)]
        ratings += [_rating(rubric, version, f"U{i:03d}", JUDGE, j) for i, (j, _) in enumerate(judge_only)]
        store.save_ratings(ratings)
    return path


def _rating(rubric, version, item_id: str, rater: str, value: float) -> Rating:
    scores = {"label": float(value)}
    return Rating(item_id=item_id, rater_id=rater, rubric_version_id=version, scores=scores,
                  overall=rubric.overall_score(scores), verdict=rubric.verdict(scores))


def skewed_split() -> list[tuple[float, float]]:
    """The 46-trace test split: 34 human PASS (31 judged PASS), 12 human FAIL (10 judged FAIL): 41 agreements."""
    return [(1.0, 1.0)] * 31 + [(1.0, 0.0)] * 3 + [(0.0, 0.0)] * 10 + [(0.0, 1.0)] * 2


# --------------------------------------------------------------------------------------------------
# The worked case of a skewed PASS/FAIL test split
# --------------------------------------------------------------------------------------------------


def test_skewed_test_split_is_undecided_with_kappa_and_ac1_explained(tmp_path, rubrics, capsys):
    import irrCAC.raw  # noqa: F401 (the reference for AC1)
    import pandas as pd
    from irrCAC.table import CAC

    db = binary_db(tmp_path / "skew.db", rubrics["binary"], skewed_split())
    data = report_json(db, capsys=capsys)
    row = data["dimensions"][0]
    tnr = row["intervals"]["tnr"]
    assert (round(tnr["low"], 2), round(tnr["high"], 2)) == (0.55, 0.95)
    assert tnr["method"] == "wilson"
    low, high = proportion_confint(10, 12, alpha=0.05, method="wilson")
    assert abs(tnr["low"] - low) <= TOL
    assert abs(tnr["high"] - high) <= TOL
    kappa = row["intervals"]["cohen_kappa"]
    assert round(row["cohen_kappa"], 3) == 0.726
    # Two categories: the Jeffreys posterior interval [0.43, 0.87], within its draws' Monte Carlo error of
    # scipy's Dirichlet; the symmetric Wald interval [0.50, 0.95] covered 91–92% of the time in tables like this.
    low, high = jeffreys_kappa_quantiles(np.array([[10, 2], [3, 31]]), 0.95)
    assert kappa["method"] == "bayes-jeffreys"
    assert abs(kappa["low"] - low) <= 0.02
    assert abs(kappa["high"] - high) <= 0.02
    assert kappa["low"] < 0.61 < kappa["high"]
    assert round(row["ac1"], 2) == 0.82
    table = pd.DataFrame([[10, 2], [3, 31]], index=["F", "P"], columns=["F", "P"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gwet = CAC(table).gwet()["est"]
    assert abs(row["ac1"] - gwet["coefficient_value"]) <= 5e-5  # irrCAC rounds to 4 places
    assert abs(row["prevalence"] - 34 / 46) <= TOL
    assert abs(row["baseline_accuracy"] - 34 / 46) <= TOL
    assert abs(row["pabak"] - (2 * 41 / 46 - 1)) <= TOL
    binary = next(v for v in data["verdict"] if v["topic"] == "tpr_tnr")
    assert binary["decision"] == "undecided"
    assert binary["status"] == "unknown"
    assert "TNR undecided" in binary["text"]
    assert "TNR not met" not in binary["text"]
    explained = next(v for v in data["verdict"] if v["topic"] == "kappa_ac1")
    assert "74% of the human labels are PASS" in explained["text"]
    assert "kappa paradox" in explained["text"]
    plan = {p["target"]: p for p in data["plan"]}
    assert plan["tnr"]["decision"] == "undecided"
    assert plan["tnr"]["class"] == "FAIL"
    assert plan["tnr"]["more_items"] > plan["tnr"]["more_of_class"] > 0
    assert "more test items" in plan["tnr"]["text"]
    assert "of them FAIL" in plan["tnr"]["text"]
    text = report_text(db, capsys=capsys)
    bounds = f"[{kappa['low']:.2f}, {kappa['high']:.2f}]"
    assert bounds == "[0.43, 0.87]"
    assert bounds in text
    assert "kappa paradox" in text
    assert "What would settle it" in text


def test_point_rule_gives_the_literal_verdict(tmp_path, rubrics, hermetic_home, capsys):
    db = binary_db(tmp_path / "skew.db", rubrics["binary"], skewed_split())
    (hermetic_home / "settings.json").write_text(json.dumps({"agreement": {"decide_on": "point"}}))
    data = report_json(db, capsys=capsys)
    binary = next(v for v in data["verdict"] if v["topic"] == "tpr_tnr")
    assert binary["decision"] == "not met"
    assert binary["status"] == "act"
    assert data["decide_on"] == "point"


@pytest.mark.slow
@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.2])
def test_confidence_outside_zero_one_is_a_clear_error(tmp_path, rubrics, hermetic_home, bad):
    db = binary_db(tmp_path / "skew.db", rubrics["binary"], skewed_split())
    (hermetic_home / "settings.json").write_text(json.dumps({"agreement": {"confidence": bad}}))
    run = subprocess.run([sys.executable, "-m", "judge_tui", "report", "--db", str(db)], capture_output=True,
                         text=True, env={**os.environ, "JUDGE_TUI_HOME": str(hermetic_home)})
    assert run.returncode != 0
    assert "Traceback" not in run.stderr
    assert f"invalid settings (agreement: confidence must be above 0 and below 1, not {float(bad)!r})" in run.stderr


def test_confidence_setting_changes_every_interval(tmp_path, rubrics, hermetic_home, capsys):
    db = binary_db(tmp_path / "skew.db", rubrics["binary"], skewed_split())
    (hermetic_home / "settings.json").write_text(json.dumps({"agreement": {"confidence": 0.9}}))
    row = report_json(db, capsys=capsys)["dimensions"][0]
    low, high = proportion_confint(10, 12, alpha=0.10, method="wilson")
    assert abs(row["intervals"]["tnr"]["low"] - low) <= TOL
    assert row["intervals"]["tnr"]["confidence"] == 0.9


# --------------------------------------------------------------------------------------------------
# Few items: undecided, never stop
# --------------------------------------------------------------------------------------------------


def test_a_row_without_a_corrected_pass_rate_names_the_reports_confidence(tmp_path, rubrics, hermetic_home, capsys):
    db = _exercise_db(tmp_path, rubrics, 12, noise=0.3)  # a graded scale: no pass rate to correct
    (hermetic_home / "settings.json").write_text(json.dumps({"agreement": {"confidence": 0.9}}))
    corrected = report_json(db, capsys=capsys)["dimensions"][0]["corrected_pass_rate"]
    assert corrected["value"] is None
    assert corrected["confidence"] == 0.9


def _exercise_db(tmp_path: Path, rubrics, n: int, noise: float, seed: int = 3) -> Path:
    rubric = rubrics["exercise-quality"]
    items = exercise_items(n, rubric)
    db = tmp_path / f"ex{n}.db"
    with Store(db) as store:
        store.add_items(items)
        human = ratings_file(tmp_path / "h.jsonl", rubric, items, seed=seed)
        ratings_file(tmp_path / "j.jsonl", rubric, items, seed=seed + 1, kind="judge", base=human, noise=noise)
        load_ratings(store, rubric, tmp_path / "h.jsonl", HUMAN, "human")
        load_ratings(store, rubric, tmp_path / "j.jsonl", "judge:m:exercise-quality@1", "judge")
    return db


def test_one_rated_item_is_undecided_never_stop(tmp_path, rubrics, hermetic_home, capsys):
    db = binary_db(tmp_path / "one.db", rubrics["binary"], [(1.0, 0.0)])  # one item, and they disagree
    data = report_json(db, capsys=capsys)
    assert all(v["status"] != "stop" for v in data["verdict"])
    alignment = data["verdict"][0]
    # the only item is rated: only new items can settle it
    assert alignment["decision"] == "undecided"
    assert "undecided: add items to the study (only 1 so far)" in alignment["text"].lower()
    assert "unreliable" in alignment["text"]  # the band of the estimate is still named
    text = report_text(db, capsys=capsys)
    assert "Stop using the judge" not in text
    assert "[STOP]" not in text
    # The literal rule, asked for, still says stop.
    (hermetic_home / "settings.json").write_text(json.dumps({"agreement": {"decide_on": "point"}}))
    assert "[STOP]" in report_text(db, capsys=capsys)


def test_perfect_agreement_on_few_items_claims_no_certainty(tmp_path, rubrics, capsys):
    db = binary_db(tmp_path / "p.db", rubrics["binary"], [(1.0, 1.0)] * 16 + [(0.0, 0.0)] * 10)
    row = report_json(db, capsys=capsys)["dimensions"][0]
    for name in ("cohen_kappa", "ac1", "alignment_rate"):
        assert row["intervals"][name]["low"] < 0.9, name


def test_twelve_rated_items_say_how_many_more_would_settle_each_target(tmp_path, rubrics, capsys):
    db = _exercise_db(tmp_path, rubrics, 12, noise=0.45)
    data = report_json(db, capsys=capsys)
    undecided = [p for p in data["plan"] if p["decision"] == "undecided"]
    assert undecided
    for p in undecided:
        assert p["text"]
        assert (p["more_items"] is None) == ("no practical number" in p["text"]
                                                             or "too few items" in p["text"])
    assert "What would settle it" in report_text(db, capsys=capsys)


# --------------------------------------------------------------------------------------------------
# References through the report path
# --------------------------------------------------------------------------------------------------


def test_every_interval_matches_its_reference_through_the_report(tmp_path, rubrics, capsys):
    db = _exercise_db(tmp_path, rubrics, 80, noise=0.3, seed=9)
    rubric = rubrics["exercise-quality"]
    data = report_json(db, capsys=capsys)
    with Store(db) as store:
        from judge_tui.analysis.scores import load, pair

        ratings = load(store, rubric)
        pairing = pair(ratings.first_runs(HUMAN), ratings.first_runs("judge:m:exercise-quality@1"))
    points = list(rubric.scale.points)
    for index, row in enumerate(data["dimensions"]):
        paired = pairing.column(index)
        h, j = paired.a, paired.b
        n = h.size
        aligned = int(np.count_nonzero(np.abs(h - j) <= 0.15 + 1e-9))
        low, high = proportion_confint(aligned, n, alpha=0.05, method="wilson")
        assert abs(row["intervals"]["alignment_rate"]["low"] - low) <= TOL
        assert abs(row["intervals"]["alignment_rate"]["high"] - high) <= TOL
        codes_h = np.array([points.index(v) for v in h])
        codes_j = np.array([points.index(v) for v in j])
        table = np.zeros((len(points), len(points)))
        np.add.at(table, (codes_h, codes_j), 1)
        ref = cohens_kappa(table)
        got = row["intervals"]["cohen_kappa"]
        if got is not None and got["method"] == "log-disagreement (t)":  # else on the diagonal, or too few items
            spread = stats.t.ppf(0.975, n - 1) * ref.std_kappa / (1 - ref.kappa)
            assert abs(got["low"] - max(-1, 1 - (1 - ref.kappa) * np.exp(spread))) <= TOL
            assert abs(got["high"] - (1 - (1 - ref.kappa) * np.exp(-spread))) <= TOL
        if row["pearson_r"] is not None and abs(row["pearson_r"]) == 1:
            # scipy gives [1, 1] here; the report gives no interval, and says why
            assert row["intervals"]["pearson_r"] is None
            assert "one straight line" in json.dumps(row)
        elif row["pearson_r"] is not None:
            reference = jackknife_fisher_z(h, j)
            if reference is None:
                assert row["intervals"]["pearson_r"] is None
            else:
                assert abs(row["intervals"]["pearson_r"]["low"] - reference[0]) <= TOL
                assert abs(row["intervals"]["pearson_r"]["high"] - reference[1]) <= TOL
        if row["spearman_rho"] is not None and abs(row["spearman_rho"]) == 1:
            # every resample of a perfect order is perfect: no interval rather than a certain [1, 1]
            assert row["intervals"]["spearman_rho"] is None
            assert "every resample of the items gives the same value" in json.dumps(row["undefined"])
        else:
            assert row["intervals"]["spearman_rho"]["method"] in ("bootstrap", None)
    summary = data["summary"]["intervals"]["alignment_rate"]
    assert summary["method"] == "cluster bootstrap (items)"
    assert summary["low"] < data["summary"]["alignment_rate"] < summary["high"]
    assert report_json(db, capsys=capsys) == data  # deterministic


def test_corrected_pass_rate_equals_judgy_and_keeps_unsplit_items(tmp_path, rubrics, capsys):
    from judgy import estimate_success_rate

    labels = skewed_split()
    rng = np.random.default_rng(5)
    dev = [(float(h), float(rng.integers(0, 2))) for h in rng.integers(0, 2, 20)]  # never used for TPR/TNR
    judge_only = [(float(v), s) for v, s in zip(rng.integers(0, 2, 60), ["test"] * 10 + ["dev"] * 20 + [None] * 30,
                                                  strict=True)]
    db = binary_db(tmp_path / "c.db", rubrics["binary"], labels + dev,
                   splits=["test"] * len(labels) + ["dev"] * len(dev), judge_only=judge_only)
    expected, _, _ = estimate_success_rate([h for h, _ in labels], [j for _, j in labels],
                                           [v for v, _ in judge_only], bootstrap_iterations=10)
    for extra in ((), ("--split", "test"), ("--split", "dev")):
        corrected = report_json(db, *extra, capsys=capsys)["dimensions"][0]["corrected_pass_rate"]
        assert abs(corrected["value"] - expected) <= TOL, extra
        assert corrected["n_judge_only"] == 60
        assert corrected["tpr_tnr_from"] == "test split"
        assert corrected["judge_only_by_split"] == {"(none)": 30, "dev": 20, "test": 10}
    assert "never split" in report_text(db, capsys=capsys)


def test_a_tied_expert_consensus_is_left_out_and_named(tmp_path, rubrics, capsys):
    labels = skewed_split()
    second = [h for h, _ in labels]
    second[0] = 0.0  # the two experts split on item 0: no majority
    db = binary_db(tmp_path / "t.db", rubrics["binary"], labels,
                   humans={"EXP001": [h for h, _ in labels], "EXP002": second})
    data = report_json(db, capsys=capsys)
    assert data["ties"]["left_out"] == 1
    assert data["dimensions"][0]["n"] == 45
    tie = next(v for v in data["verdict"] if v["topic"] == "ties")
    assert "judge-tui adjudicate" in tie["text"]
    # Once the lead adjudicates it, the item comes back with the adjudicated label, as in the team section.
    rubric = rubrics["binary"]
    with Store(db) as store:
        store.ensure_rater("consensus", "human")
        store.save_ratings([_rating(rubric, store.ensure_rubric_version(rubric), "T000", "consensus", 1.0)])
    data = report_json(db, capsys=capsys)
    assert data["ties"]["left_out"] == 0
    assert data["dimensions"][0]["n"] == 46
    assert not any(v["topic"] == "ties" for v in data["verdict"])


def test_targets_at_the_boundaries():
    from judge_tui.analysis.targets import check, verdict_words
    from judge_tui.stats.intervals import Interval

    on = Interval(0.61, 0.9, "test", 0.95)
    # ≥: the low end on the target clears it
    assert check("k", "κ", "s", 0.7, on, 50, 0.61, settings=SETTINGS).decision == "met"
    strict = Interval(0.90, 0.97, "test", 0.95)
    # > needs more
    assert check("tnr", "TNR", "s", 0.93, strict, 50, 0.90, settings=SETTINGS, strict=True).decision == "undecided"
    below = Interval(0.5, 0.61, "test", 0.95)
    # the high end reaches it
    assert check("k", "κ", "s", 0.55, below, 50, 0.61, settings=SETTINGS).decision == "undecided"
    sits = check("tnr", "TNR", "test split", 0.9, Interval(0.8, 0.97, "wilson", 0.95), 30, 0.90, strict=True,
                 settings=SETTINGS, share=(27, 30), class_share=0.3, class_label="FAIL")
    assert sits.decision == "undecided"
    assert "no practical number" in sits.plan_text()
    # The verdict does not tell the lead to add items in the same breath as "no practical number settles it".
    assert verdict_words(sits, SETTINGS) == f"undecided: {sits.plan_text()}"
    assert check("k", "κ", "s", 0.7, on, 4, 0.61, settings=SETTINGS).decision == "undecided"  # too few items to decide


def test_interval_bars_fit_80_columns_and_mark_the_thresholds(tmp_path, rubrics):
    from judge_tui.analysis.report import build_report
    from judge_tui.analysis.report_render import as_text
    from judge_tui.formats.terminal import render_plain

    db = _exercise_db(tmp_path, rubrics, 30, noise=0.3)
    with Store(db) as store:
        report = build_report(store, rubrics["exercise-quality"])
    bars = as_text.interval_bars(report)
    text = render_plain(bars, width=80)
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines)
    assert "60%  70%" in text.replace("   ", "  ") or "60%" in lines[1]
    for row in report.judged_rows:
        line = next(line for line in lines if line.startswith(row.key[:16]))
        assert "●" in line
        assert line.count("┼") + line.count("━") >= 3


def test_pooled_alignment_interval_is_a_cluster_bootstrap_over_items(tmp_path, rubrics, capsys):
    """Within Monte-Carlo error of an independent bootstrap that draws whole items (all their dimensions)."""
    db = _exercise_db(tmp_path, rubrics, 60, noise=0.35, seed=4)
    rubric = rubrics["exercise-quality"]
    data = report_json(db, capsys=capsys)
    with Store(db) as store:
        from judge_tui.analysis.scores import load, pair

        ratings = load(store, rubric)
        pairing = pair(ratings.first_runs(HUMAN), ratings.first_runs("judge:m:exercise-quality@1"))
    judged = [i for i, d in enumerate(rubric.dimensions) if d.method == "judged"]
    hits = np.abs(pairing.a.scores[:, judged] - pairing.b.scores[:, judged]) <= 0.15 + 1e-9  # items x dims
    rng = np.random.default_rng(12345)
    draws = rng.integers(0, hits.shape[0], size=(4000, hits.shape[0]))
    shares = hits[draws].mean(axis=(1, 2))
    low, high = np.percentile(shares, [2.5, 97.5])
    got = data["summary"]["intervals"]["alignment_rate"]
    assert got["method"] == "cluster bootstrap (items)"
    assert abs(got["low"] - low) <= 0.02
    assert abs(got["high"] - high) <= 0.02
