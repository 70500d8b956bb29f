"""The judge's certificate in force on the report's validity page (text, Markdown, JSON), through the real
command on a real database, its figures checked against a computation by hand."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from statsmodels.stats.proportion import proportion_confint

from judge_tui.analysis.judge_certificate import CertificateInForce, KeptOnTest, hours_saved
from judge_tui.analysis.report_render.certificate import sentences, to_dict
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats.agreement import Undefined
from judge_tui.store import CertificateTerms, Store
from tests.formats_helpers import run
from tests.team_fixtures import rate
from tests.test_certify import add, judge_runs, study

ASSIGN = ("assign", "--rubric", "binary", "--experts", "ann,bob", "--overlap", "0")


def _database(tmp_path: Path, rubric: Rubric) -> Path:
    """test_certify's study (λ 1 certified on dev: 40 of 60 kept, 1 disagreeing; 6 of 12 unrated items decided;
    10 test items kept, all against the experts) with 5 more test items the experts passed: 3 the judge passes on
    every run (kept, agreeing) and 2 it passes twice in three (confidence 2/3, below λ: not kept). Three of the
    expert's ratings have a recorded time (60, 120 and 180 seconds), the others none."""
    db = tmp_path / "c.db"
    with Store(db) as store:
        study(store, rubric, wrong_among_sure=1)
        more = add(store, "V", 5, "test")
        rate(store, rubric, "ann", "human", {i: {"label": 1.0} for i in more})
        judge_runs(store, rubric, {i: [1.0, 1.0, 1.0] if k < 3 else [1.0, 1.0, 0.0] for k, i in enumerate(more)})
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE ratings SET seconds = NULL WHERE rater_id = 'ann'")
        for item, seconds in (("S000", 60.0), ("S001", 120.0), ("S002", 180.0)):
            conn.execute("UPDATE ratings SET seconds = ? WHERE rater_id = 'ann' AND item_id = ?", [seconds, item])
    conn.close()
    return db


def test_the_report_shows_the_certificate_in_force_with_its_figures_by_hand(
        tmp_path: Path, rubrics: dict[str, Rubric], capsys: pytest.CaptureFixture[str]):
    db = _database(tmp_path, rubrics["binary"])
    code, out, _ = run(capsys, "report", "--db", db, "--rubric", "binary", "--format", "json")
    assert code == 0
    assert "certificate" not in json.loads(out)["judge_validity"]  # none recorded yet
    assert run(capsys, *ASSIGN, "--db", db, "--escalate")[0] == 0
    code, out, err = run(capsys, "report", "--db", db, "--rubric", "binary", "--format", "json")
    assert code == 0, err
    c = json.loads(out)["judge_validity"]["certificate"]
    assert (c["confidence_source"], c["split"], c["alpha"], c["delta"], c["lambda"], c["certified"]) == (
        "repeats", "dev", 0.1, 0.1, 1.0, True)
    assert c["coverage"] == pytest.approx(40 / 60)
    assert (c["kept"], c["n"], c["disagreements"]) == (40, 60, 1)
    assert (c["unrated"], c["judge_decides"], c["escalated"]) == (12, 6, 6)
    # The test split: 15 items compared, 13 kept (10 wrong + 3 right), 3 agreeing. Wilson at 95% by hand:
    # p = 3/13, z = 1.959964; centre (p + z²/26) / (1 + z²/13), half-width z·√(p(1−p)/13 + z²/676) / (1 + z²/13).
    test = c["test"]
    assert (test["compared"], test["kept"], test["agreeing"]) == (15, 13, 3)
    assert test["agreement"] == pytest.approx(3 / 13)
    assert test["coverage"] == pytest.approx(13 / 15)
    assert test["interval"] == pytest.approx([0.0817953, 0.5025638], abs=1e-6)
    assert test["interval"] == pytest.approx(list(proportion_confint(3, 13, alpha=0.05, method="wilson")), abs=1e-9)
    # Hours saved: 6 items x the mean of 60, 120 and 180 s = 0.2 h; the mean's interval 120 ± 1.959964·60/√3.
    hours = c["hours_saved"]
    assert (hours["items"], hours["timed_ratings"], hours["mean_seconds"]) == (6, 3, 120.0)
    assert hours["hours"] == pytest.approx(0.2)
    assert hours["interval"] == pytest.approx([0.0868414, 0.3131586], abs=1e-6)
    code, out, err = run(capsys, "report", "--db", db, "--rubric", "binary")
    assert code == 0, err
    page = " ".join(out.split())  # the page wraps at 80 columns
    assert "The judge's certificate in force: judge judge:alpha:binary@p1, its confidence from its repeated runs, " \
           "certified on the dev split" in page
    assert "λ 1: coverage 67% (40 of 60 certification items kept, 1 disagreeing; bound 0.094 ≤ α)." in page
    assert "The judge decides 6 of the 12 items no expert had rated outside the dev and test splits; 6 are " \
           "escalated to the experts' queues." in page
    assert "it agrees with the experts on 23.1% [8, 50] of them (3 of 13)." in page
    assert "Expert hours saved: 0.20 [0.09, 0.31] (6 items × 120 s, the mean of 3 timed expert ratings" in page
    code, out, err = run(capsys, "report", "--db", db, "--rubric", "binary", "--format", "markdown")
    assert code == 0, err
    assert "## The judge's certificate in force: judge judge:alpha:binary@p1" in out
    assert "- λ 1: coverage 67% (40 of 60 certification items kept" in out


