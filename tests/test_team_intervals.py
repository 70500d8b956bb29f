"""Intervals of the team, self-agreement and version-comparison sections, read from `judge-tui report` over a real
database and checked against reference implementations (krippendorff, irrCAC, statsmodels, scipy) and against
independent resamplings written here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Literal

import krippendorff
import numpy as np
import pandas as pd
import pytest
from irrCAC.table import CAC
from scipy import stats
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.proportion import proportion_confint

from judge_tui.analysis.pair_intervals import change_verdict, paired_changes, pooled_interval
from judge_tui.analysis.row_figures import ROW_FIGURES
from judge_tui.analysis.scores import AlignedPair
from judge_tui.cli import main
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats.agreement import compare
from judge_tui.stats.intervals import Interval
from judge_tui.store import Store
from tests.kappa_reference import log_disagreement_t
from tests.narrowing import defined
from tests.pearson_reference import jackknife_fisher_z
from tests.team_fixtures import exercise_item, rate

DIMS = ("difficulty_match", "instruction_clarity", "learning_objective_alignment")
SCALE = np.array([0.0, 0.5, 1.0])
EXPERTS = ("ann", "bob", "cat")
JUDGE = "judge:m:exercise-quality@"
N = 60
PINNED = Path(__file__).parent / "fixtures" / "reports"


def _noisy(rng: np.random.Generator, truth: np.ndarray, flip: float) -> np.ndarray:
    """The truth with a share of the codes moved one step (clipped to the scale)."""
    step = np.where(rng.random(truth.shape) < flip, rng.choice([-1, 1], truth.shape), 0)
    return np.clip(truth + step, 0, 2)


def _sheet(codes: np.ndarray, items: range) -> dict[str, dict[str, float]]:
    return {f"E{n:02d}": {d: float(SCALE[codes[n - 1, j]]) for j, d in enumerate(DIMS)} for n in items}


@pytest.fixture(scope="module")
def truth() -> np.ndarray:
    return np.random.default_rng(12).integers(0, 3, (N, len(DIMS)))


@pytest.fixture(scope="module")
def team(tmp_path_factory, truth) -> tuple[Path, dict[str, np.ndarray]]:
    """60 items; three experts near the truth (cat skips the last 10); blind re-ratings by ann of 20 items; a
    noisy judge prompt p1 and a much better p2 (p2 also judged twice); a p3 exactly as noisy as p1."""
    from judge_tui.model.rubrics import load_rubrics

    rubric = load_rubrics()["exercise-quality"][0]
    rng = np.random.default_rng(3)
    codes = {e: _noisy(rng, truth, 0.2) for e in EXPERTS}
    codes["p1"] = _noisy(rng, truth, 0.6)
    codes["p2"] = _noisy(rng, truth, 0.05)
    codes["p2_again"] = _noisy(rng, truth, 0.05)
    codes["p3"] = _noisy(rng, truth, 0.6)
    codes["ann_again"] = _noisy(rng, codes["ann"], 0.15)
    path = tmp_path_factory.mktemp("team") / "team.db"
    with Store(path) as store:
        store.ensure_rubric_version(rubric)
        store.add_items([exercise_item(n) for n in range(1, N + 1)])
        for e in EXPERTS:
            rate(store, rubric, e, "human", _sheet(codes[e], range(1, N - 9 if e == "cat" else N + 1)))
        rate(store, rubric, "ann", "human", _sheet(codes["ann_again"], range(1, 21)), repeat=1)
        for p in ("p1", "p3", "p2"):  # p2 last: the newest judge, the one the report compares
            rate(store, rubric, f"{JUDGE}{p}", "judge", _sheet(codes[p], range(1, N + 1)), prompt_version=p)
        rate(store, rubric, f"{JUDGE}p2", "judge", _sheet(codes["p2_again"], range(1, N + 1)), repeat=1,
             prompt_version="p2")
    return path, codes


def _json(capsys, db: Path, *args: str) -> dict:
    capsys.readouterr()
    assert main(["report", "--db", str(db), "--format", "json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def _matrix(codes: dict[str, np.ndarray], dimension: int) -> np.ndarray:
    """experts x items of one dimension's scores, NaN where cat did not rate."""
    out = np.stack([SCALE[codes[e][:, dimension]] for e in EXPERTS]).astype(float)
    out[2, N - 10:] = np.nan
    return out


