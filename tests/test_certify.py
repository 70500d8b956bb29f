"""`judge-tui certify`: the judge's confidence from its repeats, the certificate on the dev split's expert-rated
items, and what it leaves to the experts, on a real database and through the command."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import beta

from judge_tui.analysis.certify import certify_judge, jury_verdicts, repeat_confidence
from judge_tui.model.errors import UserError
from judge_tui.model.records import Item
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.store import Store
from tests.formats_helpers import run
from tests.team_fixtures import rate

JUDGE = "judge:alpha:binary@p1"


def add(store: Store, prefix: str, n: int, split: str) -> list[str]:
    ids = [f"{prefix}{k:03d}" for k in range(n)]
    store.add_items([Item(id=i, rubric="binary", fields={"query": i, "criterion": "c", "response": i}, split=split)
                     for i in ids])
    return ids


def judge_runs(store: Store, rubric: Rubric, runs: dict[str, list[float]]) -> None:
    """Each item's runs, the first run first."""
    for repeat in range(max(len(r) for r in runs.values())):
        rate(store, rubric, JUDGE, "judge", {i: {"label": r[repeat]} for i, r in runs.items() if len(r) > repeat},
             repeat=repeat)


def study(store: Store, rubric: Rubric, *, wrong_among_sure: int = 0, repeats: bool = True) -> None:
    """The dev split: 40 items whose three runs agree (``wrong_among_sure`` of them against the experts) and 20
    whose third run differs, 10 of them against the experts. Unrated (train): 6 agreeing, 4 split, 2 judged
    once. The test split: 10 expert-rated items whose runs agree and are all wrong (never used). Not yet rated
    by the experts, whose runs agree: 3 of dev and 2 of test (theirs to rate, never the judge's)."""
    sure, unsure = add(store, "S", 40, "dev"), add(store, "U", 20, "dev")
    fresh_sure, fresh_split, fresh_once = add(store, "A", 6, "train"), add(store, "B", 4, "train"), add(
        store, "C", 2, "train")
    tested = add(store, "T", 10, "test")
    waiting = add(store, "D", 3, "dev") + add(store, "E", 2, "test")
    truth = {i: {"label": 1.0} for i in sure + unsure + tested}
    rate(store, rubric, "ann", "human", truth)
    runs: dict[str, list[float]] = {}
    for k, i in enumerate(sure):
        said = 0.0 if k < wrong_among_sure else 1.0
        runs[i] = [said] * 3
    for k, i in enumerate(unsure):
        said = 0.0 if k < 10 else 1.0
        runs[i] = [said, said, 1.0 - said]
    runs |= {i: [1.0, 1.0, 1.0] for i in fresh_sure} | {i: [1.0, 1.0, 0.0] for i in fresh_split}
    runs |= {i: [0.0] for i in fresh_once} | {i: [0.0, 0.0, 0.0] for i in tested}
    runs |= {i: [1.0, 1.0, 1.0] for i in waiting}
    if not repeats:
        runs = {i: r[:1] for i, r in runs.items()}
    judge_runs(store, rubric, runs)


def upper(k: int, n: int, delta: float) -> float:
    return float(beta.ppf(1 - delta, k + 1, n - k))


def test_the_certificate_on_the_dev_split_and_what_it_escalates(tmp_path: Path, rubrics: dict[str, Rubric]):
    rubric = rubrics["binary"]
    with Store(tmp_path / "c.db") as store:
        study(store, rubric, wrong_among_sure=1)
        found = certify_judge(store, rubric, AgreementSettings(), alpha=0.1, delta=0.1)
    cert = found.certificate
    assert found.judge == JUDGE
    assert found.split == "dev"
    assert found.most_judgments == 3
    assert cert.n == 60
    assert found.expert_rated == 60
    assert found.without_confidence == 0
    # Strictest first: the 40 agreeing items (1 disagrees) pass; adding the 20 at 2/3 (11 disagree of 60) fails.
    assert [(t.threshold, t.kept, t.disagreements, t.passed) for t in cert.tests] == [
        (1.0, 40, 1, True), (pytest.approx(2 / 3), 60, 11, False)]
    assert cert.tests[0].bound == pytest.approx(upper(1, 40, 0.1), abs=1e-9)
    assert cert.threshold == 1.0
    assert cert.coverage == pytest.approx(40 / 60)
    # The 12 train items no expert rated: the 6 whose runs agree are the judge's; the split and the once-judged go.
    assert (found.unrated, found.judge_decides, found.escalate) == (12, 6, 6)
    assert found.decided == tuple(f"A{k:03d}" for k in range(6))
    assert found.escalated == (*(f"B{k:03d}" for k in range(4)), "C000", "C001")


