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
from judge_tui.model.settings import AgreementSettings
from judge_tui.store import Store
from judge_tui.tui.session import RatingSession
from tests.narrowing import defined, present

JUDGE = "judge:model-a"
N_ITEMS = 40
FAILS = 8  # a 20% FAIL rate by the judge


def item_ids(n: int = N_ITEMS) -> list[str]:
    return [f"P{k:03d}" for k in range(1, n + 1)]


def fill(store: Store, rubric: Rubric, n: int = N_ITEMS, judged: int | None = None, split: str | None = None) -> None:
    """n items (of ``split``); the judge rates the first `judged` of them (all by default), every fifth FAIL."""
    store.ensure_rubric_version(rubric)
    store.add_items([Item(id=i, rubric=rubric.id, fields={"query": i, "criterion": "c", "response": "r"}, split=split)
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
    assert sorted(i for i, _ in order) == sorted(ids)
    assert all(strata[i] == s for i, s in order)


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
        prepare_queue(store, binary, "ann", order)
        first_layout = [i for i, _, _ in store.queue_entries("ann", "binary")]
    with Store(tmp_path / "one-sitting.db") as store:  # the same study rated in one sitting
        fill(store, binary)
        expected = rate_next(RatingSession(store, binary, "ann", order=order), N_ITEMS)
    # A random order is its first layout; a balanced one lays its untouched items out again at checkpoints.
    assert (expected == first_layout) == (order == "random")
    rated: list[str] = []
    for stint in (7, 1, 12, 100):
        with Store(path) as store:  # quit and come back: a new connection, a new session
            session = RatingSession(store, binary, "ann", order=order)
            state = session.resume()
            while state is not None and len(rated) < N_ITEMS and stint:
                rated += rate_next(session, 1)
                state = session.state
                stint -= 1
    assert rated == expected  # quitting and coming back never reshuffles
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
    assert session.state is not None
    assert session.state.item.id == first.item.id


def test_an_assignment_keeps_its_own_order(store, binary):
    from judge_tui.transfer.assignment import Options, assign

    fill(store, binary)
    assign(store, binary, Options("binary", ("ann", "bob"), overlap=0.0, seed=1))
    session = RatingSession(store, binary, "ann", order="balanced")
    assert session.plan is not None
    assert not session.ordered
    queue = [i for _, i, *_ in store.assigned_items(session.plan, "ann")]
    assert rate_next(session, 3) == queue[:3]


def test_an_unknown_order_is_a_clear_error(store, binary):
    fill(store, binary)
    with pytest.raises(UserError, match="choose one of import, random, balanced"):
        RatingSession(store, binary, "ann", order="shuffled")


def test_rate_order_on_the_command_line_is_checked(tmp_path):
    done = subprocess.run([sys.executable, "-m", "judge_tui", "rate", "--order", "sideways", "--db",
                           str(tmp_path / "x.db")], capture_output=True, text=True, cwd=Path(__file__).parents[1])
    assert done.returncode == 2
    assert "invalid choice: 'sideways'" in done.stderr


# --------------------------------------------------------------------------- estimates that stay unbiased


def human_rating(store: Store, rubric: Rubric, item_id: str, label: str, rater: str = "ann") -> None:
    version = store.ensure_rubric_version(rubric)
    store.ensure_rater(rater, "human")
    dim = rubric.judged_dimensions[0].id
    scores = {dim: rubric.scale.points[0] if label == "FAIL" else rubric.scale.points[-1]}
    store.save_rating(Rating(item_id=item_id, rater_id=rater, rubric_version_id=version, scores=scores,
                             overall=rubric.overall_score(scores), verdict=rubric.verdict(scores)))


def test_balanced_report_weights_each_stratum_by_its_share_of_the_pool(store, binary):
    from judge_tui.analysis.report import build_report
    from judge_tui.analysis.report_render.as_json import report_to_dict

    fill(store, binary, n=20, split="test")  # the judge: FAIL on P005, P010, P015, P020; PASS on the other 16
    prepare_queue(store, binary, "ann", "balanced")
    # Every FAIL of the judge rated (4 of 4, weight 1) and 4 of its 16 PASSes (weight 4).
    labels = {"P005": "FAIL", "P010": "FAIL", "P015": "FAIL", "P020": "PASS",
              "P001": "PASS", "P002": "PASS", "P003": "PASS", "P004": "FAIL"}
    for item_id, label in labels.items():
        human_rating(store, binary, item_id, label)
    report = build_report(store, binary)
    design = report.design
    assert design is not None
    assert design.weighted
    assert design.judge_rater == JUDGE
    assert design.pool == {"FAIL": 4, "PASS": 16}
    assert design.rated == {"FAIL": 4, "PASS": 4}
    # By hand, the weighted confusion table (rows human FAIL/PASS, columns judge FAIL/PASS) is [[3, 4], [1, 12]].
    figures = {f.key: f.estimate for f in design.figures}
    assert figures["tpr"] == pytest.approx(12 / 13, abs=1e-12)
    assert figures["tnr"] == pytest.approx(3 / 7, abs=1e-12)
    assert figures["accuracy"] == pytest.approx(15 / 20, abs=1e-12)
    assert figures["alignment_rate"] == pytest.approx(15 / 20, abs=1e-12)
    chance = 7 / 20 * 4 / 20 + 13 / 20 * 16 / 20
    assert figures["cohen_kappa"] == pytest.approx((0.75 - chance) / (1 - chance), abs=1e-12)
    pi_fail, pi_pass = (7 / 20 + 4 / 20) / 2, (13 / 20 + 16 / 20) / 2
    ac_chance = pi_fail * (1 - pi_fail) + pi_pass * (1 - pi_pass)
    assert figures["ac1"] == pytest.approx((0.75 - ac_chance) / (1 - ac_chance), abs=1e-12)
    # Kish: weights 1,1,1,1,4,4,4,4 -> 20² / 68.
    assert design.effective_n == pytest.approx(400 / 68, abs=1e-12)
    for f in design.figures:
        if f.key == "corrected_pass_rate":  # 8 labelled items: too few resamples keep TPR + TNR above 1
            continue
        assert defined(f.interval).low <= defined(f.estimate) <= defined(f.interval).high
        assert defined(f.interval).method == ("stratified Jeffreys (two-phase)" if f.key in ("tpr", "tnr", "accuracy",
                                                                                   "alignment_rate")
                                     else "stratified bootstrap (two-phase)")
    # Rogan-Gladen on the 12 judge-only items (all PASS by the judge) with the weighted TPR and TNR, clipped.
    rogan_gladen = (1.0 + 3 / 7 - 1) / (12 / 13 + 3 / 7 - 1)
    assert figures["corrected_pass_rate"] == pytest.approx(min(1.0, rogan_gladen), abs=1e-12)
    # TPR's effective n, by hand: TPR (1 − TPR) over its two-phase variance, 0.5125 / (169 · 0.4225)
    # (tests/test_stats_intervals.py works it out).
    assert {f.key: f.n for f in design.figures}["tpr"] == pytest.approx((12 / 169) / (0.5125 / (169 * 0.4225)))
    # The targets are decided on the weighted figures, not on the tilted plain ones; TPR and TNR on the test
    # split's (every item here is a test item).
    from judge_tui.analysis.design import TEST_WEIGHTED_SCOPE

    decided = {c.key: c for c in report.checks}
    assert decided["tpr"].estimate == pytest.approx(12 / 13)
    assert decided["tpr"].scope == TEST_WEIGHTED_SCOPE
    assert decided["tnr"].estimate == pytest.approx(3 / 7)
    assert decided["alignment"].estimate == pytest.approx(0.75)
    # The figures are the judge's, not the pool's: rating the 12 items left does not make them exact, and a
    # plan that asks for more than those says so.
    planned = [c for c in report.checks if c.more_items is not None]
    assert planned
    assert all(c.left == 12 for c in planned)
    assert all("only 12 are left unrated" in c.plan_text() for c in planned if present(c.more_items) > 12)
    found = report_to_dict(report)["design"]
    assert found["order"] == "balanced"
    assert found["strata"]["FAIL"] == {"pool": 4, "rated": 4}
    assert found["weighted_figures"]["tpr"]["estimate"] == pytest.approx(12 / 13)
    # The sections that are not weighted say so, in every format.
    assert "breakdowns" in found["unweighted_sections"]
    assert "team agreement" in found["unweighted_sections"]
    from judge_tui.analysis.report_render.as_markdown import render_markdown
    from judge_tui.analysis.report_render.as_text import render_text

    for rendered in (render_text(report, width=200), render_markdown(report)):
        assert "unweighted counts of the rated items" in " ".join(rendered.split())


def test_the_pool_pass_rate_of_a_balanced_order_weights_each_verdict_by_its_share_of_the_pool(store, binary):
    """The validity page's pool pass rate over a balanced draw: each of the judge's verdicts (the draw's strata)
    counts at its size in the pool, not at its share of the rated items, and stays within 0-1."""
    from judge_tui.analysis.report import build_report
    from judge_tui.analysis.scores import load
    from judge_tui.analysis.validity import judge_validity
    from judge_tui.stats.prediction_powered import PoolEstimate

    fill(store, binary, n=20)  # the judge: FAIL on P005, P010, P015, P020; PASS on the other 16
    prepare_queue(store, binary, "ann", "balanced")
    labels = {"P005": "FAIL", "P010": "FAIL", "P015": "FAIL", "P020": "PASS",
              "P001": "PASS", "P002": "PASS", "P003": "PASS", "P004": "FAIL"}
    for item_id, label in labels.items():
        human_rating(store, binary, item_id, label)
    ratings = load(store, binary)
    page = judge_validity(store, build_report(store, binary, ratings=ratings), ratings, AgreementSettings())
    [figure] = page.judges[0].pool
    estimate = figure.estimate
    assert isinstance(estimate, PoolEstimate)
    assert figure.key == "pass_rate"
    assert estimate.method == "by verdict"
    assert page.judges[0].pool_note is None
    # FAIL by the judge: 4 in the pool, 1 of its 4 rated passed; PASS: 16 in the pool, 3 of its 4 rated passed.
    assert estimate.estimate == pytest.approx(4 / 20 * 1 / 4 + 16 / 20 * 3 / 4, abs=1e-12)  # the rated: 4/8
    assert 0.0 <= estimate.interval.low < estimate.estimate < estimate.interval.high <= 1.0


def test_uniform_weights_give_todays_figures(store, binary):
    """One stratum (or weights all 1): the design-weighted figures are the report's own to 1e-12."""
    import numpy as np

    from judge_tui.analysis.design import weighted_figures
    from judge_tui.analysis.report import build_report
    from judge_tui.analysis.scores import load, pair

    fill(store, binary, n=30)
    for n, item_id in enumerate(item_ids(30)[:25]):
        human_rating(store, binary, item_id, "FAIL" if n % 3 == 0 else "PASS")
    report = build_report(store, binary)
    assert report.design is None  # nothing recorded: import order, today's report
    ratings = load(store, binary)
    pairing = pair(ratings.first_runs("ann"), ratings.first_runs(JUDGE))
    n = int(pairing.keys.size)
    figures = {f.key: f.estimate for f in weighted_figures(binary, pairing, np.zeros(n, dtype=int), np.ones(n),
                                                          {"0": n}, AgreementSettings(tolerance=0.0))}
    row = report.overall
    assert figures["tpr"] == pytest.approx(row.agreement.tpr, abs=1e-12)
    assert figures["tnr"] == pytest.approx(row.agreement.tnr, abs=1e-12)
    assert figures["accuracy"] == pytest.approx(row.agreement.accuracy, abs=1e-12)
    assert figures["cohen_kappa"] == pytest.approx(row.agreement.cohen_kappa, abs=1e-12)
    assert figures["alignment_rate"] == pytest.approx(report.summary.alignment_rate, abs=1e-12)
    assert figures["ac1"] == pytest.approx(row.uncertainty.figures["ac1"], abs=1e-12)


def test_random_order_changes_no_figure_and_says_so(tmp_path, binary):
    from judge_tui.analysis.report import build_report
    from judge_tui.analysis.report_render.as_json import report_to_dict
    from judge_tui.analysis.report_render.as_text import render_text

    found = []
    for order in ("import", "random"):
        with Store(tmp_path / f"{order}.db") as store:
            fill(store, binary)
            session = RatingSession(store, binary, "ann", order=order)
            for item_id in item_ids()[:15]:
                session.open(present(store.item(item_id)))
                session.set_score("label", 0.0 if item_id in ("P002", "P005", "P010") else 1.0)
                session.submit()
            found.append(build_report(store, binary))
    plain, ordered = (report_to_dict(r) for r in found)
    design = ordered.pop("design")
    assert plain == ordered  # every figure exactly as in import order
    assert design["order"] == "random"
    assert not design["weighted"]
    assert design["effective_sample_size"] == 15
    assert "Sampling design: random order" in render_text(found[1], width=120)


def test_a_merge_and_a_bundle_carry_the_draws_so_the_lead_weights_them(tmp_path, binary):
    from judge_tui.analysis.report import build_report
    from judge_tui.transfer.merge import merge_database

    expert = tmp_path / "ann.db"
    with Store(expert) as store:
        fill(store, binary)
        rate_next(RatingSession(store, binary, "ann", order="balanced"), 12)
        expected = {(d.item_id, d.stratum) for d in store.draws("binary")}
    for only in (None, ["ann"]):  # a whole database, and one expert's work (a bundle's merge)
        with Store(tmp_path / f"lead-{only}.db") as lead:
            merge_database(lead, expert, only_raters=only)
            merge_database(lead, expert, only_raters=only)  # again: nothing doubled
            assert {(d.item_id, d.stratum) for d in lead.draws("binary")} == expected
            if only is None:
                design = build_report(lead, binary).design
                assert design is not None
                assert design.weighted
                assert sum(design.rated.values()) == 12


def test_a_balanced_design_where_every_item_agreed_does_not_claim_certainty(store, binary):
    from judge_tui.analysis.report import build_report

    fill(store, binary, n=20)
    prepare_queue(store, binary, "ann", "balanced")
    for item_id in ("P005", "P010", "P001", "P002", "P003", "P004"):
        human_rating(store, binary, item_id, "FAIL" if item_id in ("P005", "P010") else "PASS")
    design = build_report(store, binary).design
    assert design is not None
    for figure in (f for f in design.figures if f.key in ("cohen_kappa", "ac1")):
        assert figure.estimate == pytest.approx(1.0)
        assert defined(figure.interval).method == "wilson-agreement"
        assert defined(figure.interval).low < 0.9


# --------------------------------------------------------------------------- the allocation that follows the uncertainty


def _skewed_questions(target: float = 0.90) -> list[qo.Question]:
    """A judge with TPR 0.97 and TNR 0.70 at 25% FAIL: 20% judged FAIL, of which 11.5% PASS by the expert;
    80% judged PASS, of which 90.6% PASS by the expert (1,000 items rated)."""
    rated = {}
    for stratum, size, passes in (("FAIL", 200, 23), ("PASS", 800, 725)):
        for k in range(size):
            rated[f"{stratum}{k}"] = (stratum, k < passes)
    return qo.pass_fail_questions(rated, target)


def test_allocation_follows_the_uncertainty_of_the_binding_target():
    """By the delta method (worked out in the module's docstring): TPR alone wants ~90% of ratings from the
    judge's FAILs (the PASSes it failed hide there), TNR alone ~90% from its PASSes; together the binding one,
    TNR (0.70 against 0.90), wins, and the FAIL stratum gets about 10%, not the equal 50%."""
    pool = {"FAIL": 40, "PASS": 160}
    tpr, tnr = _skewed_questions()
    assert qo.allocation_shares(pool, pool, [tpr], proportional_floor=0)["FAIL"] == pytest.approx(0.895, abs=0.01)
    assert qo.allocation_shares(pool, pool, [tnr], proportional_floor=0)["PASS"] == pytest.approx(0.895, abs=0.01)
    both = qo.allocation_shares(pool, pool, [tpr, tnr])
    assert 0.08 < both["FAIL"] < 0.15
    assert sum(both.values()) == pytest.approx(1.0)
    # The defensive floor: a stratum keeps at least half its proportional share (PASS: half of 80%).
    assert qo.allocation_shares(pool, pool, [tpr]) == pytest.approx({"FAIL": 0.6, "PASS": 0.4})


def test_allocation_keeps_every_stratum_in_sight_and_skips_used_up_ones():
    pool = {"FAIL": 40, "PASS": 160, "unjudged": 5}
    shares = qo.allocation_shares(pool, {"FAIL": 40, "PASS": 160, "unjudged": 0}, _skewed_questions())
    assert set(shares) == {"FAIL", "PASS"}
    assert min(shares.values()) >= qo.MIN_SHARE
    # Nothing rated yet: Jeffreys' smoothing alone, every stratum has a share.
    assert min(qo.allocation_shares(pool, pool, qo.pass_fail_questions({}, 0.9)).values()) >= qo.MIN_SHARE


def test_balanced_order_draws_strata_with_the_shares():
    strata = {f"I{n:03d}": "FAIL" if n < 100 else "PASS" for n in range(200)}
    first = [s for _, s in qo.balanced_order(strata, 5, {"FAIL": 0.1, "PASS": 0.9})[:60]]
    assert Counter(first)["FAIL"] < 15  # about 6 of 60, where equal draws give about 30
    assert qo.balanced_order(strata, 5, {"FAIL": 0.1, "PASS": 0.9}) == qo.balanced_order(strata, 5, {"FAIL": 0.1, "PASS": 0.9})


def test_a_balanced_order_is_laid_out_again_at_each_checkpoint_the_same_whether_or_not_the_app_died(tmp_path, binary):
    """After every ALLOCATE_EVERY ratings the untouched items follow the allocation. A session killed right after
    the checkpoint's rating (before laying out) finds, when reopened, the layout an uninterrupted one made."""
    with Store(tmp_path / "sitting.db") as store:
        fill(store, binary)
        session = RatingSession(store, binary, "ann", order="balanced")
        before = store.queue_entries("ann", "binary")
        rated = rate_next(session, qo.ALLOCATE_EVERY)
        assert store.allocated_with("ann", "binary") == qo.ALLOCATE_EVERY
        uninterrupted = store.queue_entries("ann", "binary")
        assert [i for i, _, _ in uninterrupted][:qo.ALLOCATE_EVERY] == rated
        assert uninterrupted != before  # laid out again with the allocation
    with Store(tmp_path / "killed.db") as store:
        fill(store, binary)
        prepare_queue(store, binary, "ann", "balanced")
        for item_id in rated:  # the ratings reached the database; the layout did not
            human_rating(store, binary, item_id, "PASS")
        assert store.allocated_with("ann", "binary") == 0
        RatingSession(store, binary, "ann", order="balanced")  # reopened
        assert store.queue_entries("ann", "binary") == uninterrupted


def test_the_stop_check_decides_on_a_report_of_the_checks_alone(store, binary):
    """study_settledness builds only what deciding the targets needs, and decides as the full report does."""
    from judge_tui.analysis.report import build_report
    from judge_tui.analysis.stopping import items_left, settledness_of, study_settledness

    fill(store, binary, split="test")
    prepare_queue(store, binary, "ann", "balanced")
    for n, (item_id, _, _) in enumerate(store.queue_entries("ann", "binary")[:20]):
        human_rating(store, binary, item_id, "FAIL" if n % 4 == 0 else "PASS")
    full = build_report(store, binary)
    lean = build_report(store, binary, checks_only=True)
    assert lean.checks == full.checks
    assert lean.self_agreement == ()
    assert lean.human_agreement is None
    assert lean.breakdowns == ()
    assert all(f.key != "corrected_pass_rate" for f in present(lean.design).figures)
    assert study_settledness(store, binary, AgreementSettings()) == settledness_of(
        full, has_test_split=True, left=items_left(store, binary, full))


def test_graded_kappa_targets_are_decided_on_weighted_kappas(store, rubrics):
    """A graded rubric in balanced order: each dimension's kappa target is decided on its design-weighted
    kappa (weighted confusion table, by hand below), not on the tilted plain one."""
    import numpy as np

    from judge_tui.analysis.design import WEIGHTED_SCOPE
    from judge_tui.analysis.report import build_report

    rubric = rubrics["reasoning-trace"]  # the judge's verdicts: approve, reject
    version = store.ensure_rubric_version(rubric)
    ids = [f"E{k:03d}" for k in range(30)]
    store.add_items([Item(id=i, rubric=rubric.id, fields={}) for i in ids])
    dims = [d.id for d in rubric.judged_dimensions]
    store.ensure_rater(JUDGE, "judge")
    store.ensure_rater("ann", "human")
    judge_scores = {i: {d: (0.0 if k % 4 == 0 else 1.0) for d in dims} for k, i in enumerate(ids)}
    for i, scores in judge_scores.items():
        store.save_rating(Rating(item_id=i, rater_id=JUDGE, rubric_version_id=version, scores=scores,
                                 overall=rubric.overall_score(scores), verdict=rubric.verdict(scores)))
    prepare_queue(store, rubric, "ann", "balanced")
    entries = store.queue_entries("ann", rubric.id)
    rated = [i for i, _, _ in entries[:12]]
    human = {i: {d: (judge_scores[i][d] if n % 3 else 0.5) for d in dims} for n, i in enumerate(rated)}
    for i, scores in human.items():
        store.save_rating(Rating(item_id=i, rater_id="ann", rubric_version_id=version, scores=scores,
                                 overall=rubric.overall_score(scores), verdict=rubric.verdict(scores)))
    report = build_report(store, rubric)
    assert report.design is not None
    assert report.design.weighted
    assert set(report.design.pool) == {"approve", "reject"}
    pool, seen = Counter(s for _, _, s in entries), Counter(s for _, _, s in entries[:12])
    strata = {i: s for i, _, s in entries}
    points = list(rubric.scale.points)
    for d in dims:
        table = np.zeros((len(points), len(points)))
        for i in rated:
            table[points.index(human[i][d]), points.index(judge_scores[i][d])] += pool[strata[i]] / seen[strata[i]]
        table /= table.sum()
        chance = table.sum(axis=1) @ table.sum(axis=0)
        expected = (np.trace(table) - chance) / (1 - chance)
        found = next(c for c in report.checks if c.key == f"kappa:{d}")
        assert found.scope == WEIGHTED_SCOPE
        assert found.estimate == pytest.approx(expected, abs=1e-12)


def test_a_weighted_target_waits_until_every_verdict_group_is_seen(store, binary):
    """Only 3 of the judge's 16 PASSes rated (and its 4 FAILs): however the intervals fall, no weighted target is
    decided on a verdict group seen fewer than 5 times, as no figure is decided on fewer than 5 items."""
    from judge_tui.analysis.design import WEIGHTED_SCOPE, deciding_n
    from judge_tui.analysis.report import build_report

    fill(store, binary, n=20)
    prepare_queue(store, binary, "ann", "balanced")
    for item_id in ("P005", "P010", "P015", "P020", "P001", "P002", "P003"):
        human_rating(store, binary, item_id, "FAIL" if item_id in ("P005", "P010", "P015", "P020") else "PASS")
    checks = [c for c in build_report(store, binary).checks if c.scope == WEIGHTED_SCOPE]
    assert checks
    assert all(c.decision == "undecided" and c.n <= 3 for c in checks)
    assert deciding_n(40.0, {"FAIL": 4, "PASS": 3}, {"FAIL": 4, "PASS": 16, qo.UNJUDGED: 2}) == 3
    assert deciding_n(40.0, {"FAIL": 4, "PASS": 16}, {"FAIL": 4, "PASS": 16}) == 40  # every group rated whole


def test_the_unjudged_stratum_keeps_an_equal_chance():
    pool = {"FAIL": 40, "PASS": 160, qo.UNJUDGED: 30}
    shares = qo.allocation_shares(pool, pool, _skewed_questions())
    assert shares[qo.UNJUDGED] == pytest.approx(1 / 3)
    assert sum(shares.values()) == pytest.approx(1.0)
    assert shares["FAIL"] / shares["PASS"] == pytest.approx(
        qo.allocation_shares({"FAIL": 40, "PASS": 160}, {"FAIL": 40, "PASS": 160}, _skewed_questions())["FAIL"]
        / qo.allocation_shares({"FAIL": 40, "PASS": 160}, {"FAIL": 40, "PASS": 160}, _skewed_questions())["PASS"])


def test_a_graded_balanced_order_follows_its_agreement_target(store, rubrics):
    """A graded rubric: the allocation works toward the agreement of the reviewer's overall verdict or band with
    the judge's; at the first checkpoint the untouched items are laid out again from it."""
    from judge_tui.analysis.queue_orders import allocation_questions, judge_strata

    rubric = rubrics["reasoning-trace"]  # verdicts approve / needs_revision / reject
    version = store.ensure_rubric_version(rubric)
    ids = [f"E{k:03d}" for k in range(40)]
    store.add_items([Item(id=i, rubric=rubric.id, fields={}) for i in ids])
    dims = [d.id for d in rubric.judged_dimensions]
    store.ensure_rater(JUDGE, "judge")
    store.ensure_rater("ann", "human")
    for k, i in enumerate(ids):
        scores = {d: (0.0 if k % 4 == 0 else 1.0) for d in dims}
        store.save_rating(Rating(item_id=i, rater_id=JUDGE, rubric_version_id=version, scores=scores,
                                 overall=rubric.overall_score(scores), verdict=rubric.verdict(scores)))
    prepare_queue(store, rubric, "ann", "balanced")
    first = store.queue_entries("ann", rubric.id)
    for n, (item_id, _, _) in enumerate(first[:qo.ALLOCATE_EVERY]):
        scores = {d: (0.5 if n % 2 else 1.0) for d in dims}  # half of them disagree
        store.save_rating(Rating(item_id=item_id, rater_id="ann", rubric_version_id=version, scores=scores,
                                 overall=rubric.overall_score(scores), verdict=rubric.verdict(scores)))
    strata = judge_strata(store, rubric, JUDGE)
    (question,) = allocation_questions(store, rubric, "ann", strata, AgreementSettings())
    assert sum(len(rows) for rows in question.outcomes.values()) == qo.ALLOCATE_EVERY
    assert question.threshold == AgreementSettings().alignment_well_calibrated
    prepare_queue(store, rubric, "ann", "balanced")
    assert store.allocated_with("ann", rubric.id) == qo.ALLOCATE_EVERY
    again = store.queue_entries("ann", rubric.id)
    assert again[:qo.ALLOCATE_EVERY] == first[:qo.ALLOCATE_EVERY]
    assert sorted(again) != sorted(first)
    assert sorted(i for i, _, _ in again) == sorted(ids)  # none lost, none repeated


def test_the_corrected_pass_rate_draws_tpr_and_tnr_from_the_stratified_posterior(store, binary):
    from judge_tui.analysis.report import build_report

    fill(store, binary, n=20)  # the judge: FAIL on P005, P010, P015, P020
    prepare_queue(store, binary, "ann", "balanced")
    rated = ["P005", "P010", "P015", "P020", *(f"P{k:03d}" for k in (1, 2, 3, 4, 6, 7, 8, 9, 11, 12))]
    for item_id in rated:  # the expert agrees with the judge but on P011
        human_rating(store, binary, item_id, "FAIL" if item_id in ("P005", "P010", "P015", "P020", "P011") else "PASS")
    design = present(build_report(store, binary).design)
    corrected = {f.key: f for f in design.figures}["corrected_pass_rate"]
    assert defined(corrected.interval).method == "stratified Jeffreys (two-phase)"
    assert defined(corrected.interval).low <= defined(corrected.estimate) <= defined(corrected.interval).high
    # All six judge-only items PASS: the pass rate behind them is drawn from its posterior, never certain.
    assert defined(corrected.interval).low < defined(corrected.interval).high


@pytest.mark.slow
def test_a_checkpoint_reached_while_the_ratings_wait_is_laid_out_once_they_are_written(tmp_path, binary):
    """As in the app: the rating screen commits just after painting, and another process may hold the database
    (a real one holds BEGIN IMMEDIATE here) while the checkpoint's ratings are submitted."""
    from tests.faults.locker import Locker

    path = tmp_path / "held.db"
    with Store(path) as store:
        fill(store, binary)
        session = RatingSession(store, binary, "ann", order="balanced")
        session.save_soon = lambda: None  # written when the screen says, below
        before = store.queue_entries("ann", "binary")
        with Locker(path):
            rate_next(session, qo.ALLOCATE_EVERY)
            assert not session.save_pending()
            assert session.waiting_for == "busy"
            assert store.allocated_with("ann", "binary") == 0
        assert session.save_pending()
        assert store.allocated_with("ann", "binary") == qo.ALLOCATE_EVERY  # laid out once the ratings landed
        assert store.queue_entries("ann", "binary") != before


@pytest.mark.slow
def test_every_item_rated_in_balanced_order_leaves_the_judge_on_its_target_undecided(store, binary, tmp_path):
    """The figures are the judge's, not the pool's: with all 200 items of a pool rated in balanced order and the
    judge's TPR on the pool exactly 0.90 (126 of 140), "TPR > 0.90" stays undecided, on an interval as wide as
    import order's (Jeffreys' of 126 of 140), never the point [0.90, 0.90] that read the pool as the truth."""
    import json

    from scipy import stats as scipy_stats
    from statsmodels.stats.proportion import proportion_confint

    from judge_tui.analysis.report import build_report

    fill(store, binary, n=200, split="test")  # the judge: FAIL on every fifth item (40), PASS on the other 160
    prepare_queue(store, binary, "ann", "balanced")
    judged_fail = [i for i in item_ids(200) if int(i[1:]) % 5 == 0]
    judged_pass = [i for i in item_ids(200) if int(i[1:]) % 5]
    expert_pass = set(judged_pass[:126]) | set(judged_fail[:14])  # TPR 126/140, TNR 26/60
    for item_id in item_ids(200):
        human_rating(store, binary, item_id, "PASS" if item_id in expert_pass else "FAIL")
    report = build_report(store, binary)
    design = report.design
    assert design is not None
    assert design.weighted
    assert design.rated == design.pool == {"FAIL": 40, "PASS": 160}
    figures = {f.key: f for f in design.figures}
    tpr = figures["tpr"]
    assert tpr.estimate == pytest.approx(0.9, abs=1e-12)
    jeffreys = scipy_stats.beta(126.5, 14.5).ppf([0.025, 0.975])
    assert (defined(tpr.interval).low, defined(tpr.interval).high) == pytest.approx(tuple(jeffreys), abs=5e-3)
    for f in design.figures:  # no figure of the whole pool claims certainty
        assert defined(f.interval).high - defined(f.interval).low > 0.05, f.key
    decided = {c.key: c for c in report.checks}
    assert decided["tpr"].decision == "undecided"
    assert decided["tnr"].decision == "not met"
    # As wide as import order's Wilson interval on the same 126 of 140, within a point.
    wilson = proportion_confint(126, 140, alpha=0.05, method="wilson")
    assert defined(tpr.interval).high - defined(tpr.interval).low == pytest.approx(wilson[1] - wilson[0], abs=0.01)
    done = subprocess.run([sys.executable, "-m", "judge_tui", "report", "--db", str(tmp_path / "test.db"),
                           "--format", "json"], capture_output=True, text=True, cwd=Path(__file__).parents[1],
                          check=True)
    found = json.loads(done.stdout)
    interval = found["design"]["weighted_figures"]["tpr"]["interval"]
    assert interval["low"] < 0.9 < interval["high"]
    assert interval["method"] == "stratified Jeffreys (two-phase)"
    assert {t["target"]: t["decision"] for t in found["plan"]}["tpr"] == "undecided"


def test_a_balanced_pool_rated_whole_in_perfect_agreement_claims_no_certainty(store, rubrics):
    """A graded rubric, every item rated in balanced order and every score the judge's: r over the design is 1
    in every resample, which is no interval for the judge (not [1, 1]); kappa takes Wilson's agreement
    interval, wider than a point."""
    from judge_tui.analysis.report import build_report
    from judge_tui.stats.agreement import Undefined

    rubric = rubrics["reasoning-trace"]  # the judge's verdicts: approve, reject
    assert rubric.overall != "label"
    version = store.ensure_rubric_version(rubric)
    ids = [f"E{k:03d}" for k in range(30)]
    store.add_items([Item(id=i, rubric=rubric.id, fields={}) for i in ids])
    dims = [d.id for d in rubric.judged_dimensions]
    store.ensure_rater(JUDGE, "judge")
    store.ensure_rater("ann", "human")
    scores = {i: {d: (0.0 if k % 4 == 0 else 1.0 if k % 3 else 0.5) for d in dims} for k, i in enumerate(ids)}
    for i, given in scores.items():
        store.save_rating(Rating(item_id=i, rater_id=JUDGE, rubric_version_id=version, scores=given,
                                 overall=rubric.overall_score(given), verdict=rubric.verdict(given)))
    prepare_queue(store, rubric, "ann", "balanced")
    for i, given in scores.items():
        store.save_rating(Rating(item_id=i, rater_id="ann", rubric_version_id=version, scores=given,
                                 overall=rubric.overall_score(given), verdict=rubric.verdict(given)))
    design = build_report(store, rubric).design
    assert design is not None
    assert design.weighted
    assert sum(design.rated.values()) == 30
    figures = {f.key: f for f in design.figures}
    assert figures["pearson_r"].estimate == pytest.approx(1.0)
    assert isinstance(figures["pearson_r"].interval, Undefined)
    for f in design.figures:
        if not isinstance(f.interval, Undefined):
            assert f.interval.high - f.interval.low > 0.01, f.key
