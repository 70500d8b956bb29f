"""The judge-tui command: the parser and the command handlers; the only code that sees argparse."""