def _consensus(codes: dict[str, np.ndarray], dimension: int, leave_out: str | None = None) -> np.ndarray:
    """The experts' mean score per item; with leave_out, the mean of the other experts'."""
    matrix = _matrix(codes, dimension)
    if leave_out is not None:
        matrix = np.delete(matrix, EXPERTS.index(leave_out), axis=0)
    return np.nanmean(matrix, axis=0)


def _percentiles(values: list[float]) -> tuple[float, float]:
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


# ------------------------------------------------------------------------------------------------- the team


def test_alpha_at_every_level_with_a_bootstrap_over_units_like_an_independent_one(team, hermetic_home, capsys):
    db, codes = team
    data = _json(capsys, db)["team"]
    rng = np.random.default_rng(99)
    for j, d in enumerate(data["dimensions"]):
        matrix = _matrix(codes, j)
        for level in ("nominal", "ordinal", "interval"):
            assert d["alpha_levels"][level] == pytest.approx(krippendorff.alpha(
                reliability_data=matrix, value_domain=SCALE, level_of_measurement=level), abs=1e-9)
        assert d["alpha"] == d["alpha_levels"]["ordinal"]  # full precision, as alpha_levels
        if j:
            continue  # the independent bootstrap (krippendorff called on resampled units) costs seconds
        levels: tuple[Literal["ordinal", "interval"], ...] = ("ordinal", "interval")
        for level in levels:
            drawn = [krippendorff.alpha(reliability_data=matrix[:, rng.integers(0, N, N)], value_domain=SCALE,
                                        level_of_measurement=level) for _ in range(1000)]
            low, high = _percentiles(drawn)
            got = d["intervals"][f"alpha_{level}"]
            assert got["method"] == "bootstrap (units)"
            assert got["confidence"] == 0.95
            # Monte-Carlo error of a 2.5% quantile of 1,000 resamples is about 0.02 here.
            assert got["low"] == pytest.approx(low, abs=0.04)
            assert got["high"] == pytest.approx(high, abs=0.04)
        assert d["intervals"]["alpha"] == d["intervals"]["alpha_ordinal"]


