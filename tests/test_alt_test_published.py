"""`judge-tui report` on the nine published data sets of the alternative annotator test equals its authors' own
procedure on them: every LLM's winning rate and advantage probability, each data set entered with the scale its
ratings are (named categories, or whole numbers 1 to 5 and 0 to 6), scored as the authors score it."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from judge_tui.cli import main
from judge_tui.model import locations

DATA = Path(__file__).parent / "data" / "alt_test"

# The authors' procedure (nitaytech/AltTest, alt_test_example.ipynb at commit 18428b1: alt_test with their scoring
# function and ε for each data set, q = 0.05, 2 experts per item, 30 items per expert), run on the data files here
# outside judge-tui; its printed figures, to two decimals, are these rounded. (winning rate, advantage probability)
REFERENCE: dict[str, tuple[str, float, dict[str, tuple[float, float]]]] = {
    "wax": ("accuracy", 0.1, {
        "gemini_flash": (0.375, 0.6923117015237552), "gemini_pro": (0.5, 0.737148232999707),
        "gpt-4o": (0.5, 0.7300214903206385), "llama-31": (0.0, 0.5730284799365712),
        "gpt-4o-mini": (0.0, 0.5944934993309019), "mistral-v03": (0.0, 0.49771377838950703)}),
    "lgbteen": ("accuracy", 0.2, {
        "gemini_flash": (0.25, 0.7147952741702741), "gemini_pro": (0.0, 0.6655844155844156),
        "gpt-4o": (0.75, 0.7724386724386725), "llama-31": (0.0, 0.7194309163059163),
        "gpt-4o-mini": (0.75, 0.7555555555555555), "mistral-v03": (0.25, 0.746554834054834)}),
    "mtbench": ("accuracy", 0.2, {
        "gemini_flash": (0.0, 0.7189023439023439), "gemini_pro": (0.0, 0.7645128895128894),
        "gpt-4o": (0.0, 0.7728101478101479), "llama-31": (0.0, 0.6871611871611871),
        "gpt-4o-mini": (0.0, 0.7354871104871106), "mistral-v03": (0.0, 0.6831929331929332)}),
    "framing": ("accuracy", 0.15, {
        "gemini_flash": (1.0, 0.8336498310862221), "gemini_pro": (1.0, 0.9061508202209576),
        "gpt-4o": (1.0, 0.9178699744346714), "llama-31": (0.5, 0.801484348844995),
        "gpt-4o-mini": (1.0, 0.872351249353258), "mistral-v03": (0.25, 0.7991327190553001)}),
    "cebab_aspects": ("accuracy", 0.1, {
        "gemini_flash": (0.7, 0.9134572896161544), "gemini_pro": (0.9, 0.9355566752866388),
        "gpt-4o": (0.9, 0.9277370615344072), "llama-31": (0.6, 0.8911068366374245),
        "gpt-4o-mini": (0.5, 0.8962246498648152), "mistral-v03": (0.1, 0.8109817973529495)}),
    "summeval": ("neg_rmse", 0.2, {
        "gemini_flash": (0.0, 0.46125), "gemini_pro": (0.0, 0.44197916666666665),
        "gpt-4o": (0.0, 0.4757291666666667), "llama-31": (0.0, 0.5811458333333334),
        "gpt-4o-mini": (0.0, 0.5445833333333333), "mistral-v03": (0.0, 0.62296875)}),
    "10k_prompts": ("neg_rmse", 0.15, {
        "gemini_flash": (4 / 13, 0.6736567990942783), "gemini_pro": (1 / 13, 0.6300226073905458),
        "gpt-4o": (9 / 13, 0.759008519208346), "llama-31": (2 / 13, 0.6691705192440364),
        "gpt-4o-mini": (12 / 13, 0.7967842028112749), "mistral-v03": (2 / 13, 0.673581406863026)}),
    "cebab_stars": ("neg_rmse", 0.1, {
        "gemini_flash": (0.6, 0.8214660215872229), "gemini_pro": (0.8, 0.8666235020616695),
        "gpt-4o": (0.9, 0.8985877019326693), "llama-31": (0.6, 0.8531833966306959),
        "gpt-4o-mini": (0.9, 0.8941078511659228), "mistral-v03": (0.5, 0.8290684214741388)}),
    "lesion": ("neg_rmse", 0.15, {
        "gemini_flash": (1 / 6, 0.7108062106878162), "gemini_pro": (1.0, 0.8097509240096481),
        "gpt-4o": (0.0, 0.6170321760802888), "gpt-4o-mini": (2 / 3, 0.7348577585568282)}),
}
FAST = {"wax", "lesion"}  # 17 named categories, whole numbers 0 to 6; the others, hundreds to thousands of items
# with six judges each, run with the slow tests


def published(name: str) -> dict[str, dict[str, dict[str, object]]]:
    """The authors' human_annotations.json as "humans" and llm_annotations.json as "llms" (tests/data/alt_test)."""
    path = DATA / f"{name}.json"
    if path.exists():
        return json.loads(path.read_text())
    return json.loads(gzip.decompress((DATA / f"{name}.json.gz").read_bytes()))


