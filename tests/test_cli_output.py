"""What commands print, in real processes: piped output is whole and exact; a terminal gets safe text.

Each command runs in a subprocess with standard output either a pipe or a pseudo-terminal of a set width.
"""

from __future__ import annotations

import csv
import fcntl
import io
import json
import os
import pty
import re
import shutil
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from judge_tui.cli import main
from judge_tui.model.records import Rating
from judge_tui.store import Store

ROOT = Path(__file__).resolve().parent.parent
RUBRIC_ID = "exercise-quality-with-a-very-long-identifier-for-copying-000"  # 60 characters
DIMENSION = "label_with_a_rather_long_dimension_name_for_copying"
EXPERT = "expert-with-a-long-name"
JUDGE = f"judge:claude-sonnet-4-5-20250929:{RUBRIC_ID}@0123456789ab"
TOPIC = "a-long-topic-value-that-someone-copies-into-a-filter-"
# What a hostile note or item holds: a window retitle and a screen clear, then a right-to-left override and
# an isolate that make text read differently from what it is.
HOSTILE = "note \x1b]0;pwned\x07\x1b[2J end \u202eevil\u2066x\u2069"
INJECTED = ("\x1b]0;pwned", "\x1b[2J", "\u202e", "\u2066", "\u2069")


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def study_db(tmp_path: Path, hermetic_home: Path) -> Path:
    """A rubric with a 60-character id in a deep folder, rated by an expert and a judge."""
    deep = hermetic_home / "rubrics"
    deep.mkdir(parents=True, exist_ok=True)
    binary = (ROOT / "prompts" / "binary.rubric.toml").read_text(encoding="utf-8")
    rubric = binary.replace('id = "binary"', f'id = "{RUBRIC_ID}"').replace('id = "label"', f'id = "{DIMENSION}"')
    (deep / f"{RUBRIC_ID}.rubric.toml").write_text(rubric, encoding="utf-8")
    db = tmp_path / "study.db"
    items = [{"id": f"I{n}", "split": "test" if n % 2 else "dev", "query": f"q{n}", "criterion": "c",
              "response": HOSTILE, "topic": TOPIC + str(n % 2)} for n in range(8)]
    human = [{"item_id": f"I{n}", "scores": {DIMENSION: "PASS" if n % 3 else "FAIL"}, "notes": HOSTILE}
             for n in range(8)]
    judge = [{"item_id": f"I{n}", "scores": {DIMENSION: "PASS" if n % 2 else "FAIL"}} for n in range(8)]
    assert main(["import", str(_jsonl(tmp_path / "items.jsonl", items)), "--rubric", RUBRIC_ID, "--db", str(db)]) == 0
    assert main(["import-ratings", str(_jsonl(tmp_path / "h.jsonl", human)), "--rater", EXPERT, "--kind", "human",
                 "--db", str(db)]) == 0
    assert main(["import-ratings", str(_jsonl(tmp_path / "j.jsonl", judge)), "--rater", JUDGE, "--kind", "judge",
                 "--model", "claude-sonnet-4-5-20250929", "--db", str(db)]) == 0
    return db


def _env(columns: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("LINES", "NO_COLOR", "FORCE_COLOR")}
    env["COLUMNS"] = str(columns)  # a pipe must ignore it; a terminal reports its own width
    return env


