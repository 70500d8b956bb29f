"""The text report on an 80-column terminal: every table fits (too wide a table is drawn as several), and
nothing is lost on the way; to a pipe or a file every table keeps its full width."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge_tui.analysis.full_report import build_full_report
from judge_tui.analysis.report_render.full import render_full
from judge_tui.cli import main
from judge_tui.store import Store
from tests.test_report_golden import team_db  # noqa: F401  (a fixture: three experts, repeats, two judges)

DATA = Path(__file__).parent.parent / "data"


def _demo_db(tmp_path: Path, rubric: str) -> Path:
    db = tmp_path / f"{rubric}.db"
    assert main(["import", str(DATA / f"{rubric}.jsonl"), "--db", str(db)]) == 0
    if rubric == "binary":  # the demo has a human's labels only: a judge that flips every fifth one
        expert = DATA / "binary.labels.jsonl"
        judge = tmp_path / "binary.judge.jsonl"
        lines = [json.loads(line) for line in expert.read_text(encoding="utf-8").splitlines()]
        for n, rating in enumerate(lines):
            if n % 5 == 0:
                rating["scores"]["label"] = {"PASS": "FAIL", "FAIL": "PASS"}[rating["scores"]["label"]]
        judge.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    else:
        expert, judge = DATA / f"{rubric}.expert-demo.ratings.jsonl", DATA / f"{rubric}.judge-demo.ratings.jsonl"
    for path, rater, kind in ((expert, "ann", "human"), (judge, "judge-v1", "judge")):
        assert main(["import-ratings", str(path), "--rater", rater, "--kind", kind, "--rubric", rubric,
                     "--db", str(db)]) == 0
    return db


def _text(db: Path, rubric_id: str, rubrics, width: int) -> str:
    with Store(db) as store:
        return render_full(build_full_report(store, rubrics[rubric_id]), "text", width)


def _too_wide(text: str, width: int) -> list[str]:
    return [line for line in text.splitlines() if len(line) > width]


@pytest.mark.parametrize("rubric_id", ["cis", "binary", "exercise-quality"])
def test_every_line_of_a_demo_report_fits_80_columns(tmp_path: Path, rubrics, hermetic_home, rubric_id):
    db = _demo_db(tmp_path, rubric_id)
    text = _text(db, rubric_id, rubrics, 80)
    assert _too_wide(text, 80) == []
    # The per-dimension figures are all there, in two or three tables named after what they hold.
    assert "Per dimension: agreement" in text
    assert "correlation and bias" in text
    for header in ("Align", "κ", "r", "J−H", "Alignment band", "κ band"):
        assert f" {header} " in text, header
    wide = _text(db, rubric_id, rubrics, 10_000)  # to a pipe or a file: one table, as before
    assert "Per dimension\n" in wide
    assert "Per dimension:" not in wide


def test_the_team_report_fits_80_columns(team_db: Path, rubrics, hermetic_home):  # noqa: F811
    text = _text(team_db, "exercise-quality", rubrics, 80)
    assert _too_wide(text, 80) == []
    # The experts' self-agreement, one kappa column per dimension, is cut into tables that repeat the expert.
    assert "First rating against the re-rating" in text
    for dimension in ("difficulty_match", "instruction_clarity"):
        assert f"kappa {dimension}" in text.replace("\n", " ") or dimension in text


def test_the_chance_table_explains_only_the_columns_it_shows(tmp_path: Path, rubrics, hermetic_home):
    graded = _text(_demo_db(tmp_path, "cis"), "cis", rubrics, 10_000)
    assert "Chance-corrected agreement beside kappa" in graded
    assert "Prev:" not in graded
    assert "Bias:" not in graded
    assert "Base: accuracy" in graded
    binary = _text(_demo_db(tmp_path, "binary"), "binary", rubrics, 10_000)
    assert "Prev: share of human PASS." in binary
    assert "Bias: + when" in binary


def _on_a_terminal(args: list[str], columns: int) -> str:
    """What a command prints on a real terminal (a pseudo-terminal) of ``columns`` columns."""
    import fcntl
    import os
    import struct
    import subprocess
    import sys
    import termios

    leader, follower = os.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 200, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    done = subprocess.Popen([sys.executable, "-m", "judge_tui", *args], stdout=follower, stderr=subprocess.PIPE,
                            env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the command is done
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert done.wait(timeout=60) == 0, done.stderr.read() if done.stderr else ""
    return b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


@pytest.mark.slow
def test_the_report_command_fits_an_80_column_terminal_and_a_file_gets_full_width(tmp_path: Path, hermetic_home):
    db = _demo_db(tmp_path, "cis")
    shown = _on_a_terminal(["report", "--db", str(db)], 80)
    assert "Per dimension: agreement" in shown
    assert _too_wide(shown, 80) == []
    out = tmp_path / "report.txt"
    assert main(["report", "--db", str(db), "--output", str(out)]) == 0
    written = out.read_text(encoding="utf-8")
    assert "Per dimension\n" in written
    assert max(map(len, written.splitlines())) > 80


def test_the_summary_screens_breakdown_tables_are_split_to_the_width_they_are_drawn_at(tmp_path: Path, rubrics,
                                                                                     hermetic_home):
    import io
    import re

    from rich.console import Console

    from judge_tui.analysis.report import build_report
    from judge_tui.analysis.report_render import as_text
    from judge_tui.formats.terminal import FittedTable

    db = _demo_db(tmp_path, "cis")
    with Store(db) as store:
        report = build_report(store, rubrics["cis"], by=["task_type"])
    [table] = as_text.breakdown_tables(report)
    drawn = {}
    for width in (78, 118):  # the screen's body at 80 and 120 columns, less the scrollbar
        buffer = io.StringIO()
        Console(file=buffer, width=width, color_system=None).print(FittedTable(table))
        text = drawn[width] = buffer.getvalue()
        assert _too_wide(text, width) == []
        for header in ("task_type", "Align", "r (overall)"):
            assert header in text, (width, header)
        # every interval is whole on its line: none is cut into "[58," and "92]"
        assert not re.search(r"\[\d[\d.]*,\s*│", text), text
    assert "By task_type (2 of 2)" in drawn[78]
    assert "(2 of 2)" not in drawn[118]  # split only where needed
