"""A lead plans a 3-expert study with a 20% overlap, hands out three bundles, each expert rates on a laptop of
their own (a separate database, through the rating session the screen uses), the bundles come back and are
merged, and `judge-tui status` shows each expert's progress, the overlap and the team's agreement."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import krippendorff
import numpy as np
import pytest

from judge_tui.store import Store
from judge_tui.store.rubric_choice import resolve_rubric
from judge_tui.tui.session import RatingSession
from tests.narrowing import present
from tests.tui.conftest import FakeClock

EXPERTS = ("ann", "bob", "cat")
POINTS = (0.0, 0.25, 0.5, 0.75, 1.0)


def cli(home: Path, *args: object) -> str:
    env = {**os.environ, "JUDGE_TUI_HOME": str(home), "PYTHONPATH": str(Path.cwd())}
    env.pop("JUDGE_TUI_DB", None)
    done = subprocess.run([sys.executable, "-m", "judge_tui", *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    return done.stdout


def quality(item_id: str) -> float:
    """What every expert sees in an item; cat reads the rationale dimension a step higher on some."""
    return POINTS[int(item_id[1:]) % 5]


def rate_on_laptop(db: Path, expert: str, how_many: int | None) -> list[str]:
    """The expert rates their queue through the rating session (the screen's own logic), as far as how_many."""
    clock = FakeClock()
    with Store(db) as store:
        rubric = resolve_rubric("cis", store)
        session = RatingSession(store, rubric, expert, clock=clock)
        state = session.resume()
        done: list[str] = []
        while state is not None and (how_many is None or len(done) < how_many):
            if state.submitted is not None:
                break
            q = quality(state.item.id)
            for dimension in rubric.judged_dimensions:
                bump = 0.25 if expert == "cat" and dimension.id == "a" and q < 1 and int(state.item.id[1:]) % 3 == 0 else 0
                session.set_score(dimension.id, q + bump)
            if expert == "cat" and not done:
                session.set_flag(True, "test output missing")
            clock.advance(40)
            session.submit()
            done.append(state.item.id)
            state = session.open_next_unrated()
        return done


@pytest.mark.slow
def test_plan_hand_out_rate_offline_merge_back_and_see_the_team(tmp_path: Path):
    home = tmp_path / "home"
    lead = tmp_path / "lead.db"
    cli(home, "import", Path("data/cis.jsonl").resolve(), "--rubric", "cis", "--db", lead)
    plan = json.loads(cli(home, "assign", "--rubric", "cis", "--experts", ",".join(EXPERTS), "--overlap", "0.2",
                          "--seed", "11", "--format", "json", "--db", lead))
    assert plan["items_in_plan"] == 25
    assert plan["overlap_items"] == 5
    assigned = {e["expert"]: e["items"] for e in plan["experts"]}
    assert sum(assigned.values()) == 20 + 5 * 3

    rated: dict[str, list[str]] = {}
    for expert, how_many in (("ann", None), ("bob", None), ("cat", 6)):
        bundle = tmp_path / f"{expert}.for.db"
        cli(home, "export", "--bundle", "--for", expert, "-o", bundle, "--db", lead)
        laptop = tmp_path / expert / "judge-tui.db"
        laptop.parent.mkdir()
        out = cli(tmp_path / expert / "home", "import", "--bundle", bundle, "--db", laptop)
        assert f"{expert}'s assignment: {assigned[expert]} items of cis" in out
        rated[expert] = rate_on_laptop(laptop, expert, how_many)
        with Store(laptop) as store:  # the laptop never held anyone else's ratings
            assert {r.rater_id for r in store.iter_ratings("cis")} == {expert}
        cli(tmp_path / expert / "home", "export", "--bundle", "--rater", expert, "-o", tmp_path / f"{expert}.back.db",
            "--db", laptop)
    assert len(rated["ann"]) == assigned["ann"]
    assert len(rated["cat"]) == 6

    for expert in EXPERTS:
        cli(home, "import", "--bundle", tmp_path / f"{expert}.back.db", "--db", lead)
    status = json.loads(cli(home, "status", "--rubric", "cis", "--format", "json", "--db", lead))
    team = status["rubrics"][0]["team"]
    by_expert = {e["expert"]: e for e in team["experts"]}
    for expert in EXPERTS:
        e = by_expert[expert]
        assert e["assigned"] == assigned[expert]
        assert e["rated"] == len(rated[expert])
        assert e["remaining"] == assigned[expert] - len(rated[expert])
        assert e["seconds"] == 40.0 * len(rated[expert])
        assert e["time_unknown"] == 0
    assert by_expert["cat"]["flagged"] == 1
    assert by_expert["ann"]["flagged"] == 0
    assert by_expert["ann"]["overlap_rated"] == 5
    assert by_expert["bob"]["overlap_rated"] == 5
    # ann and bob rated every overlap item; cat, half-way, the ones early in her queue (they are spread out).
    assert 1 <= by_expert["cat"]["overlap_rated"] < 5
    overlap = team["overlap_items"]
    assert overlap == {"planned": 5, "rated_by_two_or_more": 5, "rated_by_all_assigned": by_expert["cat"]["overlap_rated"]}

    # The team's alpha on the overlap is the krippendorff package's, from the same ratings.
    with Store(lead) as store:
        shared = sorted(store.overlap_item_ids(team["plan"]))
        for d in team["agreement"]["dimensions"]:
            matrix = np.full((3, len(shared)), np.nan)
            for row, expert in enumerate(EXPERTS):
                for col, item in enumerate(shared):
                    rating = store.rating(item, expert)
                    if rating is not None:
                        matrix[row, col] = rating.scores[d["dimension"]]
            expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal",
                                          value_domain=list(POINTS))
            assert d["items"] == 5
            assert d["alpha"] == pytest.approx(expected, abs=1e-4)
            assert d["low"] <= d["alpha"] <= d["high"]
            assert d["decision"] in ("met", "not met", "undecided")
    assert team["agreement"]["target"] == 0.8
    assert team["agreement"]["verdict"]

    text = cli(home, "status", "--rubric", "cis", "--db", lead)
    assert "assignment plan 1" in text
    assert "overlap: 5 of 5 items rated by two or more experts" in text
    assert "Krippendorff's alpha (ordinal)" in text
    assert "enough overlap?" in text

    # The lead re-plans with another seed: nothing rated moves, and cat's new bundle brings the new queue.
    again = json.loads(cli(home, "assign", "--rubric", "cis", "--experts", ",".join(EXPERTS), "--seed", "12",
                           "--format", "json", "--db", lead))
    assert again["number"] == 2
    assert {e["expert"]: e["kept_rated"] for e in again["experts"]} == {e: len(rated[e]) for e in EXPERTS}
    with Store(lead) as store:
        plan2 = present(store.current_plan("cis"))["id"]
        for expert in EXPERTS:
            assert set(rated[expert]) <= {i for _r, i, _p, _o in store.assigned_items(plan2, expert)}
    cli(home, "export", "--bundle", "--for", "cat", "-o", tmp_path / "cat.again.db", "--db", lead)
    cli(tmp_path / "cat" / "home", "import", "--bundle", tmp_path / "cat.again.db", "--db", tmp_path / "cat" / "judge-tui.db")
    with Store(tmp_path / "cat" / "judge-tui.db") as store:
        session = RatingSession(store, resolve_rubric("cis", store), "cat", clock=FakeClock())
        assert session.plan == plan2
        assert session.progress()["rated"] == 6
        assert (session.total == {e["expert"]: e["items"]
                                                                      for e in again["experts"]}["cat"])
    status = json.loads(cli(home, "status", "--rubric", "cis", "--format", "json", "--db", lead))
    assert [e["rated"] for e in status["rubrics"][0]["team"]["experts"]] == [len(rated[e]) for e in EXPERTS]


