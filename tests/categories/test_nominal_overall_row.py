"""The overall row on a rubric of categories. Its overall is the one dimension's category (`overall = "label"`,
which every nominal rubric has), not an average of dimensions: the judge's self-agreement compares it repeat
against repeat as the dimension is compared, kappa and its interval included, as the judge-vs-experts section
already does. Only an overall that is a weighted mean keeps kappa undefined, with that reason. Nor is a group of
experts a mean on nominal categories: the report's header says it is their majority category."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sklearn.metrics import cohen_kappa_score

from judge_tui.model.records import Item
from judge_tui.model.rubrics import load_rubric
from judge_tui.stats.agreement import AVERAGED_OVERALL
from judge_tui.store import Store
from tests.categories.topic_study import TOPICS, ok, topic_rubric
from tests.team_fixtures import rate

JUDGE = "judge:m:topic@aaaa1111"
ITEMS = [f"q{n:02d}" for n in range(30)]  # past 25 items both sides rated, kappa has an interval
FIRST = {i: TOPICS[n % 5] for n, i in enumerate(ITEMS)}
# The second run moves a third of the items to the next topic: kappa well inside (0, 1).
SECOND = {i: TOPICS[(n % 5) + (n % 3 == 0)] for n, i in enumerate(ITEMS)}


def _study(tmp_path: Path, order: str, overall: str = "label") -> tuple[Path, Path]:
    home, db = tmp_path / "home", tmp_path / "topic.db"
    (home / "rubrics").mkdir(parents=True)
    (home / "rubrics" / "topic.rubric.toml").write_text(
        topic_rubric(order).replace('overall = "label"', f'overall = "{overall}"'), encoding="utf-8")
    rubric = load_rubric(home / "rubrics" / "topic.rubric.toml")
    with Store(db) as store:
        store.add_items([Item(id=i, rubric="topic", fields={"question": f"What is {i} about?"}) for i in ITEMS])
        for rater, kind, repeat, said in (("ann", "human", 0, FIRST), ("bob", "human", 0, SECOND),
                                          (JUDGE, "judge", 0, FIRST),
                                          (JUDGE, "judge", 1, SECOND)):
            rate(store, rubric, rater, kind, {i: {"topic": rubric.scale.parse(v)} for i, v in said.items()},
                 repeat=repeat, prompt_version="aaaa1111" if kind == "judge" else None)
    return home, db


@pytest.mark.slow
@pytest.mark.parametrize("order", ["nominal", "ordered"])
def test_the_judges_self_agreement_gives_the_overall_category_its_kappa(tmp_path: Path, order: str) -> None:
    home, db = _study(tmp_path, order)
    data = json.loads(ok(home, "report", "--db", db, "--rubric", "topic", "--format", "json"))
    [judge] = data["self_agreement"]
    rows = {r["dimension"]: r for r in judge["dimensions"]}
    expected = cohen_kappa_score([FIRST[i] for i in ITEMS], [SECOND[i] for i in ITEMS])
    assert 0.2 < expected < 0.9
    assert rows["topic"]["cohen_kappa"] == pytest.approx(expected, abs=1e-12)
    overall = rows["overall"]
    assert overall["cohen_kappa"] == pytest.approx(expected, abs=1e-12)
    assert overall["intervals"] == rows["topic"]["intervals"]
    assert overall["intervals"]["cohen_kappa"] is not None
    assert overall["undefined"] == {}
    assert sorted(overall) == sorted(rows["topic"])  # the same keys as before
    # The judge-vs-experts overall row is the same category, kappa and all: the two sections say the same thing.
    assert data["overall"]["cohen_kappa"] == data["dimensions"][0]["cohen_kappa"]
    for fmt in ("json", "text", "markdown"):  # no section gives the reason of an averaged overall
        said = " ".join(ok(home, "report", "--db", db, "--rubric", "topic", "--format", fmt).split())
        assert AVERAGED_OVERALL not in said, fmt
    text = ok(home, "report", "--db", db, "--rubric", "topic", "--format", "text")
    section = text[text.index("Judge self-agreement"):]
    overall_line = next(line for line in section.splitlines() if "│ overall" in line)
    assert f"{expected:.3f}" in overall_line
    assert "n/a" not in overall_line


@pytest.mark.slow
def test_an_averaged_overall_keeps_kappa_undefined_with_its_reason(tmp_path: Path) -> None:
    home, db = _study(tmp_path, "ordered", overall="weighted_mean")
    data = json.loads(ok(home, "report", "--db", db, "--rubric", "topic", "--format", "json"))
    [judge] = data["self_agreement"]
    overall = next(r for r in judge["dimensions"] if r["dimension"] == "overall")
    assert overall["cohen_kappa"] is None
    assert overall["intervals"]["cohen_kappa"] is None
    assert overall["undefined"] == {"cohen_kappa": AVERAGED_OVERALL, "cohen_kappa_interval": AVERAGED_OVERALL}
    assert data["overall"]["undefined"]["cohen_kappa"] == AVERAGED_OVERALL
    assert overall["alignment_rate"] == next(r for r in judge["dimensions"] if r["dimension"] == "topic")[
        "alignment_rate"]


@pytest.mark.slow
@pytest.mark.parametrize("order", ["nominal", "ordered"])
def test_the_header_says_how_a_group_of_experts_makes_one_category(tmp_path: Path, order: str) -> None:
    home, db = _study(tmp_path, order)
    combine = {"nominal": "majority category of 2 raters per item, a tie left out (first runs, newest rubric version)",
               "ordered": "mean of 2 raters per item (first runs, newest rubric version)"}[order]
    data = json.loads(ok(home, "report", "--db", db, "--rubric", "topic", "--format", "json"))
    assert data["raters"]["human"] == {"ids": ["ann", "bob"], "combine": combine}
    assert data["raters"]["judge"]["combine"] == "first run, newest rubric version"
    for fmt in ("text", "markdown"):
        said = " ".join(ok(home, "report", "--db", db, "--rubric", "topic", "--format", fmt).split())
        assert f"ann, bob ({combine})" in said, fmt