def piped(*args: str, columns: int = 80) -> str:
    done = subprocess.run([sys.executable, "-m", "judge_tui", *args], capture_output=True, text=True,
                          encoding="utf-8", env=_env(columns), check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def on_terminal(*args: str, columns: int = 100) -> str:
    """Standard output a pseudo-terminal `columns` wide; what the terminal received."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    env = _env(columns)
    env["TERM"] = "xterm-256color"
    process = subprocess.Popen([sys.executable, "-m", "judge_tui", *args], stdin=subprocess.DEVNULL,
                               stdout=follower, stderr=subprocess.PIPE, env=env)
    os.close(follower)
    received = bytearray()
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the process closed the terminal
            break
        if not chunk:
            break
        received += chunk
    os.close(leader)
    assert process.wait() == 0, process.stderr.read() if process.stderr else ""
    if process.stderr:
        process.stderr.close()
    return received.decode("utf-8").replace("\r\n", "\n")


def assert_safe(text: str) -> None:
    for sequence in INJECTED:
        assert sequence not in text
    assert "\x07" not in text


# --------------------------------------------------------------------------- nothing cut when piped


def _line_with(text: str, *wanted: str) -> str:
    lines = [line for line in text.splitlines() if all(w in line for w in wanted)]
    assert lines, f"no line holds {wanted} whole:\n{text}"
    return lines[0]


def test_rubrics_piped_show_long_ids_dimensions_and_paths_whole(study_db: Path, hermetic_home: Path):
    out = piped("rubrics")
    path = str(hermetic_home / "rubrics" / f"{RUBRIC_ID}.rubric.toml")
    assert len(path) > 80
    _line_with(out, RUBRIC_ID, DIMENSION, path)
    _line_with(out, "exercise-quality ", "learning_objective_alignment")
    assert "…" not in out


@pytest.mark.slow
def test_report_piped_keeps_ids_names_and_field_values_whole(study_db: Path):
    for args in ([], ["--format", "markdown"]):
        out = piped("report", "--db", str(study_db), "--by", "topic", *args)
        _line_with(out, JUDGE)
        _line_with(out, DIMENSION, "62.5%")
        _line_with(out, TOPIC + "0")
        assert "…" not in out


@pytest.mark.slow
def test_report_to_a_file_is_at_full_width_whatever_the_terminal(study_db: Path, tmp_path: Path):
    target = tmp_path / "report.txt"
    on_terminal("report", "--db", str(study_db), "--by", "topic", "-o", str(target), columns=60)
    text = target.read_text(encoding="utf-8")
    _line_with(text, DIMENSION, "62.5%", "unreliable–well calibrated")  # the bands 5 of 8's interval spans
    _line_with(text, JUDGE)


def test_history_and_merge_piped_are_whole(study_db: Path, tmp_path: Path):
    _line_with(piped("history", "--db", str(study_db)), f"rubric {RUBRIC_ID}")
    target = tmp_path / "lead.db"
    merged = piped("merge", "--db", str(target), str(study_db))
    _line_with(merged, str(study_db), "added 16 ratings")


# --------------------------------------------------------------------------- a terminal


@pytest.mark.slow
@pytest.mark.parametrize("columns", [80, 120])
def test_tables_on_a_terminal_wrap_and_never_cut(study_db: Path, columns: int):
    for args in (["rubrics"], ["report", "--db", str(study_db), "--by", "topic"]):
        out = on_terminal(*args, columns=columns)
        assert "…" not in out
        # Every figure is there: tables too wide for the window are printed wider, never cropped.
        assert out.count("62.5%") >= (3 if args[0] == "report" else 0)
    out = on_terminal("rubrics", columns=120)
    _line_with(out, RUBRIC_ID)  # the id column keeps its ids on one line while other columns can wrap
    table = [_visible(line) for line in out.splitlines() if line[:1] in "┏┃┡│└"]
    assert table
    assert max(map(len, table)) <= 120  # and the table fits the window


def _visible(line: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", line)  # without Rich's own colours


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["csv", "jsonl", "rating-form", "review-template"])
def test_export_to_a_terminal_shows_escapes_and_bidi_visibly(study_db: Path, fmt: str):
    out = on_terminal("export", "--db", str(study_db), "--format", fmt, "--rubric", RUBRIC_ID)
    assert "\x1b" not in out  # not a single escape sequence reaches the terminal
    assert_safe(out)
    if fmt in ("csv", "jsonl"):
        assert "<U+202E>evil<U+2066>x<U+2069>" in out


def test_export_piped_is_exact_and_round_trips(study_db: Path):
    out = piped("export", "--db", str(study_db), "--format", "csv", "--rubric", RUBRIC_ID)
    notes = [row["notes"] for row in csv.DictReader(io.StringIO(out)) if row["rater"] == EXPERT]
    assert notes == [HOSTILE] * 8
    rows = [json.loads(line) for line in piped("export", "--db", str(study_db), "--format", "jsonl").splitlines()]
    assert {r["notes"] for r in rows if r["rater"] == EXPERT} == {HOSTILE}


@pytest.mark.slow
def test_report_on_a_terminal_shows_hostile_rater_ids_visibly(study_db: Path, tmp_path: Path):
    rater = "ann\u202eevil\x1b]0;pwned\x07"  # no road in takes such an id now; an older judge-tui's database may hold it
    with Store(study_db) as store:
        version = store.rubric_version_ids(RUBRIC_ID)[0]
        store.ensure_rater(rater, "human")
        store.save_ratings([Rating(f"I{n}", rater, version, {DIMENSION: 1.0}, overall=1.0, verdict="PASS")
                            for n in range(8)])
    for fmt in ("text", "markdown", "json"):
        out = on_terminal("report", "--db", str(study_db), "--format", fmt)
        assert_safe(out)
        assert "ann<U+202E>evil" in out


@pytest.mark.slow
def test_history_and_merge_on_a_terminal_are_safe_and_piped_exact(study_db: Path, tmp_path: Path):
    with Store(study_db) as store:
        store.set_rubric_version_reason(store.rubric_versions(RUBRIC_ID)[0]["id"], HOSTILE, ["I1"])
    shown = on_terminal("history", "--db", str(study_db))
    assert_safe(shown)
    assert "<U+202E>evil" in shown
    assert f"reason: {HOSTILE}" in piped("history", "--db", str(study_db))

    # Someone else's database (an older judge-tui's) names a rater with escapes: the refusal shows it inert.
    other = tmp_path / "other.db"
    shutil.copy(study_db, other)
    rater = "ann\u202eevil\x1b]0;pwned\x07"
    with Store(other) as store:
        store.ensure_rater(rater, "judge")
        store.save_ratings([Rating("I1", rater, store.rubric_version_ids(RUBRIC_ID)[0], {DIMENSION: 1.0},
                                   overall=1.0, verdict="PASS")])
    merged = subprocess.run([sys.executable, "-m", "judge_tui", "merge", "--db", str(study_db), str(other)],
                            capture_output=True, text=True, env=_env(100), check=False)
    assert merged.returncode == 1
    assert "raters row 'ann\\u202eevil\\x1b]0;pwned\\x07': a rater id cannot hold line breaks" in merged.stderr
    assert_safe(merged.stderr)


@pytest.mark.parametrize("width", [30, 50, 80, 120, 200])
def test_a_table_at_any_width_keeps_every_figure_and_every_id_character(width: int):
    from rich.table import Table

    from judge_tui.formats.terminal import add_id_column, cell, render_plain

    table = Table(title=f"Judge self-agreement: {JUDGE}", title_justify="left")
    add_id_column(table, "id", keep_whole=[RUBRIC_ID])
    add_id_column(table, "name")
    for head in ("n", "Align", "κ"):
        table.add_column(head, justify="right", no_wrap=True)
    add_id_column(table, "Alignment band")
    table.add_row(cell(RUBRIC_ID), cell("Binary criterion (PASS/FAIL)"), "128", "62.5%", "0.250", "significant drift")
    out = render_plain([table], width=width)
    assert "…" not in out
    assert JUDGE in out.replace("\n", "")  # the title, on lines of its own
    rows = [line.split("│") for line in out.splitlines() if line.startswith("│")]
    assert "".join(r[1].strip() for r in rows) == RUBRIC_ID  # folded, perhaps, but every character there
    assert [r[3].strip() for r in rows][0] == "128"
    assert rows[0][4].strip() == "62.5%"
    assert "".join(r[6].strip() for r in rows).replace(" ", "") == "significantdrift"
    if width >= 120:
        assert rows[0][1].strip() == RUBRIC_ID
        assert max(map(len, out.splitlines())) <= width