def test_fleiss_kappa_and_ac1_among_experts_and_per_pair_equal_irrcac(team, hermetic_home, capsys):
    from irrCAC.raw import CAC as RawCAC

    db, codes = team
    data = _json(capsys, db)["team"]
    for j, d in enumerate(data["dimensions"]):
        matrix = _matrix(codes, j)
        reference = RawCAC(pd.DataFrame(matrix.T), digits=12).fleiss()["est"]
        assert d["fleiss_kappa"] == pytest.approx(reference["coefficient_value"], abs=1e-9)
        assert d["fleiss_kappa_standard_error"] == pytest.approx(float(reference["se"]), abs=1e-9)
        for name, weights in (("ac1", "identity"), ("ac2", "quadratic")):  # among all three experts
            gwet = RawCAC(pd.DataFrame(matrix.T), weights=weights, categories=list(SCALE), digits=12).gwet()["est"]
            assert d[name] == pytest.approx(gwet["coefficient_value"], abs=1e-9)
            assert d[f"{name}_standard_error"] == pytest.approx(float(np.ravel(gwet["se"])[0]), abs=1e-9)
            assert d["intervals"][name]["method"] == "gwet"
        fleiss = d["intervals"]["fleiss_kappa"]
        assert fleiss["high"] - fleiss["low"] == pytest.approx(2 * 1.959963984540054 * reference["se"], abs=1e-9)
        assert [p["experts"] for p in d["expert_pairs"]] == [["ann", "bob"], ["ann", "cat"], ["bob", "cat"]]
        for p in d["expert_pairs"]:
            a, b = (EXPERTS.index(e) for e in p["experts"])
            both = ~np.isnan(matrix[a]) & ~np.isnan(matrix[b])
            table = pd.crosstab(pd.Categorical(matrix[a, both], SCALE), pd.Categorical(matrix[b, both], SCALE),
                                dropna=False).to_numpy()
            assert p["n"] == int(both.sum())
            for name, weights in (("ac1", "identity"), ("ac2", "quadratic")):
                gwet = CAC(pd.DataFrame(table), weights=weights, digits=12).gwet()["est"]
                assert p[name] == pytest.approx(float(gwet["coefficient_value"]), abs=1e-9)
                assert p[f"{name}_standard_error"] == pytest.approx(float(np.ravel(gwet["se"])[0]), abs=1e-9)
                assert p["intervals"][name]["method"] == "gwet"
            sm = cohens_kappa(table)
            assert p["kappa"] == pytest.approx(sm.kappa, abs=1e-9)
            reference = log_disagreement_t(table)
            assert reference is not None
            assert (p["intervals"]["kappa"]["low"], p["intervals"]["kappa"]["high"]) == pytest.approx(reference,
                                                                                                      abs=1e-9)
            assert p["kappa"] == d["kappa_matrix"][a][b]  # the matrix, unrounded


def test_each_expert_and_the_consensus_against_the_judge_and_the_consensus(team, hermetic_home, capsys):
    db, codes = team
    data = _json(capsys, db)["team"]
    assert data["judge"] == f"{JUDGE}p2"
    assert data["confidence"] == 0.95
    for j, d in enumerate(data["dimensions"]):
        consensus = _consensus(codes, j)
        judge = SCALE[codes["p2"][:, j]]
        sides = {e: (SCALE[codes[e][:, j]], judge) for e in EXPERTS} | {"consensus": (consensus, judge)}
        rows = {**d["experts_vs_judge"], "consensus": d["consensus_vs_judge"]}
        # each expert against the others' consensus: their own score is left out of it
        against_consensus = {f"c:{e}": (_consensus(codes, j, leave_out=e), SCALE[codes[e][:, j]]) for e in EXPERTS}
        rows |= {f"c:{e}": row for e, row in d["experts_vs_consensus"].items()}
        for name, (a, b) in {**sides, **against_consensus}.items():
            keep = ~np.isnan(a) & ~np.isnan(b) & (np.arange(N) < (N - 10) if "cat" in name else True)
            a, b = a[keep], b[keep]
            row = rows[name]
            assert row["n"] == a.size
            aligned = int(np.count_nonzero(np.abs(a - b) <= 0.15 + 1e-9))
            low, high = proportion_confint(aligned, a.size, alpha=0.05, method="wilson")
            assert row["alignment"] == aligned / a.size
            assert (row["intervals"]["alignment"]["low"], row["intervals"]["alignment"]["high"]) == pytest.approx(
                (low, high), abs=1e-9)
            assert row["intervals"]["alignment"]["method"] == "wilson"
            r = stats.pearsonr(a, b)
            assert row["pearson_r"] == pytest.approx(r.statistic, abs=1e-9)
            reference = jackknife_fisher_z(a, b)
            assert reference is not None
            assert (row["intervals"]["pearson_r"]["low"], row["intervals"]["pearson_r"]["high"]) == pytest.approx(
                reference, abs=1e-9)
            points = np.abs(a[:, None] - SCALE).argmin(axis=1), np.abs(b[:, None] - SCALE).argmin(axis=1)
            table = np.zeros((3, 3))
            np.add.at(table, points, 1)
            sm = cohens_kappa(table)
            assert row["kappa"] == pytest.approx(sm.kappa, abs=1e-9)
            reference = log_disagreement_t(table)
            assert reference is not None
            assert row["intervals"]["kappa"]["low"] == pytest.approx(reference[0], abs=1e-9)