@pytest.mark.slow
def test_a_study_without_a_plan_has_no_team_section(tmp_path: Path):
    lead = tmp_path / "lead.db"
    cli(tmp_path / "home", "import", Path("data/cis.jsonl").resolve(), "--rubric", "cis", "--db", lead)
    status = json.loads(cli(tmp_path / "home", "status", "--format", "json", "--db", lead))
    assert "team" not in status["rubrics"][0]
    assert "assignment plan" not in cli(tmp_path / "home", "status", "--db", lead)


@pytest.mark.slow
def test_a_study_with_imported_labels_gives_the_new_experts_their_overlap_and_share(tmp_path: Path):
    """A practitioner's 101 labelled items: the labels are one more rater, so two new experts still get 12 items
    each, an overlap with each other, and every item of theirs is compared with the labels too."""
    items = tmp_path / "traces.jsonl"
    labels = tmp_path / "labels.jsonl"
    items.write_text("".join(json.dumps({"id": f"T{n:03d}", "query": f"question {n}", "criterion": "read-only",
                                         "response": f"answer {n}"}) + "\n" for n in range(1, 102)))
    labels.write_text("".join(json.dumps({"item_id": f"T{n:03d}", "scores": {"label": "FAIL" if n % 4 else "PASS"}})
                              + "\n" for n in range(1, 102)))
    db = tmp_path / "study.db"
    cli(tmp_path, "import", items, "--rubric", "binary", "--db", db)
    cli(tmp_path, "import-ratings", labels, "--rubric", "binary", "--rater", "labels", "--kind", "human", "--db", db)
    out = json.loads(cli(tmp_path, "assign", "--rubric", "binary", "--experts", "ann,bob", "--overlap", "0.3",
                         "--per-expert", "12", "--format", "json", "--db", db))
    assert {e["expert"]: e["items"] for e in out["experts"]} == {"ann": 12, "bob": 12}
    assert all(e["overlap_items"] >= 5 for e in out["experts"])
    assert out["overlap_items"] >= 5
    assert out["rated_by_others"] == {"labels": 101}
    with Store(db) as store:
        queues = {e: {item for _e, item, _p, _s in store.assigned_items(out["plan"], e)} for e in ("ann", "bob")}
    assert len(queues["ann"] & queues["bob"]) == out["overlap_items"]
