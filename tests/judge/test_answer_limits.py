"""A local judge that prints too much, or nests its answer too deeply, and a replay file nested too deeply: each is a
failed judgment or a one-line message, and nothing of the flood reaches the database."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from judge_tui.cli import main
from judge_tui.judge.backends.command import MAX_COMMAND_OUTPUT
from judge_tui.judge.schema import MAX_ANSWER_DEPTH
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from tests.judge.conftest import add_cis_items

FLOOD = 20_000_000  # bytes each judgment prints: twenty times the cap


def _judge(db: Path, script: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["judge", "--db", str(db), "--backend", "command", "--cmd", f"{sys.executable} {script}"])
    out, err = capsys.readouterr()
    return code, out + err


@pytest.fixture
def two_items(tmp_path: Path, rubrics: dict[str, Rubric]) -> Path:
    db = tmp_path / "cap.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], 2)
    return db


def test_a_program_printing_megabytes_is_stopped_and_none_of_it_is_kept(two_items: Path, tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]):
    script = tmp_path / "flood.py"
    script.write_text("import sys\nsys.stdin.read()\nline = 'x' * 65535 + '\\n'\n"
                      f"for _ in range({FLOOD // 65536}):\n    sys.stdout.write(line)\n")
    code, said = _judge(two_items, script, capsys)
    assert code == 1
    assert "Traceback" not in said
    assert f"printed more than {MAX_COMMAND_OUTPUT // 1_000_000} MB" in said
    with Store(two_items) as store:
        jobs = store.judge_jobs()
    assert [j["status"] for j in jobs] == ["failed", "failed"]
    assert all(len(j["raw_output"] or "") <= MAX_COMMAND_OUTPUT for j in jobs)
    for path in two_items.parent.glob("cap.db*"):  # the database, its log and its index together
        assert path.stat().st_size < 2 * MAX_COMMAND_OUTPUT, path.name


@pytest.mark.parametrize("depth", [MAX_ANSWER_DEPTH + 1, 100_000])  # over the cap; past Python's recursion limit
def test_an_answer_nested_too_deeply_is_a_failed_judgment(two_items: Path, tmp_path: Path, depth: int,
                                                          capsys: pytest.CaptureFixture[str]):
    script = tmp_path / "deep.py"
    script.write_text(f"import sys\nsys.stdin.read()\nprint('[' * {depth} + ']' * {depth})\n")
    code, said = _judge(two_items, script, capsys)
    assert code == 1
    assert "Traceback" not in said
    assert f"nested more than {MAX_ANSWER_DEPTH} levels deep" in said


def test_an_answer_at_the_usual_depth_is_judged(two_items: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    script = tmp_path / "fine.py"
    script.write_text("import json, sys\nrequest = json.load(sys.stdin)\nprops = request['schema']['properties']\n"
                      "print(json.dumps({k: (v['enum'][0] if 'enum' in v else 'why') for k, v in props.items()}))\n")
    code, said = _judge(two_items, script, capsys)
    assert code == 0, said
    assert "cis: 2 done, 0 failed" in said


def test_a_replay_file_nested_too_deeply_is_one_line(two_items: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]):
    replay = tmp_path / "deep.jsonl"
    nested = "[" * 100_000 + "]" * 100_000
    replay.write_text(json.dumps({"item_id": "B001", "answer": {}}) + "\n"
                      + '{"item_id": "B002", "answer": ' + nested + "}\n")
    code = main(["judge", "--db", str(two_items), "--backend", "replay", "--replay", str(replay)])
    err = capsys.readouterr().err
    assert code == 1
    assert "Traceback" not in err
    assert err.strip() == f"judge-tui: {replay}:2: nested too deeply to read; a line holds one recorded answer," \
                          " an object of scores and a few texts"
