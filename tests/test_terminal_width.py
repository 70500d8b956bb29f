"""What commands print fits the terminal it is printed in: `status`, `flags`, `judge`'s progress and `report` on
real pseudo-terminals 80 and 120 columns wide, with long reasons and names, never a line wider than the window
(too wide a table is drawn as several), and reasons wrapped on words."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest

from judge_tui.cli import main
from judge_tui.store import Store
from tests.test_cli_output import on_terminal

DATA = Path(__file__).resolve().parent.parent / "data"
REASON = "The tests cover only the happy path and the explanation contradicts the code in two places"
JUDGE = '''import json, sys
request = json.loads(sys.stdin.read())
props = request["schema"]["properties"]
print(json.dumps({k: (v["enum"][0] if "enum" in v else "fine") for k, v in props.items()}))
'''


@pytest.fixture
def study_db(tmp_path: Path, hermetic_home: Path) -> Path:
    """The demo's code submissions, rated by an expert with a long id who flagged three items, and a judge."""
    db = tmp_path / "study.db"
    assert main(["import", str(DATA / "cis.jsonl"), "--db", str(db)]) == 0
    for path, rater, kind in ((DATA / "cis.expert-demo.ratings.jsonl", "expert-with-a-longer-name", "human"),
                              (DATA / "cis.judge-demo.ratings.jsonl", "judge-v1", "judge")):
        assert main(["import-ratings", str(path), "--rater", rater, "--kind", kind, "--rubric", "cis",
                     "--db", str(db)]) == 0
    with Store(db) as store, store.transaction() as conn:
        conn.execute("UPDATE ratings SET flagged = 1, flag_reason = ? WHERE rater_id = 'expert-with-a-longer-name'"
                     " AND item_id IN ('B001', 'B002', 'B003')", [REASON])
    return db


def _lines(text: str) -> list[str]:
    return [re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", line).rstrip() for line in text.replace("\r", "").split("\n")]


def _too_wide(text: str, columns: int) -> list[str]:
    return [line for line in _lines(text) if len(line) > columns]


@pytest.mark.slow
@pytest.mark.parametrize("columns", [80, 120])
def test_status_flags_and_report_fit_the_terminal(study_db: Path, columns: int):
    for args in (["status"], ["flags"], ["report", "--rubric", "cis"]):
        out = on_terminal(*args, "--db", str(study_db), columns=columns)
        assert _too_wide(out, columns) == [], args
    flags = _lines(on_terminal("flags", "--db", str(study_db), columns=columns))
    words = " ".join(line for line in flags if "│" in line).replace("│", " ").split()
    for word in REASON.split():  # reasons wrap between words, never inside one
        assert word in words, word
    status = on_terminal("status", "--db", str(study_db), columns=columns)
    assert "expert-with-a-longer-name" in status  # ids stay whole on one line for copying


@pytest.mark.slow
@pytest.mark.parametrize("columns", [80, 120])
def test_the_judges_progress_fits_the_terminal(study_db: Path, tmp_path: Path, columns: int):
    script = tmp_path / "my_judge.py"
    script.write_text(JUDGE)
    out = on_terminal("judge", "--db", str(study_db), "--rubric", "cis", "--backend", "command", "--cmd",
                      f"{sys.executable} {script}", columns=columns)
    assert _too_wide(out, columns) == []
    assert "25/25" in out
    assert "failed 0" in out
    assert not [line for line in _lines(out) if re.match(r" {30,}\S", line)]  # no strip under a column


@pytest.mark.slow
@pytest.mark.parametrize("columns", [80, 120])
def test_status_never_breaks_an_id_a_lead_copies(study_db: Path, tmp_path: Path, columns: int):
    """A judge rater id (copied into --judge) and an expert id (into --rater) stay whole on one line, however
    narrow the terminal: the other columns wrap, or the table is drawn as several."""
    script = tmp_path / "my_judge.py"
    script.write_text(JUDGE)
    assert main(["judge", "--db", str(study_db), "--rubric", "cis", "--backend", "command", "--cmd",
                 f"{sys.executable} {script}", "--model", "claude-sonnet-4-5-20250929"]) == 0
    with Store(study_db) as store:
        judge = next(r["id"] for r in store.judge_raters_with_prompt("cis") if r["model"] == "claude-sonnet-4-5-20250929")
    assert len(judge) > 40  # judge:claude-sonnet-4-5-20250929:cis@<version>
    out = on_terminal("status", "--db", str(study_db), columns=columns)
    assert _too_wide(out, columns) == []
    lines = _lines(out)
    for rater, start in ((judge, "judge:"), ("expert-with-a-longer-name", "expert-wi")):
        cells = [cell.strip() for line in lines for cell in line.split("│") if cell.strip().startswith(start)]
        assert cells, rater
        assert set(cells) == {rater}  # every cell naming it holds it whole


def test_a_flag_reason_wraps_on_words_under_itself():
    from judge_tui.analysis.report_render.flags import render
    from judge_tui.model.records import Flag

    flags = [Flag("B001", "ann", REASON, "rated", "2026-12-04T12:00:00", "cis", "LRU Cache", None)]
    text = render(flags, "text", width=60)
    lines = text.splitlines()
    assert max(map(len, lines)) <= 60
    assert len(lines) > 2
    assert " ".join(" ".join(lines[1:]).split()).endswith(REASON)
    assert render(flags, "text").splitlines()[1].endswith(REASON)  # to a pipe: one line, whole
    assert json.loads(render(flags, "json"))[0]["reason"] == REASON


def test_writing_to_a_file_says_where(study_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    for args, said in ((["report", "--rubric", "cis", "-o", str(tmp_path / "r.md")], "wrote the report to"),
                       (["report", "--items", "--rubric", "cis", "-o", str(tmp_path / "i.csv")], "25 item rows"),
                       (["flags", "-o", str(tmp_path / "f.csv")], "wrote 3 flags to")):
        assert main([*args, "--db", str(study_db)]) == 0
        captured = capsys.readouterr()
        assert captured.out == ""
        assert said in captured.err, captured.err
        assert args[-1] in captured.err, captured.err
        assert Path(args[-1]).stat().st_size > 0


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_message_too_long_for_the_terminal_wraps_between_words(monkeypatch: pytest.MonkeyPatch):
    from judge_tui.formats.terminal import echo, fit_lines

    monkeypatch.setenv("COLUMNS", "40")
    line = "  also rated by raters outside --experts: pat (101 items); the plan's experts are compared too"
    terminal = _Terminal()
    echo(f"short\n{line}\n  a-path/that/is/longer/than/the/whole/terminal/line/of/forty.db and more", terminal)
    lines = terminal.getvalue().splitlines()
    assert lines[0] == "short"
    assert max(map(len, lines[:-2])) <= 40
    assert " ".join(" ".join(lines[1:-2]).split()) == " ".join(line.split())  # every word whole, in order
    assert lines[2].startswith("    ")  # the rest of a line indented under it
    assert lines[-2] == "  a-path/that/is/longer/than/the/whole/terminal/line/of/forty.db"  # never cut
    assert lines[-1] == "    and more"
    pipe = io.StringIO()
    echo(line, pipe)
    assert pipe.getvalue() == line + "\n"  # to a pipe a line stays whole, for tools
    assert fit_lines(line, pipe) == line