def test_pooled_alignment_is_a_cluster_bootstrap_over_items(team, hermetic_home, capsys):
    db, codes = team
    data = _json(capsys, db)["team"]
    hits = np.stack([np.abs(SCALE[codes["ann"][:, j]] - SCALE[codes["p2"][:, j]]) <= 0.15 for j in range(3)], 1)
    assert data["pooled_alignment"]["ann"] == hits.mean()
    rng = np.random.default_rng(7)
    drawn = [hits[rng.integers(0, N, N)].mean() for _ in range(4000)]
    low, high = _percentiles(drawn)
    got = data["pooled_alignment_intervals"]["ann"]
    assert got["method"] == "cluster bootstrap (items)"
    assert got["low"] == pytest.approx(low, abs=0.02)
    assert got["high"] == pytest.approx(high, abs=0.02)
    # Wilson over the 180 scores would pretend they were independent: narrower than resampling whole items.
    wilson_low, wilson_high = proportion_confint(int(hits.sum()), hits.size, method="wilson")
    assert got["high"] - got["low"] != pytest.approx(wilson_high - wilson_low, abs=1e-6)


def test_a_perfect_pooled_alignment_is_not_claimed_certain():
    keys = np.arange(6)
    pairs = [AlignedPair(keys, np.ones(6), np.ones(6)) for _ in range(3)]
    got = pooled_interval(pairs, 0.15, 0.95)
    assert isinstance(got, Interval)
    assert got.method == "wilson (items)"
    assert got.low == pytest.approx(proportion_confint(6, 6, method="wilson")[0], abs=1e-9)
    assert got.high == 1.0


def test_the_bootstrap_gives_way_to_the_jackknife_past_the_item_limit():
    rng = np.random.default_rng(4)
    n = 3000
    truth = rng.integers(0, 3, (n, 3)) * 0.5
    pairs = [AlignedPair(np.arange(n), truth[:, j], np.clip(truth[:, j] + rng.choice([-0.5, 0, 0, 0.5], n), 0, 1))
             for j in range(3)]
    boot = pooled_interval(pairs, 0.15, 0.95)
    jack = pooled_interval(pairs, 0.15, 0.95, max_bootstrap_items=100)
    assert isinstance(boot, Interval)
    assert isinstance(jack, Interval)
    assert jack.method == "infinitesimal jackknife (items)"
    assert (jack.low, jack.high) == pytest.approx((boot.low, boot.high), abs=0.004)


def test_the_team_json_keeps_every_earlier_key_at_full_precision(team, hermetic_home, capsys):
    db, _ = team
    data = _json(capsys, db)
    before = json.loads((PINNED / "keys_schema_1.json").read_text())

    def paths(value: object, prefix: str = "") -> set[str]:
        out = set()
        if isinstance(value, dict):
            for k, v in value.items():
                here = f"{prefix}.{k}" if prefix else k
                out |= {here} | paths(v, here)
        elif isinstance(value, list):
            for v in value:
                out |= paths(v, prefix + "[]")
        return out

    pinned = {name: paths(json.loads((PINNED / name).read_text())) for name in before}
    for name, keys in before.items():
        assert set(keys) <= pinned[name], name  # the pinned reports only gained keys
    # The team section of this database holds every key the pinned team section held (expert names aside).
    team_keys = {k for k in before["team.json"] if k.startswith("team.") and not any(
        f".{e}" in k for e in ("ann", "bob", "cat", "consensus"))}
    assert team_keys <= paths(data)
    alpha = data["team"]["dimensions"][0]["alpha"]
    assert alpha != round(alpha, 4)  # not rounded any more


