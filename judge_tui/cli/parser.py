"""The judge-tui command: parses arguments and hands each command to the module that does the work.

Handlers are imported only when their command runs, so `judge-tui --help` and the app start fast.
"""

from __future__ import annotations

import argparse
import codecs
import gc
import importlib
import io
import os
import sqlite3
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from judge_tui import __version__
from judge_tui.judge.backends import backend_kinds
from judge_tui.model.errors import UserError
from judge_tui.model.judge_backends import DEFAULT_BACKEND
from judge_tui.model.records import DEFAULT_LEVEL, SPLITS
from judge_tui.model.textsafe import clean

DB_HELP = "database file (default: $JUDGE_TUI_DB, or judge-tui.db in the user data folder)"
LEAD_HELP = ("open as the study lead: c adjudicates, a shows the team over every item (a reviewer sees figures "
             "only over the items they submitted)")

# command -> "module:function"; each function takes the parsed arguments and returns an exit code.
HANDLERS = {
    "rate": "judge_tui.cli.launch:run",
    "demo": "judge_tui.cli.launch:run",
    "rubrics": "judge_tui.cli.commands:list_rubrics",
    "import": "judge_tui.cli.importing:run_import",
    "import-ratings": "judge_tui.cli.importing:run_import_ratings",
    "export": "judge_tui.cli.export:run_export",
    "split": "judge_tui.cli.split:run_split",
    "judge": "judge_tui.cli.judge:run",
    "failures": "judge_tui.cli.failures:run",
    "report": "judge_tui.cli.report:run",
    "merge": "judge_tui.cli.merge:run_merge",
    "history": "judge_tui.cli.history:run_history",
    "rubric-change": "judge_tui.cli.history:run_rubric_change",
    "rubric-export": "judge_tui.cli.history:run_rubric_export",
    "adjudicate": "judge_tui.cli.launch:run_adjudicate",
    "calibrate": "judge_tui.cli.calibrate:run",
    "certify": "judge_tui.cli.certify:run",
    "check": "judge_tui.cli.commands:run_check",
    "flags": "judge_tui.cli.flags:run",
    "status": "judge_tui.cli.status:run",
    "plan": "judge_tui.cli.plan:run",
    "assign": "judge_tui.cli.assign:run",
}
# The commands that open the rating app, which turns the collector back on once its first item is on screen.
APP_COMMANDS = ("rate", "demo")


def split_name(value: str) -> str:
    """--split: one of the three splits, so a typo is named as such rather than found to hold no items."""
    if value not in SPLITS:
        raise argparse.ArgumentTypeError(f"unknown split {clean(value)!r}: use {', '.join(SPLITS)}")
    return value


def output_file(value: str) -> Path | None:
    """-o: a file name, or "-" for standard output (None, as when -o is not given)."""
    return None if value == "-" else Path(value)


def _common(parser: argparse.ArgumentParser) -> None:
    # SUPPRESS keeps a --db given before the command (judge-tui --db x import f) from being reset.
    parser.add_argument("--db", type=Path, help=DB_HELP, default=argparse.SUPPRESS)


def _backend_options(parser: argparse.ArgumentParser, default: str | None = DEFAULT_BACKEND,
                     default_help: str = "") -> None:
    """Which judge answers, and how to reach it: the same options wherever a judge is run (the table of
    judge/backends/). default=None: the command chooses when none is given, as default_help says."""
    kinds = backend_kinds()
    parser.add_argument("--backend", choices=list(kinds), default=default,
                        help="; ".join(f"{kind.name}: {kind.help}" for kind in kinds.values()) + default_help)
    for kind in kinds.values():
        for option in kind.options:
            shape: dict[str, Any] = {"type": Path} if option.path else {"action": "append"} if option.repeat else {}
            parser.add_argument(option.flag, metavar=option.metavar, help=f"for --backend {kind.name}: {option.help}",
                                **shape)


