"""`judge-tui report`: the agreement report, or with --items the item-by-item listing."""

from __future__ import annotations

import argparse
import sys

from judge_tui.analysis.full_report import build_full_report
from judge_tui.analysis.item_report import item_rows
from judge_tui.analysis.judges import the_judge
from judge_tui.analysis.report import Group, ReportError, default_groups
from judge_tui.analysis.report_render.full import render_full
from judge_tui.analysis.report_render.items import (
    FORMAT_BY_SUFFIX,
    FORMATS,
    render_csv,
    render_jsonl,
    render_markdown,
)
from judge_tui.cli.commands import open_store, output_format, write_output
from judge_tui.cli.raters import parse_members, parse_raters
from judge_tui.formats.numbers import plural
from judge_tui.formats.terminal import PIPE_WIDTH, for_terminal
from judge_tui.model.errors import UserError
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import load_settings
from judge_tui.model.textsafe import clean
from judge_tui.store import Store
from judge_tui.store.rubric_choice import resolve_rubric


def pick_rubric(store: Store, name: str | None) -> Rubric:
    if name:
        return resolve_rubric(name, store)
    in_use = store.rubrics_in_use()
    if not in_use:
        raise ReportError(f"{store.path}: the database has no items yet; import some with "
                          "`judge-tui import FILE --rubric ID`, then ratings with `judge-tui import-ratings`")
    return resolve_rubric(in_use[0][0], store)


def judge_groups(args: argparse.Namespace, store: Store, rubric_id: str) -> tuple[Group | None, Group | None]:
    """The groups --raters names (which leaves nothing for --judge to name); else (None, None): the report
    compares every expert with the judge (judges.the_judge, or the one --judge names)."""
    if getattr(args, "raters", None):
        if getattr(args, "judge", None):
            raise UserError("--raters and --judge: --raters names both sides already; give one of them")
        return parse_raters(args.raters, store, rubric_id)
    return None, None


def run(args: argparse.Namespace) -> int:
    if getattr(args, "items", False):
        return run_items(args)
    settings = load_settings().agreement
    by = [f.strip() for f in (getattr(args, "by", None) or "").split(",") if f.strip()]
    fmt = getattr(args, "format", "text") or "text"
    if fmt in ("csv", "jsonl"):
        raise UserError(f"--format {fmt} is for the item-by-item listing: add --items")
    destination = getattr(args, "output", None)
    width = PIPE_WIDTH if destination else None  # a file gets every table at its full width
    with open_store(args, create=False) as store:
        rubric = pick_rubric(store, getattr(args, "rubric", None))
        human, judge = judge_groups(args, store, rubric.id)
        compare = getattr(args, "compare", None)
        if compare and getattr(args, "judge", None):
            raise UserError("--compare and --judge: --compare names the two judge versions it compares; give one "
                            "of them")
        members = parse_members(args.jury, store, rubric.id) if getattr(args, "jury", None) else None
        full = build_full_report(store, rubric, human=human, judge=judge, split=args.split, by=by,
                                 settings=settings, compare=tuple(compare) if compare else None, jury=members,
                                 named_judge=getattr(args, "judge", None))
        output = render_full(full, fmt, width)
    if destination:
        try:
            destination.write_text(output, encoding="utf-8")
        except OSError as exc:
            raise UserError(f"{destination}: cannot write the report ({exc.strerror})") from None
        print(f"wrote the report to {destination} ({fmt})", file=sys.stderr)
    else:
        print(for_terminal(output), end="" if output.endswith("\n") else "\n")
    return 0


def run_items(args: argparse.Namespace) -> int:
    """`report --items`: the rendering asked for (format from --format or the -o file's name; default CSV)."""
    fmt = output_format(args.format, args.output, FORMAT_BY_SUFFIX, "csv")
    if fmt not in FORMATS:
        raise UserError(f"--items writes {', '.join(FORMATS)} (or a file named .csv, .jsonl or .md), "
                        f"not --format {fmt}")
    settings = load_settings().agreement
    with open_store(args, create=False) as store:
        rubric = pick_rubric(store, args.rubric)
        human, judge = judge_groups(args, store, rubric.id)
        if human is None or judge is None:
            named = the_judge(store, rubric.id, args.judge) if getattr(args, "judge", None) else None
            human, judge = default_groups(store, rubric.id, Group("judge", (named.rater,)) if named else None)
        rows = item_rows(store, rubric, human, judge, args.split, settings)
    # On a terminal, nothing in a note may act on it (colours, titles, cursor moves); files keep the text exact.
    text = clean if args.output is None and sys.stdout.isatty() else str
    if fmt == "csv":
        output = render_csv(rows, text)
    elif fmt == "jsonl":
        output = render_jsonl(rows, text)
    else:
        output = render_markdown(rows, rubric, human, judge, settings)
    write_output(output, args.output, f"{plural(len(rows), 'item row')} ({fmt})")
    return 0