# ------------------------------------------------------------------------------------------------- self-agreement


def test_expert_self_agreement_intervals(team, hermetic_home, capsys):
    db, codes = team
    [ann] = _json(capsys, db)["expert_self_agreement"]
    assert ann["pairs"] == 20
    for j, dimension in enumerate(DIMS):
        first, again = SCALE[codes["ann"][:20, j]], SCALE[codes["ann_again"][:20, j]]
        row = ann["by_dimension"][dimension]
        aligned = int(np.count_nonzero(np.abs(first - again) <= 0.15))
        low, high = proportion_confint(aligned, 20, method="wilson")
        assert (row["intervals"]["alignment"]["low"], row["intervals"]["alignment"]["high"]) == pytest.approx(
            (low, high), abs=1e-9)
        # 20 repeat pairs: below the 25 items a kappa interval needs
        assert row["intervals"]["kappa"] is None
        assert "too few items" in row["undefined"]["kappa"]
    assert ann["intervals"]["alignment"]["method"] == "cluster bootstrap (items)"


def test_judge_self_agreement_intervals(team, hermetic_home, capsys):
    db, codes = team
    [judge] = _json(capsys, db)["self_agreement"]
    assert judge["repeats"] == 2
    for j, dimension in enumerate(DIMS, start=1):  # structural_validity comes first
        row = judge["dimensions"][j]
        assert row["dimension"] == dimension
        first, again = codes["p2"][:, j - 1], codes["p2_again"][:, j - 1]
        aligned = int(np.count_nonzero(first == again))
        low, high = proportion_confint(aligned, N, method="wilson")
        assert (row["intervals"]["alignment_rate"]["low"], row["intervals"]["alignment_rate"]["high"]) == \
            pytest.approx((low, high), abs=1e-9)
        table = np.zeros((3, 3))
        np.add.at(table, (first, again), 1)
        reference = log_disagreement_t(table)
        assert reference is not None
        assert (row["intervals"]["cohen_kappa"]["high"] == pytest.approx(reference[1],
                                                                                                   abs=1e-9))
    assert judge["dimensions"][-1]["intervals"]["cohen_kappa"] is None
    assert "overall" in judge["dimensions"][-1]["undefined"]["cohen_kappa_interval"]


# ------------------------------------------------------------------------------------------------- --compare


def test_compare_is_a_paired_bootstrap_with_a_verdict(team, hermetic_home, capsys):
    db, codes = team
    data = _json(capsys, db, "--compare", "p1", "p2")["version_comparison"]
    again = _json(capsys, db, "--compare", "p1", "p2")["version_comparison"]
    assert data == again  # deterministic
    assert data["split"] == "all items (no splits assigned)"
    assert data["items"] == N
    rng = np.random.default_rng(21)
    for j, d in enumerate(data["dimensions"]):
        consensus = _consensus(codes, j)
        hits = [np.abs(consensus - SCALE[codes[p][:, j]]) <= 0.15 + 1e-9 for p in ("p1", "p2")]
        assert d["alignment"]["change"] == pytest.approx(hits[1].mean() - hits[0].mean(), abs=1e-12)
        drawn = []
        for _ in range(3000):
            pick = rng.integers(0, N, N)  # the same items for both versions
            drawn.append(hits[1][pick].mean() - hits[0][pick].mean())
        low, high = _percentiles(drawn)
        got = d["alignment"]["intervals"]["change"]
        assert got["method"] == "paired bootstrap (items)"
        assert got["low"] == pytest.approx(low, abs=0.03)
        assert got["high"] == pytest.approx(high, abs=0.03)
        for figure in ("alignment", "kappa", "pearson_r"):
            assert d[figure]["verdict"] == "improved", (d["dimension"], figure)
    assert data["alignment"]["verdict"] == "improved"
    assert data["alignment"]["intervals"]["change"]["method"] == "paired cluster bootstrap (items)"
    worse = _json(capsys, db, "--compare", "p2", "p1")["version_comparison"]
    assert all(d[f]["verdict"] == "worse" for d in worse["dimensions"] for f in ("alignment", "kappa", "pearson_r"))
    noise = _json(capsys, db, "--compare", "p1", "p3")["version_comparison"]
    assert noise["alignment"]["verdict"] == "no detectable change"
    assert {d["kappa"]["verdict"] for d in noise["dimensions"]} == {"no detectable change"}


