"""The documentation keeps up with the program: every command and option is described, the CLI reference is the
parser's own, and every relative link leads somewhere.

Commands and options are read from the real argparse parser, so a new command or option fails here until the
guides describe it and docs/cli.md is generated again (`python -m judge_tui.cli.reference > docs/cli.md`).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from judge_tui.cli import build_parser
from judge_tui.cli.reference import render

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
# The pages a user reads to learn a command: the README and every page of docs/ but the generated reference.
GUIDES = [ROOT / "README.md", *sorted(p for p in DOCS.glob("*.md") if p.name != "cli.md")]
GUIDE_TEXT = "\n".join(p.read_text(encoding="utf-8") for p in GUIDES)
PARSER = build_parser()
COMMANDS = list(PARSER.commands)


def _headings(text: str) -> list[str]:
    return re.findall(r"^#{1,6} (.*)$", _outside_code(text), flags=re.MULTILINE)


def _outside_code(text: str) -> str:
    return re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)


def _bash_lines(text: str) -> list[str]:
    blocks = re.findall(r"^```bash\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)
    return [line.strip() for block in blocks for line in block.splitlines()]


def _names(command: str) -> re.Pattern[str]:
    # `judge-tui import` must not be satisfied by `judge-tui import-ratings`
    return re.compile(rf"judge-tui(?: --db \S+)? {re.escape(command)}(?![\w-])")


def test_the_parser_lists_the_commands() -> None:
    assert {"rate", "import", "judge", "report", "check"} <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_a_heading_in_the_guides(command: str) -> None:
    headings = [h for h in _headings(GUIDE_TEXT) if _names(command).search(h.replace("`", ""))]
    assert headings, f"no page of docs/ has a heading naming `judge-tui {command}`; add one where it belongs"


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_an_example_in_a_bash_block(command: str) -> None:
    examples = [line for line in _bash_lines(GUIDE_TEXT) if _names(command).match(line)]
    assert examples, f"no page of docs/ has a ```bash example starting `judge-tui {command}`; add one"


def _options() -> list[tuple[str, str]]:
    """(command, option) for every option, by its long name ("" for the program's own options)."""
    parsers = {"": PARSER, **PARSER.commands}
    found = {(command, max(action.option_strings, key=len)) for command, parser in parsers.items()
             for action in parser.arguments if action.option_strings and "--help" not in action.option_strings}
    return sorted(found)


def _aliases(command: str, option: str) -> list[str]:
    parser = PARSER.commands[command] if command else PARSER
    [action] = [a for a in parser.arguments if option in a.option_strings]
    return list(action.option_strings)


@pytest.mark.parametrize(("command", "option"), _options())
def test_every_option_is_described_in_the_guides(command: str, option: str) -> None:
    assert any(re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", GUIDE_TEXT) for name in _aliases(command, option)), (
        f"`judge-tui {command} {option}` is not mentioned in the README or docs/; say what it is for")


def test_every_argument_has_help_text() -> None:
    parsers = {"judge-tui": PARSER, **{f"judge-tui {n}": p for n, p in PARSER.commands.items()}}
    missing = [f"{name} {' '.join(action.option_strings) or action.dest}" for name, parser in parsers.items()
               for action in parser.arguments if not (action.help or "").strip()]
    assert missing == [], f"arguments without --help text: {missing}"


def test_every_command_has_a_summary() -> None:
    assert [name for name, parser in PARSER.commands.items() if not parser.summary.strip()] == []


def test_the_cli_reference_is_the_parsers_own() -> None:
    written = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert written == render(), "docs/cli.md is stale: run `python -m judge_tui.cli.reference > docs/cli.md`"


@pytest.mark.slow
def test_the_reference_script_prints_the_reference() -> None:
    done = subprocess.run([sys.executable, "-m", "judge_tui.cli.reference"], capture_output=True, text=True,
                          check=True, cwd=ROOT, timeout=120)
    assert done.stdout == render()
    assert "## judge-tui import-ratings" in done.stdout
    assert "| `--map FIELD=KEY` |" in done.stdout


def test_the_reference_names_every_command_and_option() -> None:
    reference = render()
    for command, option in _options():
        section = reference.split(f"## judge-tui {command}\n", 1)[1] if command else reference
        section = re.split(r"^## ", section, maxsplit=1, flags=re.MULTILINE)[0] if command else section
        assert re.search(rf"(`|, ){re.escape(option)}[ `]", section), (command, option)


# GitHub's anchors: lower case, punctuation dropped, spaces to hyphens; a repeated heading gets -1, -2, ...
def _anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    anchors = set()
    for heading in _headings(path.read_text(encoding="utf-8")):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def _links(path: Path) -> list[str]:
    text = re.sub(r"`[^`\n]*`", "", _outside_code(path.read_text(encoding="utf-8")))
    return re.findall(r"\]\(([^)\s]+)\)", text)


DOCUMENTS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted(DOCS.glob("*.md"))]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(document: Path) -> None:
    broken = []
    for link in _links(document):
        if re.match(r"[a-z]+:", link):
            continue  # http(s), mailto: not ours to check offline
        target, _, anchor = link.partition("#")
        path = (document.parent / target).resolve() if target else document
        if not path.exists():
            broken.append(f"{link}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
            broken.append(f"{link}: no heading with that anchor in {path.name}")
    assert broken == [], f"{document.name}: {broken}"


def test_the_link_check_sees_links_and_anchors() -> None:
    readme = ROOT / "README.md"
    assert "docs/formats.md#--map-rename-a-key-or-build-a-field-any-format" in _links(readme)
    assert "--map-rename-a-key-or-build-a-field-any-format" in _anchors(DOCS / "formats.md")
    assert "judge-tui-import-ratings" in _anchors(DOCS / "cli.md")


def test_the_readme_stays_short() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 250


def test_every_page_of_docs_is_in_the_index() -> None:
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    assert [p.name for p in sorted(DOCS.glob("*.md")) if p.name != "index.md" and f"]({p.name}" not in index] == []


def test_every_setting_is_in_the_settings_page() -> None:
    import dataclasses

    from judge_tui.model.settings import AgreementSettings, Settings

    page = (DOCS / "settings.md").read_text(encoding="utf-8")
    tables = page[page.index("## Rating"):]
    for model in (Settings, AgreementSettings):
        for field in dataclasses.fields(model):
            assert f"`{field.name}`" in tables, f"docs/settings.md has no row for {field.name}"
            assert f'"{field.name}"' in page, f"docs/settings.md's example file lacks {field.name}"


def test_every_benchmark_section_gives_its_command() -> None:
    text = (DOCS / "benchmarks.md").read_text(encoding="utf-8")
    sections = re.split(r"^## ", text, flags=re.MULTILINE)[1:]
    assert sections
    without = [s.splitlines()[0] for s in sections
               if not re.search(r"^```(?:bash)?\n[^`]*benchmarks/\w+\.py", s, flags=re.MULTILINE)]
    assert without == [], f"docs/benchmarks.md sections without the command that measures them: {without}"