class CommandParser(argparse.ArgumentParser):
    """An ArgumentParser that keeps its arguments and commands where code can read them (docs/cli.md is made
    from them by `python -m judge_tui.cli.reference`), since argparse keeps its own lists private."""

    def __init__(self, *args: Any, summary: str = "", **kwargs: Any) -> None:
        self.arguments: list[argparse.Action] = []  # before __init__, which adds -h through add_argument
        self.commands: dict[str, CommandParser] = {}
        self.summary = summary
        super().__init__(*args, **kwargs)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        action = super().add_argument(*args, **kwargs)
        self.arguments.append(action)
        return action

    def add_subparsers(self, **kwargs: Any) -> Any:
        self._command_parsers = super().add_subparsers(**kwargs)
        return self._command_parsers

    def add_command(self, name: str, help: str, **kwargs: Any) -> CommandParser:
        command: CommandParser = self._command_parsers.add_parser(name, help=help, summary=help, **kwargs)
        self.commands[name] = command
        return command


def build_parser() -> CommandParser:
    parser = CommandParser(
        prog="judge-tui",
        description="Rate submissions against a rubric by keyboard, judge them with an LLM, and measure agreement. "
        "With no command, opens the rating screen (before your study has items, on the bundled demo, which "
        "has a database of its own).",
    )
    parser.add_argument("--version", action="version", version=f"judge-tui {__version__}")
    parser.add_argument("--db", type=Path, help=DB_HELP)
    parser.add_argument("--reviewer", help="your reviewer id (asked once, then remembered)")
    parser.add_argument("--rubric", help="rubric id or rubric file to rate")
    parser.add_argument("--split", type=split_name, help="rate only items of this split (train, dev, test)")
    parser.add_argument("--lead", action="store_true", help=LEAD_HELP)
    parser.add_subparsers(dest="command", metavar="COMMAND")

    p = parser.add_command("rate", help="open the rating screen")
    _common(p)
    p.add_argument("--reviewer", help="your reviewer id (asked once, then remembered)", default=argparse.SUPPRESS)
    p.add_argument("--rubric", help="rubric id or rubric file to rate", default=argparse.SUPPRESS)
    p.add_argument("--split", type=split_name, help="rate only items of this split (train, dev, test)",
                   default=argparse.SUPPRESS)
    p.add_argument("--lead", action="store_true", help=LEAD_HELP, default=argparse.SUPPRESS)
    p.add_argument("--order", choices=["import", "random", "balanced"],
                   help="the order your items come in (default: queue_order in settings.json, else import): random "
                   "is a fixed random order of your own; balanced brings the judge's verdicts in equal measure, "
                   "at random and never shown, but saves no ratings before the stop notice (its rule valid at any "
                   "time decides a balanced order's TPR and TNR more slowly; docs/benchmarks.md): prefer import or "
                   "random. Kept per reviewer: quitting and coming back never reshuffles. "
                   "An assignment (judge-tui assign) keeps its own queue's order")

    p = parser.add_command("demo", help="open the rating screen on the bundled demo (a database of its own, apart "
                                    "from your study)")
    p.add_argument("--reviewer", help="your reviewer id in the demo (asked once, then remembered)",
                   default=argparse.SUPPRESS)
    p.add_argument("--rubric", help="rubric id to rate (default: cis)", default=argparse.SUPPRESS)

    p = parser.add_command("rubrics", help="list the available rubrics")
    p.add_argument("--rubric", dest="rubric_files", action="append", type=Path, default=[],
                   help="also load this rubric file (repeatable)")

    p = parser.add_command("import", help="import items (JSON, JSONL, CSV, promptfoo results)")
    _common(p)
    p.add_argument("file", type=Path, nargs="?", help="file to import (a file on disk of up to 2 GB)")
    p.add_argument("--rubric", help="rubric id or file the items are rated against")
    p.add_argument("--format", choices=["json", "jsonl", "csv", "promptfoo"], help="default: from the file")
    p.add_argument("--map", action="append", default=[], metavar="FIELD=KEY",
                   help="take item field FIELD from KEY (a CSV column, a JSON key, a promptfoo var, or output for "
                        "promptfoo's answer), or build it from a template: FIELD='text {KEY} text' (repeatable)")
    p.add_argument("--split", type=split_name, help="put every imported item in this split")
    p.add_argument("--bundle", type=Path, metavar="FILE", help="import one expert's bundle (see export --bundle)")

    p = parser.add_command("import-ratings", help="import ratings made elsewhere (rating_form.json, judge output, ...)")
    _common(p)
    p.add_argument("file", type=Path, help="file of ratings (a file on disk of up to 2 GB)")
    p.add_argument("--rater", help="rater id to file the ratings under (default: the rater the file names, "
                                    "a rating form's expert_id)")
    p.add_argument("--kind", choices=["human", "judge"],
                   help="default: the rater's kind in the database, else the kind the file states "
                        "(a rating form: human; judge output: judge)")
    p.add_argument("--rubric", help="rubric id (default: the items' rubric)")
    p.add_argument("--format", choices=["rating-form", "judge-output", "reasoning-json", "jsonl", "csv"],
                   help="default: detected from the file")
    p.add_argument("--model", help="for --kind judge: the model that made the ratings")
    p.add_argument("--map", action="append", default=[], metavar="FIELD=KEY",
                   help="JSON Lines and CSV: take FIELD (item_id, a dimension, notes, seconds) from the file's KEY "
                        "(a JSON key or CSV column; repeatable)")

    p = parser.add_command("export", help="export ratings and items skipped or flagged without one (rating_form.json, "
                                      "JSONL, CSV, review template)")
    _common(p)
    p.add_argument("--format", choices=["rating-form", "jsonl", "csv", "review-template"],
                   help="default: from the output file's name (.csv, .jsonl, .json rating form, .md review "
                        "template), else jsonl")
    p.add_argument("-o", "--output", type=output_file, help="output file (default, or -: standard output)")
    p.add_argument("--rubric", help="only this rubric's items")
    p.add_argument("--rater", help="only this rater (rating-form: the expert; default: the remembered reviewer)")
    p.add_argument("--judge", help="review-template: the judge rater to show beside the human")
    p.add_argument("--bundle", action="store_true", help="export this database's work as one bundle file")
    p.add_argument("--for", dest="for_expert", metavar="EXPERT",
                   help="with --bundle: the bundle to hand EXPERT, holding their assignment (judge-tui assign) "
                        "and its items, and their ratings so far")

    p = parser.add_command("split", help="assign items to train / dev / test splits")
    _common(p)
    p.add_argument("--rubric", help="only this rubric's items")
    p.add_argument("--seed", type=int, default=0, help="the same database, rubric and seed give the same split "
                   "(default 0)")
    p.add_argument("--train", type=float, default=0.15, help="share of the items for train (default 0.15)")
    p.add_argument("--dev", type=float, default=0.40, help="share of the items for dev (default 0.40)")
    p.add_argument("--test", type=float, default=0.45, help="share of the items for test (default 0.45)")
    p.add_argument("--reassign", action="store_true",
                   help="split every item afresh (by default an item keeps the split it has, from import or"
                   " an earlier split, and only items without one are placed)")

    p = parser.add_command("judge", help="judge items with an LLM (headless, resumable)")
    _common(p)
    p.add_argument("--rubric", help="rubric id, or 'all' (needed when the database holds items of several rubrics)")
    p.add_argument("--model", help="model id, pinned for the run (default: settings judge_model; with --backend"
                   " openai, settings openai_model; with --backend command, a name for the program)")
    p.add_argument("--concurrency", type=int,
                   help="at most this many calls at once (default: settings judge_concurrency, 4; with --backend"
                   " openai, settings openai_concurrency, 2)")
    p.add_argument("--limit", type=int, help="judge at most N items")
    p.add_argument("--split", type=split_name, help="only items of this split")
    p.add_argument("--repeat", type=int, default=1, help="judge each item K times (self-agreement)")
    p.add_argument("--both-orders", action="store_true",
                   help="pairwise rubrics: ask about each pair as shown and with the two responses swapped, to "
                   "measure the judge's position bias (report: position bias)")
    p.add_argument("--batch", action="store_true", help="use the Message Batches API (half price, slower)")
    p.add_argument("--batch-max-requests", type=int, metavar="N",
                   help="with --batch: at most N requests a batch (default and most: 100,000)")
    p.add_argument("--batch-max-mb", type=float, metavar="MB",
                   help="with --batch: at most MB megabytes a batch, before the 5%% safety margin (default and most: 256)")
    _backend_options(p)
    p.add_argument("--reason", help="record a changed rubric or prompt with this reason (required after a change)")
    p.add_argument("--items", metavar="ID,ID", help="with --reason: the items that motivated the change")
    p.add_argument("--retry-failed", action="store_true", help="queue this judge's failed judgments again")
    p.add_argument("--dry-run", action="store_true",
                   help="say how many calls the run would make and what they would cost; queue and judge nothing")

    p = parser.add_command("failures", help="list failed judgments with their reason and raw answer")
    _common(p)
    p.add_argument("--rubric", help="only this rubric's items")
    p.add_argument("--rater", help="only this judge rater (see judge-tui judge's summary)")
    p.add_argument("--limit", type=int, default=20, help="show at most N in full (default 20; 0: all)")

    p = parser.add_command("report", help="agreement report without the app")
    _common(p)
    p.add_argument("--format", choices=["text", "markdown", "json", "csv", "jsonl"],
                   help="text (default), markdown or json; with --items: csv (default), jsonl or markdown")
    p.add_argument("--items", action="store_true",
                   help="item by item: human and judge scores per dimension, gaps, flags and notes")
    p.add_argument("--rubric", help="rubric id (default: the one with the most items)")
    p.add_argument("--by", metavar="FIELD", help="break down by task_type, cefr_level, split or an item field")
    p.add_argument("--split", type=split_name, help="only items of this split")
    p.add_argument("--raters", help="compare these raters: A,B (groups: A+B,C)")
    p.add_argument("--judge", help="the judge to compare: a judge rater id or judge version, as `history` lists "
                   "it (default: the newest kept judge version)")
    p.add_argument("--compare", nargs=2, metavar=("V1", "V2"), help="alignment under two prompt versions")
    p.add_argument("--jury", metavar="A+B+C", help="the judges of the jury section, joined with + (default: one rater"
                   " per judge of the rubric, shown with two judges or more)")
    p.add_argument("-o", "--output", type=output_file,
                   help="write to a file instead of standard output (-: standard output)")

    p = parser.add_command("assign", help="plan who rates which items: each expert's share, with an overlap rated by "
                                      "several experts for agreement")
    _common(p)
    p.add_argument("--rubric", required=True, help="rubric id whose items are assigned")
    p.add_argument("--experts", required=True, metavar="ID,ID,...", help="the experts' reviewer ids, e.g. ann,bob,cat")
    p.add_argument("--overlap", type=float, default=0.2,
                   help="share of the items rated by several experts, for agreement (default 0.2; 0 for none)")
    p.add_argument("--overlap-raters", type=int, default=0, metavar="K",
                   help="how many experts rate each overlap item (default: every expert; at least 2)")
    p.add_argument("--per-expert", type=int, metavar="N",
                   help="N items per expert, where the pool has them (default: every item of the rubric is assigned)")
    p.add_argument("--seed", type=int, default=0, help="the same items, experts and seed give the same plan")
    p.add_argument("--escalate", action="store_true",
                   help="keep out of the plan the items the judge is certified to decide (judge-tui certify on the "
                        "dev split), so the experts' queues hold only the items it leaves to them; the certificate "
                        "and the items it decides are recorded with the plan (a plan without it removes them)")
    p.add_argument("--alpha", type=float, help="with --escalate: the certificate's alpha (default 0.1)")
    p.add_argument("--delta", type=float, help="with --escalate: the certificate's delta (default 0.1)")
    p.add_argument("--judge", help="with --escalate: the judge rater or judge version (default: the newest kept "
                   "judge version)")
    p.add_argument("--jury", metavar="A+B+C", help="with --escalate: certify the jury these judges make instead")
    p.add_argument("--confidence", choices=["repeats", "stated", "logprob"],
                   help="with --escalate: the judge's confidence, as for judge-tui certify (default repeats)")
    p.add_argument("--format", choices=["text", "json"], default="text", help="the plan as text (default) or JSON")

    p = parser.add_command("status", help="where the study stands: each expert's progress and time, the judge queue")
    _common(p)
    p.add_argument("--rubric", help="only this rubric (default: every rubric with items)")
    p.add_argument("--format", choices=["text", "json"], default="text",
                   help="a table (default) or JSON for scripts")

    p = parser.add_command(
        "plan", help="before a study: how many items to label for an 80%% chance of deciding each target",
        description="Before a study: how many items (and how many human PASS and FAIL) to label for an 80% "
        "chance that the report decides each target, if the judge is as good as you expect; then how many for "
        "every target at once, and how many for the rating screen's stop notice, whose rules stay valid at any "
        "time and need more. Targets and the confidence come from settings.json. With --items N, also what a "
        "study of N items decides: each target alone, every target at once, and the stop notice.")
    p.add_argument("--tpr", type=float, help="PASS/FAIL: the TPR you expect (share of human PASS the judge passes)")
    p.add_argument("--tnr", type=float, help="PASS/FAIL: the TNR you expect (share of human FAIL the judge fails)")
    p.add_argument("--fail-share", type=float, help="PASS/FAIL: the share of items you expect the experts to FAIL")
    p.add_argument("--kappa", type=float, help="graded: the Cohen's kappa you expect on a dimension")
    p.add_argument("--weighted-kappa", type=float, help="graded: the quadratic-weighted kappa you expect")
    p.add_argument("--pearson", type=float, metavar="R",
                   help="graded: the Pearson r you expect on the overall score")
    p.add_argument("--alignment", type=float, help="graded: the share of scores you expect within the tolerance")
    p.add_argument("--levels", type=int,
                   help="graded: points of the scale, for kappa (default: the --rubric's, else 5)")
    p.add_argument("--rubric", help="the study's rubric (id or file): its scale gives --levels, and a rubric of "
                                    "nominal categories refuses the targets that need an order")
    p.add_argument("--items", type=int, help="also say what a study of this many items decides")
    p.add_argument("--chance", type=float, default=0.8, help="the chance of a decision to plan for (default 0.8)")
    p.add_argument("--format", choices=["text", "json"], default="text", help="a table (default) or JSON")

    p = parser.add_command("flags", help="list the items experts flagged for discussion, with their reasons")
    _common(p)
    p.add_argument("--rubric", help="only this rubric's items")
    p.add_argument("--rater", help="only this expert's flags")
    p.add_argument("--split", help="only items of this split")
    p.add_argument("--format", choices=["text", "markdown", "csv", "json"],
                   help="default: from the output file's name (.csv, .json, .md), else text")
    p.add_argument("-o", "--output", type=output_file,
                   help="write to a file instead of standard output (-: standard output)")

    p = parser.add_command("merge", help="merge other experts' databases into this one")
    _common(p)
    p.add_argument("others", type=Path, nargs="+", metavar="OTHER.db",
                   help="the databases (or bundles) to merge in; opened read-only")

    p = parser.add_command("history", help="list rubric and prompt versions with their reasons")
    _common(p)
    p.add_argument("--rubric", help="only this rubric")

    p = parser.add_command("rubric-change", help="use a changed rubric file or judge template in this database, "
                                                 "with its reason and motivating items")
    _common(p)
    p.add_argument("rubric", help="rubric id: its file in the rubrics folder (else the built-in one) and its judge "
                                  "template are adopted")
    p.add_argument("--reason", required=True, help="what changed and why")
    p.add_argument("--items", required=True, metavar="ID,ID", help="the items that motivated the change")
    p.add_argument("--file", type=Path, metavar="NEW.rubric.toml",
                   help="the new definition, used by every command on this database from now on (other "
                        "databases keep theirs)")

    p = parser.add_command("rubric-export", help="write the rubric file and judge template this database uses")
    _common(p)
    p.add_argument("rubric", help="rubric id")
    p.add_argument("--to", type=Path, required=True, metavar="FOLDER",
                   help="where to write <id>.rubric.toml and <id>.judge.md (your rubrics folder, to use them in "
                        "new studies)")
    p.add_argument("--overwrite", action="store_true", help="replace files of those names already there")

    p = parser.add_command("adjudicate", help="settle the items where experts disagree (stored as rater 'consensus')")
    _common(p)
    p.add_argument("--rubric", help="rubric id (default: the one with the most items)")
    p.add_argument("--reviewer", help="who adjudicates (default: the remembered reviewer)", default=argparse.SUPPRESS)
    p.add_argument("--split", type=split_name, help="only items of this split", default=argparse.SUPPRESS)

    p = parser.add_command("calibrate", help="the lead's judge screen: change the judge, re-judge the dev split, "
                                         "see whether it helped, keep or revert")
    _common(p)
    p.add_argument("--rubric", help="rubric id (default: the one with the most items)")
    p.add_argument("--reviewer", help="the lead's id (default: the remembered reviewer); a lead who has rated "
                                      "items of the rubric is an expert too and sees the judge on those items only",
                   default=argparse.SUPPRESS)
    p.add_argument("--split", type=split_name, default="dev",
                   help="the split the loop measures on: dev (default) or train; never test")
    p.add_argument("--model", help="model id for the re-judge (default: without --backend, the judge shown's; with "
                                   "--backend anthropic, settings judge_model; with --backend openai, settings "
                                   "openai_model; with --backend command or replay, the model name to record)")
    p.add_argument("--judge", help="the judge the screen shows: a judge rater id or judge version (default: the newest "
                   "kept judge version)")
    p.add_argument("--concurrency", type=int, default=None,
                   help="at most this many judgments at once (default: settings judge_concurrency;"
                   " with --backend openai, openai_concurrency)")
    _backend_options(p, default=None,
                     default_help=" (default: the backend that made the judge shown, with its model; with --model"
                     " alone, a judge imported, or none yet: anthropic)")

    p = parser.add_command(
        "certify", help="on which items the judge may decide alone: a confidence threshold certified on the "
                        "experts' ratings, and how many items go to the experts",
        description="Certify a confidence threshold for the judge on the items the experts rated (the dev split "
        "by default, never test): with probability at least 1 - DELTA, the judge disagrees with the experts on at "
        "most ALPHA of the items it keeps. The judge's confidence is the agreement among its repeated runs "
        "(judge-tui judge --repeat 3), the confidence it stated in its answers, or its scores' token probability "
        "(OpenAI-compatible servers only).")
    _common(p)
    p.add_argument("--rubric", help="rubric id (default: the one with the most items)")
    p.add_argument("--judge", help="the judge rater or judge version (default: the newest kept judge version)")
    p.add_argument("--jury", metavar="A+B+C", help="certify the jury these judges make instead of one judge: its "
                   "confidence is the share of members agreeing with its verdict")
    p.add_argument("--alpha", type=float, default=DEFAULT_LEVEL,
                   help="the most disagreement with the experts allowed on the items the judge keeps (default 0.1)")
    p.add_argument("--delta", type=float, default=DEFAULT_LEVEL,
                   help="the chance the certificate may be wrong (default 0.1)")
    p.add_argument("--split", type=split_name, default="dev",
                   help="the expert-rated items to certify on: dev (default) or train; never test")
    p.add_argument("--confidence", choices=["repeats", "stated", "logprob"], default="repeats",
                   help="one judge's confidence: the share of its runs agreeing with its first (repeats, default), "
                        "the confidence it stated in its answer (stated), or its scores' token probability (logprob; "
                        "OpenAI-compatible servers only)")
    p.add_argument("--format", choices=["text", "json"], default="text", help="text (default) or JSON")

    p = parser.add_command("check", help="check the database file for damage (reads all of it)")
    _common(p)

    return parser


