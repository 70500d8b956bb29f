"""The environment's key in no file and no output, whatever a server says back: `judge` as a real process against an
API that quotes the key in its 401, 403 and 500 answers, then every command that shows a failed judgment
(`failures`, `status`, `export`), and every byte of every file the commands wrote."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.conftest import REPO, no_traceback
from tests.judge import fake_anthropic as fa

pytestmark = pytest.mark.slow

KEY = "sk-ant-api03-NEVER-WRITTEN-4c3b2a1f0e9d8c7b"


@pytest.fixture
def api() -> Iterator[fa.FakeAnthropic]:
    server = fa.FakeAnthropic(api_key=KEY, echo_key=True).start()
    yield server
    server.stop()


def _run(*args: object, home: Path, url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "JUDGE_TUI_HOME": str(home), "PYTHONPATH": str(REPO), "ANTHROPIC_API_KEY": KEY,
           "ANTHROPIC_BASE_URL": url}
    env.pop("JUDGE_TUI_DB", None)
    return subprocess.run([sys.executable, "-m", "judge_tui", *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=180, stdin=subprocess.DEVNULL, cwd=REPO)


@pytest.mark.parametrize("behaviour", [fa.UNAUTHORIZED, fa.FORBIDDEN, fa.SERVER_ERROR])
def test_a_key_quoted_by_the_api_is_in_no_file_and_no_output(api: fa.FakeAnthropic, tmp_path: Path,
                                                             behaviour: str):
    home, db = tmp_path / "home", tmp_path / "study.db"
    home.mkdir()
    api.add_rule(behaviour)
    outputs = []
    for args in (["import", REPO / "data" / "cis.jsonl", "--rubric", "cis", "--db", db],
                 ["judge", "--rubric", "cis", "--model", "claude-sonnet-5", "--limit", "2", "--db", db],
                 ["failures", "--db", db], ["status", "--db", db], ["status", "--format", "json", "--db", db],
                 ["export", "--format", "jsonl", "-o", tmp_path / "out.jsonl", "--db", db]):
        proc = _run(*args, home=home, url=api.url)
        no_traceback(proc)
        assert proc.returncode != 1 or args[0] == "export", proc.stderr  # refused judging: 2; nothing to export: 1
        outputs.append(proc.stdout + proc.stderr)
    assert any(r.behaviour == behaviour for r in api.requests)  # the API did quote the key
    said = "\n".join(outputs)
    assert KEY not in said, said
    with sqlite3.connect(db) as conn:  # the error the API sent was kept, its key hidden
        errors = [row[0] for row in conn.execute("SELECT last_error FROM judge_jobs")]
    conn.close()
    assert any("[hidden]" in error for error in errors), errors
    if behaviour != fa.SERVER_ERROR:  # a refusal stops the run, saying why (a 500 is retried later, quietly)
        assert "[hidden]" in said
    written = [path for path in tmp_path.rglob("*") if path.is_file() and KEY.encode() in path.read_bytes()]
    assert written == []