def scale_toml(data: dict[str, dict[str, dict[str, object]]], *, as_categories: bool = False) -> str:
    """The scale the ratings are on: whole numbers from the lowest to the highest given, else their names as
    nominal categories (the experts' and the LLMs', an LLM's own label included); `as_categories`: the whole
    numbers as ordered categories named "0", "1", ..."""
    values = [v for side in data.values() for ratings in side.values() for v in ratings.values()]
    if as_categories:
        names = [str(n) for n in sorted(set(values))]  # type: ignore[type-var]  # ints
        return f'kind = "categories"\norder = "ordered"\ncategories = {json.dumps(names)}\n'
    if all(isinstance(v, int) for v in values):
        return f'kind = "integers"\nlowest = {min(values)}\nhighest = {max(values)}\n'  # type: ignore[type-var]  # ints
    names = sorted({str(v) for v in values})
    return f'kind = "categories"\norder = "nominal"\ncategories = {json.dumps(names)}\n'


def rubric_file(tmp_path: Path, data: dict[str, dict[str, dict[str, object]]], *, as_categories: bool = False
                ) -> Path:
    path = tmp_path / "published.rubric.toml"
    path.write_text(f'''id = "published"
name = "A published annotation task"
version = "1"
description = "One label per item, as the data set's annotators gave it."
overall = "label"

[scale]
{scale_toml(data, as_categories=as_categories)}
[[fields]]
name = "text"
label = "Item"

[[dimensions]]
id = "label"
name = "Label"
measures = "The annotation."
''')
    return path


def jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def database_of(name: str, tmp_path: Path, *, as_categories: bool = False) -> tuple[Path, Path]:
    """The published data set imported with the CLI (each annotator an expert, each LLM a judge), the authors' ε
    in the settings: the database and the rubric file."""
    data = published(name)
    _, epsilon, _ = REFERENCE[name]
    locations.settings_path().write_text(json.dumps({"agreement": {"alt_test_epsilon": epsilon}}))
    db, rubric = tmp_path / f"{name}.db", rubric_file(tmp_path, data, as_categories=as_categories)
    ids = sorted(set().union(*data["humans"].values()))
    items = jsonl(tmp_path / "items.jsonl", [{"id": i, "text": i} for i in ids])
    assert main(["import", str(items), "--rubric", str(rubric), "--db", str(db)]) in (0, None)
    raters = [(f"expert-{n}", "human", labels) for n, labels in enumerate(data["humans"].values())]
    raters += [(f"judge:{llm}", "judge", labels) for llm, labels in data["llms"].items()]
    for rater, kind, labels in raters:
        ratings = jsonl(tmp_path / "ratings.jsonl", [{"item_id": i, "label": str(v) if as_categories else v}
                                                             for i, v in labels.items()])
        assert main(["import-ratings", str(ratings), "--rater", rater, "--kind", kind, "--rubric", str(rubric),
                     "--db", str(db)]) in (0, None)
    return db, rubric


def report_on(name: str, tmp_path: Path, *, as_categories: bool = False) -> dict[str, dict[str, object]]:
    """The alternative annotator test of every judge in `report --format json` on the published data set, by
    judge."""
    db, rubric = database_of(name, tmp_path, as_categories=as_categories)
    out = tmp_path / "report.json"
    assert main(["report", "--db", str(db), "--rubric", str(rubric), "--format", "json", "-o", str(out)]) in (0, None)
    page = json.loads(out.read_text())["judge_validity"]
    assert page["epsilon"] == REFERENCE[name][1]
    return {j["judge"].removeprefix("judge:"): next(a for a in j["alt_test"] if a["key"] == "label")
            for j in page["judges"]}


@pytest.mark.parametrize("name", [n if n in FAST else pytest.param(n, marks=pytest.mark.slow) for n in REFERENCE])
def test_report_equals_the_authors_procedure(name: str, tmp_path: Path) -> None:
    scoring, _, expected = REFERENCE[name]
    found = report_on(name, tmp_path)
    assert sorted(found) == sorted(expected)
    for llm, (winning_rate, advantage) in expected.items():
        test = found[llm]
        assert test["scoring"] == scoring, llm
        assert test["winning_rate"] == pytest.approx(winning_rate, abs=1e-12), llm
        assert test["advantage_probability"] == pytest.approx(advantage, abs=1e-12), llm
        assert test["passed"] is (winning_rate >= 0.5), llm


@pytest.mark.slow
def test_the_page_says_how_it_scored_and_the_scale_decides(tmp_path: Path) -> None:
    """The lesion ratings 0 to 6 entered as ordered categories are scored as categories (exact match), which is
    not how the authors score them: ω differs for 3 of the 4 LLMs, and the page says which scoring it used."""
    found = report_on("lesion", tmp_path, as_categories=True)
    assert {t["scoring"] for t in found.values()} == {"accuracy"}
    differs = [llm for llm, (rate, _) in REFERENCE["lesion"][2].items() if found[llm]["winning_rate"] != rate]
    assert len(differs) == 3
    db, rubric = tmp_path / "lesion.db", tmp_path / "published.rubric.toml"
    for fmt, words in (("text", "by match"), ("markdown", "matches exactly, as its authors score labels")):
        out = tmp_path / f"report.{fmt}"
        assert main(["report", "--db", str(db), "--rubric", str(rubric), "--format", fmt, "-o", str(out)]) in (0, None)
        assert words in " ".join(out.read_text().split()), fmt
    numbers = tmp_path / "numbers"
    numbers.mkdir()
    db, rubric = database_of("lesion", numbers)
    out = numbers / "report.md"
    assert main(["report", "--db", str(db), "--rubric", str(rubric), "--format", "markdown", "-o", str(out)]) in (0, None)
    assert "root mean squared distance from the other experts', as its authors score numbers" in out.read_text()
