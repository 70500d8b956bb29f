"""Rubrics and settings from plain data: the direct build gives exactly what pydantic gives, pydantic handles the
rest and says where each problem is, and the app reaches its first item without loading pydantic."""

from __future__ import annotations

import copy
import fcntl
import json
import os
import pty
import struct
import subprocess
import sys
import termios
import tomllib
from dataclasses import asdict
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from judge_tui.model import locations
from judge_tui.model.errors import UserError
from judge_tui.model.plain_data import DataError, from_data
from judge_tui.model.rubrics import Rubric, RubricError, load_rubric
from judge_tui.model.settings import AgreementSettings, Settings, load_settings

REPO = Path(__file__).resolve().parents[1]
RUBRIC_FILES = sorted(locations.prompts_dir().glob("*.rubric.toml"))
CIS = tomllib.loads((locations.prompts_dir() / "cis.rubric.toml").read_text())


def by_pydantic(cls: type, data: object) -> object:
    return TypeAdapter(cls).validate_python(data)


@pytest.mark.parametrize("path", RUBRIC_FILES, ids=lambda path: path.name.split(".")[0])
def test_every_built_in_rubric_is_built_exactly_as_pydantic_builds_it(path):
    raw = tomllib.loads(path.read_text())
    built, validated = from_data(Rubric, raw), by_pydantic(Rubric, raw)
    assert built == validated
    assert asdict(built) == asdict(validated)
    assert built.content_hash == validated.content_hash
    # What a database records reads back the same (and as the same version).
    assert from_data(Rubric, json.loads(json.dumps(built.definition()))) == built


def test_integers_where_floats_are_declared_give_the_same_rubric_version_either_way():
    as_written = copy.deepcopy(CIS)
    as_written["dimensions"][0]["weight"] = 1  # TOML's `weight = 1`
    as_text = copy.deepcopy(CIS)
    as_text["dimensions"][0]["weight"] = "1"  # not a number's type: pydantic converts it
    direct, converted = from_data(Rubric, as_written), from_data(Rubric, as_text)
    assert direct.dimensions[0].weight == 1.0
    assert isinstance(direct.dimensions[0].weight, float)
    assert direct == converted == by_pydantic(Rubric, as_written)
    assert direct.content_hash == converted.content_hash


def test_problems_are_named_with_their_place():
    misspelt = {**CIS, "dimensons": []}
    with pytest.raises(DataError) as caught:
        from_data(Rubric, misspelt)
    assert ("dimensons", "unknown field; check its spelling") in caught.value.problems

    zero_weight = copy.deepcopy(CIS)
    zero_weight["dimensions"][1]["weight"] = 0
    with pytest.raises(DataError) as caught:
        from_data(Rubric, zero_weight)
    assert caught.value.problems == [("dimensions.1", "dimension 'a': weight must be above 0, not 0.0")]

    with pytest.raises(DataError) as caught:
        from_data(Rubric, {key: value for key, value in CIS.items() if key != "scale"})
    assert caught.value.problems == [("scale", "Field required")]


def test_a_broken_rubric_file_says_which_field(tmp_path):
    path = tmp_path / "mine.rubric.toml"
    path.write_text((locations.prompts_dir() / "cis.rubric.toml").read_text()
                    .replace('id = "r"', 'id = "Relevance"', 1))
    with pytest.raises(RubricError) as caught:
        load_rubric(path)
    assert str(caught.value) == (f"{path}: invalid rubric\n  field dimensions.0: dimension id 'Relevance' must start "
                                 "with a lower-case letter and hold only a-z, 0-9 and _")


def settings_problem(path: Path, data: object) -> str:
    path.write_text(json.dumps(data))
    with pytest.raises(UserError) as caught:
        load_settings(path)
    return str(caught.value).removeprefix(f"{path}: invalid settings ")


def test_settings_as_written_and_as_converted(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"idle_seconds": 60, "keymap": {"submit": "ctrl+s"},
                                "agreement": {"tolerance": 0.1, "decide_on": "point"}}))
    loaded = load_settings(path)
    assert loaded == by_pydantic(Settings, json.loads(path.read_text()))
    assert loaded.idle_seconds == 60.0
    assert loaded.agreement == AgreementSettings(tolerance=0.1, decide_on="point")

    assert settings_problem(path, {"agreement": {"kappa_moderate": 0.9}}) == (
        "(agreement: kappa bands must go down: almost_perfect >= substantial >= moderate)")
    assert settings_problem(path, {"judge_concurrency": 0, "queue_order": "shuffled"}) == (
        "(queue_order: Input should be 'import', 'random' or 'balanced')")
    assert settings_problem(path, {"judge_concurrency": 0}) == "(judge_concurrency must be at least 1 and at most 64, not 0)"


