"""The judge-validity page says why a TPR or TNR target has no figure (in `judge-tui report` as text, Markdown and
JSON, and on the lead's summary screen), rather than a bare "n/a 0 n/a": with no test split, no test item was
labelled by both; with a test split whose expert labels hold no FAIL, the TNR has no FAIL to be read from."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest
from textual.app import App
from textual.widgets import Static

from judge_tui.cli import main
from judge_tui.model.settings import AgreementSettings
from judge_tui.store import Store
from judge_tui.store.rubric_choice import resolve_rubric
from judge_tui.tui.screens.summary import SummaryScreen

ROOT = Path(__file__).resolve().parents[1]
NO_PAIR = "no test-split item was labelled by both"
NO_FAIL = "the human labels contain no FAIL"


def _jsonl(path: Path, rows: Sequence[Mapping[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _study(home: Path, *, splits: bool) -> Path:
    """60 items (in train/dev/test when `splits`), three experts on the first 30, a judge on all. The experts
    label every test item PASS; elsewhere they follow a seeded truth, and the judge errs on one item in ten."""
    db = home / "study.db"
    rng = np.random.default_rng(7)
    split_of = ["train", "dev", "test"]
    items = [{"id": f"P{n:03d}", "query": f"q {n}", "criterion": "vegan", "response": f"r {n}",
              **({"split": split_of[n % 3]} if splits else {})} for n in range(60)]
    assert main(["import", str(_jsonl(home / "items.jsonl", items)), "--rubric", "binary", "--db", str(db)]) == 0
    truth = np.where([splits and n % 3 == 2 for n in range(60)], True, rng.random(60) < 0.6)
    for rater, kind, count, flip in (("ann", "human", 30, 0.0), ("bob", "human", 30, 0.0),
                                     ("cat", "human", 30, 0.0), ("judge-x", "judge", 60, 0.1)):
        labels = np.where(rng.random(count) < flip, ~truth[:count], truth[:count]).astype(float)
        rows = [{"item_id": f"P{n:03d}", "scores": {"label": v}} for n, v in enumerate(labels.tolist())]
        assert main(["import-ratings", str(_jsonl(home / f"{rater}.jsonl", rows)), "--rater", rater, "--kind", kind,
                     "--db", str(db)]) == 0
    return db


def _report(home: Path, db: Path, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "judge_tui", "report", "--db", str(db), *args], capture_output=True,
                          text=True, env={**os.environ, "JUDGE_TUI_HOME": str(home), "COLUMNS": "80"}, timeout=300,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _targets(home: Path, db: Path) -> dict[str, dict[str, object]]:
    page = json.loads(_report(home, db, "--format", "json"))["judge_validity"]
    return {t["key"]: t for t in page["judges"][0]["targets"]}


@pytest.mark.slow  # the report in a real process, three times
def test_without_a_test_split_the_page_says_no_test_item_was_labelled_by_both(hermetic_home: Path) -> None:
    db = _study(hermetic_home, splits=False)
    text = _report(hermetic_home, db)
    page = text[:text.index("Agreement: ")].splitlines()
    for goal in ("TPR > 0.90", "TNR > 0.90"):
        [row] = [line for line in page if line.strip().startswith(goal)]
        assert row.split(goal, 1)[1].strip() == f"n/a: {NO_PAIR}"
    assert max(map(len, page)) <= 80
    markdown = _report(hermetic_home, db, "--format", "markdown")
    assert f"| TPR > 0.90 | n/a: {NO_PAIR} | 0 | n/a |" in markdown
    assert f"| TNR > 0.90 | n/a: {NO_PAIR} | 0 | n/a |" in markdown
    targets = _targets(hermetic_home, db)
    for key in ("tpr", "tnr"):
        assert targets[key]["estimate"] is None
        assert targets[key]["decision"] is None
        assert targets[key]["undefined"] == {"estimate": NO_PAIR}
    assert "undefined" not in targets["alignment"]  # a figure that is there keeps the keys it had


@pytest.mark.slow  # the report in a real process, twice
def test_a_test_split_without_a_human_fail_says_so_for_the_tnr(hermetic_home: Path) -> None:
    db = _study(hermetic_home, splits=True)
    text = _report(hermetic_home, db)
    # The targets' table, not the comparison with the experts after it.
    page = text[:text.index("Agreement: ")].split("  Compared with the experts")[0].splitlines()
    [tnr] = [line for line in page if line.strip().startswith("TNR > 0.90")]
    assert tnr.split("TNR > 0.90", 1)[1].strip() == f"n/a: {NO_FAIL}"
    [tpr] = [line for line in page if line.strip().startswith("TPR > 0.90")]
    assert "n/a" not in tpr
    assert " 10 " in tpr  # the ten test items the experts all passed
    targets = _targets(hermetic_home, db)
    assert targets["tnr"]["undefined"] == {"estimate": NO_FAIL}
    assert targets["tnr"]["n"] == 0
    assert "undefined" not in targets["tpr"]
    assert targets["tpr"]["n"] == 10


class Host(App[None]):
    def __init__(self, store: Store) -> None:
        super().__init__()
        self.store = store

    def on_mount(self) -> None:
        self.push_screen(SummaryScreen(self.store, resolve_rubric("binary", self.store), "lead",
                                       agreement=AgreementSettings(), lead=True))


async def test_the_leads_summary_page_says_why_too(hermetic_home: Path) -> None:
    db = _study(hermetic_home, splits=False)
    with Store(db) as store:
        app = Host(store)
        async with app.run_test(size=(80, 24)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            [page, *_] = [str(w.render()) for w in app.screen.query("#summary-body Static").results(Static)]
    lines = page.splitlines()
    for goal in ("TPR > 0.90", "TNR > 0.90"):
        at = next(n for n, line in enumerate(lines) if line.strip().startswith(goal))
        assert " ".join(" ".join(lines[at:at + 2]).split()) == f"{goal} n/a: {NO_PAIR}"  # wrapped under, if long
    assert max(map(len, lines)) <= 76
