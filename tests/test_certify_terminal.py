"""`judge-tui certify` on a terminal: its sentences wrap at a word to the window, each line's rest indented under
it; to a pipe they stay one line each (test_certify.py). The real command in a pseudo-terminal 80 columns wide."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from tests.test_certify import study
from tests.test_cli_output import on_terminal


@pytest.mark.slow  # the command in a real process on a pseudo-terminal
def test_certify_wraps_its_sentences_at_words_to_the_terminal(tmp_path: Path, rubrics: dict[str, Rubric]):
    db = tmp_path / "c.db"
    with Store(db) as store:
        study(store, rubrics["binary"], wrong_among_sure=1)
    lines = on_terminal("certify", "--db", str(db), "--rubric", "binary", columns=80).splitlines()
    assert max(len(line) for line in lines) <= 80
    assert lines[:3] == [
        "Judge judge:alpha:binary@p1 on rubric binary, the dev split: 60 items the",
        "  experts rated, each with the judge's confidence (the share of its runs, up to",
        "  3, that agree with its first)"]
    assert "    λ 1         40 kept     1 disagree   bound 0.094   passed" in lines  # the table keeps its columns
    assert "  items no expert has rated outside the dev and test splits: 12; the judge" in lines
    assert "    decides 6, escalate 6 to the experts" in lines
