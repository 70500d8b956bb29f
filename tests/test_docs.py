"""Every command in `judge-tui --help` is documented in the README: a heading and an example to copy.

The commands are read from the real argparse parser, so a new command fails here until the README has it.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from judge_tui.cli import build_parser

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def _commands() -> list[str]:
    parser = build_parser()
    [subparsers] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return list(subparsers.choices)


def _headings() -> list[str]:
    return re.findall(r"^#{1,6} (.*)$", README, flags=re.MULTILINE)


def _bash_lines() -> list[str]:
    blocks = re.findall(r"^```bash\n(.*?)^```", README, flags=re.MULTILINE | re.DOTALL)
    return [line.strip() for block in blocks for line in block.splitlines()]


def _names(command: str) -> re.Pattern[str]:
    # `judge-tui import` must not be satisfied by `judge-tui import-ratings`
    return re.compile(rf"judge-tui(?: --db \S+)? {re.escape(command)}(?![\w-])")


COMMANDS = _commands()


def test_the_parser_lists_the_commands() -> None:
    assert {"rate", "import", "judge", "report", "check"} <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_a_readme_heading(command: str) -> None:
    headings = [h for h in _headings() if _names(command).search(h.replace("`", ""))]
    assert headings, f"README.md has no heading naming `judge-tui {command}`; add one under ## Commands"


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_an_example_in_a_bash_block(command: str) -> None:
    examples = [line for line in _bash_lines() if _names(command).match(line)]
    assert examples, f"README.md has no ```bash example starting `judge-tui {command}`; add one"
