"""How several targets combine is stated in one place: analysis.targets.Combined. A second copy of the rule
(its sentences or its Bonferroni arithmetic) anywhere else in the package would let the two drift apart."""

from __future__ import annotations

import re
from pathlib import Path

import judge_tui
from judge_tui.analysis.targets import Combined, combination
from judge_tui.model.settings import AgreementSettings

PACKAGE = Path(judge_tui.__file__).parent
HOME = PACKAGE / "analysis" / "targets.py"
# Phrases that only a statement of the combination rule uses.
SIGNS = ("Bonferroni", "corrected across targets", "on the study as a whole", "is wrong can reach",
         "at least one decision is wrong", "study_confidence =", "class Combined", "def combination(")


def test_the_combination_rule_has_one_home():
    homes: dict[str, list[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for sign in SIGNS:
            if re.search(re.escape(sign), text):
                homes.setdefault(sign, []).append(str(path.relative_to(PACKAGE)))
    assert homes, "the rule's phrases are gone: update SIGNS with the statement's new words"
    elsewhere = {sign: paths for sign, paths in homes.items() if paths != [str(HOME.relative_to(PACKAGE))]}
    assert not elsewhere, f"the combination rule is stated outside analysis/targets.py: {elsewhere}"


def test_both_statements_come_from_the_same_rule():
    four = Combined(4, AgreementSettings(confidence=0.95))
    assert abs(four.wrong_at_most - 0.2) < 1e-12
    assert abs(four.study_confidence - 0.9875) < 1e-12
    assert "can reach 20% (Bonferroni)" in four.text()
    assert "0.9875" in four.text()
    anytime = combination(AgreementSettings(confidence=0.95))
    assert anytime == Combined(0, AgreementSettings(confidence=0.95)).anytime_text()
    assert "one-sided 2.5% per side" in anytime
    assert "k × 2.5%" in anytime
    assert "one-sided 0.5% per side" in combination(AgreementSettings(confidence=0.99))


def test_the_point_rule_speaks_of_one_target_as_one():
    assert Combined(1, AgreementSettings(decide_on="point")).text() == (
        'The 1 target is decided on the point estimate alone (agreement.decide_on = "point"): no error rate is '
        "claimed for it.")
    assert Combined(3, AgreementSettings(decide_on="point")).text() == (
        'The 3 targets are decided on the point estimates alone (agreement.decide_on = "point"): no error rate is '
        "claimed for any of them.")