def test_no_threshold_passes_and_every_unrated_item_goes_to_the_experts(tmp_path: Path,
                                                                       rubrics: dict[str, Rubric]):
    rubric = rubrics["binary"]
    with Store(tmp_path / "c.db") as store:
        study(store, rubric, wrong_among_sure=8)
        found = certify_judge(store, rubric, AgreementSettings(), alpha=0.1, delta=0.1)
    assert not found.certified
    assert found.certificate.threshold is None
    assert len(found.certificate.tests) == 1
    assert found.certificate.tests[0].disagreements == 8
    assert (found.judge_decides, found.escalate) == (0, 12)
    assert found.to_json()["lambda"] is None
    assert found.to_json()["coverage"] == 0.0


def test_the_confidence_is_the_share_of_runs_agreeing_with_the_first(rubrics: dict[str, Rubric]):
    scale = rubrics["cis"].scale  # graded, aligned within the tolerance
    nan = np.nan
    runs = np.array([[[0.5, 1.0], [0.5, 0.5], [0.0, nan], [nan, nan], [1.0, 1.0]],
                     [[0.75, 1.0], [0.25, 0.5], [0.0, 1.0], [0.5, 0.5], [nan, nan]],
                     [[0.5, 0.75], [0.5, nan], [nan, nan], [0.5, 0.5], [nan, nan]]])
    found = repeat_confidence(runs, scale, AgreementSettings(tolerance=0.25))
    # item 0: 0.75 and 0.75 are within 0.25 of the first run, so every run agrees; item 1: the second run's 0.25
    # is 0.25 off (agrees), the third lacks the second dimension (disagrees); item 2: the first run's unscored
    # dimension is not asked of the others, the third run is absent; item 3: no first run; item 4: one run.
    assert np.allclose(found, [1.0, 2 / 3, 1.0, nan, nan], equal_nan=True)


def test_mistakes_are_said_plainly(tmp_path: Path, rubrics: dict[str, Rubric]):
    rubric = rubrics["binary"]
    with Store(tmp_path / "c.db") as store:
        study(store, rubric, repeats=False)
        with pytest.raises(UserError, match=r"judged each expert-rated item of the dev split once.*--repeat 3"):
            certify_judge(store, rubric, AgreementSettings(), alpha=0.1, delta=0.1)
        with pytest.raises(UserError, match="never uses the test split"):
            certify_judge(store, rubric, AgreementSettings(), alpha=0.1, delta=0.1, split="test")
        with pytest.raises(UserError, match="'judge:x' is not a judge"):
            certify_judge(store, rubric, AgreementSettings(), alpha=0.1, delta=0.1, judge="judge:x")
        with pytest.raises(UserError, match="--alpha 1.5"):
            certify_judge(store, rubric, AgreementSettings(), alpha=1.5, delta=0.1)


def test_no_judge_yet(tmp_path: Path, rubrics: dict[str, Rubric]):
    with Store(tmp_path / "c.db") as store:
        add(store, "S", 3, "dev")
        with pytest.raises(UserError, match=r"no judge has rated rubric 'binary': run `judge-tui judge"):
            certify_judge(store, rubrics["binary"], AgreementSettings(), alpha=0.1, delta=0.1)


