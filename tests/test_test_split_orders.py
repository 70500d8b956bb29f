"""TPR and TNR are the test split's targets under every queue order: their decisions read only test items, in
the report (fixed-n) and in the stop check (valid at any time). A balanced order over a pool whose dev split is
far better than its test split must never call the test split's targets met on the strength of the dev items."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from judge_tui.analysis.queue_orders import prepare_queue
from judge_tui.analysis.report import build_report
from judge_tui.analysis.stopping import anytime_checks, study_settledness
from judge_tui.model.records import Item, Rating
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.store import Store
from judge_tui.tui.session import RatingSession
from tests.narrowing import defined

JUDGE = "judge:sim"
Labels = dict[str, tuple[bool, bool]]  # item -> (the expert's PASS, the judge's PASS)


def split_labels(prefix: str, passes: int, true_passes: int, fails: int, true_fails: int, seed: int) -> Labels:
    """Items of one split, shuffled, with exactly these counts of the expert's and the judge's labels."""
    rows = ([(True, True)] * true_passes + [(True, False)] * (passes - true_passes)
            + [(False, False)] * true_fails + [(False, True)] * (fails - true_fails))
    random.Random(seed).shuffle(rows)
    return {f"{prefix}{k:03d}": row for k, row in enumerate(rows)}


def save(store: Store, rubric: Rubric, item_id: str, rater: str, passed: bool) -> None:
    version = store.ensure_rubric_version(rubric)
    dim = rubric.judged_dimensions[0].id
    scores = {dim: rubric.scale.points[-1] if passed else rubric.scale.points[0]}
    store.save_rating(Rating(item_id=item_id, rater_id=rater, rubric_version_id=version, scores=scores,
                             overall=rubric.overall_score(scores), verdict=rubric.verdict(scores)))


def study(store: Store, rubric: Rubric, test: Labels, dev: Labels) -> dict[str, tuple[bool, bool]]:
    """The items of both splits, the dev split imported first, every item judged."""
    store.ensure_rubric_version(rubric)
    store.add_items([Item(id=i, rubric=rubric.id, fields={"query": i, "criterion": "c", "response": "r"}, split=s)
                     for s, labels in (("dev", dev), ("test", test)) for i in labels])
    store.ensure_rater(JUDGE, "judge")
    store.ensure_rater("ann", "human")
    every = {**dev, **test}
    for item_id, (_, judge_pass) in every.items():
        save(store, rubric, item_id, JUDGE, judge_pass)
    return every


def weighted_by_hand(test: Labels, rated: list[str]) -> dict[str, float]:
    """TPR and TNR over the rated test items, each weighted by the judge's verdict group in the test split alone
    (its size ÷ the test items rated in it)."""
    pool = {verdict: sum(j == verdict for _, j in test.values()) for verdict in (True, False)}
    tested = [i for i in rated if i in test]
    seen = {verdict: sum(test[i][1] == verdict for i in tested) for verdict in (True, False)}
    weight = {i: pool[test[i][1]] / seen[test[i][1]] for i in tested}
    human = np.array([test[i][0] for i in tested])
    judge = np.array([test[i][1] for i in tested])
    w = np.array([weight[i] for i in tested])
    return {"tpr": float(w @ (human & judge) / (w @ human)), "tnr": float(w @ (~human & ~judge) / (w @ ~human))}


@pytest.mark.parametrize("order", ["import", "random", "balanced"])
def test_the_test_splits_targets_read_only_test_items_in_every_order(store, rubrics, order):
    """40 test items at TPR = TNR = 0.85 beside 120 dev items the judge gets nearly all right, a part of the pool
    rated in the order's sequence: TPR and TNR are the test items' figures (weighted within the test split by its
    own verdict groups in balanced order), whatever the dev items say."""
    rubric = rubrics["binary"]
    test = split_labels("T", 20, 17, 20, 17, seed=1)
    dev = split_labels("D", 60, 60, 60, 59, seed=2)
    every = study(store, rubric, test, dev)
    prepare_queue(store, rubric, "ann", order)
    queue = [i for i, _, _ in store.queue_entries("ann", rubric.id)] or list(every)  # import order stores none
    rated = queue[:140]
    for item_id in rated:
        save(store, rubric, item_id, "ann", every[item_id][0])
    tested = [i for i in rated if i in test]
    assert 0 < len(tested) < len(test)  # a part of the test split, beside dev items
    report = build_report(store, rubric)
    checks = {c.key: c for c in report.checks}
    if order == "balanced":
        expected = weighted_by_hand(test, rated)
        scope = "test split, design-weighted"
    else:  # every weight is 1: the plain shares of the rated test items
        human = np.array([test[i][0] for i in tested])
        judge = np.array([test[i][1] for i in tested])
        expected = {"tpr": float((human & judge).sum() / human.sum()),
                    "tnr": float((~human & ~judge).sum() / (~human).sum())}
        scope = "test split"
    for key in ("tpr", "tnr"):
        assert checks[key].scope == scope
        assert defined(checks[key].estimate) == pytest.approx(expected[key], abs=1e-12)
        assert checks[key].decision != "met"
        if order == "balanced":  # the stop check's items left of the test split, counted by its design
            assert checks[key].left == len(test) - len(tested)
    for found in anytime_checks(report):
        if found.check.key in ("tpr", "tnr"):
            assert found.decision != "met"


def test_a_balanced_orders_design_line_gives_tpr_and_tnr_of_the_test_split_only(store, rubrics):
    """The text report's design-weighted figures, for a balanced order over both splits: TPR and TNR as the test
    split's targets read them (weighted within it), never the figures over every split beside them."""
    from judge_tui.analysis.report_render.as_text import render_text

    rubric = rubrics["binary"]
    test = split_labels("T", 20, 17, 20, 17, seed=1)
    dev = split_labels("D", 60, 60, 60, 59, seed=2)
    every = study(store, rubric, test, dev)
    prepare_queue(store, rubric, "ann", "balanced")
    for item_id, _, _ in store.queue_entries("ann", rubric.id)[:140]:
        save(store, rubric, item_id, "ann", every[item_id][0])
    report = build_report(store, rubric)
    assert report.design is not None
    pooled = {f.key: f for f in report.design.figures}
    checks = {c.key: c for c in report.checks}
    text = " ".join(render_text(report, width=100).split())
    line = text[text.index("Design-weighted figures"):text.index("Unweighted:")]
    for key in ("tpr", "tnr"):
        assert f"{checks[key].figure} {checks[key].reading}" in line
        assert defined(pooled[key].estimate) > defined(checks[key].estimate)  # the dev items lift the pool's
        assert len(re.findall(rf"{checks[key].figure} \d", line)) == 1  # one figure given for it, not two
    assert "on the test split's items alone" in line


