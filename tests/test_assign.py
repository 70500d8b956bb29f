"""`judge-tui assign`: the plan (pure), stored in the real SQLite file, carried by bundles and merges, and the
command in a real process with its errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge_tui.model.errors import UserError
from judge_tui.model.records import Item, Rating
from judge_tui.model.rubrics import Rubric
from judge_tui.store import ForeignDatabase, Store
from judge_tui.transfer.assignment import Options, assign, parse_experts, plan_assignment
from judge_tui.transfer.bundle import export_bundle, import_bundle
from judge_tui.transfer.merge import merge_database
from tests.narrowing import present

TASKS = ("Email Validator", "Rate Limiter", "LRU Cache", "Fibonacci")
EXPERTS = ("ann", "bob", "cat")


def strata_items(count: int, tasks: tuple[str, ...] = TASKS) -> list[tuple[str, tuple[str, ...]]]:
    return [(f"B{n:04d}", (tasks[n % len(tasks)],)) for n in range(1, count + 1)]


def holders(plan) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for expert, queue in plan.queues.items():
        for item, _shared in queue:
            found.setdefault(item, set()).add(expert)
    return found


# --------------------------------------------------------------------------- the plan, pure


def test_every_item_once_and_a_fifth_by_every_expert():
    items = strata_items(100)
    plan = plan_assignment(items, Options("cis", EXPERTS, overlap=0.2, seed=3), balance=("task_type",))
    who = holders(plan)
    assert set(who) == {i for i, _s in items}  # nothing left out
    shared = {i for i, w in who.items() if len(w) > 1}
    assert len(shared) == 20
    assert all(who[i] == set(EXPERTS) for i in shared)
    assert shared == plan.overlap_items
    loads = [len(q) for q in plan.queues.values()]
    assert sum(loads) == 20 * 3 + 80
    assert max(loads) - min(loads) <= 1


def test_each_expert_sees_the_same_mix_and_the_overlap_is_a_fair_sample():
    # Uneven strata: 60 Email Validator, 30 Rate Limiter, 10 LRU Cache.
    items = [(f"X{n:03d}", ("Email Validator" if n < 60 else "Rate Limiter" if n < 90 else "LRU Cache",))
             for n in range(100)]
    plan = plan_assignment(items, Options("cis", EXPERTS, overlap=0.2, seed=1), balance=("task_type",))
    mixes = [plan.mix(e)["task_type"] for e in EXPERTS]
    for task in ("Email Validator", "Rate Limiter", "LRU Cache"):
        counts = [m[task] for m in mixes]
        assert max(counts) - min(counts) <= 1, (task, counts)
    overlap_mix = Counter(plan.strata[i][0] for i in plan.overlap_items)
    assert overlap_mix == {"Email Validator": 12, "Rate Limiter": 6, "LRU Cache": 2}


def test_the_same_seed_gives_the_same_plan_and_another_seed_another():
    items = strata_items(60)
    first = plan_assignment(items, Options("cis", EXPERTS, seed=7), balance=("task_type",))
    again = plan_assignment(items, Options("cis", EXPERTS, seed=7), balance=("task_type",))
    other = plan_assignment(items, Options("cis", EXPERTS, seed=8), balance=("task_type",))
    assert first.queues == again.queues
    assert first.queues != other.queues


def test_overlap_items_are_spread_through_each_queue_in_one_shared_order():
    plan = plan_assignment(strata_items(200), Options("cis", EXPERTS, overlap=0.2), balance=("task_type",))
    orders = []
    for queue in plan.queues.values():
        places = [n for n, (_item, shared) in enumerate(queue) if shared]
        assert len(places) == 40
        # Evenly spread: one in every ~2.5 of the queue's places, never a long run without one.
        assert places[0] < 3
        assert places[-1] > len(queue) - 4
        assert max(b - a for a, b in zip(places, places[1:], strict=False)) <= 3
        orders.append([item for item, shared in queue if shared])
    assert orders[0] == orders[1] == orders[2]  # an early stop still leaves items rated by everyone


def test_overlap_raters_k_gives_each_overlap_item_k_experts_spread_evenly():
    experts = ("ann", "bob", "cat", "dan", "eve")
    plan = plan_assignment(strata_items(100), Options("cis", experts, overlap=0.3, overlap_raters=2),
                           balance=("task_type",))
    who = holders(plan)
    shared = [w for w in who.values() if len(w) > 1]
    assert len(shared) == 30
    assert all(len(w) == 2 for w in shared)
    per_expert = Counter(e for w in shared for e in w)
    assert max(per_expert.values()) - min(per_expert.values()) <= 1


def test_per_expert_covers_what_the_experts_can_rate_and_says_what_is_left_out():
    plan = plan_assignment(strata_items(500), Options("cis", EXPERTS, overlap=0.2, per_expert=50),
                           balance=("task_type",))
    loads = [len(q) for q in plan.queues.values()]
    assert all(49 <= n <= 51 for n in loads), loads
    # 3 x 50 = C x (1 + 0.2 x 2): C = 107.1, 21 of them shared by all three; 87 single items fill the rest.
    assert len(plan.items) == 108
    assert len(plan.overlap_items) == 21
    assert plan.left_out == 500 - 108


def test_reassigning_never_moves_rated_items():
    items = strata_items(40)
    rated = {"B0001": {"ann"}, "B0002": {"bob"}, "B0003": {"ann", "cat"}, "B0004": {"dan"}}
    plan = plan_assignment(items, Options("cis", EXPERTS, seed=5), balance=("task_type",), rated=rated)
    who = holders(plan)
    assert "ann" in who["B0001"]
    assert "bob" in who["B0002"]
    assert {"ann", "cat"} <= who["B0003"]
    assert "B0003" in plan.overlap_items  # two experts: an overlap item
    # Rated by someone outside the plan: one more rater, so it is planned like any other item.
    assert "B0004" in who
    assert "dan" not in who["B0004"]
    assert plan.rated_by_others == {"dan": 1}
    assert plan.kept == {"ann": 2, "bob": 1, "cat": 1}
    # Each expert's rated items come first in their queue; what is left to rate follows.
    assert [i for i, _s in plan.queues["ann"][:2]] == ["B0001", "B0003"]


@pytest.mark.parametrize(("experts", "message"), [
    ("ann,ann,bob", "names ann more than once"),
    ("ann,,bob", "separated by commas"),
    ("ann,b ob", "cannot be an expert id"),
    ("ann,$(rm -rf ~)", "cannot be an expert id"),
    ("ann,\x1b]0;pwned\x07", "cannot be an expert id"),
    ("ann,consensus", "adjudicated consensus"),
])
def test_expert_lists_that_cannot_be_used(experts, message):
    with pytest.raises(UserError, match=message):
        parse_experts(experts)


@pytest.mark.parametrize(("options", "message"), [
    (Options("cis", EXPERTS, overlap=1.2), "between 0 and 1"),
    (Options("cis", EXPERTS, overlap=-0.1), "between 0 and 1"),
    (Options("cis", EXPERTS, overlap=float("nan")), "between 0 and 1"),
    (Options("cis", EXPERTS, overlap_raters=4), "more than the 3 experts"),
    (Options("cis", EXPERTS, overlap_raters=1), "at least 2"),
    (Options("cis", ("ann",)), "at least two experts"),
    (Options("cis", EXPERTS, per_expert=0), "at least 1"),
    (Options("cis", EXPERTS, per_expert=1), "--per-expert 1 is too small for the overlap"),
])
def test_options_that_cannot_make_a_plan(options, message):
    with pytest.raises(UserError, match=message):
        plan_assignment(strata_items(100), options)


def test_no_overlap_gives_every_item_to_one_expert():
    plan = plan_assignment(strata_items(10), Options("cis", ("ann",), overlap=0))
    assert len(plan.queues["ann"]) == 10
    assert not plan.overlap_items


# --------------------------------------------------------------------------- stored, bundled, merged


def cis_items(rubric: Rubric, count: int) -> list[Item]:
    return [Item(id=f"B{n:03d}", rubric="cis", task_type=TASKS[n % 4],
                 fields={"task_type": TASKS[n % 4], "rationale": "r", "source_code": f"x = {n}\n"})
            for n in range(1, count + 1)]


def rate(store: Store, rubric: Rubric, rater: str, item_id: str, value: float = 0.5) -> None:
    store.ensure_rater(rater, "human")
    version = store.ensure_rubric_version(rubric)
    scores = {d.id: value for d in rubric.judged_dimensions}
    store.save_rating(Rating(item_id=item_id, rater_id=rater, rubric_version_id=version, scores=scores,
                             overall=rubric.overall_score(scores), seconds=30.0, source="app"))


@pytest.fixture
def lead(tmp_path: Path, rubrics: dict[str, Rubric]) -> Iterator[Store]:
    with Store(tmp_path / "lead.db") as store:
        store.ensure_rubric_version(rubrics["cis"])
        store.add_items(cis_items(rubrics["cis"], 30))
        yield store


def test_a_plan_is_stored_and_the_newest_is_in_force(lead, rubrics):
    first = assign(lead, rubrics["cis"], Options("cis", EXPERTS, seed=1))
    assert lead.current_plan("cis")["id"] == first.plan_id
    assert first.number == 1
    assert lead.assignment_of("ann", "cis") == first.plan_id
    assert lead.assignment_of("dan", "cis") is None
    second = assign(lead, rubrics["cis"], Options("cis", ("ann", "bob"), seed=2))
    plan = lead.current_plan("cis")
    assert plan["id"] == second.plan_id
    assert plan["number"] == 2
    assert plan["experts"] == ["ann", "bob"]
    assert lead.assignment_of("cat", "cis") is None  # not in the plan in force: rates every item, as before
    rows = lead.assigned_items(second.plan_id, "ann")
    assert [item for _r, item, _p, _o in rows] == [item for item, _s in second.queues["ann"]]
    assert [p for _r, _i, p, _o in rows] == list(range(1, len(rows) + 1))
    assert plan["balance"] == ["task_type"]


def test_reassigning_in_the_database_keeps_what_was_rated(lead, rubrics):
    first = assign(lead, rubrics["cis"], Options("cis", EXPERTS, seed=1))
    anns = [item for item, _s in first.queues["ann"][:4]]
    for item in anns:
        rate(lead, rubrics["cis"], "ann", item)
    second = assign(lead, rubrics["cis"], Options("cis", EXPERTS, seed=99))
    assert set(anns) <= {item for item, _s in second.queues["ann"]}
    assert second.kept["ann"] == 4


def test_a_bundle_for_an_expert_holds_their_assignment_and_nobody_elses_scores(lead, rubrics, tmp_path):
    plan = assign(lead, rubrics["cis"], Options("cis", EXPERTS, seed=1))
    shared = sorted(plan.overlap_items)[0]
    rate(lead, rubrics["cis"], "bob", shared, 0.25)  # bob's score of an item ann must rate blind
    lead.ensure_rater("judge:x", "judge")
    export_bundle(lead, "ann", tmp_path / "ann.for.db", assignment=True)
    with ForeignDatabase(tmp_path / "ann.for.db") as bundle:
        assert bundle.ratings() == []  # not bob's, not a judge's
        assert {r["id"] for r in bundle.items()} == {i for i, _s in plan.queues["ann"]}
        assert {r["rater_id"] for r in bundle.assignments([plan.plan_id])} == {"ann"}
        assert [p["id"] for p in bundle.assignment_plans()] == [plan.plan_id]
    with Store(tmp_path / "ann.db") as laptop:
        result = import_bundle(laptop, tmp_path / "ann.for.db")
        assert result.added["assignment_plans"] == 1
        assert result.added["assignments"] == len(plan.queues["ann"])
        assert laptop.assignment_of("ann", "cis") == plan.plan_id
        assert laptop.get_meta("reviewer_id") == "ann"  # a new laptop rates as the expert it was given to
        assert laptop.assignments_in_force("ann") == {"cis": (len(plan.queues["ann"]),
                                                              sum(s for _i, s in plan.queues["ann"]))}
        again = import_bundle(laptop, tmp_path / "ann.for.db")  # idempotent, like every merge
        assert not again.changed


def test_an_expert_without_an_assignment_gets_no_bundle_for_them(lead, rubrics, tmp_path):
    assign(lead, rubrics["cis"], Options("cis", EXPERTS, seed=1))
    with pytest.raises(UserError, match="'dan' has no assignment.*ann, bob, cat"):
        export_bundle(lead, "dan", tmp_path / "dan.for.db", assignment=True)


def test_merging_whole_databases_carries_plans_once_and_a_work_bundle_carries_none(lead, rubrics, tmp_path):
    plan = assign(lead, rubrics["cis"], Options("cis", EXPERTS, seed=1))
    with Store(tmp_path / "copy.db") as copy:
        first = merge_database(copy, lead.path)
        assert first.added["assignment_plans"] == 1
        assert (first.added["assignments"] == len(
            lead.assigned_items(plan.plan_id)))
        assert present(copy.current_plan("cis"))["id"] == plan.plan_id
        assert merge_database(copy, lead.path).added["assignments"] == 0
    rate(lead, rubrics["cis"], "ann", plan.queues["ann"][0][0])
    export_bundle(lead, "ann", tmp_path / "ann.work.db")  # her work going back to the lead: no plan in it
    with ForeignDatabase(tmp_path / "ann.work.db") as bundle:
        assert bundle.assignment_plans() == []


def test_a_database_from_before_assignments_is_upgraded(tmp_path, rubrics):
    path = tmp_path / "old.db"
    with Store(path) as store:
        store.add_items(cis_items(rubrics["cis"], 3))
        store.conn.execute("DROP TABLE assignments")
        store.conn.execute("DROP TABLE assignment_plans")
        store.conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm008_assignments'")
        store.conn.commit()
    with Store(path) as store:
        assert store.current_plan("cis") is None
        assert store.count_items("cis") == 3
        plan = assign(store, rubrics["cis"], Options("cis", ("ann", "bob"), seed=0))
        assert store.assignment_of("ann", "cis") == plan.plan_id


# --------------------------------------------------------------------------- the command, in a real process


def cli(tmp_path: Path, *args: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "JUDGE_TUI_HOME": str(tmp_path / "home"), "PYTHONPATH": str(Path.cwd())}
    env.pop("JUDGE_TUI_DB", None)
    return subprocess.run([sys.executable, "-m", "judge_tui", *map(str, args)], capture_output=True, text=True,
                          errors="replace", env=env, timeout=120, stdin=subprocess.DEVNULL)


@pytest.fixture
def demo_db(tmp_path: Path) -> Path:
    db = tmp_path / "lead.db"
    done = cli(tmp_path, "import", Path("data/cis.jsonl").resolve(), "--rubric", "cis", "--db", db)
    assert done.returncode == 0, done.stderr
    return db


@pytest.mark.slow
def test_assign_prints_the_plan_and_json(tmp_path, demo_db):
    done = cli(tmp_path, "assign", "--rubric", "cis", "--experts", "ann,bob,cat", "--db", demo_db)
    assert done.returncode == 0, done.stderr
    assert "assignment plan 1 (seed 0): 25 items, 5 of them rated by every expert (20% overlap)" in done.stdout
    assert "balanced by task_type" in done.stdout
    assert "Email Validator" in done.stdout
    done = cli(tmp_path, "assign", "--rubric", "cis", "--experts", "ann,bob,cat", "--overlap", "0.4",
               "--overlap-raters", "2", "--seed", "4", "--format", "json", "--db", demo_db)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["number"] == 2
    assert summary["overlap_items"] == 10
    assert summary["overlap_raters"] == 2
    assert sum(e["items"] for e in summary["experts"]) == 25 + 10
    assert set(summary["experts"][0]["mix"]["task_type"]) == set(TASKS)


@pytest.mark.slow
@pytest.mark.parametrize(("args", "message"), [
    (("--rubric", "nope", "--experts", "ann,bob"), "unknown rubric 'nope'"),
    (("--rubric", "binary", "--experts", "ann,bob"), "no items of rubric 'binary'"),
    (("--rubric", "cis", "--experts", "ann,bob,ann"), "names ann more than once"),
    (("--rubric", "cis", "--experts", "ann,bob;rm"), "cannot be an expert id"),
    (("--rubric", "cis", "--experts", "ann,bob", "--overlap", "1.5"), "between 0 and 1"),
    (("--rubric", "cis", "--experts", "ann,bob", "--overlap-raters", "3"), "more than the 2 experts"),
    (("--rubric", "cis", "--experts", "ann,bob,cat", "--per-expert", "1"), "too small for the overlap"),
])
def test_assign_errors_say_what_is_wrong(tmp_path, demo_db, args, message):
    done = cli(tmp_path, "assign", *args, "--db", demo_db)
    assert done.returncode != 0, done.stderr
    assert message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    with Store(demo_db) as store:
        assert store.current_plan("cis") is None  # nothing stored


@pytest.mark.slow
def test_export_for_an_expert_and_its_errors(tmp_path, demo_db):
    assert cli(tmp_path, "assign", "--rubric", "cis", "--experts", "ann,bob", "--db", demo_db).returncode == 0
    done = cli(tmp_path, "export", "--bundle", "--for", "ann", "-o", tmp_path / "ann.db", "--db", demo_db)
    assert done.returncode == 0, done.stderr
    assert "wrote" in done.stdout
    assert "their assignment, 15 items of cis (5 shared with other experts)" in done.stdout
    done = cli(tmp_path, "export", "--bundle", "--for", "zed", "-o", tmp_path / "zed.db", "--db", demo_db)
    assert done.returncode == 1
    assert "'zed' has no assignment" in done.stderr
    done = cli(tmp_path, "export", "--bundle", "--for", "ann", "--rater", "bob", "-o", tmp_path / "x.db",
               "--db", demo_db)
    assert done.returncode == 1
    assert "name two experts" in done.stderr


def test_invariants_over_many_random_plans():
    import random

    rng = random.Random(2026)
    for _ in range(150):
        n = rng.randint(2, 7)
        experts = tuple(f"e{i}" for i in range(n))
        k = rng.choice([0, *range(2, n + 1)])
        count = rng.randint(12, 150)
        items = [(f"I{i:03d}", (rng.choice("ABC"), rng.choice("xy"))) for i in range(count)]
        rated: dict[str, set[str]] = {}
        for item_id, _s in rng.sample(items, rng.randint(0, count // 4)):
            rated[item_id] = set(rng.sample([*experts, "outsider"], rng.randint(1, 2)))
        per_expert = rng.choice([None, rng.randint(10, 60)])
        options = Options("cis", experts, overlap=rng.choice([0.1, 0.2, 0.5]), overlap_raters=k,
                          per_expert=per_expert, seed=rng.randint(0, 9))
        try:
            plan = plan_assignment(items, options, balance=("task_type", "split"), rated=rated)
        except UserError as exc:
            assert "too small" in str(exc) or "less than one item" in str(exc)
            continue
        who = holders(plan)
        for queue in plan.queues.values():
            assert len({i for i, _s in queue}) == len(queue)  # nothing twice in a queue
        for item_id, raters in rated.items():  # rated work never moves; outsiders' items are planned too
            ours = raters & set(experts)
            assert ours <= who.get(item_id, set())
        for item_id, got in who.items():
            if item_id in plan.overlap_items:
                assert len(got) >= min(options.raters_per_overlap_item, n)
            else:
                assert len(got) == 1
        if per_expert is None:
            assert len(who) == count