def test_compare_in_text_and_markdown(team, hermetic_home, capsys):
    db, _ = team
    for fmt in ("text", "markdown"):
        capsys.readouterr()
        assert main(["report", "--db", str(db), "--format", fmt, "--compare", "p1", "p2"]) == 0
        out = capsys.readouterr().out
        assert "paired bootstrap" in out
        assert "improved" in out
        assert " pts [+" in out


@pytest.mark.slow
def test_paired_change_of_kappa_and_r_against_an_independent_paired_resampling():
    rng = np.random.default_rng(8)
    n = 80
    human = rng.integers(0, 3, n) * 0.5
    first = np.clip(human + rng.choice([-0.5, 0, 0.5], n), 0, 1)
    second = np.clip(human + rng.choice([-0.5, 0, 0, 0, 0.5], n), 0, 1)
    keys = np.arange(n)
    pairs = (AlignedPair(keys, human, first), AlignedPair(keys, human, second))

    class Scale:
        points, ordered = (0.0, 0.5, 1.0), True

    class Rubric:
        scale = Scale

    figures = tuple(compare(p.a, p.b, SCALE, ordered=True, tolerance=0.15, figures=ROW_FIGURES) for p in pairs)
    got = paired_changes(pairs, figures, Rubric, 0.15, 0.95)  # type: ignore[arg-type]  # a stand-in rubric: only its scale is read
    drawn_kappa, drawn_r = [], []
    for _ in range(2000):
        pick = rng.integers(0, n, n)
        f = [compare(human[pick], p.b[pick], SCALE, ordered=True, tolerance=0.15, figures=ROW_FIGURES) for p in pairs]
        drawn_kappa.append(defined(f[1].cohen_kappa) - defined(f[0].cohen_kappa))
        drawn_r.append(stats.pearsonr(human[pick], second[pick])[0] - stats.pearsonr(human[pick], first[pick])[0])
    for name, drawn in (("kappa", drawn_kappa), ("pearson_r", drawn_r)):
        low, high = _percentiles(drawn)
        interval = got[name].interval
        assert isinstance(interval, Interval)
        assert (interval.low, interval.high) == pytest.approx((low, high), abs=0.04), name
    # Past the item limit the same changes are linearised, and agree with the bootstrap.
    big = paired_changes(pairs, figures, Rubric, 0.15, 0.95, max_bootstrap_items=10)  # type: ignore[arg-type]  # a stand-in rubric, as above
    for name in ("alignment", "kappa", "pearson_r"):
        a, b = got[name].interval, big[name].interval
        assert isinstance(a, Interval)
        assert isinstance(b, Interval)
        assert b.method == "infinitesimal jackknife (paired items)"
        assert (b.low, b.high) == pytest.approx((a.low, a.high), abs=0.05), name


@pytest.mark.parametrize(("low", "high", "verdict"), [
    (0.01, 0.2, "improved"), (-0.2, -0.01, "worse"), (-0.1, 0.1, "no detectable change"),
    (0.0, 0.2, "no detectable change"), (-0.2, 0.0, "no detectable change"),
])
def test_change_verdict_at_the_boundaries(low, high, verdict):
    assert change_verdict(Interval(low, high, "paired bootstrap (items)", 0.95)) == verdict


# ------------------------------------------------------------------------------------------------- no comparison