def test_a_balanced_pool_without_a_test_split_decides_no_tpr_or_tnr(store, rubrics):
    """Without test items TPR and TNR are not targets of the study in balanced order either (as in import
    order): nothing stands in for them from the other splits."""
    rubric = rubrics["binary"]
    dev = split_labels("D", 30, 30, 10, 10, seed=3)
    every = study(store, rubric, {}, dev)
    prepare_queue(store, rubric, "ann", "balanced")
    for item_id, _, _ in store.queue_entries("ann", rubric.id):
        save(store, rubric, item_id, "ann", every[item_id][0])
    checks = {c.key: c for c in build_report(store, rubric).checks}
    assert checks["tpr"].scope == checks["tnr"].scope == "test split"
    assert checks["tpr"].decision is None
    assert checks["tnr"].decision is None
    settled = study_settledness(store, rubric, AgreementSettings())
    assert settled is not None
    assert settled.targets == 2  # alignment and kappa only


@pytest.mark.slow
def test_a_balanced_order_never_calls_a_weak_test_split_met_on_a_strong_dev_split(tmp_path, rubrics):
    """100 test items at TPR = TNR = 0.85 and 500 dev items at 0.99, every item rated in the rating session's
    balanced order: the stop check is never settled on the way, and with every item rated the report, through
    the command line, gives TPR and TNR of the 100 test items, neither met (fixed-n and any time)."""
    rubric = rubrics["binary"]
    db = tmp_path / "study.db"
    test = split_labels("T", 60, 51, 40, 34, seed=7)
    dev = split_labels("D", 300, 297, 200, 198, seed=8)
    with Store(db) as store:
        every = study(store, rubric, test, dev)
        session = RatingSession(store, rubric, "ann", order="balanced")
        state = session.state or session.resume()
        dim = rubric.judged_dimensions[0].id
        count = 0
        while state is not None:
            session.set_score(dim, rubric.scale.points[-1] if every[state.item.id][0] else rubric.scale.points[0])
            session.submit()
            count += 1
            if count % 40 == 0:  # the stop check the rating screen runs, looked at along the way
                settled = study_settledness(store, rubric, AgreementSettings())
                assert settled is not None, count
                assert not settled.settled, count
            state = session.open_next_unrated()
        assert count == len(every)
    env = {**os.environ, "PYTHONPATH": str(Path.cwd())}
    env.pop("JUDGE_TUI_DB", None)
    done = subprocess.run([sys.executable, "-m", "judge_tui", "report", "--db", str(db), "--format", "json"],
                          capture_output=True, text=True, env=env, check=True, timeout=120)
    plan = {t["target"]: t for t in json.loads(done.stdout)["plan"]}
    for key, expected in (("tpr", 51 / 60), ("tnr", 34 / 40)):
        assert plan[key]["scope"] == "test split, design-weighted"
        assert plan[key]["estimate"] == pytest.approx(expected, abs=1e-12)
        assert plan[key]["decision"] in ("undecided", "not met")
        assert plan[key]["anytime"]["decision"] in ("undecided", "not met")
    text = subprocess.run([sys.executable, "-m", "judge_tui", "report", "--db", str(db)], capture_output=True,
                          text=True, env=env, check=True, timeout=120).stdout
    assert "On the test split (100 items): TPR 0.850" in text
    # The sampling design's line gives TPR and TNR of the test split alone, the ones decided, not every item's.
    assert ("and TPR and TNR on the test split's items alone, weighted within it: TPR 0.850"
            in " ".join(text.split()))
