"""Queue orders (rate --order, queue_order): deterministic per reviewer, stored in the real SQLite file, never
reshuffled by quitting and coming back, never repeating or losing an item; a balanced order brings the rare
verdict early; the store records how each rating's item was drawn."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from judge_tui.analysis.queue_orders import prepare_queue
from judge_tui.model import queue_orders as qo
from judge_tui.model.errors import UserError
from judge_tui.model.records import Item, Rating
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from judge_tui.tui.session import RatingSession

JUDGE = "judge:model-a"
N_ITEMS = 40
FAILS = 8  # a 20% FAIL rate by the judge


def item_ids(n: int = N_ITEMS) -> list[str]:
    return [f"P{k:03d}" for k in range(1, n + 1)]


def fill(store: Store, rubric: Rubric, n: int = N_ITEMS, judged: int | None = None) -> None:
    """n items; the judge rates the first `judged` of them (all by default), every fifth FAIL."""
    store.ensure_rubric_version(rubric)
    store.add_items([Item(id=i, rubric=rubric.id, fields={"query": i, "criterion": "c", "response": "r"})
                     for i in item_ids(n)])
    judge(store, rubric, item_ids(n)[: n if judged is None else judged])


def judge(store: Store, rubric: Rubric, ids: list[str]) -> None:
    version = store.ensure_rubric_version(rubric)
    store.ensure_rater(JUDGE, "judge")
    dim = rubric.judged_dimensions[0].id
    for item_id in ids:
        fail = int(item_id[1:]) % 5 == 0
        scores = {dim: rubric.scale.points[0] if fail else rubric.scale.points[-1]}
        store.save_rating(Rating(item_id=item_id, rater_id=JUDGE, rubric_version_id=version, scores=scores,
                                 overall=rubric.overall_score(scores), verdict=rubric.verdict(scores)))


def rate_next(session: RatingSession, count: int) -> list[str]:
    """Submit `count` items in the session's order; returns their ids."""
    seen = []
    state = session.state or session.resume()
    for _ in range(count):
        assert state is not None
        session.set_score(session.rubric.judged_dimensions[0].id, session.rubric.scale.points[-1])
        session.submit()
        seen.append(state.item.id)
        state = session.open_next_unrated()
    return seen


@pytest.fixture
def binary(rubrics) -> Rubric:
    return rubrics["binary"]


# --------------------------------------------------------------------------- pure orders


def test_orders_are_deterministic_permutations_and_differ_between_reviewers():
    ids = item_ids()
    assert qo.random_order(ids, 7) == qo.random_order(list(reversed(ids)), 7)
    assert sorted(qo.random_order(ids, 7)) == sorted(ids)
    assert qo.random_order(ids, qo.default_seed("ann", "binary")) != qo.random_order(ids, qo.default_seed("bob", "binary"))
    strata = {i: "FAIL" if n % 5 == 0 else "PASS" for n, i in enumerate(ids)}
    order = qo.balanced_order(strata, 3)
    assert order == qo.balanced_order(strata, 3)
    assert sorted(i for i, _ in order) == sorted(ids) and all(strata[i] == s for i, s in order)


def test_balanced_order_brings_the_rare_verdict_early():
    ids = [f"I{n:03d}" for n in range(100)]
    strata = {i: "FAIL" if n < 20 else "PASS" for n, i in enumerate(ids)}
    early_fails = [Counter(s for _, s in qo.balanced_order(strata, seed)[:20])["FAIL"] for seed in range(50)]
    assert sum(early_fails) / 50 > 8  # about half the first 20, where import or random order gives 4


def test_graded_rubrics_stratify_by_the_nearest_scale_point():
    assert qo.stratum_of(None, 0.6, (0, 0.25, 0.5, 0.75, 1)) == "overall 0.5"
    assert qo.stratum_of("FAIL", 0.9, (0, 1)) == "FAIL"
    assert qo.stratum_of(None, None, (0, 1)) == qo.UNJUDGED


# --------------------------------------------------------------------------- the session over the real store


def test_import_order_is_todays_order_and_stores_nothing(store, binary):
    fill(store, binary)
    session = RatingSession(store, binary, "ann")
    assert rate_next(session, 5) == item_ids()[:5]
    assert store.queue_order("ann", "binary") is None
    assert store.draws("binary") == []