def test_the_command_in_text_and_json(tmp_path: Path, rubrics: dict[str, Rubric], capsys: pytest.CaptureFixture[str]):
    db = tmp_path / "c.db"
    with Store(db) as store:
        study(store, rubrics["binary"], wrong_among_sure=1)
    code, out, err = run(capsys, "certify", "--db", db, "--rubric", "binary")
    assert code == 0, err
    assert "λ 1: the judge keeps an item when at least 100% of its runs agree" in out
    assert "coverage 67% (40 of 60 items), 1 disagreeing; bound 0.094" in out
    assert re.search(r"λ 1 +40 kept +1 disagree +bound 0\.094 +passed\n +λ 0\.667 +60 kept +11 disagree +bound "
                     r"0\.264 +failed\n", out)
    assert "items no expert has rated outside the dev and test splits: 12; the judge decides 6, escalate 6 to the experts" in out
    assert "2 of the escalated have no confidence (judged once, or not at all): `judge-tui judge --rubric binary" in out
    code, out, _ = run(capsys, "certify", "--db", db, "--rubric", "binary", "--alpha", "0.3", "--delta", "0.05",
                       "--format", "json")
    data = json.loads(out)
    assert code == 0
    assert data["alpha"] == 0.3
    assert data["delta"] == 0.05
    assert data["split"] == "dev"
    assert data["lambda"] == pytest.approx(2 / 3)
    assert data["kept"] == 60
    assert data["coverage"] == 1.0
    assert data["bound"] == pytest.approx(upper(11, 60, 0.05), abs=1e-9)
    assert data["escalate"] == 2
    assert data["judge_decides"] == 10
    assert data["escalate_without_confidence"] == 2  # at λ 2/3 the split runs (2 of 3) are kept
    _, out, _ = run(capsys, "certify", "--db", db, "--rubric", "binary", "--alpha", "0.02")
    assert "no threshold is certified: the judge may decide no item" in out
    assert "60 items are too few for any bound to reach α 0.02 (it takes 114 kept items" in out
    assert "the judge decides 0, escalate 12 to the experts" in out
    code, _, err = run(capsys, "certify", "--db", db, "--rubric", "binary", "--split", "test")
    assert code == 1
    assert "never uses the test split" in err
    assert "Traceback" not in err