def _handler(command: str) -> Callable[[argparse.Namespace], int | None]:
    module_name, function_name = HANDLERS[command].split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("judge_tui"):
            raise UserError(f"`judge-tui {command}` is not available in this version") from None
        raise
    handler: Callable[[argparse.Namespace], int | None] = getattr(module, function_name)
    return handler


def main(argv: Sequence[str] | None = None) -> int:
    # Before numpy is imported: OpenBLAS splits a dot product of more than a few thousand numbers across threads,
    # which on a machine whose cores are busy wait for one another; a report over 50k items spent most of its
    # Pearson intervals so (1.25 ms for one 50k-number product, 0.008 ms on one thread). The user's setting wins.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    # Start-up makes objects that last as long as the process: the collector's passes over them found next to
    # nothing and cost 30-45 ms before the rating app's first frame. Off until the command is known, or for the
    # app until its first item is on screen (JudgeTuiApp.start_up_over).
    collecting = gc.isenabled()
    gc.disable()
    _prepare_streams()
    try:
        args = build_parser().parse_args(argv)
        command = args.command or "rate"
        if collecting and command not in APP_COMMANDS:
            gc.enable()
        return _said_into_a_closed_output(_run(command, args))
    finally:
        if collecting:
            gc.enable()


class _ClosedOutput(io.TextIOWrapper):
    """The null device standing in for a closed standard output; it counts what was lost there."""

    lost = 0

    def write(self, text: str) -> int:
        self.lost += len(text)
        return super().write(text)


