"""docs/cli.md, written from the parser itself: `python -m judge_tui.cli.reference > docs/cli.md`.

The reference is made, never typed, so it cannot drift from `judge-tui COMMAND --help`; tests/test_docs.py
fails when the file in the repository differs from what this prints.
"""

from __future__ import annotations

import argparse
import sys

from judge_tui.cli.parser import CommandParser, build_parser

HEADER = """# Command-line reference

<!-- Generated from judge_tui/cli/parser.py by `python -m judge_tui.cli.reference > docs/cli.md`.
     Do not edit by hand: tests/test_docs.py fails when this file is stale. -->

Every command and option, with the help text `judge-tui COMMAND --help` prints. What the commands are for,
with examples, is in the guides ([docs/index.md](index.md)). Options given before a command
(`judge-tui --db study.db report`) apply to it as well.
"""


def render(parser: CommandParser | None = None) -> str:
    """The whole reference as Markdown: the program's own options, then one section per command."""
    parser = parser or build_parser()
    parts = [HEADER, "## judge-tui", "", _text(parser.description or ""), "",
             f"`judge-tui {_usage(parser)}`", "", *_options(parser), "", "| command | what it does |",
             "| --- | --- |"]
    parts += [f"| [`{name}`](#judge-tui-{name}) | {_cell(command.summary)} |" for name, command in
              parser.commands.items()]
    for name, command in parser.commands.items():
        parts += ["", f"## judge-tui {name}", "", _text(command.description or command.summary), "",
                  "`" + " ".join(filter(None, ["judge-tui", name, _usage(command)])) + "`", ""]
        parts += _options(command)
    return "\n".join(parts).rstrip() + "\n"


def _shown(parser: CommandParser) -> list[argparse.Action]:
    # -h is on every command; the reference says what is particular to each.
    return [a for a in parser.arguments if a.option_strings != ["-h", "--help"]]


def _usage(parser: CommandParser) -> str:
    positionals = [_value(a) for a in _shown(parser) if not a.option_strings]
    options = "[OPTIONS]" if any(a.option_strings for a in _shown(parser)) else ""
    return " ".join([options, *positionals]).strip() + (" [COMMAND]" if parser.commands else "")


def _options(parser: CommandParser) -> list[str]:
    actions = _shown(parser)
    if not actions:
        return ["No options."]
    rows = ["| argument | what it does |", "| --- | --- |"]
    for action in actions:
        names = ", ".join(action.option_strings) if action.option_strings else ""
        value = _value(action) if action.nargs != 0 else ""
        shown = " ".join(part for part in (names, value) if part)
        required = " Required." if action.required and action.option_strings else ""
        rows.append(f"| `{shown}` | {_cell(_help(parser, action))}{required} |")
    return rows


def _value(action: argparse.Action) -> str:
    if action.choices is not None and action.metavar is None:
        name = "{" + ",".join(str(c) for c in action.choices) + "}"
    elif isinstance(action.metavar, tuple):
        name = " ".join(action.metavar)
    else:
        name = action.metavar or (action.dest.upper() if action.option_strings else action.dest)
    if action.nargs == "?":
        return f"[{name}]"
    if action.nargs in ("+", "*"):
        return f"{name} ..."
    return name


def _help(parser: CommandParser, action: argparse.Action) -> str:
    # argparse fills %(default)s and friends and reads %% as %; so does the reference.
    params = {key: value for key, value in vars(action).items() if value is not argparse.SUPPRESS}
    params["prog"] = parser.prog
    if action.choices is not None:
        params["choices"] = ", ".join(str(c) for c in action.choices)
    return (action.help or "") % params


def _text(text: str) -> str:
    return text.replace("%%", "%")


def _cell(text: str) -> str:
    return _text(text).replace("|", "\\|").replace("\n", " ")


def main() -> int:
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