def test_assign_escalate_leaves_the_certified_items_to_the_judge(tmp_path: Path, rubrics: dict[str, Rubric],
                                                                 capsys: pytest.CaptureFixture[str]):
    db = tmp_path / "c.db"
    with Store(db) as store:
        study(store, rubrics["binary"], wrong_among_sure=1)
        every = set(store.item_keys_in_order("binary")[1])
    code, out, err = run(capsys, "assign", "--db", db, "--rubric", "binary", "--experts", "ann,bob", "--overlap", "0",
                         "--escalate", "--format", "json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["left_to_judge"] == 6
    assert summary["certificate"]["lambda"] == 1.0
    decided = {f"A{k:03d}" for k in range(6)}
    with Store(db) as store:
        queued = {row[1] for row in store.assigned_items(summary["plan"])}
    assert queued == every - decided  # the escalated, the split's and the already rated items: the experts'
    code, out, _ = run(capsys, "assign", "--db", db, "--rubric", "binary", "--experts", "ann,bob", "--overlap", "0",
                       "--escalate", "--alpha", "0.02")
    assert code == 0
    assert "left to the judge" not in out
    assert "no threshold is certified" in out
    with Store(db) as store:
        plan = store.current_plan("binary")
        assert plan is not None
        assert {row[1] for row in store.assigned_items(plan["id"])} == every
    code, _, err = run(capsys, "assign", "--db", db, "--rubric", "binary", "--experts", "ann,bob", "--alpha", "0.2")
    assert code == 1
    assert "go with --escalate" in err


MEMBERS = ("judge:alpha:binary@p1", "judge:beta:binary@p1", "judge:gamma:binary@p1")


def test_a_jurys_certificate_from_its_members_agreement(tmp_path: Path, rubrics: dict[str, Rubric],
                                                        capsys: pytest.CaptureFixture[str]):
    rubric = rubrics["binary"]
    db = tmp_path / "jury.db"
    with Store(db) as store:
        sure, split = add(store, "S", 40, "dev"), add(store, "U", 20, "dev")
        agreed, divided, alone = add(store, "A", 5, "train"), add(store, "B", 3, "train"), add(store, "C", 2, "train")
        rate(store, rubric, "ann", "human", {i: {"label": 1.0} for i in sure + split})
        for m, member in enumerate(MEMBERS):
            said = {i: 1.0 for i in sure + agreed} | {i: float(m == 0) for i in split + divided}
            said |= {i: 1.0 for i in alone} if m == 0 else {}
            rate(store, rubric, member, "judge", {i: {"label": v} for i, v in said.items()})
        found = certify_judge(store, rubric, AgreementSettings(), alpha=0.1, delta=0.1, members=MEMBERS)
    cert = found.certificate
    # The 20 divided items: two members say FAIL, so the jury does, against the experts' PASS, at confidence 2/3.
    assert [(t.threshold, t.kept, t.disagreements, t.passed) for t in cert.tests] == [
        (1.0, 40, 0, True), (pytest.approx(2 / 3), 60, 20, False)]
    assert found.judge == "jury"
    assert found.members == MEMBERS
    assert found.most_judgments == 3
    assert found.decided == tuple(agreed)
    assert found.escalated == (*divided, *alone)
    code, out, err = run(capsys, "certify", "--db", db, "--jury", "+".join(MEMBERS))
    assert code == 0, err
    assert out.startswith(f"The jury {'+'.join(MEMBERS)} on rubric binary")
    assert "the share of its 3 members that agree with its majority" in out
    assert "λ 1: the judge keeps an item when at least 100% of its members agree" in out
    code, _, err = run(capsys, "certify", "--db", db, "--jury", "+".join(MEMBERS), "--judge", MEMBERS[0])
    assert code == 1
    assert "not both" in err
    code, out, err = run(capsys, "assign", "--db", db, "--rubric", "binary", "--experts", "ann,bob", "--escalate",
                         "--jury", "+".join(MEMBERS), "--format", "json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["left_to_judge"] == 5
    assert summary["certificate"]["members"] == list(MEMBERS)
    with Store(db) as store:
        assert not set(agreed) & {row[1] for row in store.assigned_items(summary["plan"])}


def test_the_jurys_verdict_and_confidence(rubrics: dict[str, Rubric]):
    nan = np.nan
    binary = rubrics["binary"].scale
    members = np.array([[[1.0], [1.0], [0.0], [1.0]],
                        [[1.0], [0.0], [1.0], [nan]],
                        [[0.0], [nan], [1.0], [nan]]])
    verdict, confidence = jury_verdicts(members, binary, AgreementSettings())
    # 2 of 3 for PASS; a 1-1 tie (no verdict); 2 of 3 for PASS; one member alone (no confidence)
    assert np.allclose(verdict[:, 0], [1.0, nan, 1.0, 1.0], equal_nan=True)
    assert np.allclose(confidence, [2 / 3, nan, 2 / 3, nan], equal_nan=True)
    graded = rubrics["cis"].scale
    scores = np.array([[[0.0, 1.0]], [[0.25, 1.0]], [[1.0, 0.75]]])  # the median: 0.25 and 1.0
    verdict, confidence = jury_verdicts(scores, graded, AgreementSettings(tolerance=0.25))
    assert verdict.tolist() == [[0.25, 1.0]]
    assert confidence.tolist() == [pytest.approx(2 / 3)]  # 1.0 is 0.75 from the median on the first dimension


def test_a_graded_rubric_counts_an_item_wrong_when_any_dimension_is_out_of_tolerance(tmp_path: Path,
                                                                                     rubrics: dict[str, Rubric]):
    from tests.judge.conftest import cis_rows

    rubric = rubrics["cis"]
    dims = [d.id for d in rubric.judged_dimensions]
    with Store(tmp_path / "cis.db") as store:
        items = []
        for row in cis_rows(40):
            item_id = row.pop("id")
            row.pop("split", None)
            items.append(Item(id=item_id, rubric="cis", fields=row, split="dev"))
        store.add_items(items)
        ids = [item.id for item in items]
        expert = {i: dict.fromkeys(dims, 0.75) for i in ids}
        rate(store, rubric, "ann", "human", expert)
        off = set(ids[:3])  # the judge's every run puts the last dimension 0.5 away on these: sure and wrong
        near = set(ids[3:6])  # 0.25 away on the first dimension, within the tolerance
        for repeat in range(3):
            said = {i: {**dict.fromkeys(dims, 0.75), **({dims[-1]: 0.25} if i in off else {}),
                        **({dims[0]: 0.5} if i in near else {})} for i in ids}
            rate(store, rubric, "judge:alpha:cis@p1", "judge", said, repeat=repeat)
        found = certify_judge(store, rubric, AgreementSettings(tolerance=0.25), alpha=0.1, delta=0.1)
    # Every run agrees with the first: one candidate, every item, the 3 off items disagreeing.
    n = len(ids)
    [tested] = found.certificate.tests
    assert (tested.threshold, tested.kept, tested.disagreements) == (1.0, n, 3)
    assert tested.bound == pytest.approx(upper(3, n, 0.1), abs=1e-9)
    assert tested.passed == (upper(3, n, 0.1) <= 0.1)


@pytest.mark.slow
def test_certify_on_the_confidence_the_judge_stated_and_on_its_token_probability(
        tmp_path: Path, rubrics: dict[str, Rubric], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch):
    """The judge answers through an OpenAI-compatible server (the fake on 127.0.0.1, through the real SDK and the
    command), stating 0.9 on a PASS and 0.6 on a FAIL, its PASS token at probability 0.95 and its FAIL at 0.7.
    The experts agree with every PASS but one and with half the FAILs."""
    from tests.judge import fake_openai as fo

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server = fo.FakeOpenAI(stated={"PASS": 0.9, "FAIL": 0.6},
                           token_logprob={"PASS": math.log(0.95), "FAIL": math.log(0.7)}).start()
    db = tmp_path / "c.db"
    try:
        with Store(db) as store:
            dev = add(store, "V", 120, "dev")
            fresh = add(store, "W", 10, "train")  # no expert rates these: the certificate decides them
        code, _, err = run(capsys, "judge", "--db", db, "--rubric", "binary", "--backend", "openai", "--model", "m",
                           "--base-url", server.url)
        assert code == 0, err
    finally:
        server.stop()
    with Store(db) as store:
        rubric = rubrics["binary"]
        judge = store.scalar("SELECT id FROM raters WHERE kind = 'judge'")
        said = {r.item_id: r.scores["label"] for r in store.iter_ratings(rater_ids=[judge])}
        passes = [i for i in dev if said[i] == 1.0]
        fails = [i for i in dev if said[i] == 0.0]
        assert len(passes) >= 40
        assert len(fails) >= 20  # the fake's labels are spread over both
        truth = {i: {"label": 1.0 - said[i] if (i == passes[0] or k % 2 == 0 and i in fails) else said[i]}
                 for k, i in enumerate(passes + fails)}
        rate(store, rubric, "ann", "human", truth)
    wrong_passes = 1
    for source, sure, unsure in (("stated", 0.9, 0.6), ("logprob", 0.95, 0.7)):
        code, out, err = run(capsys, "certify", "--db", db, "--rubric", "binary", "--confidence", source,
                             "--format", "json")
        assert code == 0, err
        data = json.loads(out)
        assert data["confidence"] == source
        assert data["n"] == 120
        assert data["without_confidence"] == 0
        first, second = data["tests"]
        assert (first["lambda"], first["kept"], first["disagreements"]) == (
            pytest.approx(sure), len(passes), wrong_passes)
        assert first["bound"] == pytest.approx(upper(wrong_passes, len(passes), 0.1), abs=1e-9)
        assert first["passed"]
        assert data["lambda"] == pytest.approx(sure)  # 1 of 56 or so: bound about 0.07
        assert (second["lambda"], second["kept"], second["passed"]) == (pytest.approx(unsure), 120, False)
        assert data["unrated"] == 10
        assert data["judge_decides"] == sum(said[i] == 1.0 for i in fresh)
    code, out, _ = run(capsys, "certify", "--db", db, "--rubric", "binary", "--confidence", "stated")
    assert "each with the judge's confidence (the confidence it stated in its answer)" in out
    assert "λ 0.9: the judge keeps an item when the confidence it stated in its answer is at least 0.9" in out
    code, out, _ = run(capsys, "certify", "--db", db, "--rubric", "binary", "--confidence", "logprob")
    assert "λ 0.95: the judge keeps an item when the probability of its scores' tokens is at least 0.95" in out
    # Escalation on the stated confidence: the fresh items the judge passed (stated 0.9) are left to it.
    code, out, err = run(capsys, "assign", "--db", db, "--rubric", "binary", "--experts", "ann,bob", "--overlap", "0",
                         "--escalate", "--confidence", "stated", "--format", "json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["certificate"]["confidence"] == "stated"
    assert summary["left_to_judge"] == sum(said[i] == 1.0 for i in fresh) > 0
    code, _, err = run(capsys, "assign", "--db", db, "--rubric", "binary", "--experts", "ann,bob", "--confidence",
                       "stated")
    assert code == 1
    assert "go with --escalate" in err


def test_a_confidence_the_judge_never_gave_is_said_plainly(tmp_path: Path, rubrics: dict[str, Rubric],
                                                            capsys: pytest.CaptureFixture[str]):
    db = tmp_path / "c.db"
    with Store(db) as store:
        study(store, rubrics["binary"])  # ratings without a stored confidence, as before it was asked for
    code, _, err = run(capsys, "certify", "--db", db, "--rubric", "binary", "--confidence", "stated")
    assert code == 1
    assert "gave no stated confidence on the dev split's expert-rated items" in err
    assert "--confidence repeats" in err
    assert "Traceback" not in err
    code, _, err = run(capsys, "certify", "--db", db, "--rubric", "binary", "--confidence", "logprob")
    assert code == 1
    assert "the Anthropic API gives none" in err
    with Store(db) as store, pytest.raises(UserError, match="a jury's confidence is the share of its members"):
        certify_judge(store, rubrics["binary"], AgreementSettings(), alpha=0.1, delta=0.1, members=(JUDGE, "judge:b"),
                      source="stated")