def _prepare_streams() -> None:
    """Standard output and error that every command can print to, whatever the shell gave it.

    A closed one (`cmd >&-`) is opened on the null device: printing to it costs nothing, and no file opened
    later (the database) can take its descriptor and receive what is printed (_said_into_a_closed_output tells
    the user). One whose encoding is not UTF-8 (cp1252, latin-1, ascii) writes "?" for what it cannot encode
    rather than stopping the command.
    """
    for fd, name in ((1, "stdout"), (2, "stderr")):
        stream = getattr(sys, name)
        if stream is None:
            null = os.open(os.devnull, os.O_WRONLY)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
            raw = open(fd, "wb", closefd=False)  # noqa: SIM115 (lives as long as the process)
            setattr(sys, name, _ClosedOutput(raw, encoding="utf-8", line_buffering=True))
        elif (isinstance(stream, io.TextIOWrapper) and stream.errors == "strict"
              and codecs.lookup(stream.encoding).name != "utf-8"):
            stream.reconfigure(errors="replace")


def _said_into_a_closed_output(code: int) -> int:
    """A command whose output went nowhere (`cmd >&-`) did not do what it was asked: say so, and fail."""
    stdout = sys.stdout
    if not isinstance(stdout, _ClosedOutput) or not stdout.lost:
        return code
    print(f"judge-tui: standard output is closed, so {stdout.lost:,} characters of output were lost. Run the "
          "command again with its output open, or with -o FILE where it offers one", file=sys.stderr)
    return code or 1


