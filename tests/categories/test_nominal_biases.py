"""The judge's biases on nominal categories. A category's stored position is a name, not a number: a mean of
judge − experts over positions (leniency) or its correlation with length means nothing, so both are undefined
with the reason, in the report and on the judge screen; the category shares (the judge's share of each category
minus the experts', with Newcombe's paired interval) take leniency's place. The judge's self-consistency counts
only the same category as aligned. Each test runs on the ordered twin of the rubric too, where the old figures
stand."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from judge_tui.analysis.biases import NOMINAL_LENGTH, NOMINAL_LENIENCY, judge_biases
from judge_tui.judge.calibration import current_prompt_version
from judge_tui.model.records import Item
from judge_tui.model.rubrics import Rubric, load_rubric
from judge_tui.model.settings import Settings
from judge_tui.stats.bias import category_shifts
from judge_tui.stats.intervals import newcombe_paired, wilson
from judge_tui.store import Store
from tests.categories.topic_study import ok, write_topic_rubric
from tests.narrowing import defined, present, screen_of
from tests.team_fixtures import rate
from tests.tui.screen_text import widget_text
from tests.waiting import app_until

ITEMS = [f"q{n:02d}" for n in range(12)]
EXPERTS = dict(zip(ITEMS, ["maths"] * 3 + ["physics"] * 3 + ["chemistry"] * 3 + ["biology"] * 3, strict=True))
# The judge puts three of the experts' physics and chemistry items in maths: maths 6 of 12 against 3 of 12.
JUDGE = {**EXPERTS, "q03": "maths", "q04": "maths", "q06": "maths"}
JUDGE_ID = "judge:m:topic@aaaa1111"


def _lines(said: dict[str, str]) -> str:
    return "".join(json.dumps({"item_id": i, "topic": v}) + "\n" for i, v in said.items())


@pytest.mark.slow
@pytest.mark.parametrize("order", ["nominal", "ordered"])
def test_the_report_leaves_leniency_and_length_undefined_on_nominal_categories(tmp_path: Path, order: str) -> None:
    home, db = tmp_path / "home", tmp_path / "topic.db"
    write_topic_rubric(home, order)
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps({"id": i, "question": "Which topic? " + "x" * (7 * n)}) + "\n"
                             for n, i in enumerate(ITEMS)))
    ok(home, "import", items, "--rubric", "topic", "--db", db)
    for rater, kind, said in (("ann", "human", EXPERTS), ("bob", "human", EXPERTS), (JUDGE_ID, "judge", JUDGE)):
        rows = tmp_path / f"{kind}-{rater[:3]}.jsonl"
        rows.write_text(_lines(said))
        ok(home, "import-ratings", rows, "--rater", rater, "--kind", kind, "--db", db)
    [section] = json.loads(ok(home, "report", "--db", db, "--rubric", "topic", "--format", "json"))["judge_biases"]
    leniency, length = section["leniency"], section["length_bias"]
    assert [le["key"] for le in leniency] == ["topic", "overall"]
    assert length["field"] == "question"
    if order == "ordered":  # a mean of positions means something there: the old figures, no category shares
        assert all(isinstance(le["mean_difference"], float) for le in leniency)
        assert isinstance(length["spearman_rho"], float)
        assert "category_shares" not in section
        return
    for le in leniency:
        assert le["n"] == 12
        assert le["mean_difference"] is None
        assert le["interval"] is None
        assert le["undefined"] == {"mean_difference": NOMINAL_LENIENCY, "interval": NOMINAL_LENIENCY}
        assert le["excludes_zero"] is False
    assert length["spearman_rho"] is None
    assert length["flagged"] is False
    assert length["n"] == 12
    assert length["undefined"] == {"spearman_rho": NOMINAL_LENGTH, "interval": NOMINAL_LENGTH}
    [shares] = section["category_shares"]
    assert shares["key"] == "topic"
    assert len(shares["categories"]) == 9
    by_name = {c["category"]: c for c in shares["categories"]}
    maths, physics, art = by_name["maths"], by_name["physics"], by_name["art"]
    assert (maths["n"], maths["judge_share"], maths["experts_share"]) == (12, 6 / 12, 3 / 12)
    assert maths["difference"] == pytest.approx(0.25)
    expected = defined(newcombe_paired(3, 3, 0, 6))  # both maths, judge only, experts only, neither
    assert maths["interval"] == {"low": expected.low, "high": expected.high, "method": "newcombe paired",
                                 "confidence": 0.95}
    assert maths["excludes_zero"] is (expected.low > 0)
    assert physics["difference"] == pytest.approx(1 / 12 - 3 / 12)
    assert art["difference"] == 0.0
    assert art["judge_share"] == 0.0  # a category nobody named: 0, not n/a

    text = " ".join(ok(home, "report", "--db", db, "--rubric", "topic", "--format", "text").split())
    assert f"Leniency: n/a: {NOMINAL_LENIENCY}" in text
    assert f"Length bias: n/a: {NOMINAL_LENGTH}" in text
    assert "Category shares of topic" in text
    assert "+25.0 pts" in text
    markdown = ok(home, "report", "--db", db, "--rubric", "topic", "--format", "markdown")
    assert "| maths | 50.0% | 25.0% | +25.0 pts" in markdown
    assert "| overall |" not in markdown


def test_newcombes_paired_interval_equals_the_published_worked_example() -> None:
    """Fagerland, Lydersen and Laake, Statistical Analysis of Contingency Tables (2017), ch. 8, the Cavo et al.
    table: estimate −0.0621, 95% interval −0.1186 to −0.0046 (as the book's R package prints it)."""
    found = defined(newcombe_paired(59, 6, 16, 80))
    assert (round(found.low, 4), round(found.high, 4)) == (-0.1186, -0.0046)
    [maths] = [s for s in category_shifts(np.array([0.0] * 65 + [1.0] * 96), np.array([0.0] * 59 + [1.0] * 6
                                          + [0.0] * 16 + [1.0] * 80), 2) if s.code == 0]
    assert round(defined(maths.shift.value), 4) == -0.0621
    assert maths.shift.interval == found
    # Each share alone: the Wilson interval, as statsmodels computes it.
    low, high = proportion_confint(65, 161, alpha=0.05, method="wilson")
    assert defined(wilson(65, 161)).low == pytest.approx(low)
    assert defined(wilson(65, 161)).high == pytest.approx(high)


def test_the_category_shares_interval_covers_the_true_difference_as_often_as_it_says() -> None:
    """Known truth: the judge copies the expert's category with probability 0.7, else names one at random from
    a skewed distribution, so the true shift of each category is known. Each 95% interval covers it in at least
    94% of 2000 simulated studies of 40 items (Newcombe's method keeps close to its level from n = 40 on)."""
    rng = np.random.default_rng(11)
    expert_p = np.array([0.5, 0.3, 0.2])
    other_p = np.array([0.2, 0.2, 0.6])
    truth = 0.3 * (other_p - expert_p)  # 0.7·expert + 0.3·other − expert
    studies, n = 2000, 40
    covered = np.zeros(3)
    for _ in range(studies):
        human = rng.choice(3, size=n, p=expert_p).astype(float)
        judge = np.where(rng.random(n) < 0.7, human, rng.choice(3, size=n, p=other_p)).astype(float)
        for s in category_shifts(judge, human, 3):
            interval = defined(s.shift.interval)
            covered[s.code] += interval.low <= truth[s.code] <= interval.high
    assert (covered / studies >= 0.94).all(), covered / studies


NEIGHBOURS = {"q00": "maths", "q01": "chemistry", "q02": "art", "q03": "art", "q04": "music", "q05": "geography"}
SIX = {"q00": "maths", "q01": "physics", "q02": "art", "q03": "sport", "q04": "music", "q05": "history"}


def _topic_store(tmp_path: Path, order: str, judge_id: str = JUDGE_ID) -> tuple[Path, Rubric]:
    """Six items; two experts who agree; the judge exact on its first run and a neighbouring category (0.125
    away, inside the default ±0.15) on three items in its second."""
    home = Path(tmp_path) / "home"
    write_topic_rubric(home, order)
    rubric = load_rubric(home / "rubrics" / "topic.rubric.toml")
    db = tmp_path / "topic.db"
    scores = {i: {"topic": rubric.scale.parse(v)} for i, v in SIX.items()}
    with Store(db) as store:
        store.add_items([Item(id=i, rubric="topic", split="dev", fields={"question": f"What is {i} about?"})
                         for i in SIX])
        version = current_prompt_version(store, rubric) if judge_id == "" else judge_id.rpartition("@")[2]
        judge = f"judge:m:topic@{version}"
        rate(store, rubric, "ann", "human", scores)
        rate(store, rubric, "bob", "human", scores)
        rate(store, rubric, judge, "judge", scores, prompt_version=version)
        rate(store, rubric, judge, "judge", {i: {"topic": rubric.scale.parse(v)} for i, v in NEIGHBOURS.items()},
             repeat=1, prompt_version=version)
    return db, rubric


@pytest.mark.parametrize("order", ["nominal", "ordered"])
def test_the_judges_self_consistency_counts_only_the_same_category(tmp_path: Path, order: str) -> None:
    db, rubric = _topic_store(tmp_path, order)
    with Store(db) as store:
        biases = judge_biases(store, rubric, JUDGE_ID)
    consistency = present(biases.self_consistency)
    aligned = {"nominal": 3 / 6, "ordered": 6 / 6}[order]
    assert {r.key: r.alignment_rate for r in consistency.rows} == {"topic": aligned, "overall": aligned}


async def test_the_judge_screen_says_why_leniency_and_length_are_not_shown(tmp_path: Path) -> None:
    from judge_tui.tui.screens.calibrate import CalibrationApp, CalibrationScreen

    db, rubric = _topic_store(tmp_path, "nominal", judge_id="")
    with Store(db) as store:
        app = CalibrationApp(store, rubric, "lead", settings=Settings(judge_in_background=False))
        async with app.run_test(size=(80, 24)) as pilot:
            screen = screen_of(app, CalibrationScreen)
            standing = await app_until(pilot, lambda: screen.standing, "the judge screen's figures")
            await pilot.pause()
            assert standing.biases is not None
            shown = " ".join(widget_text(app).split())
    assert f"Leniency: n/a: {NOMINAL_LENIENCY}" in shown
    assert f"Length bias: n/a: {NOMINAL_LENGTH}" in shown
    assert "Category shares of topic" in shown
    assert "judge − experts" in shown
    assert "no detectable lean" not in shown