@pytest.mark.parametrize("order", ["random", "balanced"])
def test_order_survives_quit_and_resume_and_rates_every_item_once(tmp_path, binary, order):
    path = tmp_path / "study.db"
    with Store(path) as store:
        fill(store, binary)
        expected = [i for i, _, _ in prepare_queue(store, binary, "ann", order) and store.queue_entries("ann", "binary")]
    rated: list[str] = []
    for stint in (7, 1, 12, 100):
        with Store(path) as store:  # quit and come back: a new connection, a new session
            session = RatingSession(store, binary, "ann", order=order)
            state = session.resume()
            while state is not None and len(rated) < N_ITEMS and stint:
                rated += rate_next(session, 1)
                state = session.state
                stint -= 1
    assert rated == expected  # the stored order, never reshuffled
    assert len(set(rated)) == N_ITEMS  # none repeated, none lost
    with Store(path) as store:
        assert store.progress("ann", "binary", total=N_ITEMS)["rated"] == N_ITEMS


def test_each_reviewer_has_an_order_of_their_own(store, binary):
    fill(store, binary)
    ann = rate_next(RatingSession(store, binary, "ann", order="random"), 10)
    bob = rate_next(RatingSession(store, binary, "bob", order="random"), 10)
    assert ann != bob
    assert ann != item_ids()[:10]


def test_balanced_records_each_draw_with_its_stratum_judge_and_seed(store, binary):
    fill(store, binary)
    rated = rate_next(RatingSession(store, binary, "ann", order="balanced"), 10)
    draws = {d.item_id: d for d in store.draws("binary")}
    assert set(draws) == set(rated)
    seed = qo.default_seed("ann", "binary")
    for item_id, draw in draws.items():
        assert (draw.kind, draw.judge_rater, draw.seed) == ("balanced", JUDGE, seed)
        assert draw.stratum == ("FAIL" if int(item_id[1:]) % 5 == 0 else "PASS")
    assert Counter(d.stratum for d in draws.values())["FAIL"] >= 3  # 8 FAILs in 40: 2 expected in import order


def test_unjudged_items_wait_in_a_stratum_and_join_as_judgments_arrive(tmp_path, binary):
    path = tmp_path / "study.db"
    with Store(path) as store:
        fill(store, binary, judged=20)
        session = RatingSession(store, binary, "ann", order="balanced")
        strata = Counter(s for _, _, s in store.queue_entries("ann", "binary"))
        assert strata[qo.UNJUDGED] == 20
        rated = rate_next(session, 5)
        before = {i: p for i, p, _ in store.queue_entries("ann", "binary")}
        judge(store, binary, item_ids()[20:])  # the judge comes back online
    with Store(path) as store:
        RatingSession(store, binary, "ann", order="balanced")
        entries = store.queue_entries("ann", "binary")
        assert not [i for i, _, s in entries if s == qo.UNJUDGED and i not in rated]
        assert {i: p for i, p, _ in entries if i in rated} == {i: before[i] for i in rated}  # rated stay put
        assert sorted(i for i, _, _ in entries) == item_ids()


def test_skipped_items_still_come_back_last(store, binary):
    fill(store, binary)
    session = RatingSession(store, binary, "ann", order="random")
    first = session.resume()
    assert first is not None
    session.skip()
    rated = rate_next(session, N_ITEMS - 1)
    assert first.item.id not in rated
    assert session.state is not None and session.state.item.id == first.item.id


def test_an_assignment_keeps_its_own_order(store, binary):
    from judge_tui.transfer.assignment import Options, assign

    fill(store, binary)
    assign(store, binary, Options("binary", ("ann", "bob"), overlap=0.0, seed=1))
    session = RatingSession(store, binary, "ann", order="balanced")
    assert session.plan is not None and not session.ordered
    queue = [i for _, i, *_ in store.assigned_items(session.plan, "ann")]
    assert rate_next(session, 3) == queue[:3]


def test_an_unknown_order_is_a_clear_error(store, binary):
    fill(store, binary)
    with pytest.raises(UserError, match="choose one of import, random, balanced"):
        RatingSession(store, binary, "ann", order="shuffled")


def test_rate_order_on_the_command_line_is_checked(tmp_path):
    done = subprocess.run([sys.executable, "-m", "judge_tui", "rate", "--order", "sideways", "--db",
                           str(tmp_path / "x.db")], capture_output=True, text=True, cwd=Path(__file__).parents[1])
    assert done.returncode == 2 and "invalid choice: 'sideways'" in done.stderr
