"""The blind rule has one home (analysis/blind.py), and the screens a reviewer can reach go through it."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

from judge_tui.analysis.blind import BlindReader, visible_items
from judge_tui.model.records import Rating
from judge_tui.store import Store
from tests.narrowing import present
from tests.team_fixtures import binary_item

TUI = Path(__file__).resolve().parent.parent / "judge_tui" / "tui"
# The lead's own screens: they open only from the lead's entry (`adjudicate`, `calibrate`, `rate --lead`) and
# apply the rule with visible_items(..., lead=True) over whole figures.
LEAD_ONLY = {"screens/adjudication.py", "screens/calibrate.py"}
# Store queries that return other raters' ratings, scores, notes or flags, or which items the judge decides.
RATING_READS = {"rating", "ratings_for_item", "iter_ratings", "rubric_scores", "first_run_notes", "flags",
                "judge_verdicts", "current_ratings", "set_aside", "certificate_in_force", "judge_decided"}


def _store_reads(path: Path, root: Path = TUI) -> list[str]:
    """`<...>store.<read>(...)` calls in a module: a rating read that goes around analysis/blind.py."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        receiver = node.func.value
        name = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", "")
        if name == "store" and node.func.attr in RATING_READS:
            found.append(f"{path.relative_to(root)}:{node.lineno}: store.{node.func.attr}(...)")
    return found


def test_no_screen_a_reviewer_reaches_reads_ratings_around_the_blind_rule():
    modules = [p for p in sorted(TUI.rglob("*.py")) if str(p.relative_to(TUI)) not in LEAD_ONLY]
    assert len(modules) > 20  # the sweep covers the screens, the widgets and the session
    assert [read for path in modules for read in _store_reads(path)] == []


def test_the_check_finds_a_read_around_the_rule(tmp_path: Path):
    """The sweep above would see a screen that asked the store directly (as the disagreement browser did)."""
    module = tmp_path / "screens" / "sneaky.py"
    module.parent.mkdir()
    module.write_text("def show(self, item_id):\n    return self.store.rating(item_id, self.judge_id)\n")
    assert _store_reads(module, tmp_path) == ["screens/sneaky.py:2: store.rating(...)"]


def _rate(store: Store, version: int, rater: str, item_id: str, label: float, notes: str = "") -> None:
    store.save_rating(Rating(item_id=item_id, rater_id=rater, rubric_version_id=version, scores={"label": label},
                             overall=label, verdict="PASS" if label else "FAIL", notes=notes))


def test_a_reviewer_reads_others_ratings_of_submitted_items_only(store: Store, rubrics):
    version = store.ensure_rubric_version(rubrics["binary"])
    store.add_items([binary_item(1), binary_item(2)])
    store.ensure_rater("ann", "human")
    store.ensure_rater("judge-x", "judge")
    for item_id in ("P01", "P02"):
        _rate(store, version, "judge-x", item_id, 1.0, notes=f"judge on {item_id}")
    _rate(store, version, "ann", "P01", 0.0)

    blind = BlindReader(store, "binary", "ann")
    assert present(blind.rating("P01", "judge-x")).notes == "judge on P01"
    assert blind.rating("P02", "judge-x") is None  # not submitted: as if the judge had not rated it
    assert [r.rater_id for r in blind.others("P01")] == ["judge-x"]
    assert blind.others("P02") == []
    assert blind.rating("P02", "ann") is None
    assert present(blind.rating("P01", "ann")).scores == {"label": 0.0}
    # The rating screen's own knowledge wins: a submission still waiting to be written counts, and an item
    # reopened for a blind re-check does not, though the store holds the reviewer's first rating of it.
    assert [r.rater_id for r in blind.others("P02", submitted=True)] == ["judge-x"]
    assert blind.others("P01", submitted=False) == []
    assert visible_items(store, "binary", "ann") == {"P01"}


def test_a_lead_sees_every_item_until_they_rate_one(store: Store, rubrics):
    version = store.ensure_rubric_version(rubrics["binary"])
    store.add_items([binary_item(1), binary_item(2)])
    store.ensure_rater("lead", "human")
    store.ensure_rater("judge-x", "judge")
    _rate(store, version, "judge-x", "P02", 1.0)
    lead = BlindReader(store, "binary", "lead", lead=True)
    assert lead.rating("P02", "judge-x") is not None
    _rate(store, version, "lead", "P01", 1.0)  # now an expert too, held to the same rule
    assert lead.rating("P02", "judge-x") is None
    assert visible_items(store, "binary", "lead", lead=True) == {"P01"}


def test_another_rater_is_listed_once_with_their_current_rating(store: Store, rubrics):
    first = store.ensure_rubric_version(rubrics["binary"])
    store.add_items([binary_item(1)])
    store.ensure_rater("ann", "human")
    store.ensure_rater("bob", "human")
    _rate(store, first, "bob", "P01", 0.0, notes="under the first version")
    second = store.ensure_rubric_version(replace(rubrics["binary"], version="2"))
    assert second != first
    _rate(store, second, "bob", "P01", 1.0, notes="under the second version")
    _rate(store, second, "ann", "P01", 1.0)
    shown = BlindReader(store, "binary", "ann").others("P01")
    assert [(r.rater_id, r.notes) for r in shown] == [("bob", "under the second version")]