def _run(command: str, args: argparse.Namespace) -> int:
    try:
        return int(_handler(command)(args) or 0)
    except UserError as exc:
        _show_rubric_warnings()  # a rubric file left out may be why
        from judge_tui.formats.terminal import fit_lines

        # Messages quote what the user typed; on a terminal they wrap between words.
        print(fit_lines(f"judge-tui: {clean(str(exc))}", sys.stderr), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("judge-tui: interrupted; everything saved so far is kept.", file=sys.stderr)
        return 130
    except MemoryError:
        print(f"judge-tui: ran out of memory running `{command}`; every write is a transaction, so nothing was"
              " half-written. Run it again where more memory is free (close other programs, or raise the"
              " process's memory limit)", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # Output piped into `head` and the like: exit quietly.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (sqlite3.Error, OSError) as exc:
        # A fault of the machine (busy, read-only, full or damaged database; unwritable file): the one place
        # that explains them. Every write is a transaction, so the command's changes are already rolled back.
        from judge_tui.cli.commands import db_path
        from judge_tui.store import faults

        if isinstance(exc, sqlite3.Error):
            message = faults.describe_sqlite(exc, db_path(args))
        else:
            message = faults.describe_os(exc)
        print(f"judge-tui: {clean(message)}", file=sys.stderr)
        return 1
    finally:
        _show_rubric_warnings()


def _show_rubric_warnings() -> None:
    from judge_tui.cli.commands import show_rubric_warnings

    show_rubric_warnings()