def test_the_report_says_when_no_threshold_passed(tmp_path: Path, rubrics: dict[str, Rubric],
                                                  capsys: pytest.CaptureFixture[str]):
    db = _database(tmp_path, rubrics["binary"])
    assert run(capsys, *ASSIGN, "--db", db, "--escalate", "--alpha", "0.02")[0] == 0
    code, out, err = run(capsys, "report", "--db", db, "--rubric", "binary", "--format", "json")
    assert code == 0, err
    c = json.loads(out)["judge_validity"]["certificate"]
    assert (c["certified"], c["lambda"], c["coverage"], c["judge_decides"], c["escalated"], c["test"]) == (
        False, None, 0.0, 0, 12, None)
    assert c["hours_saved"]["hours"] == 0.0
    code, out, _ = run(capsys, "report", "--db", db, "--rubric", "binary")
    page = " ".join(out.split())
    assert "No threshold passed: the judge may decide no item. All 12 items no expert had rated are the experts' " \
           "to rate (coverage 0%)." in page


def test_a_jurys_certificate_is_checked_on_the_test_split_with_its_own_confidence(
        tmp_path: Path, rubrics: dict[str, Rubric], capsys: pytest.CaptureFixture[str]):
    """Three judges as a jury: certified on dev (40 unanimous and right, 20 split 1-2 and wrong), then on the test
    split 4 unanimous items (3 right, 1 wrong) and 2 split ones (below λ, not kept)."""
    rubric = rubrics["binary"]
    db = tmp_path / "jury.db"
    members = ("judge:alpha:binary@p1", "judge:beta:binary@p1", "judge:gamma:binary@p1")
    with Store(db) as store:
        sure, split = add(store, "S", 40, "dev"), add(store, "U", 20, "dev")
        fresh, tested = add(store, "A", 5, "train"), add(store, "T", 6, "test")
        rate(store, rubric, "ann", "human", {i: {"label": 1.0} for i in sure + split + tested})
        for m, member in enumerate(members):
            said = {i: 1.0 for i in sure + fresh + tested[:3]} | {i: float(m == 0) for i in split + tested[4:]}
            said |= {tested[3]: 0.0}
            rate(store, rubric, member, "judge", {i: {"label": v} for i, v in said.items()})
    code, _, err = run(capsys, *ASSIGN, "--db", db, "--escalate", "--jury", "+".join(members))
    assert code == 0, err
    code, out, err = run(capsys, "report", "--db", db, "--rubric", "binary", "--format", "json")
    assert code == 0, err
    c = json.loads(out)["judge_validity"]["certificate"]
    assert c["confidence_source"] == "jury"
    assert c["members"] == list(members)
    assert c["jury_rule"] == "majority"
    assert c["lambda"] == 1.0
    assert (c["judge_decides"], c["escalated"]) == (5, 0)
    assert (c["test"]["compared"], c["test"]["kept"], c["test"]["agreeing"]) == (6, 4, 3)
    assert c["test"]["interval"] == pytest.approx(list(proportion_confint(3, 4, alpha=0.05, method="wilson")),
                                                  abs=1e-9)
    code, out, _ = run(capsys, "report", "--db", db, "--rubric", "binary")
    page = " ".join(out.split())
    assert "The judge's certificate in force: the jury " + "+".join(members) + ", its confidence from its members' " \
           "agreement, certified on the dev split" in page


