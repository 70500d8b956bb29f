"""The judge-tui command: the parser and the command handlers; the only code that sees argparse.

`main` (the `judge-tui` entry point) and `build_parser` live in parser.py; each handler in its own module,
imported only when its command runs.
"""

from judge_tui.cli.parser import build_parser, main

__all__ = ["build_parser", "main"]