def _cli(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "JUDGE_TUI_HOME": str(home)}
    env.pop("JUDGE_TUI_DB", None)
    return subprocess.run([sys.executable, "-m", "judge_tui", *args], capture_output=True, text=True, env=env,
                          timeout=120)


@pytest.mark.slow
def test_raters_with_no_shared_items_exit_1_in_a_real_process(tmp_path, hermetic_home):
    from judge_tui.model.rubrics import load_rubrics

    rubric = load_rubrics()["exercise-quality"][0]
    db = tmp_path / "apart.db"
    with Store(db) as store:
        store.ensure_rubric_version(rubric)
        store.add_items([exercise_item(n) for n in range(1, 7)])
        rate(store, rubric, "ann", "human", {f"E0{n}": dict.fromkeys(DIMS, 1.0) for n in (1, 2, 3)})
        rate(store, rubric, "bob", "human", {f"E0{n}": dict.fromkeys(DIMS, 0.5) for n in (4, 5, 6)})
    for fmt in ("text", "json"):
        done = _cli("report", "--db", str(db), "--raters", "ann,bob", "--format", fmt, home=hermetic_home)
        assert done.returncode == 1
        assert done.stdout == ""
        assert "Traceback" not in done.stderr
        assert "no item of rubric 'exercise-quality' was rated by both the human rater ann and" in done.stderr
        assert "(3 rated by the first, 3 by the second)" in done.stderr


def test_the_json_report_without_a_judge_keeps_its_documented_shape(tmp_path, hermetic_home, capsys):
    from judge_tui.model.rubrics import load_rubrics

    rubric = load_rubrics()["exercise-quality"][0]
    db = tmp_path / "no-judge.db"
    with Store(db) as store:
        store.ensure_rubric_version(rubric)
        store.add_items([exercise_item(n) for n in range(1, 7)])
        for expert, score in (("ann", 1.0), ("bob", 0.5)):
            rate(store, rubric, expert, "human", {f"E0{n}": dict.fromkeys(DIMS, score if n % 2 else 1.0)
                                                  for n in range(1, 7)})
    data = _json(capsys, db)
    documented = ["schema_version", "rubric", "split", "raters", "thresholds", "counts", "summary", "dimensions",
                  "overall", "verdict", "breakdowns", "self_agreement", "human_agreement", "flagged_items"]
    assert [key for key in data if key in documented] == documented
    assert data["rubric"]["id"] == "exercise-quality"
    assert data["rubric"]["scale"]
    assert data["raters"]["human"]["ids"] == ["ann", "bob"]
    assert data["raters"]["judge"]["ids"] == []
    assert data["thresholds"]["kappa"]["substantial"] == 0.61
    assert data["counts"] is None
    assert data["summary"] is None
    assert data["overall"] is None
    assert data["dimensions"] == []
    assert data["verdict"] == []
    assert data["self_agreement"] == []
    assert "no judge ratings" in data["judge_comparison"]
    assert set(data["undefined"]) == {"counts", "summary", "overall"}
    assert data["team"]["judge"] is None
    row = data["team"]["dimensions"][0]["consensus_vs_judge"]
    assert row["intervals"]["alignment"] is None
    assert row["undefined"]["alignment"]


def test_ac1_of_perfect_agreement_is_not_claimed_certain():
    from judge_tui.stats.chance import gwet_ac

    table = np.diag([5.0, 3.0, 0.0])  # eight items, every one agreed
    for weights in (None, "quadratic"):
        found = defined(gwet_ac(table, weights))
        assert not isinstance(found, type(None))
        assert found.value == 1.0
        assert found.standard_error == 0.0
        interval = found.interval
        assert isinstance(interval, Interval)
        assert interval.method == "wilson-agreement"
        low = proportion_confint(8, 8, method="wilson")[0]
        assert interval.low == pytest.approx((low - found.chance_agreement) / (1 - found.chance_agreement), abs=1e-12)
        assert interval.low < 0.8
        assert interval.high == 1.0