def test_a_certificate_with_nothing_to_check_on_the_test_split_says_so():
    terms = CertificateTerms(rubric="binary", judge="judge:alpha:binary@p1", members=(), jury_rule="",
                             confidence="repeats", split="dev", alpha=0.1, delta=0.1, lambda_=1.0, tolerance=0.15,
                             n=60, kept=40, disagreements=1, bound=0.094, unrated=12, created_at="")
    found = CertificateInForce(terms, 6, KeptOnTest(0, 0, 0, Undefined("no item is in the test split")),
                               hours_saved(6, [], AgreementSettings()))
    said = sentences(found)
    assert "On the test split: no item the experts rated has the judge's verdict with a confidence yet, so nothing " \
           "checks the certificate there." in said
    assert "Expert hours saved: n/a (no expert rating of this rubric has a recorded time)." in said
    assert to_dict(found)["hours_saved"]["hours"] is None


def test_the_report_warns_when_the_certificate_is_another_judges(tmp_path: Path, rubrics: dict[str, Rubric],
                                                                 capsys: pytest.CaptureFixture[str]):
    db = _database(tmp_path, rubrics["binary"])
    assert run(capsys, *ASSIGN, "--db", db, "--escalate")[0] == 0
    code, out, err = run(capsys, "report", "--db", db, "--rubric", "binary", "--format", "json")
    assert code == 0, err
    c = json.loads(out)["judge_validity"]["certificate"]
    assert (c["compared_judge"], c["for_another_judge"]) == ("judge:alpha:binary@p1", False)
    code, out, _ = run(capsys, "report", "--db", db, "--rubric", "binary")
    assert "Warning: this certificate" not in " ".join(out.split())
    with Store(db) as store:  # a certificate made for a judge the report does not compare
        terms = store.certificate_in_force("binary")
        assert terms is not None
        store.record_certificate("binary", replace(terms, judge="judge:old-model:binary@p0"),
                                 store.judge_decided("binary"))
    code, out, err = run(capsys, "report", "--db", db, "--rubric", "binary", "--format", "json")
    assert code == 0, err
    c = json.loads(out)["judge_validity"]["certificate"]
    assert (c["judge"], c["compared_judge"], c["for_another_judge"]) == (
        "judge:old-model:binary@p0", "judge:alpha:binary@p1", True)
    warning = ("Warning: this certificate was made for judge:old-model:binary@p0, not for judge:alpha:binary@p1, "
               "the judge this report compares: it guarantees nothing about judge:alpha:binary@p1. A new judge "
               "needs a new certificate (`judge-tui assign --escalate`).")
    code, out, err = run(capsys, "report", "--db", db, "--rubric", "binary")
    assert code == 0, err
    assert warning in " ".join(out.split())
    code, out, err = run(capsys, "report", "--db", db, "--rubric", "binary", "--format", "markdown")
    assert code == 0, err
    assert f"- {warning}" in out.replace("\\", "")
