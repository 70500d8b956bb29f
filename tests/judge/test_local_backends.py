"""Judging without the network: a local program, or answers recorded in a file."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from judge_tui.judge.backends import ConfigError
from judge_tui.judge.backends.command import CommandBackend, program_name
from judge_tui.judge.backends.replay import ReplayBackend
from judge_tui.judge.runner import JudgeRunner
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from tests.judge.conftest import assert_consistent, fast, make_judge
from tests.narrowing import present

ITEMS = 6

# A tiny "local model": reads the request, answers with the lowest score on every key of the schema, and
# misbehaves for items whose prompt contains a trigger word.
SCRIPT = r'''
import json, sys
request = json.load(sys.stdin)
if "OrderedDict" in request["prompt"]:
    print("model crashed on this one", file=sys.stderr)
    sys.exit(3)
props = request["schema"]["properties"]
answer = {k: (v["enum"][0] if "enum" in v else "local reasoning for " + request["item_id"]) for k, v in props.items()}
print(json.dumps(answer))
'''


def test_command_backend_judges_through_the_same_strict_parser(tmp_path: Path, cis_store: Store,
                                                              rubrics: dict[str, Rubric]) -> None:
    script = tmp_path / "local_judge.py"
    script.write_text(SCRIPT)
    backend = CommandBackend(f"{sys.executable} {script}", model="tiny-local")
    judge = make_judge(cis_store, rubrics["cis"], backend)
    judge.queue.enqueue()
    state = asyncio.run(JudgeRunner(judge, fast()).run())
    assert judge.rater_id.startswith("judge:tiny-local:cis@")
    assert_consistent(cis_store, judge.rater_id, ITEMS)
    failed = {j["item_id"]: j for j in cis_store.judge_jobs(judge.rater_id, "failed")}
    assert state.done + state.failed == ITEMS
    assert "B001" in failed
    assert "exited with status 3" in failed["B001"]["last_error"]
    assert "model crashed on this one" in failed["B001"]["last_error"]  # stderr kept
    rating = present(cis_store.rating("B003", judge.rater_id))
    assert rating.scores == {"r": 0.0, "a": 0.0, "t": 0.0, "l": 0.0}
    assert rating.notes == "local reasoning for B003"
    assert rating.details["sampling"] == {"backend": "command"}


def test_command_timeout_is_a_failed_judgment(tmp_path: Path, cis_store: Store, rubrics: dict[str, Rubric]) -> None:
    script = tmp_path / "slow.py"
    script.write_text("import time, sys\nsys.stdin.read()\ntime.sleep(30)\n")
    backend = CommandBackend(f"{sys.executable} {script}", timeout=0.3)
    judge = make_judge(cis_store, rubrics["cis"], backend)
    judge.queue.enqueue(limit=1)
    asyncio.run(JudgeRunner(judge, fast()).run())
    [job] = cis_store.judge_jobs(judge.rater_id)
    assert job["status"] == "failed"
    assert "no answer within 0.3 s" in job["last_error"]


@pytest.mark.parametrize(("command", "name"), [
    ("python3 my_judge.py", "my_judge"),
    ("/usr/bin/python3.12 -u tools/my_judge.py --fast", "my_judge"),
    ("python -m tools.my_judge", "my_judge"),
    ("uv run score.py", "score"),
    ("node judge.mjs", "judge"),
    ("./local-judge", "local-judge"),
    ("bash", "bash"),
])
def test_a_command_judge_is_named_after_its_script_not_its_interpreter(command: str, name: str) -> None:
    assert program_name(command.split()) == name
    assert CommandBackend(f"{sys.executable} {name}.py").model == f"cmd-{name}"


def test_command_must_exist() -> None:
    with pytest.raises(ConfigError, match="not found"):
        CommandBackend("no-such-judge-program --fast")
    with pytest.raises(ConfigError, match="empty"):
        CommandBackend("  ")


def test_replay_backend_answers_from_the_file(tmp_path: Path, cis_store: Store, rubrics: dict[str, Rubric]) -> None:
    good = {"r_score": 1, "a_score": 0.75, "t_score": 0.5, "l_score": 1, "reasoning": "recorded"}
    lines = [
        {"item_id": "B001", "answer": good, "model": "claude-recorded"},
        {"item_id": "B002", "answer": {**good, "t_score": 0.6}},  # off the scale: still fails strictly
        {"item_id": "B003", "answer": "not json at all"},
        {"item_id": "B004", "repeat": 1, "answer": good},  # only repeat 1 is recorded
    ]
    path = tmp_path / "answers.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    backend = ReplayBackend(path)
    judge = make_judge(cis_store, rubrics["cis"], backend)
    judge.queue.enqueue()
    asyncio.run(JudgeRunner(judge, fast()).run())
    # filed as a replay, apart from a live claude-recorded judge, which would otherwise skip these items
    assert judge.rater_id.startswith("judge:replay:claude-recorded:cis@")
    jobs = {j["item_id"]: j for j in cis_store.judge_jobs(judge.rater_id)}
    assert jobs["B001"]["status"] == "done"
    assert present(cis_store.rating("B001", judge.rater_id)).scores == {"r": 1.0, "a": 0.75, "t": 0.5, "l": 1.0}
    assert "off_scale" in jobs["B002"]["last_error"]
    assert "0.6" in jobs["B002"]["raw_output"]
    assert "invalid_json" in jobs["B003"]["last_error"]
    assert jobs["B003"]["raw_output"] == "not json at all"
    assert "no recorded answer for item 'B004' (repeat 0)" in jobs["B004"]["last_error"]
    assert_consistent(cis_store, judge.rater_id, ITEMS)


@pytest.mark.parametrize(("content", "message"), [
    ('{"item_id": "B1", "answer": {}}\n{oops\n', ":2: not valid JSON"),
    ('{"answer": {}}\n', ':1: each line needs "item_id" and "answer"'),
    ('{"item_id": "B1", "answer": {}, "repeat": -1}\n', ':1: "repeat" must be'),
])
def test_a_broken_replay_file_names_the_line(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(content)
    with pytest.raises(ConfigError, match=message):
        ReplayBackend(path)


def test_each_judgment_records_its_examples_and_marks_them(tmp_path: Path, rubrics: dict[str, Rubric]) -> None:
    from tests.judge.conftest import add_binary_items

    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps({"item_id": i, "answer": {"label": "FAIL", "critique": "honey"}}) + "\n"
                            for i in ("P05", "P06", "P07", "P08")))
    with Store(tmp_path / "few.db") as store:
        add_binary_items(store, rubrics["binary"])
        assert store.few_shot_used_ids("binary") == set()
        judge = make_judge(store, rubrics["binary"], ReplayBackend(path))
        judge.queue.enqueue(split="test")
        asyncio.run(JudgeRunner(judge, fast()).run())
        rating = present(store.rating("P07", judge.rater_id))
        assert sorted(rating.details["few_shot_ids"]) == ["P01", "P02", "P03"]
        assert rating.details["prompt_version"] == judge.prompt.version
        assert rating.verdict == "FAIL"
        assert rating.notes == "honey"
        assert store.few_shot_used_ids("binary") == {"P01", "P02", "P03"}


# A local judge that writes the names and values of the environment it was given beside itself, then answers.
ENV_SCRIPT = r'''
import json, os, sys
request = json.load(sys.stdin)
with open(sys.argv[1], "w") as out:
    json.dump(dict(os.environ), out)
props = request["schema"]["properties"]
print(json.dumps({k: (v["enum"][0] if "enum" in v else "local") for k, v in props.items()}))
'''


@pytest.mark.slow
def test_a_local_judge_gets_no_api_key_only_what_it_needs_and_what_is_passed_on_purpose(
        tmp_path: Path, rubrics: dict[str, Rubric], hermetic_home: Path) -> None:
    import os
    import subprocess

    from tests.judge.conftest import API_KEY, add_cis_items

    db = tmp_path / "env.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], 1)
    script, seen = tmp_path / "env_judge.py", tmp_path / "env.json"
    script.write_text(ENV_SCRIPT)
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "ANTHROPIC_API_KEY": API_KEY, "GITHUB_TOKEN": "ghp-secret", "OLLAMA_HOST": "127.0.0.1:11434",
           "LC_ALL": "C.UTF-8", "JUDGE_TUI_HOME": str(hermetic_home), "PYTHONPATH": str(root)}

    def judge(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "judge_tui", "judge", "--db", str(db), "--backend", "command",
                               "--cmd", f"{sys.executable} {script} {seen}", *extra], cwd=root, env=env,
                              capture_output=True, text=True, timeout=120)

    done = judge()
    assert done.returncode == 0, done.stderr
    given = json.loads(seen.read_text())
    assert "ANTHROPIC_API_KEY" not in given
    assert "GITHUB_TOKEN" not in given
    assert "OLLAMA_HOST" not in given
    assert API_KEY not in json.dumps(given)
    assert given["PATH"] == os.environ["PATH"]
    assert given["LC_ALL"] == "C.UTF-8"
    assert set(given) <= {"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TEMP",
                          "TMP", "LC_CTYPE"} | {name for name in given if name.startswith("LC_")}

    seen.unlink()
    done = judge("--repeat", "2", "--cmd-env", "OLLAMA_HOST")  # one more judgment, with a variable passed on purpose
    assert done.returncode == 0, done.stderr
    given = json.loads(seen.read_text())
    assert given["OLLAMA_HOST"] == "127.0.0.1:11434"
    assert "ANTHROPIC_API_KEY" not in given

    for extra, message in ((("--cmd-env", "OLLAMA HOST"), "give a variable's name"),):
        done = judge(*extra)
        assert done.returncode == 1
        assert message in done.stderr
        assert "Traceback" not in done.stderr
    done = subprocess.run([sys.executable, "-m", "judge_tui", "judge", "--db", str(db), "--cmd-env", "X"], cwd=root,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "--cmd-env goes with --backend command" in done.stderr