def test_nan_is_not_a_weight_nor_a_threshold(tmp_path):
    path = tmp_path / "mine.rubric.toml"
    path.write_text((locations.prompts_dir() / "cis.rubric.toml").read_text().replace("weight = 0.25", "weight = nan", 1))
    with pytest.raises(RubricError, match="field dimensions.0: dimension 'r': weight must be a number, not nan"):
        load_rubric(path)


def test_rules_hold_for_objects_made_in_code_too():
    with pytest.raises(ValueError, match="kappa bands must go down"):
        AgreementSettings(kappa_moderate=0.9)
    with pytest.raises(ValueError, match="confidence must be above 0 and below 1, not 1.0"):
        AgreementSettings(confidence=1.0)


JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-2, 2) | st.text(max_size=4),
                           lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner,
                                                                                       max_size=2), max_leaves=4)


def _places(data: object, prefix: tuple = ()) -> list[tuple]:
    places = [prefix]
    if isinstance(data, dict):
        for key, value in data.items():
            places += _places(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            places += _places(value, (*prefix, index))
    return places


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_change_to_a_rubric_is_judged_as_pydantic_judges_it(data):
    """Replace, drop or add one value anywhere in the CIS rubric: the same rubric, or an error, either way."""
    changed = copy.deepcopy(CIS)
    place = data.draw(st.sampled_from(_places(changed)[1:]))
    parent = changed
    for step in place[:-1]:
        parent = parent[step]
    action = data.draw(st.sampled_from(["replace", "drop", "add"]))
    if action == "replace":
        parent[place[-1]] = data.draw(JSON_VALUES)
    elif action == "drop":
        del parent[place[-1]]
    elif isinstance(parent, dict):
        parent[data.draw(st.text(max_size=5))] = data.draw(JSON_VALUES)
    try:
        expected = by_pydantic(Rubric, changed)
    except ValidationError:
        with pytest.raises(DataError):
            from_data(Rubric, changed)
    else:
        assert from_data(Rubric, changed) == expected


@pytest.mark.slow
def test_the_first_item_is_drawn_without_loading_pydantic(tmp_path, filled_db):
    """The real app in a pty, up to its first painted item (then it leaves, as in the start-up benchmark)."""
    report = tmp_path / "loaded.json"
    script = ("import json, sys\n"
              "from judge_tui.tui.app import JudgeTuiApp\n"
              "painted = JudgeTuiApp.first_item_painted\n"
              "def first_item_painted(app):\n"
              f"    open({str(report)!r}, 'w').write(json.dumps(sorted(m for m in sys.modules if 'pydantic' in m)))\n"
              "    painted(app)\n"
              "JudgeTuiApp.first_item_painted = first_item_painted\n"
              "from judge_tui.cli import main\n"
              f"sys.exit(main(['--db', {str(filled_db)!r}, '--reviewer', 'ann']))\n")
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "PYTHONPATH": str(REPO),
           "JUDGE_TUI_EXIT_AFTER_FIRST_PAINT": str(tmp_path / "painted")}
    process = subprocess.Popen([sys.executable, "-c", script], stdin=slave, stdout=slave, stderr=slave, cwd=REPO,
                               env=env)
    os.close(slave)
    output = bytearray()
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        output.extend(chunk)
    assert process.wait(timeout=60) == 0, bytes(output[-2000:])
    os.close(master)
    assert json.loads(report.read_text()) == []


@pytest.fixture
def filled_db(tmp_path, rubrics):
    from judge_tui.model.records import Item
    from judge_tui.store import Store

    path = tmp_path / "study.db"
    with Store(path) as store:
        store.ensure_rubric_version(rubrics["cis"])
        store.add_items([Item(id=f"C{n}", rubric="cis", fields={"task_type": "Fibonacci", "rationale": "Recursion.",
                                                                 "source_code": "def fib(n): ...",
                                                                 "test_code": "assert fib(1) == 1"})
                         for n in range(3)])
    return path


def test_the_built_in_rubrics_keep_the_version_hashes_databases_recorded():
    """As pydantic models wrote them: a database made before sees the same rubric version, not a changed one."""
    from judge_tui.model.rubrics import load_rubrics

    assert {rubric_id: rubric.judge_hash for rubric_id, (rubric, _path) in load_rubrics().items()} == {
        "binary": "8827d351f1d8e9a2", "cis": "4f7132b077c83619", "exercise-quality": "812a803f2539141a",
        "reasoning-trace": "06ee58e609058614", "pairwise": "8b8c75200be6836e"}
    # A rubric version leaves the judge's settings out (the migration m017 gives recorded versions this hash).
    assert {rubric_id: rubric.content_hash for rubric_id, (rubric, _path) in load_rubrics().items()} == {
        "binary": "3ce7762da97bd64a", "cis": "a24ef5b60c317caf", "exercise-quality": "602cc2217d5f723b",
        "reasoning-trace": "8f22572df822084f", "pairwise": "7be8831d32779345"}