def test_status_names_the_method_of_the_team_alpha_as_the_report_does(tmp_path, hermetic_home, capsys):
    from judge_tui.model.rubrics import load_rubrics
    from judge_tui.study.team_progress import team_progress

    rubric = load_rubrics()["exercise-quality"][0]
    db = tmp_path / "plan.db"
    with Store(db) as store:
        store.ensure_rubric_version(rubric)
        store.add_items([exercise_item(n) for n in range(1, 21)])
    assert main(["assign", "--db", str(db), "--rubric", "exercise-quality", "--experts", "ann,bob",
                 "--overlap", "1"]) == 0
    rng = np.random.default_rng(2)
    truth = rng.integers(0, 3, (20, 3))
    with Store(db) as store:
        for e in ("ann", "bob"):
            rate(store, rubric, e, "human", _sheet(_noisy(rng, truth, 0.2), range(1, 21)))
        progress = team_progress(store, rubric, AgreementSettings(team_alpha_target=0.8))
    assert progress is not None
    assert {d.method for d in progress.agreement.dimensions} == {"bootstrap (units)"}


def test_pooled_alignment_of_one_dimension_is_wilson():
    keys = np.arange(10)
    hits = np.array([1.0] * 7 + [0.0] * 3)
    got = pooled_interval([AlignedPair(keys, hits, np.ones(10))], 0.15, 0.95)
    low, high = proportion_confint(7, 10, method="wilson")
    assert isinstance(got, Interval)
    assert got.method == "wilson"
    assert (got.low, got.high) == pytest.approx((low, high), abs=1e-12)


def test_repeat_pairs_past_the_item_limit_take_conservative_closed_forms(monkeypatch):
    import judge_tui.analysis.pair_intervals as module

    rng = np.random.default_rng(6)
    n = 200
    truth = rng.integers(0, 3, n) * 0.5
    runs = [np.clip(truth + rng.choice([-0.5, 0, 0, 0, 0.5], n), 0, 1) for _ in range(3)]
    keys = np.arange(n)
    pairs = [AlignedPair(keys, runs[a], runs[b]) for a, b in ((0, 1), (0, 2), (1, 2))]

    class Scale:
        points, ordered = (0.0, 0.5, 1.0), True

    class Rubric:
        scale = Scale

    boot = module.repeat_intervals(pairs, Rubric, 0.15, kappa=True, confidence=0.95)  # type: ignore[arg-type]  # a stand-in rubric: only its scale is read
    monkeypatch.setattr(module, "BOOTSTRAP_MAX_ITEMS", 10)
    closed = module.repeat_intervals(pairs, Rubric, 0.15, kappa=True, confidence=0.95)  # type: ignore[arg-type]  # a stand-in rubric: only its scale is read
    for name in ("alignment", "kappa"):
        a, b = boot[name], closed[name]
        assert isinstance(a, Interval)
        assert isinstance(b, Interval)
        assert a.method == "bootstrap (items, mean over repeat pairs)"
        assert b.method.endswith("(mean over repeat pairs, conservative)")
        # The bound on the standard error of a mean of correlated figures: at least as wide as the bootstrap's.
        assert b.high - b.low >= (a.high - a.low) * 0.95


def test_the_judge_screen_headline_says_whether_the_change_helped(team, hermetic_home):
    from judge_tui.analysis.compare import compare_versions
    from judge_tui.store.rubric_choice import resolve_rubric
    from judge_tui.tui.screens.calibrate_figures import change_headline

    db, _ = team
    with Store(db) as store:
        rubric = resolve_rubric("exercise-quality", store)
        better = change_headline(compare_versions(store, rubric, "p1", "p2"))
        noise = change_headline(compare_versions(store, rubric, "p1", "p3"))
    assert better.endswith(f"over {N} items judged by both: improved")
    assert " pts [+" in better
    assert noise.endswith("no detectable change yet")
